"""Derive the time model's H200 constants from the calibration set (d = 64 anchors).

Run ``python -m flashio.model.fit`` to print the constants that ``calibration.py`` hard-codes (rounded).
Nothing here runs at prediction time. The d = 128 anchors are not used: they are the held-out check.
"""

from __future__ import annotations

import math
from typing import Callable

from flashio.model import calibration as cal
from flashio.model.gpus import get_gpu
from flashio.model.timing import Workload, flash_time, standard_time

CALIBRATION_HEAD_DIM = 64
FIT_SEQLENS = cal.SEQLENS


def _bisect(f: Callable[[float], float], lo: float, hi: float, iters: int = 40) -> float:
    """Root of a monotone f on [lo, hi] (geometric bisection)."""
    f_lo = f(lo)
    for _ in range(iters):
        mid = math.sqrt(lo * hi)
        if (f(mid) > 0) == (f_lo > 0):
            lo, f_lo = mid, f(mid)
        else:
            hi = mid
    return math.sqrt(lo * hi)


def _workload(seqlen: int, head_dim: int, causal: bool) -> Workload:
    batch, heads = cal.anchor_shape(seqlen, head_dim)
    return Workload(batch, heads, seqlen, head_dim, causal)


def fit_standard_tables() -> dict[str, dict[int, float]]:
    """Per N: the stream fraction that makes the non-causal standard time equal the measurement, then
    the mask fraction that makes the causal time equal it (forward and backward separately)."""
    gpu = get_gpu("h200")
    out: dict[str, dict[int, float]] = {}
    for pass_, stream_table, mask_table in (("fwd", cal.STANDARD_STREAM_FRACTION_FWD, cal.STANDARD_MASK_FRACTION_FWD),
                                            ("bwd", cal.STANDARD_STREAM_FRACTION_BWD, cal.STANDARD_MASK_FRACTION_BWD)):
        for n in FIT_SEQLENS:
            measured = cal.anchor_time_s("standard", pass_, CALIBRATION_HEAD_DIM, False, n)

            def gap(fraction: float) -> float:
                stream_table[n] = fraction
                return standard_time(gpu, _workload(n, CALIBRATION_HEAD_DIM, False), pass_).time_s - measured

            stream_table[n] = round(_bisect(gap, 0.05, 3.0), 3)
            measured_causal = cal.anchor_time_s("standard", pass_, CALIBRATION_HEAD_DIM, True, n)

            def gap_mask(fraction: float) -> float:
                mask_table[n] = fraction
                return standard_time(gpu, _workload(n, CALIBRATION_HEAD_DIM, True), pass_).time_s - measured_causal

            mask_table[n] = round(_bisect(gap_mask, 0.01, 3.0), 3)
        out[f"stream_{pass_}"] = dict(stream_table)
        out[f"mask_{pass_}"] = dict(mask_table)
    return out


def _flash_log_errors(pass_: str, eff: cal.FlashEfficiency, causal: bool, head_dim: int = CALIBRATION_HEAD_DIM,
                      seqlens=FIT_SEQLENS) -> list[float]:
    gpu = get_gpu("h200")
    errors = []
    for n in seqlens:
        kwargs = {"forward_eff": eff} if pass_ == "fwd" else {"backward_eff": eff}
        model = flash_time(gpu, _workload(n, head_dim, causal), pass_, "fa2", **kwargs).time_s
        errors.append(math.log(model / cal.anchor_time_s("sdpa_flash", pass_, head_dim, causal, n)))
    return errors


def _golden(f: Callable[[float], float], lo: float, hi: float, iters: int = 30) -> float:
    ratio = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iters):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = f(d)
    return (a + b) / 2


def fit_flash_efficiency(pass_: str, max_rounds: int = 40) -> cal.FlashEfficiency:
    """Least squares in log time on the d = 64 anchors: the matmul fraction and the per-CTA overhead on
    the non-causal points, then the masked-tile penalty on the causal points.

    The fraction and the overhead are correlated (both lengthen every CTA), so the coordinate descent runs
    until neither moves (|Δfraction| < 1e-4 and |Δoverhead| < 1e-3). It starts from the hard-coded values;
    started from (0.5, 1.0) it reaches the same optimum to the printed digits, only in more rounds.
    """
    eff = cal.FLASH_FORWARD if pass_ == "fwd" else cal.FLASH_BACKWARD
    fraction, overhead = eff.matmul_fraction, eff.cta_overhead_iters

    def sse(errors: list[float]) -> float:
        return sum(e * e for e in errors)

    for _ in range(max_rounds):
        old_fraction, old_overhead = fraction, overhead
        fraction = _golden(lambda x: sse(_flash_log_errors(pass_, cal.FlashEfficiency(x, overhead, 0.0), False)),
                           0.2, 1.0)
        overhead = _golden(lambda x: sse(_flash_log_errors(pass_, cal.FlashEfficiency(fraction, x, 0.0), False)),
                           0.0, 4.0)
        if abs(fraction - old_fraction) < 1e-4 and abs(overhead - old_overhead) < 1e-3:
            break
    penalty = _golden(lambda x: sse(_flash_log_errors(pass_, cal.FlashEfficiency(fraction, overhead, x), True)),
                      0.0, 6.0)
    return cal.FlashEfficiency(round(fraction, 3), round(overhead, 2), round(penalty, 2))


def main() -> None:  # pragma: no cover - a developer tool
    tables = fit_standard_tables()
    for key, table in tables.items():
        print(key, {n: round(v, 3) for n, v in table.items()})
    for key in ("mask_fwd", "mask_bwd"):  # calibration.py uses one mean per pass for the mask kernels
        print(f"{key} mean", round(sum(tables[key].values()) / len(tables[key]), 3))
    print("FLASH_FORWARD", fit_flash_efficiency("fwd"))
    print("FLASH_BACKWARD", fit_flash_efficiency("bwd"))


if __name__ == "__main__":  # pragma: no cover
    main()
