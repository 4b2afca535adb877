"""The GPU branch of the report with a fake benchmark: measured versus predicted, device mapping."""

from __future__ import annotations

import json
import math
import re

import pytest

from flashio.model.gpus import get_gpu
from flashio.model.timing import Workload, predict
from flashio.report import measured
from flashio.report.builder import measured_section
from flashio.report.document import Document
from flashio.report.measured import compare, gpu_slug_for_device

from .conftest import FAKE_DEVICE, fake_bench, fake_results


def _markdown(folder) -> str:
    return (folder / "report.md").read_text()


def test_measured_section_comes_first_and_names_the_device(gpu_report):
    headings = [line for line in _markdown(gpu_report).splitlines() if line.startswith("## ")]
    assert headings[0] == f"## Measured on this GPU: {FAKE_DEVICE}"


@pytest.mark.parametrize("name", ["measured_vs_predicted_speedup.png", "measured_vs_predicted_tflops.png",
                                  "bench.csv", "bench.json"])
def test_gpu_files_are_written(gpu_report, name):
    assert (gpu_report / name).stat().st_size > 0


def test_measured_plots_are_embedded(gpu_report):
    markdown = _markdown(gpu_report)
    assert "(measured_vs_predicted_speedup.png)" in markdown and "(measured_vs_predicted_tflops.png)" in markdown


def test_bench_json_keeps_every_result_and_the_slug(gpu_report):
    data = json.loads((gpu_report / "bench.json").read_text())
    assert (data["gpu_slug"], len(data["results"])) == ("h200", len(fake_results()))


def test_comparison_table_holds_the_prediction_for_the_measured_shape(gpu_report):
    expected = predict(get_gpu("h200"), Workload(4, 32, 4096, 64, dtype="bf16"), "fwd", "flashio").speedup
    row = next(line for line in _markdown(gpu_report).splitlines() if line.startswith("| fwd | 64 | no | plain | 4k |"))
    flashio_cell = row.split("|")[7].strip()
    assert flashio_cell.startswith(f"4.00 / {expected:.2f} (")


def test_agreement_summary_per_predicted_system(gpu_report):
    markdown = _markdown(gpu_report)
    assert re.search(r"\*\*flashio\*\*: predicted speedup within ±15% of the measured one at \d+ of 24 points",
                     markdown)


def test_skipped_system_is_listed_with_its_reason(gpu_report):
    assert "sdpa_cudnn (skipped): cuDNN attention not available" in _markdown(gpu_report)


def test_ceilings_are_reported(gpu_report):
    assert "copy bandwidth 4.30 TB/s = 90% of the datasheet's 4.80 TB/s" in _markdown(gpu_report)


def test_model_sections_follow_the_measurements(gpu_report):
    headings = [line for line in _markdown(gpu_report).splitlines() if line.startswith("## ")]
    assert headings[1] == "## Predicted speedup on every GPU"


@pytest.fixture(scope="module")
def unknown_device(tmp_path_factory):
    """The measured section for a GPU the database does not hold: (raw data, Markdown, folder)."""
    folder = tmp_path_factory.mktemp("unknown_device")
    doc = Document("t")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(measured, "load_bench", fake_bench)
        data = measured_section(doc, folder, "Mystery Accelerator 9000", None, lambda message: None)
    return data, doc.to_markdown(), folder


def test_unknown_device_is_reported_as_measured_only(unknown_device):
    data, markdown, _ = unknown_device
    assert data["gpu_slug"] is None and "is not in the GPU database" in markdown


def test_unknown_device_still_plots_the_measurements(unknown_device):
    assert (unknown_device[2] / "measured_vs_predicted_speedup.png").exists()


def test_unknown_device_has_no_predictions(unknown_device):
    assert all(point["predicted_speedup"] is None for point in unknown_device[0]["compared"])


def test_missing_bench_module_is_reported_not_raised(tmp_path, monkeypatch):
    def no_bench():
        raise ImportError("No module named 'flashio.bench'")

    monkeypatch.setattr(measured, "load_bench", no_bench)
    doc = Document("t")
    data = measured_section(doc, tmp_path, FAKE_DEVICE, None, lambda message: None)
    assert "could not be imported" in data["error"] and "did not complete" in doc.to_markdown()


def test_failing_sweep_is_reported_not_raised(tmp_path, monkeypatch):
    def broken(points, systems, progress=True):
        raise RuntimeError("CUDA error: illegal memory access")

    bench = fake_bench()
    bench.run_sweep = broken
    monkeypatch.setattr(measured, "load_bench", lambda: bench)
    data = measured_section(Document("t"), tmp_path, FAKE_DEVICE, None, lambda message: None)
    assert "illegal memory access" in data["error"]


@pytest.mark.parametrize("device, slug", [
    ("NVIDIA H200", "h200"), ("NVIDIA H200 SXM", "h200"), ("NVIDIA H100 80GB HBM3", "h100-sxm"),
    ("NVIDIA H100 PCIe", "h100-pcie"), ("NVIDIA A100-SXM4-40GB", "a100-40gb"), ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
    ("Tesla T4", "t4"), ("NVIDIA L4", "l4"), ("NVIDIA L40S", "l40s"), ("NVIDIA GeForce RTX 3090", "rtx3090"),
    ("Tesla V100-SXM2-32GB", "v100"), ("AMD Instinct MI300X", "mi300x"), ("NVIDIA H100 NVL", None),
    ("NVIDIA L40", None), ("Mystery Accelerator 9000", None),
])
def test_device_name_maps_to_database_slug(device, slug):
    assert gpu_slug_for_device(device) == slug


def test_standard_attention_is_compared_with_the_standard_path():
    row = next(r.to_dict() for r in fake_results() if r.system == "standard")
    (point,) = compare([row], get_gpu("h200"))
    workload = Workload(row["batch"], row["heads"], row["seqlen"], row["head_dim"], row["causal"], dtype="bf16")
    expected = predict(get_gpu("h200"), workload, row["mode"], "flashio").standard.time_s * 1e3
    assert point.predicted_ms == pytest.approx(expected)


def test_sdpa_flash_is_predicted_by_the_fa2_model():
    row = next(r.to_dict() for r in fake_results() if r.system == "sdpa_flash")
    (point,) = compare([row], get_gpu("h200"))
    workload = Workload(row["batch"], row["heads"], row["seqlen"], row["head_dim"], row["causal"], dtype="bf16")
    assert point.predicted_speedup == pytest.approx(predict(get_gpu("h200"), workload, row["mode"], "fa2").speedup)


def test_skipped_and_nan_results_are_left_out_of_the_comparison():
    rows = [r.to_dict() for r in fake_results() if r.system in ("sdpa_cudnn",)]
    nan_row = dict(next(r.to_dict() for r in fake_results() if r.system == "flashio"), time_ms=math.nan)
    assert compare(rows + [nan_row], get_gpu("h200")) == []
