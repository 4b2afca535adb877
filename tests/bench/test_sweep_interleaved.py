"""The bench's interleaved timing (``flashio bench --timing interleaved``), checked with a stand-in for the
CUDA-event timer that records which call it was asked to time and hands back set durations: the order, the
counts and the arithmetic of the GPU path, without a GPU."""

import pytest

from flashio.bench import sweep
from flashio.cli import main

from .timing_stand_ins import prepared


class _RecordingTimer:
    """The CUDA-event timer's stand-in: ``time`` runs nothing, records the call's label and returns it as the
    handle; ``read`` gives each handle the duration ``durations[label]`` (ms)."""

    def __init__(self, durations: dict, failing: tuple = ()):
        self.durations, self.failing, self.labels = durations, failing, []

    def time(self, fn, leaves):
        if fn.label in self.failing:
            raise RuntimeError(f"{fn.label} broke")
        self.labels.append(fn.label)
        return fn.label

    def read(self, handles):
        return [self.durations[label] for label in handles]


def test_interleaved_timing_alternates_call_by_call_once_per_system_each_pass():
    timer = _RecordingTimer({"a fwd": 10.0, "b fwd": 10.0, "c fwd": 10.0})
    sweep._time_interleaved({name: prepared(name, False) for name in "abc"}, timer)
    # Three estimating calls each, then passes of one call per system.
    assert timer.labels[:9] == ["a fwd"] * 3 + ["b fwd"] * 3 + ["c fwd"] * 3
    passes = timer.labels[9:]
    assert len(passes) % 3 == 0
    assert all(sorted(passes[i:i + 3]) == ["a fwd", "b fwd", "c fwd"] for i in range(0, len(passes), 3))


def test_interleaved_timing_lets_every_system_follow_every_system_about_equally_often():
    # A call's time depends on the call before it (v0.33: flashio's forward 6% slower after FA2's), so no system
    # may mostly follow one neighbour, as it did when the order rotated by one each pass (n - 1 passes of n).
    timer = _RecordingTimer({"a fwd": 1.0, "b fwd": 1.0, "c fwd": 1.0})
    sweep._time_interleaved({name: prepared(name, False) for name in "abc"}, timer)
    passes = timer.labels[9:]
    for name in ("a fwd", "b fwd", "c fwd"):
        before = [passes[i - 1] for i in range(1, len(passes)) if passes[i] == name]
        shares = {other: before.count(other) / len(before) for other in ("a fwd", "b fwd", "c fwd") if other != name}
        # Shuffled passes: each other system precedes a call 4/9 of the time in expectation (the system itself 1/9,
        # last of one pass and first of the next); the rotation gave 2/3 and 1/3 with three systems, 3/4 and 1/4 to
        # the nearest with four. 0.3-0.6 over 120 passes holds unless the order favours one neighbour.
        assert len(before) >= 100 and all(0.3 < share < 0.6 for share in shares.values()), (name, shares)


def test_interleaved_timing_makes_the_slowest_system_s_calls_add_up_to_the_timed_budget():
    timer = _RecordingTimer({"a fwd": 0.5, "b fwd": 2.0})
    sweep._time_interleaved({"a": prepared("a", False), "b": prepared("b", False)}, timer)
    passes = timer.labels[6:]
    # Warm-up: ceil(25 ms / 2.5 ms per pass) = 10 passes; timed: 100 ms / 2.0 ms = 50 passes.
    assert passes.count("b fwd") == 10 + 50


def test_interleaved_timing_keeps_at_least_and_at_most_its_bounds_of_calls():
    slow = _RecordingTimer({"a fwd": 500.0})
    sweep._time_interleaved({"a": prepared("a", False)}, slow)
    assert slow.labels.count("a fwd") == 3 + 1 + sweep.INTERLEAVED_MIN_CALLS
    fast = _RecordingTimer({"a fwd": 0.001})
    sweep._time_interleaved({"a": prepared("a", False)}, fast)
    assert fast.labels.count("a fwd") == 3 + 2 * sweep.INTERLEAVED_MAX_CALLS


def test_interleaved_timing_reports_each_mode_s_median_and_the_backward_as_the_difference():
    timer = _RecordingTimer({"a fwd": 1.5, "a fwdbwd": 4.5, "b fwd": 2.0})
    times, failed = sweep._time_interleaved({"a": prepared("a", True), "b": prepared("b", False)}, timer)
    assert times == {"a": {"fwd": 1.5, "fwdbwd": 4.5, "bwd": 3.0}, "b": {"fwd": 2.0}} and failed == {}
    # Forward+backward passes come after all forward passes and hold only the systems that have one.
    first_backward = timer.labels.index("a fwdbwd")
    assert "b fwd" not in timer.labels[first_backward:] and "a fwd" not in timer.labels[first_backward:]


def test_a_system_whose_call_fails_is_reported_and_the_others_are_still_timed():
    timer = _RecordingTimer({"a fwd": 1.0}, failing=("b fwd",))
    times, failed = sweep._time_interleaved({"a": prepared("a", False), "b": prepared("b", False)}, timer)
    assert times == {"a": {"fwd": 1.0}}
    assert failed == {"b": "RuntimeError: b fwd broke"}


def test_run_sweep_rejects_rounds_with_interleaved_timing():
    with pytest.raises(ValueError, match="rounds: only timing 'blocks' takes rounds"):
        sweep.run_sweep([sweep.BenchPoint(64, 64)], ["flashio"], rounds=3, timing="interleaved", progress=False)


def test_run_sweep_rejects_an_unknown_timing_method():
    with pytest.raises(ValueError, match="timing: expected one of"):
        sweep.run_sweep([sweep.BenchPoint(64, 64)], ["flashio"], timing="sequential", progress=False)


def test_blocks_stay_the_sweep_s_default_timing():
    # Interleaving understates a system that would clock higher alone (v0.16: FA2's backward 5-7% slower
    # than in blocks), so it is opt-in; the performance log's grids up to v0.15 were timed in blocks.
    import inspect

    assert inspect.signature(sweep.run_sweep).parameters["timing"].default == "blocks"


def test_bench_command_rejects_rounds_with_interleaved_timing(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--timing", "interleaved", "--rounds", "3"])
    assert exit_info.value.code == 2
    assert "--rounds" in capsys.readouterr().err
