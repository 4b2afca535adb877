"""The bench's sustained timing (``flashio bench --timing sustained``), checked with a stand-in for the
CUDA-event timer that records what it was asked to run and hands back set durations: the order, the run
lengths and the arithmetic of the GPU path, without a GPU."""

import pytest

from flashio.bench import sweep

from .timing_stand_ins import prepared


class _RecordingTimer:
    """The CUDA-event timer's stand-in: a single call (``time``) or a run of back-to-back calls
    (``time_run``) is recorded as (label, calls) and read as ``durations[label]`` per call."""

    def __init__(self, durations: dict, failing: tuple = ()):
        self.durations, self.failing, self.runs = durations, failing, []

    def time(self, fn, leaves):
        return self.time_run(fn, leaves, 1, single=True)

    def time_run(self, fn, leaves, calls, single=False):
        if fn.label in self.failing:
            raise RuntimeError(f"{fn.label} broke")
        self.runs.append((fn.label, calls, "single" if single else "run"))
        return fn.label, calls

    def read(self, handles):
        return [self.durations[label] * calls for label, calls in handles]


def test_sustained_timing_runs_each_system_alone_forward_then_forward_backward():
    timer = _RecordingTimer({"a fwd": 1.0, "a fwdbwd": 3.0, "b fwd": 2.0})
    sweep._time_sustained({"a": prepared("a", True), "b": prepared("b", False)}, timer)
    labels = [label for label, _, _ in timer.runs]
    # All of a's runs, forward first, then all of b's: no system starts at a clock another one left it.
    assert labels == sorted(labels, key=["a fwd", "a fwdbwd", "b fwd"].index)


def test_sustained_timing_warms_up_for_a_second_then_times_runs_of_10_ms():
    # v0.24: 300 ms of warm-up left the first system timed at a point in the clock's settling (sweep.py).
    timer = _RecordingTimer({"a fwd": 0.5})
    sweep._time_sustained({"a": prepared("a", False)}, timer)
    singles = [run for run in timer.runs if run[2] == "single"]
    warmup, *timed = [calls for _, calls, kind in timer.runs if kind == "run"]
    assert len(singles) == 3  # the estimate
    assert warmup == 2000  # 1000 ms / 0.5 ms
    assert set(timed) == {20}  # 10 ms runs of 0.5 ms calls
    assert len(timed) == 10  # 100 ms of them


def test_a_call_longer_than_a_run_is_timed_alone_at_least_five_times():
    timer = _RecordingTimer({"a fwd": 500.0})
    sweep._time_sustained({"a": prepared("a", False)}, timer)
    warmup, *timed = [calls for _, calls, kind in timer.runs if kind == "run"]
    assert warmup == 2 and timed == [1] * sweep.SUSTAINED_MIN_RUNS  # warm-up: 1000 ms of 500 ms calls


def test_sustained_timing_reports_the_time_per_call_and_the_backward_as_the_difference():
    timer = _RecordingTimer({"a fwd": 1.5, "a fwdbwd": 4.5, "b fwd": 2.0})
    times, failed = sweep._time_sustained({"a": prepared("a", True), "b": prepared("b", False)}, timer)
    assert times == {"a": {"fwd": 1.5, "fwdbwd": 4.5, "bwd": 3.0}, "b": {"fwd": 2.0}} and failed == {}


def test_a_system_whose_call_fails_is_reported_and_the_others_are_still_timed():
    timer = _RecordingTimer({"b fwd": 1.0}, failing=("a fwd",))
    times, failed = sweep._time_sustained({"a": prepared("a", False), "b": prepared("b", False)}, timer)
    assert times == {"b": {"fwd": 1.0}} and failed == {"a": "RuntimeError: a fwd broke"}


def test_run_sweep_rejects_rounds_with_sustained_timing():
    with pytest.raises(ValueError, match="rounds: only timing 'blocks' takes rounds"):
        sweep.run_sweep([sweep.BenchPoint(64, 64)], ["flashio"], rounds=2, timing="sustained", progress=False)


def test_result_files_record_the_sustained_warm_up_not_the_blocks_one():
    assert sweep.timing_record("sustained", 1) == {"method": "sustained", "rounds": 1,
                                                   "warmup_ms": sweep.SUSTAINED_WARMUP_MS, "timed_ms": sweep.TIMED_MS}
    assert sweep.timing_record("blocks", 3)["warmup_ms"] == sweep.WARMUP_MS
    assert sweep.timing_record("interleaved", 1)["warmup_ms"] == sweep.WARMUP_MS


def test_timing_record_rejects_an_unknown_method_by_name():
    with pytest.raises(ValueError, match="timing: expected one of"):
        sweep.timing_record("bursts", 1)
