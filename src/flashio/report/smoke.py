"""Correctness smoke run of the kernels for the report (``flashio.demo``'s cases and error rule).

On a GPU the demo's cases run as they are (N = 2048). Without one the kernels run in Triton's CPU
interpreter, which is slow, so the demo's CPU cases are shrunk to batch 1 and the dropout case (whose
check materialises the probabilities through ``return_attn_probs``) to N = 64: about 15 s on two cores.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from flashio.demo import DemoCase, cases, io_rows, run_case

CPU_DROPOUT_SEQLEN = 64


def smoke_cases(on_gpu: bool) -> list[DemoCase]:
    """The demo's cases; on the CPU with batch 1 and a shorter dropout case."""
    chosen = cases(on_gpu)
    if on_gpu:
        return chosen
    shrunk = []
    for case in chosen:
        case = dataclasses.replace(case, batch=1)
        if case.dropout_p > 0:
            case = dataclasses.replace(case, seqlen=CPU_DROPOUT_SEQLEN)
        shrunk.append(case)
    return shrunk


@dataclass(frozen=True)
class SmokeResult:
    case: DemoCase
    errors: dict[str, float]  # max |kernel − fp32 reference| for out, dq, dk, dv
    ok: bool  # within flash-attn's bound
    seconds: float
    standard_io_mb: float  # HBM traffic per (batch, head), forward + backward, analytic
    flash_io_mb: float


@dataclass(frozen=True)
class SmokeRun:
    where: str
    results: list[SmokeResult]
    seconds: float

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)


def run_smoke(chosen: list[DemoCase] | None = None, log=lambda message: None) -> SmokeRun:
    """Run each case forward + backward against the reference; ``log`` receives one line per case."""
    import torch

    on_gpu = torch.cuda.is_available()
    device = "cuda" if on_gpu else "cpu"
    where = torch.cuda.get_device_name() if on_gpu else "CPU (Triton interpreter)"
    chosen = chosen if chosen is not None else smoke_cases(on_gpu)
    start = time.perf_counter()
    results = []
    for case, (_, standard, flash) in zip(chosen, io_rows(chosen)):
        outcome = run_case(case, device)
        results.append(SmokeResult(case, outcome["errors"], outcome["ok"], outcome["seconds"],
                                   standard / 1e6, flash / 1e6))
        log(f"  {case.label}: {'ok' if outcome['ok'] else 'OUT OF BOUNDS'} ({outcome['seconds']:.1f} s)")
    return SmokeRun(where, results, time.perf_counter() - start)
