"""The report's correctness smoke run (kernels in the interpreter without a GPU), at tiny sizes."""

from __future__ import annotations

import pytest

from flashio.demo import DemoCase, cases
from flashio.report.smoke import CPU_DROPOUT_SEQLEN, run_smoke, smoke_cases

TINY = DemoCase("tiny causal", batch=1, heads=1, kv_heads=1, seqlen=32, head_dim=32, causal=True)


@pytest.fixture(scope="module")
def tiny_run():
    return run_smoke([TINY])


def test_tiny_case_is_within_the_error_bound(tiny_run):
    assert tiny_run.ok


def test_tiny_case_reports_all_four_errors(tiny_run):
    assert set(tiny_run.results[0].errors) == {"out", "dq", "dk", "dv"}


def test_tiny_case_reports_io_of_both_paths(tiny_run):
    result = tiny_run.results[0]
    assert result.standard_io_mb > 0 and result.flash_io_mb > 0


def test_cpu_cases_are_the_demo_cases_shrunk_to_batch_1():
    assert [(c.label, c.batch) for c in smoke_cases(on_gpu=False)] == [(c.label, 1) for c in cases(on_gpu=False)]


def test_cpu_dropout_case_is_shortened():
    (dropout,) = [c for c in smoke_cases(on_gpu=False) if c.dropout_p > 0]
    assert dropout.seqlen == CPU_DROPOUT_SEQLEN


def test_gpu_cases_are_the_demo_cases():
    assert smoke_cases(on_gpu=True) == cases(on_gpu=True)
