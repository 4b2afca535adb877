"""Test configuration shared by the whole suite.

Without a GPU the kernels run on CPU tensors through Triton's interpreter. ``triton.jit`` decides between
compiling and interpreting when a kernel is decorated, i.e. when flashio is imported, so the variable must
be set before any test module imports flashio (the Makefile sets it too).
"""

import os
import zlib

import pytest
import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
# Tests never read or write the user's tuning cache (~/.cache/flashio); the tests of the cache itself
# point it at a temporary folder.
os.environ["FLASHIO_TUNING_CACHE"] = "off"


@pytest.fixture(autouse=True)
def _no_launch_plans_across_tests():
    """Launch plans (on by default for CUDA tensors) are keyed on inputs and options, not on the candidate
    lists a test may replace: each test starts without any."""
    from flashio import launch_plans

    launch_plans.clear()


@pytest.fixture(autouse=True)
def _fixed_seed(request):
    """Seed torch's generator per test from the test's id: every test (and every parameter set) gets
    fresh random inputs, and the same inputs on every run."""
    torch.manual_seed(zlib.crc32(request.node.nodeid.encode()))


def pytest_configure(config):
    # Triton 3.6's interpreter converts 1-element arrays to Python ints in a way NumPy deprecates; the
    # warning fires thousands of times per kernel launch and says nothing about flashio.
    config.addinivalue_line(
        "filterwarnings", "ignore:Conversion of an array with ndim > 0 to a scalar:DeprecationWarning")
