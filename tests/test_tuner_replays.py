"""The tuner's timings through replays (launchers.tune_through_replays; on by default since v0.47,
``FLASHIO_TUNE_REPLAYS=0`` turns them off): each candidate's launch captured once into a CUDA graph and its replay
timed, so that the launcher's host time is not timed with short kernels. The graphs are stand-ins here: a capture
records which calls it held, and the capture's stream calls are logged."""

import contextlib

import pytest
import torch

from flashio import launchers
from flashio.configs import TileConfig


class _Graph:
    """A stand-in CUDA graph: ``replay`` is a bound method the tests can tell apart."""

    def __init__(self):
        self.replays = 0

    def replay(self):
        self.replays += 1


def _capturing(log: list):
    @contextlib.contextmanager
    def capture(graph):
        log.append(("begin", graph))
        yield
        log.append(("end", graph))
    return capture


def test_a_replay_is_the_graph_of_one_call_captured_after_one_call_outside_it():
    log = []
    run = lambda: log.append("call")
    replay = launchers._replayable(run, _Graph, _capturing(log))
    graph = replay.__self__
    assert isinstance(graph, _Graph) and replay == graph.replay
    assert log == ["call", ("begin", graph), "call", ("end", graph)]


def test_a_launch_that_cannot_be_captured_is_timed_as_before():
    run_calls = []

    def run():
        run_calls.append(1)

    @contextlib.contextmanager
    def failing_capture(graph):
        raise RuntimeError("operation not permitted when stream is capturing")
        yield

    assert launchers._replayable(run, _Graph, failing_capture) is run
    assert len(run_calls) == 1  # the call outside the graph ran; nothing was captured


def test_a_configuration_that_does_not_fit_is_timed_as_before():
    def run():
        raise RuntimeError("out of resources")

    assert launchers._replayable(run, _Graph, _capturing([])) is run


def test_with_the_switch_off_the_tuner_times_the_launch_itself(monkeypatch):
    monkeypatch.setenv("FLASHIO_TUNE_REPLAYS", "0")
    launched = []
    config = TileConfig(128, 128, 4, 3, "gluon")
    timed = launchers._timed_runs(launched.append)(config)
    timed()
    assert launched == [config]


def test_with_the_switch_each_configuration_is_captured_once_and_its_replay_timed(monkeypatch):
    monkeypatch.setenv("FLASHIO_TUNE_REPLAYS", "1")
    log = []
    monkeypatch.setattr(launchers.torch.cuda, "graph_pool_handle", lambda: "pool")
    monkeypatch.setattr(launchers.torch.cuda, "CUDAGraph", _Graph)
    monkeypatch.setattr(launchers, "_capturing_quietly", lambda graph, pool: _capturing(log)(graph))
    launched = []
    first, second = TileConfig(128, 128, 4, 3, "gluon"), TileConfig(128, 64, 4, 2, "gluon")
    timed_run = launchers._timed_runs(launched.append)
    replay = timed_run(first)
    assert timed_run(first) is replay and timed_run(second) is not replay
    assert launched == [first, first, second, second]  # per configuration: one call outside, one captured
    replay()
    assert replay.__self__.replays == 1 and launched == [first, first, second, second]


class _RecordingGraph:
    """A stand-in CUDA graph recording its capture calls, and the stream current at each."""

    def __init__(self, log: list):
        self.log = log

    def capture_begin(self, pool=None, capture_error_mode="global"):
        self.log.append(("capture_begin", pool, capture_error_mode, launchers.torch.cuda.current_stream_name))

    def capture_end(self):
        self.log.append(("capture_end", launchers.torch.cuda.current_stream_name))


def _fake_cuda_streams(monkeypatch, log: list):
    """torch.cuda's device, stream and cache calls as stand-ins that log what is called (this machine has no GPU)."""
    cuda = launchers.torch.cuda
    monkeypatch.setattr(cuda, "current_stream_name", "the caller's", raising=False)
    monkeypatch.setattr(cuda, "current_device", lambda: 3)
    monkeypatch.setattr(cuda, "Stream", lambda index: f"side stream of device {index}")
    monkeypatch.setattr(cuda, "synchronize", lambda *a: log.append("synchronize"))
    monkeypatch.setattr(cuda, "empty_cache", lambda: log.append("empty_cache"))

    @contextlib.contextmanager
    def stream(s):
        before, cuda.current_stream_name = cuda.current_stream_name, s
        try:
            yield
        finally:
            cuda.current_stream_name = before
    monkeypatch.setattr(cuda, "stream", stream)
    monkeypatch.setattr(launchers, "_CAPTURE_STREAMS", {})


