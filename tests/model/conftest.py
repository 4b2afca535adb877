"""Fixtures shared by the model tests."""

import pytest

from flashio.model import gpus


@pytest.fixture(autouse=True)
def restore_gpu_database():
    """`--gpu-file` adds GPUs to the process-wide database (right for a CLI process); tests run many
    commands in one process, so each test gets the database back as it found it. Without this, a test
    that registers a GPU changes what later tests in the same worker (the report's GPU count) see."""
    saved = dict(gpus.GPUS)
    yield
    gpus.GPUS.clear()
    gpus.GPUS.update(saved)
