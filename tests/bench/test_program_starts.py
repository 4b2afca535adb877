"""benchmarks/experiments/fused_backward_d256/program_starts.py: one launch's per-program marks of d=256's role-split
backward read into phases, gaps between programs on a multiprocessor, the span and each multiprocessor's end."""

import importlib.util
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "experiments" / "fused_backward_d256" / "program_starts.py"


@pytest.fixture(scope="module")
def program_starts():
    spec = importlib.util.spec_from_file_location("program_starts", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_marks_are_read_into_phases_gaps_span_and_ends(program_starts):
    # ns: entry, K/V landed, first S^T done, last products done, dV stored, multiprocessor. Two programs on
    # multiprocessor 0 (the second enters 1.5 µs after the first's store), one on multiprocessor 7.
    marks = torch.tensor([[0, 2_000, 3_000, 60_000, 61_000, 0],
                          [62_500, 64_000, 65_000, 120_000, 121_000, 0],
                          [500, 2_500, 3_500, 61_500, 62_000, 7]], dtype=torch.int64)
    found = program_starts.program_phases(marks)
    assert found["phases"][0] == [2.0, 1.5, 2.0]  # entry to K/V landed, µs
    assert found["phases"][1] == [1.0, 1.0, 1.0]
    assert found["phases"][2] == [57.0, 55.0, 58.0]
    assert found["phases"][3] == [1.0, 1.0, 0.5]
    assert found["gaps"] == [1.5]  # only multiprocessor 0 ran two programs
    assert found["span"] == 121.0 and sorted(found["ends"]) == [62.0, 121.0]
    assert found["multiprocessors"] == 2 and found["busy"][2] == 170.0