def test_the_tuners_capture_neither_synchronises_nor_empties_the_memory_cache(monkeypatch):
    # torch.cuda.graph's __enter__ does both: at each candidate of a first call a training process's cached GPU
    # memory would go back to the driver.
    log = []
    _fake_cuda_streams(monkeypatch, log)
    with launchers._capturing_quietly(_RecordingGraph(log), "pool"):
        log.append("captured work")
    assert log == [("capture_begin", "pool", "thread_local", "side stream of device 3"), "captured work",
                   ("capture_end", "side stream of device 3")]
    assert launchers.torch.cuda.current_stream_name == "the caller's"


def test_the_tuners_capture_ends_when_the_captured_call_fails(monkeypatch):
    log = []
    _fake_cuda_streams(monkeypatch, log)
    with pytest.raises(RuntimeError, match="launch failed"):
        with launchers._capturing_quietly(_RecordingGraph(log), "pool"):
            raise RuntimeError("launch failed")
    assert log[-1] == ("capture_end", "side stream of device 3")
    assert launchers.torch.cuda.current_stream_name == "the caller's"


def test_the_tuners_captures_share_one_side_stream_per_device(monkeypatch):
    log = []
    _fake_cuda_streams(monkeypatch, log)
    for _ in range(2):
        with launchers._capturing_quietly(_RecordingGraph(log), None):
            pass
    assert launchers._CAPTURE_STREAMS == {3: "side stream of device 3"}


@pytest.mark.parametrize("value", ["0", "off", "false"])
def test_the_switch_turns_replays_off(monkeypatch, value):
    monkeypatch.setenv("FLASHIO_TUNE_REPLAYS", value)
    assert not launchers.tune_through_replays()


def test_replays_are_on_by_default(monkeypatch):
    monkeypatch.delenv("FLASHIO_TUNE_REPLAYS", raising=False)
    assert launchers.tune_through_replays()


def test_a_failed_capture_is_counted_as_a_fallback():
    def failing_capture(graph):
        raise RuntimeError("capture invalidated")
    before = launchers.tuning_replay_fallbacks()
    launchers._replayable(lambda: None, _Graph, failing_capture)
    assert launchers.tuning_replay_fallbacks() == before + 1


def test_a_launch_being_captured_gets_claim_counters_of_its_own_zeroed_in_the_graph(monkeypatch):
    # Kept counters made during a capture would be zero only after that graph replayed (garbage for good when the
    # capture broke): v0.47 call 1's tuner timed launches that claimed no tile.
    monkeypatch.setattr(launchers, "_capturing", lambda device: True)
    kept = dict(launchers._CLAIM_COUNTERS)
    first = launchers._claim_counters(torch.device("cpu"))
    second = launchers._claim_counters(torch.device("cpu"))
    assert first.data_ptr() != second.data_ptr()
    assert first.tolist() == [0, 0] and second.tolist() == [0, 0]
    assert launchers._CLAIM_COUNTERS == kept


def test_outside_a_capture_a_stream_keeps_its_claim_counters(monkeypatch):
    monkeypatch.setattr(launchers, "_capturing", lambda device: False)
    assert launchers._claim_counters(torch.device("cpu")) is launchers._claim_counters(torch.device("cpu"))


def test_a_new_schedule_table_inside_a_capture_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(launchers, "_capturing", lambda device: True)
    with pytest.raises(RuntimeError, match="Run the call once outside the capture first"):
        launchers._cached_table(("a key no call has made", 7), torch.device("cpu"), lambda: [1, 2, 3])


def test_a_schedule_table_made_before_the_capture_is_used_in_it(monkeypatch):
    key = ("a key made before the capture", 3)
    made = launchers._cached_table(key, torch.device("cpu"), lambda: [3, 2, 1])
    monkeypatch.setattr(launchers, "_capturing", lambda device: True)
    assert launchers._cached_table(key, torch.device("cpu"), lambda: [0]) is made
    launchers._SCHEDULES.pop(key)


def test_a_first_call_that_would_time_candidates_inside_a_capture_is_a_clear_error(monkeypatch):
    from types import SimpleNamespace

    from flashio import configs

    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    monkeypatch.setenv("FLASHIO_TUNING_CACHE", "off")
    monkeypatch.setattr(launchers, "device_capability", lambda device: (8, 0))
    monkeypatch.setattr(launchers, "device_name", lambda device: "a GPU")
    monkeypatch.setattr(launchers, "_capturing", lambda device: True)
    configs.clear_choices()
    q = SimpleNamespace(is_cuda=True, device=torch.device("meta"), dtype=torch.bfloat16)
    problem = launchers.describe(torch.empty(1, 2, 256, 64), torch.empty(1, 2, 256, 64), "bhnd", None)
    launched = []
    with pytest.raises(RuntimeError, match="time the kernel's tile candidates"):
        launchers._pick("captured_kernel", problem, q, configs.INTERPRETER_FORWARD,
                        {64: (TileConfig(64, 64), TileConfig(128, 64))}, launched.append, (), None)
    assert launched == [] and configs.cached_choices() == {}
    configs.clear_choices()
