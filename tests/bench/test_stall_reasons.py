"""benchmarks/experiments/backward_limiter/stall_reasons.py: warp-stall samples summed by reason from ncu's source
page export."""

import csv
import gzip

from .scripts import load_benchmark_script


def _page(path, rows):
    header = ["Address", "Source", "Warp Stall Sampling (All Samples)", "stall_lg", "stall_no_inst",
              "stall_lg (Not Issued)"]
    with gzip.open(path, "wt", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["ncu preamble line"])
        writer.writerow(header)
        writer.writerows(rows)


def test_each_reason_is_summed_over_the_instructions_and_not_issued_columns_are_left_out(tmp_path):
    stall_reasons = load_benchmark_script("experiments/backward_limiter/stall_reasons")
    path = str(tmp_path / "page.csv.gz")
    _page(path, [["0x10", "STG.E [R2], R4", "9", "7", "2", "5"], ["0x20", "NOP", "3", "0", "3", "0"]])
    assert stall_reasons.reasons(path) == {"lg": 7.0, "no_inst": 5.0}


def test_the_comparison_prints_each_page_and_the_difference(tmp_path, capsys):
    stall_reasons = load_benchmark_script("experiments/backward_limiter/stall_reasons")
    first, second = str(tmp_path / "a.csv.gz"), str(tmp_path / "b.csv.gz")
    _page(first, [["0x10", "STG.E [R2], R4", "9", "7", "2", "5"]])
    _page(second, [["0x10", "STG.E [R2], R4", "1", "0", "1", "0"]])
    assert stall_reasons.main([first, second]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert lines["lg"].endswith("+7") and lines["no_inst"].endswith("+1") and lines["total"].endswith("+8")
