"""The GPU branch of the report: run the benchmark sweep and set it against the model's predictions.

``flashio.bench`` is imported only here, and only when a GPU is present, so the CPU report never needs
it. The device name is mapped to a database slug ("NVIDIA H200" → ``h200``); a GPU the database does not
know is reported as measured only. Predictions use the measured point's own shape: the ``flashio``
kernel model for flashio, the ``fa2`` model for SDPA's FlashAttention-2 backend (the model's calibration
system), and the standard path of the same prediction for standard attention.
"""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from flashio.model.gpus import GPUS, GPUSpec
from flashio.model.timing import DTYPE_BYTES, Prediction, Workload, predict

# Device names as the driver reports them → database slug (None: a variant whose figures differ).
# First match wins; the names are lower-cased before matching.
DEVICE_PATTERNS: tuple[tuple[str, str | None], ...] = (
    (r"h200", "h200"),
    (r"h100.*nvl", None),
    (r"h100.*pcie", "h100-pcie"),
    (r"h100", "h100-sxm"),
    (r"a100.*pcie", None),
    (r"a100.*80\s*gb", "a100-80gb"),
    (r"a100", "a100-40gb"),
    (r"b200", "b200"),
    (r"rtx\s*3090", "rtx3090"),
    (r"rtx\s*4090", "rtx4090"),
    (r"l40s", "l40s"),
    (r"\bl4\b", "l4"),
    (r"\bt4\b", "t4"),
    (r"v100", "v100"),
    (r"mi300x", "mi300x"),
)
# Which model kernel predicts which measured system.
PREDICTED_KERNEL = {"flashio": "flashio", "flashio_det": "flashio", "sdpa_flash": "fa2", "flash_attn": "fa2"}
WITHIN = 0.15  # the calibration test's tolerance, used to summarise the agreement


def gpu_slug_for_device(device_name: str) -> str | None:
    """The database slug for a device name, or None when the database does not hold that GPU."""
    lowered = device_name.strip().lower()
    for spec in GPUS.values():
        if spec.full_name.lower() == lowered:
            return spec.name
    for pattern, slug in DEVICE_PATTERNS:
        if re.search(pattern, lowered):
            return slug
    return None


def load_bench():
    """Import ``flashio.bench`` (only on a GPU machine; tests replace this function)."""
    import flashio.bench as bench

    return bench


def result_dict(result: Any) -> dict:
    """A BenchResult (or anything with ``to_dict``, a dataclass, or a mapping) as a plain dict."""
    if hasattr(result, "to_dict"):
        return dict(result.to_dict())
    if dataclasses.is_dataclass(result):
        return dataclasses.asdict(result)
    return dict(result)


@dataclass
class BenchRun:
    """What the benchmark sweep produced; ``error`` says why there is nothing (or less than planned)."""

    results: list[dict] = field(default_factory=list)
    ceilings: dict | None = None
    environment: dict = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0


def run_benchmarks(log=lambda message: None) -> BenchRun:
    """Measure the ceilings and run ``report_points()`` over the bench's report systems (``bench.REPORT_SYSTEMS``) and modes.

    A missing bench module or a failure inside the sweep is recorded in ``BenchRun.error`` rather than
    raised, so that the model's part of the report is still written.
    """
    start = time.perf_counter()
    run = BenchRun()
    try:
        bench = load_bench()
    except ImportError as exc:
        run.error = f"flashio.bench could not be imported ({exc})"
        return run
    try:
        run.environment = dict(bench.environment())
        log("  measuring the GPU's ceilings (copy bandwidth, bf16 matmul)")
        run.ceilings = dict(bench.measure_ceilings())
        points = bench.report_points()
        log(f"  running the sweep: {len(points)} shapes")
        run.results = [result_dict(r) for r in bench.run_sweep(points, bench.REPORT_SYSTEMS, progress=True)]
    except Exception as exc:  # noqa: BLE001 - the report keeps the model's sections whatever the bench does
        run.error = f"the benchmark sweep failed: {type(exc).__name__}: {exc}"
    run.seconds = time.perf_counter() - start
    return run


