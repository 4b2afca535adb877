"""Shared fixtures of the report tests: reports built once per test session, shared by xdist workers.

Building a report without the smoke run takes 15–20 s on two cores, so each kind (CPU, GPU with a fake
benchmark) is built once into the session's base temporary folder under a file lock, and every worker
reads the same files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from filelock import FileLock

from flashio.bench.sweep import BenchResult

FAKE_DEVICE = "NVIDIA H200"
FAKE_SEQLENS = (1024, 4096)
FAKE_HEAD_DIMS = (64, 128)
FAKE_MODES = ("fwd", "bwd", "fwdbwd")


def _shared_folder(tmp_path_factory, name: str, build) -> Path:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    root = tmp_path_factory.getbasetemp().parent if worker else tmp_path_factory.getbasetemp()
    folder = root / name
    with FileLock(str(root / f"{name}.lock")):
        if not (folder / "built.json").exists():
            folder.mkdir(parents=True, exist_ok=True)
            outcome = build(folder)
            (folder / "built.json").write_text(json.dumps(outcome))
    return folder


# Synthetic rows use the bench's own result type, so the report is tested against the real fields.
FakeBenchResult = BenchResult


def fake_results() -> list[FakeBenchResult]:
    """Synthetic sweep: standard, flashio and sdpa_flash measured, sdpa_cudnn skipped with a reason."""
    rows = []
    for head_dim in FAKE_HEAD_DIMS:
        for causal in (False, True):
            for seqlen in FAKE_SEQLENS:
                batch, heads = 16384 // seqlen, 2048 // head_dim
                flops = 4.0 * batch * heads * seqlen**2 * head_dim / (2 if causal else 1)
                for mode, factor in zip(FAKE_MODES, (1.0, 2.5, 3.5)):
                    standard_ms = factor * seqlen / 200
                    for system, speedup in (("standard", 1.0), ("flashio", 4.0), ("sdpa_flash", 3.0)):
                        time_ms = standard_ms / speedup
                        rows.append(FakeBenchResult(system, mode, seqlen, head_dim, batch, heads, causal, "bf16", 0.0,
                                                    False, time_ms, factor * flops / time_ms / 1e9, speedup, 0.5,
                                                    1e-3))
                    rows.append(FakeBenchResult("sdpa_cudnn", mode, seqlen, head_dim, batch, heads, causal, "bf16",
                                                0.0, False, status="skipped", reason="cuDNN attention not available"))
    return rows


def fake_bench() -> SimpleNamespace:
    """A stand-in for the flashio.bench module with the API the report uses."""
    return SimpleNamespace(
        environment=lambda: {"gpu": FAKE_DEVICE, "torch": "fake"},
        measure_ceilings=lambda: {"copy_tb_s": 4.3, "matmul_tflops": 750.0},
        report_points=lambda: ["point"] * 8,
        REPORT_SYSTEMS=("flashio", "standard", "sdpa_flash", "sdpa_cudnn"),
        run_sweep=lambda points, systems, progress=True: fake_results(),
    )


@pytest.fixture(scope="session")
def cpu_report(tmp_path_factory) -> Path:
    """A report written by ``flashio report --no-smoke --no-bench`` (the CPU report's content)."""
    from flashio.cli import main

    def build(folder: Path) -> dict:
        return {"exit_code": main(["report", "--out", str(folder), "--no-smoke", "--no-bench"])}

    return _shared_folder(tmp_path_factory, "cpu_report", build)


def _stub_section(title: str, data: dict):
    """A stand-in for a model section (those are tested through ``cpu_report``): a heading and raw data."""
    from flashio.report.document import Heading

    def section(doc, out):
        doc.add(Heading(2, title))
        return data

    return section


@pytest.fixture(scope="session")
def gpu_report(tmp_path_factory) -> Path:
    """A report built as on an H200, with the benchmark replaced by ``fake_bench`` and the model's
    sections (15 s, covered by ``cpu_report``) by stubs."""
    from flashio.report import builder, measured

    def build(folder: Path) -> dict:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(measured, "load_bench", fake_bench)
            patch.setattr(builder, "predictions_section",
                          _stub_section("Predicted speedup on every GPU", {"speedups": [{"gpu": "stub"}]}))
            patch.setattr(builder, "explanation_section", _stub_section("Why: bandwidth, SRAM or FLOPs?", {}))
            patch.setattr(builder, "io_section", _stub_section("IO: block size and Theorem 2", {}))
            result = builder.build_report(builder.ReportOptions(folder, smoke=False), device_name=FAKE_DEVICE)
        return {"bench_error": result.bench_error}

    return _shared_folder(tmp_path_factory, "gpu_report", build)
