"""The bench's timing in alternate rounds (``flashio bench --rounds``), checked with a stand-in for
``triton.testing.do_bench`` that records what it was asked to time: the GPU path's order and arithmetic,
without a GPU."""

import pytest
import triton.testing

from flashio.bench import sweep
from flashio.cli import main

from .timing_stand_ins import prepared


class _RecordingBench:
    """do_bench's stand-in: returns the next of ``times[label]`` for the callable labelled ``label`` and
    records (label, warmup, rep) per call."""

    def __init__(self, times: dict):
        self.times = {label: list(values) for label, values in times.items()}
        self.calls = []

    def __call__(self, fn, warmup, rep, return_mode, grad_to_none=None):
        assert return_mode == "median"
        label = fn.label
        self.calls.append((label, warmup, rep))
        return self.times[label].pop(0)


def test_rounds_alternate_the_systems_and_keep_each_mode_s_median_block(monkeypatch):
    bench = _RecordingBench({"a fwd": [1.0, 3.0, 2.0], "a fwdbwd": [4.0, 6.0, 5.0], "b fwd": [7.0, 9.0, 8.0]})
    monkeypatch.setattr(triton.testing, "do_bench", bench)
    times, failed = sweep._time_in_rounds({"a": prepared("a", True), "b": prepared("b", False)}, rounds=3)
    # Round-major: every system once per round, so a drift of the clock falls on all of them alike.
    assert [label for label, _, _ in bench.calls] == ["a fwd", "a fwdbwd", "b fwd"] * 3
    # Each block is a third of the 100 ms (and of the 25 ms warm-up, at least 5 ms).
    assert {(warmup, rep) for _, warmup, rep in bench.calls} == {(8, 33)}
    assert times == {"a": {"fwd": 2.0, "fwdbwd": 5.0, "bwd": 3.0}, "b": {"fwd": 8.0}} and failed == {}


def test_one_round_times_each_system_once_for_the_full_block(monkeypatch):
    bench = _RecordingBench({"a fwd": [1.5], "a fwdbwd": [4.5]})
    monkeypatch.setattr(triton.testing, "do_bench", bench)
    times, failed = sweep._time_in_rounds({"a": prepared("a", True)}, rounds=1)
    assert bench.calls == [("a fwd", 25, 100), ("a fwdbwd", 25, 100)]
    assert times == {"a": {"fwd": 1.5, "fwdbwd": 4.5, "bwd": 3.0}} and failed == {}


def test_a_system_whose_timing_fails_is_reported_and_left_out_of_later_rounds(monkeypatch):
    bench = _RecordingBench({"a fwd": [1.0, 1.0], "b fwd": []})  # b's first timing raises (IndexError)
    monkeypatch.setattr(triton.testing, "do_bench", bench)
    times, failed = sweep._time_in_rounds({"a": prepared("a", False), "b": prepared("b", False)}, rounds=2)
    assert [label for label, _, _ in bench.calls] == ["a fwd", "b fwd", "a fwd"]
    assert times == {"a": {"fwd": 1.0}} and failed == {"b": "IndexError: pop from empty list"}


@pytest.mark.parametrize("rounds", [0, -2, 1.5])
def test_run_sweep_rejects_a_number_of_rounds_that_is_not_a_positive_integer(rounds):
    with pytest.raises(ValueError, match="rounds: expected a positive integer"):
        sweep.run_sweep([sweep.BenchPoint(64, 64)], ["flashio"], rounds=rounds, progress=False)


def test_bench_command_rejects_zero_rounds(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--rounds", "0"])
    assert exit_info.value.code == 2
    assert "positive integer" in capsys.readouterr().err