@dataclass(frozen=True)
class ComparedPoint:
    """One measured result with the model's prediction for the same shape (None where there is none)."""

    system: str
    mode: str
    seqlen: int
    head_dim: int
    batch: int
    heads: int
    causal: bool
    variant: str  # "plain", "dropout", "padding", "dropout+padding"
    dtype: str
    measured_ms: float
    measured_tflops: float | None
    measured_speedup: float | None
    predicted_ms: float | None
    predicted_tflops: float | None
    predicted_speedup: float | None

    @property
    def shape_key(self) -> tuple:
        return (self.head_dim, self.causal, self.variant, self.dtype)

    def measured(self, metric: str) -> float | None:
        return self.measured_speedup if metric == "speedup" else self.measured_tflops

    def predicted(self, metric: str) -> float | None:
        return self.predicted_speedup if metric == "speedup" else self.predicted_tflops

    @property
    def speedup_error(self) -> float | None:
        """predicted ÷ measured − 1."""
        if self.predicted_speedup is None or not self.measured_speedup:
            return None
        return self.predicted_speedup / self.measured_speedup - 1.0


def _number(value) -> float | None:
    """A finite float, or None (the bench writes NaN for what it did not measure)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _variant(row: dict) -> str:
    parts = [name for name, on in (("dropout", (row.get("dropout_p") or 0) > 0), ("padding", row.get("padding")))
             if on]
    return "+".join(parts) or "plain"


def compare(results: list[dict], spec: GPUSpec | None) -> list[ComparedPoint]:
    """Pair every successful measurement with the model's prediction on ``spec`` (None: measured only)."""
    cache: dict[tuple, Prediction] = {}

    def prediction(row: dict, kernel: str) -> Prediction | None:
        if spec is None or row.get("dtype") not in DTYPE_BYTES:
            return None
        workload = Workload(int(row["batch"]), int(row["heads"]), int(row["seqlen"]), int(row["head_dim"]),
                            bool(row.get("causal")), float(row.get("dropout_p") or 0.0), bool(row.get("padding")),
                            row["dtype"])
        key = (workload, row["mode"], kernel)
        if key not in cache:
            cache[key] = predict(spec, workload, row["mode"], kernel)
        return cache[key]

    points = []
    for row in results:
        if row.get("status") != "ok" or _number(row.get("time_ms")) is None:
            continue
        system = row["system"]
        predicted_ms = predicted_tflops = predicted_speedup = None
        if system == "standard":
            base = prediction(row, "flashio")
            if base is not None:
                predicted_ms = base.standard.time_s * 1e3
                predicted_tflops = base.convention_flops / base.standard.time_s / 1e12
        elif system in PREDICTED_KERNEL:
            base = prediction(row, PREDICTED_KERNEL[system])
            if base is not None:
                predicted_ms = base.flash.time_s * 1e3
                predicted_tflops = base.convention_flops / base.flash.time_s / 1e12
                predicted_speedup = base.speedup
        points.append(ComparedPoint(
            system, row["mode"], int(row["seqlen"]), int(row["head_dim"]), int(row["batch"]), int(row["heads"]),
            bool(row.get("causal")), _variant(row), str(row.get("dtype")), float(row["time_ms"]),
            _number(row.get("tflops")), _number(row.get("speedup_vs_standard")), predicted_ms, predicted_tflops, predicted_speedup))
    return points


@dataclass(frozen=True)
class Agreement:
    system: str
    points: int
    median_abs_error: float
    max_abs_error: float
    within: int  # points within ±WITHIN


def agreement(points: list[ComparedPoint]) -> list[Agreement]:
    """Per system: how far the predicted speedups are from the measured ones."""
    summary = []
    for system in dict.fromkeys(p.system for p in points):
        errors = [abs(p.speedup_error) for p in points if p.system == system and p.speedup_error is not None]
        if errors:
            summary.append(Agreement(system, len(errors), statistics.median(errors), max(errors),
                                     sum(e <= WITHIN for e in errors)))
    return summary
