"""Why the speedup is what it is: elasticities, time shares, counterfactual swaps, and the seed's claims.

- Elasticity of the speedup S with respect to a GPU figure x: ε = Δln S / Δln x, a central difference
  over x·(1 ± 25%) (wide enough to step over the discrete changes of block size and occupancy that SRAM
  causes). ε < 0 for bandwidth means a slower memory gives a larger speedup.
- Time shares: the share of each pass's time that tensor-core work, non-matmul work (exp, FP32), DRAM
  traffic and overheads account for (timing.PassTiming.shares).
- Counterfactual swaps: give GPU A one group of figures of GPU B at a time (bandwidth; SRAM; compute =
  tensor and FP32 rates, clock and SM count) and see how much of the speedup gap each closes — e.g.
  whether a T4's lower speedup comes from its SRAM or from its compute.

The seed's three claims (FlashAttention paper §4 discussion, as summarised in algorithm.md):
1. lower HBM bandwidth → larger speedup: holds where ε_bandwidth < 0;
2. larger SRAM → larger speedup: holds where ε_sram > 0 (we require > 0.05 to call it an effect);
3. FLOPs matter little: holds where |ε_tensor| < 0.2.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from flashio.model.gpus import GPUSpec, with_overrides
from flashio.model.timing import Workload, predict

STEP = 1.25
SRAM_EFFECT_THRESHOLD = 0.05
FLOPS_MATTER_LITTLE = 0.2

FACTOR_FIELDS = {
    "bandwidth": ("hbm_bandwidth_gbs",),
    "sram": ("smem_per_sm_kib", "smem_per_block_kib"),
    "tensor_flops": ("tensor_tflops",),
}
SWAP_GROUPS = {
    "bandwidth": ("hbm_bandwidth_gbs",),
    "sram": ("smem_per_sm_kib", "smem_per_block_kib"),
    "l2": ("l2_mib",),
    "compute": ("tensor_tflops", "fp32_tflops", "boost_clock_mhz", "sm_count", "native_mma"),
}


def _scaled(gpu: GPUSpec, fields: tuple[str, ...], factor: float) -> GPUSpec:
    values = {name: getattr(gpu, name) * factor for name in fields}
    if "smem_per_sm_kib" in values:
        return dataclasses.replace(gpu, **values)  # scale per-SM and per-block together
    return with_overrides(gpu, **values)


def elasticity(gpu: GPUSpec, workload: Workload, pass_: str, kernel: str, factor: str) -> float:
    """ε = [ln S(x·1.25) − ln S(x/1.25)] / (2 ln 1.25) for one factor of FACTOR_FIELDS."""
    fields = FACTOR_FIELDS[factor]
    up = predict(_scaled(gpu, fields, STEP), workload, pass_, kernel).speedup
    down = predict(_scaled(gpu, fields, 1.0 / STEP), workload, pass_, kernel).speedup
    return (math.log(up) - math.log(down)) / (2.0 * math.log(STEP))


@dataclass(frozen=True)
class Explanation:
    gpu: str
    kernel: str
    pass_: str
    speedup: float
    elasticities: dict[str, float]
    standard_shares: dict[str, float]
    flash_shares: dict[str, float]
    claims: dict[str, bool]
    swaps: dict[str, float] | None = None  # speedup of gpu with each group from the comparison GPU
    compare_gpu: str | None = None
    compare_speedup: float | None = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self) | {"pass": self.pass_}


def explain(gpu: GPUSpec, workload: Workload, pass_: str = "fwdbwd", kernel: str = "flashio",
            compare: GPUSpec | None = None) -> Explanation:
    """Elasticities, time shares, the three claims, and (with ``compare``) counterfactual swaps."""
    base = predict(gpu, workload, pass_, kernel)
    eps = {name: elasticity(gpu, workload, pass_, kernel, name) for name in FACTOR_FIELDS}
    claims = {
        "lower_bandwidth_larger_speedup": eps["bandwidth"] < 0,
        "larger_sram_larger_speedup": eps["sram"] > SRAM_EFFECT_THRESHOLD,
        "flops_matter_little": abs(eps["tensor_flops"]) < FLOPS_MATTER_LITTLE,
    }
    swaps = None
    compare_speedup = None
    if compare is not None:
        compare_speedup = predict(compare, workload, pass_, kernel).speedup
        swaps = {}
        for group, fields in SWAP_GROUPS.items():
            swapped = dataclasses.replace(gpu, **{name: getattr(compare, name) for name in fields})
            swaps[group] = predict(swapped, workload, pass_, kernel).speedup
    return Explanation(gpu.name, kernel, pass_, base.speedup, eps, base.standard.shares(), base.flash.shares(),
                       claims, swaps, compare.name if compare else None, compare_speedup)


def format_explanation(e: Explanation) -> str:
    lines = [f"{e.gpu} {e.kernel} {e.pass_}: speedup {e.speedup:.2f}x"]
    lines.append("  elasticity of the speedup (d ln S / d ln x, over ±25%): "
                 + ", ".join(f"{k} {v:+.2f}" for k, v in e.elasticities.items()))
    lines.append("  standard time shares: " + ", ".join(f"{k} {v:.0%}" for k, v in e.standard_shares.items()))
    lines.append("  flash time shares:    " + ", ".join(f"{k} {v:.0%}" for k, v in e.flash_shares.items()))
    verdict = {True: "holds", False: "does not hold"}
    lines.append(f"  claim 1 (lower bandwidth -> larger speedup): {verdict[e.claims['lower_bandwidth_larger_speedup']]}")
    lines.append(f"  claim 2 (larger SRAM -> larger speedup):     {verdict[e.claims['larger_sram_larger_speedup']]}")
    lines.append(f"  claim 3 (FLOPs matter little):                {verdict[e.claims['flops_matter_little']]}")
    if e.swaps is not None:
        lines.append(f"  vs {e.compare_gpu} (speedup {e.compare_speedup:.2f}x): {e.gpu} with {e.compare_gpu}'s ...")
        for group, value in e.swaps.items():
            lines.append(f"    {group:<9} -> speedup {value:.2f}x ({value / e.speedup - 1:+.0%})")
    return "\n".join(lines)
