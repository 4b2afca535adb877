"""The CPU models of the Gluon fused backwards' barrier protocols (benchmarks/experiments/*/protocol_model.py):
they pass as written and fail when a wait the kernels rely on is left out. Gluon has no interpreter, so these
models are the CPU-side check of the row-split kernel's synchronisation (and were of the alternating kernel's
until its removal in v0.21, whose race under the benchmark's shape its model missed: a model checks the
protocol as written down, not the kernel; and of the deferred-dK/dV kernel's until its removal in v0.22)."""

import importlib.util
from pathlib import Path

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[1] / "benchmarks" / "experiments"


def _model(folder: str):
    spec = importlib.util.spec_from_file_location(f"{folder}_protocol_model", EXPERIMENTS / folder / "protocol_model.py")
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
