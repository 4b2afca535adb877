"""The CPU models of the Gluon fused backwards' barrier protocols (benchmarks/experiments/*/protocol_model.py), of
the dynamic forward's entry slots (benchmarks/experiments/forward_short/claim_slots_model.py, v0.36) and of the
dynamic fused backward's id ring (benchmarks/experiments/fused_backward_persistent/claim_ring_model.py, v0.37):
they pass as written and fail when a wait the kernels rely on is left out. Gluon has no interpreter, so these
models are the CPU-side check of the row-split kernel's synchronisation (and were of the alternating kernel's
until its removal in v0.21, whose race under the benchmark's shape its model missed: a model checks the
protocol as written down, not the kernel; and of the deferred-dK/dV kernel's until its removal in v0.22)."""

import importlib.util
from pathlib import Path

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[1] / "benchmarks" / "experiments"


def _model(folder: str, name: str = "protocol_model"):
    spec = importlib.util.spec_from_file_location(f"{folder}_{name}", EXPERIMENTS / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("folder", ["fused_backward_rows"])
def test_protocol_model_finds_no_deadlock_and_no_tile_rewritten_under_a_reader(folder):
    _model(folder).main(["--seeds", "300"])


@pytest.mark.parametrize("folder, drop", [
    ("fused_backward_rows", "empty-wait"), ("fused_backward_rows", "exchange-wait"),
])
def test_protocol_model_fails_when_a_wait_is_left_out(folder, drop):
    # Random interleavings: 300 seeds find each of these within the first few (checked at v0.20).
    with pytest.raises((AssertionError, RuntimeError)):
        _model(folder).main(["--seeds", "300", "--drop", drop])


@pytest.mark.parametrize("q_buffers", [1, 2])
@pytest.mark.parametrize("early_release", [False, True])
def test_the_dynamic_forward_entry_slots_never_give_a_consumer_another_tiles_entry(q_buffers, early_release):
    # kernels/forward_gluon.py: 2 x Q_BUFFERS slots (v0.36). The model lets the loader run further ahead than the
    # kernel's, which also waits for its loads and K/V slots: what holds here holds there.
    model = _model("forward_short", "claim_slots_model")
    assert model.wrong_reads(q_buffers, 2 * q_buffers, early_release, interleavings=2000) == 0


def test_two_entry_slots_with_two_q_sets_give_a_consumer_another_tiles_entry():
    # What v0.36 call 7 ran at d=64 (two Q sets, two slots): the check hung at causal 1k with the grid's heads.
    model = _model("forward_short", "claim_slots_model")
    assert model.wrong_reads(2, 2, True, interleavings=200) > 0


@pytest.mark.parametrize("id_slots", [1, 2])
@pytest.mark.parametrize("stages, dq_buffers", [(3, 1), (3, 2)])  # d=128's tuned form, d=64's
def test_the_dynamic_backward_id_ring_gives_every_reader_its_own_entry_without_deadlock(id_slots, stages, dq_buffers):
    # kernels/backward_gluon.py: two id slots, each handed back by both readers (id_empty) before it is rewritten.
    model = _model("fused_backward_persistent", "claim_ring_model")
    assert model.outcomes(id_slots, stages, dq_buffers, interleavings=1000) == \
        {"ok": 1000, "wrong read": 0, "deadlock": 0}


def test_the_dynamic_backward_id_ring_without_its_empty_wait_gives_a_reader_another_entry():
    model = _model("fused_backward_persistent", "claim_ring_model")
    assert model.outcomes(2, 3, 1, interleavings=1000, skip_empty_wait=True)["wrong read"] > 0
