"""``flashio bench``: measured speed of flashio and the alternatives, point by point.

Public API (also used by ``flashio report``): :class:`BenchPoint`, :class:`BenchResult`, :func:`run_sweep`,
:func:`measure_ceilings`, :func:`report_points`, :func:`grid`, :func:`environment`, :func:`write_results`,
and the system registry :data:`SYSTEMS`.
"""

from flashio.bench.results import environment, write_results
from flashio.bench.sweep import (
    DEFAULT_SYSTEMS,
    MODES,
    REPORT_SYSTEMS,
    BenchPoint,
    BenchResult,
    grid,
    measure_ceilings,
    report_points,
    run_sweep,
)
from flashio.bench.systems import SYSTEMS

__all__ = [
    "BenchPoint", "BenchResult", "DEFAULT_SYSTEMS", "MODES", "REPORT_SYSTEMS", "SYSTEMS", "environment", "grid",
    "measure_ceilings", "report_points", "run_sweep", "write_results",
]
