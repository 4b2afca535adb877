"""`flashio bench` on a machine without a GPU: argument errors, the no-GPU message, and the interpreter
path, where GPU-only systems are recorded as skipped with their reason."""

import json
import math

import pytest
import torch

from flashio.bench import BenchPoint, grid, run_sweep
from flashio.cli import main

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="these tests describe a machine without a GPU")


def test_bench_without_gpu_says_so_and_exits_2(capsys):
    assert main(["bench"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err


@pytest.mark.parametrize("argv, fragment", [
    (["bench", "--seqlens", "0"], "positive integer"),
    (["bench", "--dropout", "1.5"], "dropout probability"),
    (["bench", "--systems", "nope"], "invalid choice"),
    (["bench", "--causal", "maybe"], "invalid choice"),
])
def test_bench_rejects_bad_arguments_with_exit_code_2(argv, fragment, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert fragment in capsys.readouterr().err


def test_bench_interpret_refuses_long_sequences(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--interpret", "--seqlens", "4096"])
    assert exit_info.value.code == 2
    assert "at most N=512" in capsys.readouterr().err


def test_bench_rejects_an_out_path_that_is_a_file(tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("x")
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--out", str(target)])
    assert exit_info.value.code == 2
    assert "--out" in capsys.readouterr().err


def test_interpreted_sweep_records_gpu_only_systems_as_skipped_with_reason():
    points = [BenchPoint(seqlen=40, head_dim=16, causal=True, tokens=80, hidden=32)]
    results = run_sweep(points, ["flashio", "standard", "sdpa_cudnn", "flex"], modes=("fwd", "bwd"),
                        progress=False)
    by_system = {(r.system, r.mode): r for r in results}
    for system in ("sdpa_cudnn", "flex"):
        row = by_system[(system, "fwd")]
        assert row.status == "skipped" and row.reason == "needs a CUDA GPU" and math.isnan(row.time_ms)
    for system in ("flashio", "standard"):
        row = by_system[(system, "bwd")]
        assert row.status == "ok" and row.time_ms > 0
        # bf16 outputs against the float32 reference: a few bf16 rounding steps at magnitude ~1.
        assert row.max_abs_error < 3e-2
    assert by_system[("standard", "fwd")].speedup_vs_standard == pytest.approx(1.0)


def test_interpreted_sweep_with_key_padding_runs_flashio_packed():
    points = [BenchPoint(seqlen=48, head_dim=16, padding=True, batch=2, heads=2)]
    results = run_sweep(points, ["flashio", "standard", "sdpa_flash"], modes=("fwd",), progress=False)
    by_system = {r.system: r for r in results}
    assert by_system["flashio"].status == "ok"
    # Both compare against the float32 reference with the same key padding, on the real rows only.
    assert by_system["flashio"].max_abs_error < 3e-2
    assert by_system["sdpa_flash"].status == "skipped"


def test_bench_interpret_writes_csv_and_json_with_environment(tmp_path):
    out = tmp_path / "results"
    code = main(["bench", "--interpret", "--seqlens", "32", "--head-dims", "16", "--causal", "no",
                 "--systems", "flashio", "standard", "sdpa_flash", "--modes", "fwd", "--no-progress",
                 "--out", str(out)])
    assert code == 0
    payload = json.loads((out / "bench.json").read_text())
    assert payload["environment"]["torch"] == torch.__version__
    assert payload["timing"] is None  # interpreted: one wall-clock call per mode, no GPU timing method
    assert {r["system"] for r in payload["results"]} == {"flashio", "standard", "sdpa_flash"}
    header = (out / "bench.csv").read_text().splitlines()[0].split(",")
    assert {"system", "mode", "time_ms", "tflops", "status", "reason"} <= set(header)


def test_grid_is_the_product_of_its_axes():
    points = grid([1024, 2048], [64, 128], [False, True], dtypes=["bf16", "fp16"])
    assert len(points) == 16
    assert {(p.resolved_batch, p.resolved_heads) for p in points if p.seqlen == 2048 and p.head_dim == 128} == {(8, 16)}


def test_flop_convention_halves_causal_and_scales_backward():
    point = BenchPoint(seqlen=1024, head_dim=64, causal=False)
    causal = BenchPoint(seqlen=1024, head_dim=64, causal=True)
    assert point.flops("fwd") == 4 * 16 * 32 * 1024**2 * 64
    assert causal.flops("fwd") == point.flops("fwd") / 2
    assert point.flops("bwd") == 2.5 * point.flops("fwd")
    assert point.flops("fwdbwd") == 3.5 * point.flops("fwd")
