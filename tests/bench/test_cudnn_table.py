"""benchmarks/cudnn_table.py, the issue-5 table from bench result files: its ratios are taken within one run,
and with ``--samples`` a point timed in several runs is reported as the median of its runs' ratios."""

import json
from pathlib import Path

import pytest

from .scripts import load_benchmark_script


@pytest.fixture(scope="module")
def cudnn_table():
    return load_benchmark_script("cudnn_table")


def _run_file(path: Path, flashio_fwd: float, cudnn_fwd: float) -> str:
    """A bench JSON file with one point (bf16, d=64, causal, 1k) and set forward rates."""
    rows = []
    for system, fwd in (("flashio", flashio_fwd), ("sdpa_cudnn", cudnn_fwd), ("sdpa_flash", 100.0)):
        for mode, tflops in (("fwd", fwd), ("bwd", 200.0), ("fwdbwd", 180.0)):
            rows.append(dict(system=system, mode=mode, dtype="bf16", head_dim=64, causal=True, seqlen=1024,
                             tflops=tflops))
    path.write_text(json.dumps({"ceilings": {"matmul_tflops": 700.0}, "results": rows}))
    return str(path)


def test_samples_report_the_median_of_each_run_s_own_ratio_with_its_range(cudnn_table, tmp_path, capsys):
    # Ratios 0.77, 0.90, 0.88 (flashio ÷ cuDNN within each run): median 0.88; each run's cuDNN differs, so
    # a median of the rates' ratio would differ from the median of the ratios.
    paths = [_run_file(tmp_path / "a.json", 231.0, 300.0), _run_file(tmp_path / "b.json", 270.0, 300.0),
             _run_file(tmp_path / "c.json", 308.0, 350.0)]
    assert cudnn_table.main(["--samples", *paths]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| bf16 "))
    assert "| 3 | 0.88 (0.77–0.90) |" in row


def test_a_ratio_below_the_milestone_is_marked(cudnn_table, tmp_path, capsys):
    cudnn_table.main(["--samples", _run_file(tmp_path / "a.json", 231.0, 300.0)])
    assert "| 1 | 0.77* |" in capsys.readouterr().out


def test_without_samples_a_point_in_several_files_takes_the_last_file_s_numbers(cudnn_table, tmp_path, capsys):
    paths = [_run_file(tmp_path / "a.json", 231.0, 300.0), _run_file(tmp_path / "b.json", 270.0, 300.0)]
    cudnn_table.main(paths)
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| bf16 "))
    assert "| 270 / 200 | 300 / 200 |" in row and "| 0.90 |" in row


def test_help_prints_the_usage_and_no_arguments_is_a_usage_error(cudnn_table, capsys):
    assert cudnn_table.main(["--help"]) == 0
    assert "--samples" in capsys.readouterr().out
    assert cudnn_table.main([]) == 2


def test_a_missing_result_file_is_an_error_naming_it(cudnn_table, tmp_path, capsys):
    assert cudnn_table.main(["--samples", str(tmp_path / "absent.json")]) == 2
    error = capsys.readouterr().err
    assert "no such result file" in error and "absent.json" in error


def test_a_point_counts_for_the_goal_only_at_or_above_cudnn_and_at_or_above_1_8x_fa2(cudnn_table):
    ratios = {"fwd ÷ cuDNN": [1.0, 1.2, 0.99], "fwd ÷ FA2": [1.8, 1.79, 2.0],
              "bwd ÷ cuDNN": [1.1, 1.1, 1.1], "bwd ÷ FA2": [1.9, 1.9, 1.9]}
    assert cudnn_table.goal_points(ratios, "fwd") == 1
    assert cudnn_table.goal_points(ratios, "bwd") == 3
