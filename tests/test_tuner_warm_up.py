"""How the tuner meets the GPU's moving clock: its warm-up (launchers._warm_up_gpu, configs.TUNING_WARMUP_MS) keeps
the GPU busy with a candidate, untimed, before the first timing of a key, so that no candidate is timed at the higher
clock of a GPU that has been idle; its rematch times the leaders call by call in shuffled turns
(launchers._time_alternately_ms). The GPU and the clock are stand-ins here: a clock that advances a fixed step per
kernel call."""

from types import SimpleNamespace

import pytest
import torch
import triton

from flashio import configs, launch_plans, launchers


class _Clock:
    """A host clock that advances ``step`` seconds per recorded kernel call."""

    def __init__(self, start: float = 100.0, step: float = 0.001):
        self.now, self.step = start, step

    def __call__(self) -> float:
        return self.now

    def kernel(self, record: list, name: str):
        def run():
            record.append(name)
            self.now += self.step
        return run


@pytest.fixture
def idle_gpu(monkeypatch):
    """The tuner has not had the GPU busy for a long time."""
    monkeypatch.setattr(launchers, "_LAST_TIMING_END", [float("-inf")])


def test_an_idle_gpu_is_kept_busy_for_the_warm_up_time_with_the_first_candidate(idle_gpu):
    clock, calls, syncs = _Clock(step=0.001), [], []
    spent = launchers._warm_up_gpu([clock.kernel(calls, "first"), clock.kernel(calls, "second")], clock=clock,
                                   synchronize=lambda: syncs.append(clock.now), calls_per_sync=8)
    # 1 ms per call: the loop stops at the first synchronisation at or past TUNING_WARMUP_MS.
    expected_calls = -(-configs.TUNING_WARMUP_MS // 8) * 8
    assert set(calls) == {"first"} and len(calls) == expected_calls
    assert len(syncs) == expected_calls // 8
    assert spent == pytest.approx(expected_calls * 0.001)
    assert launchers._LAST_TIMING_END[0] == clock.now


def test_each_warm_up_is_counted_with_its_time(idle_gpu, monkeypatch):
    monkeypatch.setattr(launchers, "_WARM_UPS", {"count": 0, "seconds": 0.0})
    clock = _Clock(step=0.01)
    launchers._warm_up_gpu([clock.kernel([], "first")], clock=clock, synchronize=lambda: None)
    count, seconds = launchers.tuning_warm_ups()
    assert count == 1 and seconds >= configs.TUNING_WARMUP_MS / 1e3


def test_a_candidate_that_does_not_fit_is_skipped_for_the_next(idle_gpu):
    clock, calls = _Clock(), []

    def out_of_resources():
        raise triton.runtime.errors.OutOfResources(300_000, 232_448, "shared memory")

    launchers._warm_up_gpu([out_of_resources, clock.kernel(calls, "second")], clock=clock, synchronize=lambda: None)
    assert calls and set(calls) == {"second"}


def test_no_warm_up_runs_right_after_a_timing(monkeypatch):
    clock, calls = _Clock(start=100.0), []
    # A timing ended half the idle gap ago: the GPU is still busy-warm (a backward's keys one after the other).
    monkeypatch.setattr(launchers, "_LAST_TIMING_END", [100.0 - configs.TUNING_IDLE_S / 2])
    spent = launchers._warm_up_gpu([clock.kernel(calls, "first")], clock=clock, synchronize=lambda: None)
    assert calls == [] and spent == 0.0


def test_a_timing_marks_the_gpu_busy(monkeypatch):
    monkeypatch.setattr(launchers, "_LAST_TIMING_END", [float("-inf")])
    monkeypatch.setattr(triton.testing, "do_bench", lambda run, **options: 0.5)
    assert launchers._time_ms(lambda: None) == 0.5
    assert launchers._LAST_TIMING_END[0] > float("-inf")


def test_the_launchers_tuned_choice_warms_up_with_the_candidates_it_times(monkeypatch):
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    monkeypatch.setenv("FLASHIO_TUNING_CACHE", "off")
    monkeypatch.setattr(launchers, "device_capability", lambda device: (8, 0))
    monkeypatch.setattr(launchers, "device_name", lambda device: "a GPU")
    monkeypatch.setattr(launch_plans, "compile_concurrently", lambda jobs, more=None: None)
    events = []
    monkeypatch.setattr(launchers, "_time_ms", lambda run: (events.append("timed"), 1.0)[1])
    monkeypatch.setattr(launchers, "_time_alternately_ms", lambda runs: (events.append("rematch"), [1.0] * len(runs))[1])

    def warm_up(runs):
        events.append("warm-up")
        for run in runs:
            run()

    monkeypatch.setattr(launchers, "_warm_up_gpu", warm_up)
    # The candidates' launches timed as they are (with replays each would also be run once and captured, which
    # tests/test_tuner_replays.py covers).
    monkeypatch.setenv("FLASHIO_TUNE_REPLAYS", "0")
    configs.clear_choices()
    # A stand-in for a GPU tensor; its device is a real one that no CUDA graph can be capturing on.
    q = SimpleNamespace(is_cuda=True, device=torch.device("meta"), dtype=torch.bfloat16)
    problem = launchers.describe(torch.empty(1, 2, 256, 64), torch.empty(1, 2, 256, 64), "bhnd", None)
    first, second = configs.TileConfig(64, 64), configs.TileConfig(128, 64)
    launchers._pick("warm_kernel", problem, q, configs.INTERPRETER_FORWARD, {64: (first, second)},
                    events.append, (), None)
    # The warm-up gets a run of each timed candidate, in their order, and comes before the first timing; the two
    # level candidates are then rematched in turns.
    assert events == ["warm-up", first, second, "timed", "timed"] + ["rematch"] * configs.REMATCH_ROUNDS
    configs.clear_choices()


def test_the_alternating_turns_hold_every_candidate_once_in_a_fresh_order_and_repeat_across_processes():
    turns = launchers.alternating_turns(3, passes=40)
    assert len(turns) == 40 and all(sorted(turn) == [0, 1, 2] for turn in turns)
    assert len({tuple(turn) for turn in turns}) > 1  # shuffled, not rotated through one order
    # each candidate follows each other one somewhere: none is always timed right after the same kernel
    follows = {(turn[i - 1], turn[i]) for turn in turns for i in range(1, 3)}
    assert follows == {(a, b) for a in range(3) for b in range(3) if a != b}
    assert launchers.alternating_turns(3, passes=40) == turns  # a fixed seed
