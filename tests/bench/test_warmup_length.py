"""benchmarks/experiments/tuner/warmup_length.py: a key's tuner timings read into each candidate's first timing over
the median of its rematch rounds."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "experiments" / "tuner" / "warmup_length.py"


@pytest.fixture(scope="module")
def warmup_length():
    spec = importlib.util.spec_from_file_location("warmup_length", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_rematched_candidates_first_timing_is_set_against_its_rematch_rounds_only(warmup_length):
    # "a": first 0.9, a second look 0.8 (not a rematch round), rounds 1.0 / 1.1 / 1.0; "b" rematched, level;
    # "c" timed once (not rematched).
    timings = (("a", (0.9, 0.8, 1.0, 1.1, 1.0)), ("b", (1.0, 1.0, 1.0, 1.0)), ("c", (1.3,)))
    assert warmup_length.first_against_rematch(timings, rounds=3) == [pytest.approx(0.9), 1.0, None]
