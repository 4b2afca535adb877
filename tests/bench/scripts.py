"""Loading a script of benchmarks/ (not a package) as a module, for the tests of its functions."""

import importlib.util
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load_benchmark_script(name: str):
    """benchmarks/<name>.py as a module (its ``main`` is not run)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
