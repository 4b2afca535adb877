"""The CPU report (no GPU, no benchmark): its files, tables, numbers, sentences and HTML."""

from __future__ import annotations

import csv
import json
import re

import pytest

from flashio.model.explain import explain
from flashio.model.gpus import GPUS, get_gpu
from flashio.model.timing import Workload, predict
from flashio.report.explanation import EXPLAIN_WORKLOAD
from flashio.report.predictions import FA1_HEAD_DIM, SEQLENS, SETUPS

SPEEDUP_TABLE = "Predicted speedup (×), flashio kernels (FlashAttention-2 design), batch 8 × 12 heads, d=64, plain"


def _markdown(folder) -> str:
    return (folder / "report.md").read_text()


def _table_after(markdown: str, caption: str) -> list[list[str]]:
    """Rows (cells) of the Markdown table that follows the caption line."""
    lines = markdown[markdown.index(caption):].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[2:]  # without header and rule


def test_cli_exit_code_is_0(cpu_report):
    assert json.loads((cpu_report / "built.json").read_text())["exit_code"] == 0


@pytest.mark.parametrize("name", ["report.md", "report.html", "predictions.csv", "predictions.json"])
def test_output_file_exists_and_is_not_empty(cpu_report, name):
    assert (cpu_report / name).stat().st_size > 0


def test_every_embedded_png_exists(cpu_report):
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", _markdown(cpu_report))
    assert len(images) >= 8
    assert all((cpu_report / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for image in images)


def test_no_benchmark_files_without_gpu(cpu_report):
    assert not (cpu_report / "bench.csv").exists() and not (cpu_report / "bench.json").exists()


def test_speedup_table_has_a_row_for_every_database_gpu(cpu_report):
    rows = _table_after(_markdown(cpu_report), SPEEDUP_TABLE)
    names = [row[0].replace(" †", "") for row in rows]
    assert names == [spec.full_name for spec in GPUS.values()]


def test_speedup_table_numbers_are_the_model_predictions(cpu_report):
    rows = {row[0].replace(" †", ""): row for row in _table_after(_markdown(cpu_report), SPEEDUP_TABLE)}
    column = 1 + SEQLENS.index(1024)
    for spec in GPUS.values():
        expected = predict(spec, Workload(8, 12, 1024, 64, dtype="fp16"), "fwdbwd", "flashio").speedup
        assert rows[spec.full_name][column] == f"{expected:.2f}"


def test_unchecked_gpus_carry_a_dagger(cpu_report):
    rows = _table_after(_markdown(cpu_report), SPEEDUP_TABLE)
    marked = {row[0].replace(" †", "") for row in rows if row[0].endswith("†")}
    assert marked == {spec.full_name for spec in GPUS.values() if not spec.checked}


def test_explanation_table_has_the_model_elasticities(cpu_report):
    rows = {row[0].replace(" †", ""): row
            for row in _table_after(_markdown(cpu_report), "Elasticities of the predicted speedup")}
    t4 = explain(get_gpu("t4"), EXPLAIN_WORKLOAD, "fwdbwd", "flashio")
    assert rows["NVIDIA T4"][1:5] == [f"{t4.speedup:.2f}", f"{t4.elasticities['bandwidth']:.2f}",
                                      f"{t4.elasticities['sram']:.2f}", f"{t4.elasticities['tensor_flops']:.2f}"]


def test_one_driver_sentence_per_gpu(cpu_report):
    section = _markdown(cpu_report).split("### Which factor drives the speedup")[1].split("With FA1")[0]
    assert all(f"- **{spec.full_name}** — " in section for spec in GPUS.values())


def test_driver_sentences_name_a_factor(cpu_report):
    section = _markdown(cpu_report).split("### Which factor drives the speedup")[1].split("Elasticities of")[0]
    sentences = [line for line in section.splitlines() if line.startswith("- **")]
    assert all("driven by" in s or "no single figure" in s for s in sentences)


@pytest.mark.parametrize("claim", ["Claim 1. lower HBM bandwidth → larger speedup",
                                   "Claim 2. larger SRAM → larger speedup", "Claim 3. FLOPs matter little"])
def test_claim_verdict_sentence_is_present(cpu_report, claim):
    line = next(line for line in _markdown(cpu_report).splitlines() if claim in line)
    assert re.search(r"holds on \d+ of 13 GPUs", line)


def test_seed_comparison_lists_the_three_paper_gpus(cpu_report):
    section = _markdown(cpu_report).split("### The seed's comparison")[1].split("## Why")[0]
    verdicts = [line for line in section.splitlines() if line.startswith("- **")]
    assert [line.split("**")[1] for line in verdicts] == ["A100", "RTX 3090", "T4"]


def test_io_section_shows_simulator_equal_to_analytic(cpu_report):
    rows = _table_after(_markdown(cpu_report), "Figure 2 (middle) in kind")
    assert [row[0] for row in rows] == ["64", "128", "256", "512"]
    assert all(row[2] == row[3] for row in rows)  # analytic GB == simulated GB


def test_markdown_tells_how_to_get_measurements(cpu_report):
    assert "Run `flashio report` on a GPU" in _markdown(cpu_report)


def test_html_is_self_contained(cpu_report):
    page = (cpu_report / "report.html").read_text()
    assert 'src="http' not in page and "<link" not in page and "<script" not in page


def test_html_inlines_every_figure_as_a_data_uri(cpu_report):
    page = (cpu_report / "report.html").read_text()
    sources = re.findall(r'<img src="([^"]+)"', page)
    figures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", _markdown(cpu_report))
    assert len(sources) == len(figures) and all(s.startswith("data:image/png;base64,") for s in sources)


def test_html_holds_the_speedup_table(cpu_report):
    page = (cpu_report / "report.html").read_text()
    assert "<table><caption>" + SPEEDUP_TABLE in page


def test_predictions_csv_has_every_gpu_setup_and_length_for_both_kernels(cpu_report):
    with (cpu_report / "predictions.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    fa1_setups = [s for s in SETUPS if s.head_dim == FA1_HEAD_DIM]
    assert len(rows) == len(GPUS) * (len(SETUPS) + len(fa1_setups)) * len(SEQLENS)
    assert {"gpu", "kernel", "seqlen", "speedup", "standard_ms", "flash_ms"} <= set(rows[0])


def test_predictions_json_holds_every_section(cpu_report):
    data = json.loads((cpu_report / "predictions.json").read_text())
    assert {"speedups", "seed_comparison", "explanations", "factor_sweeps", "block_size",
            "theorem2_vs_seqlen", "theorem2_grid"} <= set(data)
