"""benchmarks/tuner_statistic.py: the points where the tuner's rematch would have chosen another form by its lowest
timing than by its median, read from bench files."""

import json

import pytest

from .scripts import load_benchmark_script


@pytest.fixture(scope="module")
def tuner_statistic():
    return load_benchmark_script("tuner_statistic")


def _bench_file(tmp_path, tuning: str, **fields):
    row = dict(system="flashio", mode="fwd", dtype="bf16", head_dim=128, causal=False, seqlen=1024, batch=16,
               heads=16, tuning=tuning, **fields)
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"results": [row, dict(row, mode="bwd")]}))
    return str(path)


def test_a_rematch_whose_median_and_lowest_timing_pick_different_forms_is_listed_once_per_point(
        tuner_statistic, tmp_path):
    # a: median 1.00, lowest 0.99; b: median 1.01, lowest 0.95 -> the median picks a, the lowest b.
    path = _bench_file(tmp_path, "forward: a 1.00/0.99/1.05 ms, b 1.01/0.95/1.02 ms, c 2.0 ms")
    (entry,) = tuner_statistic.disagreements([path])
    assert (entry["median_pick"], entry["lowest_pick"], entry["tuned"]) == ("a", "b", "forward")
    assert entry["recorded"] == {"a": [1.00, 0.99, 1.05], "b": [1.01, 0.95, 1.02]}


def test_a_rematch_on_which_both_statistics_agree_is_not_listed(tuner_statistic, tmp_path):
    path = _bench_file(tmp_path, "forward: a 1.00/0.99/1.05 ms, b 1.01/1.00/1.02 ms")
    assert tuner_statistic.disagreements([path]) == []


def test_candidates_timed_once_and_passes_no_whole_call_times_are_left_out(tuner_statistic, tmp_path):
    # Only a and b were rematched (three timings); c's single low timing does not count. backward_dq is a tile of
    # a backward strategy the call may not run: not timed by the script.
    path = _bench_file(tmp_path, "forward: a 1.00/0.99/1.05 ms, b 1.01/1.00/1.02 ms, c 0.5 ms | "
                                 "backward_dq: a 1.00/0.99/1.05 ms, b 1.01/0.95/1.02 ms")
    assert tuner_statistic.disagreements([path]) == []
