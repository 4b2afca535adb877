"""The three-factor explanation for the report: elasticities, sweeps, time shares and plain sentences.

At one workload (forward + backward, fp16, batch 8 × 12 heads, N = 1024, d = 64: the paper's A100 chart
at 1k) the model's :func:`flashio.model.explain.explain` gives, per GPU and kernel, the elasticity of the
speedup with respect to HBM bandwidth, SRAM and tensor FLOP/s, the time shares of both paths and the
verdicts on the seed's three claims. This module adds what a reader needs on top: sweeps of one figure at
a time, and one sentence per GPU naming the factor that drives its speedup.
"""

from __future__ import annotations

from dataclasses import dataclass

from flashio.model.explain import Explanation, explain
from flashio.model.gpus import GPUS, GPUSpec, get_gpu, with_overrides
from flashio.model.timing import Workload, predict

EXPLAIN_WORKLOAD = Workload(8, 12, 1024, 64, dtype="fp16")
EXPLAIN_PASS = "fwdbwd"
EXPLAIN_KERNELS = ("flashio", "fa1")
FACTORS = ("bandwidth", "sram", "tensor_flops")
FACTOR_LABELS = {"bandwidth": "HBM bandwidth", "sram": "SRAM size", "tensor_flops": "tensor FLOP/s"}
CLAIMS = (
    ("lower_bandwidth_larger_speedup", "1. lower HBM bandwidth → larger speedup", "bandwidth"),
    ("larger_sram_larger_speedup", "2. larger SRAM → larger speedup", "sram"),
    ("flops_matter_little", "3. FLOPs matter little", "tensor_flops"),
)
# |ε| above DRIVES: the factor drives the speedup; below BARELY: it barely matters.
DRIVES = 0.3
BARELY = 0.1
SWEEP_GPUS = ("t4", "rtx3090", "a100-40gb", "h200")
SWEEP_MULTIPLIERS = (0.25, 0.35, 0.5, 0.71, 1.0, 1.41, 2.0, 2.83, 4.0)
# Counterfactual swaps of the paper's comparison: T4 and RTX 3090 given A100 figures (FA1 algorithm).
SWAP_PAIRS = (("t4", "a100-40gb"), ("rtx3090", "a100-40gb"))


def explanations(kernels=EXPLAIN_KERNELS, gpus: list[GPUSpec] | None = None) -> list[Explanation]:
    """``explain`` for every GPU × kernel at EXPLAIN_WORKLOAD."""
    specs = gpus if gpus is not None else list(GPUS.values())
    return [explain(spec, EXPLAIN_WORKLOAD, EXPLAIN_PASS, kernel) for kernel in kernels for spec in specs]


def swap_explanations() -> list[Explanation]:
    """Counterfactual swaps for SWAP_PAIRS with the FA1 algorithm (the paper's kernel)."""
    return [explain(get_gpu(gpu), EXPLAIN_WORKLOAD, EXPLAIN_PASS, "fa1", compare=get_gpu(other))
            for gpu, other in SWAP_PAIRS]


def scaled_gpu(spec: GPUSpec, factor: str, multiplier: float) -> GPUSpec:
    """``spec`` with one factor's figure(s) multiplied (SRAM: per-SM and per-block shared memory together)."""
    if factor == "bandwidth":
        return with_overrides(spec, hbm_bandwidth_gbs=spec.hbm_bandwidth_gbs * multiplier)
    if factor == "sram":
        return with_overrides(spec, smem_per_sm_kib=spec.smem_per_sm_kib * multiplier,
                              smem_per_block_kib=spec.smem_per_block_kib * multiplier)
    if factor == "tensor_flops":
        return with_overrides(spec, tensor_tflops=spec.tensor_tflops * multiplier)
    raise ValueError(f"factor must be one of {FACTORS}, got {factor!r}")


def factor_value(spec: GPUSpec, factor: str) -> float:
    """The GPU's figure for a factor, in the unit of the plots (GB/s, KiB per SM, TFLOP/s)."""
    return {"bandwidth": spec.hbm_bandwidth_gbs, "sram": spec.smem_per_sm_kib,
            "tensor_flops": spec.tensor_tflops}[factor]


@dataclass(frozen=True)
class SweepCurve:
    gpu: str
    kernel: str
    factor: str
    values: tuple[float, ...]  # the factor's figure at each multiplier
    speedups: tuple[float, ...]


def factor_sweeps(gpus=SWEEP_GPUS, kernels=EXPLAIN_KERNELS, multipliers=SWEEP_MULTIPLIERS) -> list[SweepCurve]:
    """Speedup when one figure of a GPU is scaled from ¼× to 4×, the others held fixed."""
    curves = []
    for slug in gpus:
        spec = get_gpu(slug)
        for kernel in kernels:
            for factor in FACTORS:
                scaled = [scaled_gpu(spec, factor, m) for m in multipliers]
                speedups = tuple(predict(s, EXPLAIN_WORKLOAD, EXPLAIN_PASS, kernel).speedup for s in scaled)
                curves.append(SweepCurve(slug, kernel, factor, tuple(factor_value(s, factor) for s in scaled),
                                         speedups))
    return curves


def _direction(factor: str, elasticity: float) -> str:
    more = elasticity > 0
    return {
        "bandwidth": "slower memory → larger speedup" if not more else "faster memory → larger speedup",
        "sram": "more SRAM → larger speedup" if more else "more SRAM → smaller speedup",
        "tensor_flops": "faster tensor cores → larger speedup" if more else "faster tensor cores → smaller speedup",
    }[factor]


def _dominant_share(shares: dict[str, float]) -> tuple[str, float]:
    name = max(shares, key=shares.get)
    return name, shares[name]


_SHARE_WORDS = {"tensor": "tensor-core matmuls", "non-matmul": "exp/FP32 work", "memory": "DRAM traffic",
                "overhead": "launch and scheduling overhead"}


def driver_sentence(e: Explanation) -> str:
    """One plain sentence: which factor drives this GPU's speedup, with the numbers behind it."""
    eps = e.elasticities
    drivers = [f for f in sorted(FACTORS, key=lambda f: -abs(eps[f])) if abs(eps[f]) >= DRIVES]
    barely = [f for f in FACTORS if abs(eps[f]) < BARELY]
    spec = GPUS.get(e.gpu)
    name = spec.full_name if spec else e.gpu
    std_name, std_share = _dominant_share(e.standard_shares)
    fl_name, fl_share = _dominant_share(e.flash_shares)
    parts = [f"**{name}** — {e.speedup:.1f}×: "]
    compute_per_byte = set(drivers) == {"bandwidth", "tensor_flops"} and eps["bandwidth"] < 0 < eps["tensor_flops"]
    if compute_per_byte:
        parts.append(f"driven by compute per byte — slower HBM (ε_bandwidth {eps['bandwidth']:+.2f}) and faster "
                     f"tensor cores (ε_tensor {eps['tensor_flops']:+.2f}) both raise it")
    elif drivers:
        parts.append("driven by " + " and ".join(f"{FACTOR_LABELS[f]} (ε {eps[f]:+.2f}: {_direction(f, eps[f])})"
                                                 for f in drivers))
    else:
        parts.append("no single figure drives it (every |ε| < 0.3)")
    if barely:
        parts.append("; " + " and ".join(FACTOR_LABELS[f] for f in barely)
                     + (" barely matters" if len(barely) == 1 else " barely matter")
                     + " (" + ", ".join(f"ε {eps[f]:+.2f}" for f in barely) + ")")
    parts.append(f". Why: standard attention spends {std_share:.0%} of its time on {_SHARE_WORDS[std_name]}, "
                 f"the flash kernel {fl_share:.0%} on {_SHARE_WORDS[fl_name]}")
    if std_name == "memory" and fl_name in ("tensor", "non-matmul") and not compute_per_byte:
        parts.append(", so the speedup follows the ratio of compute to bandwidth.")
    elif std_name == "memory" and fl_name == "memory":
        parts.append(": both paths wait on DRAM, so bandwidth cancels and what the flash kernel moves "
                     "(its block size, set by the SRAM) decides.")
    else:
        parts.append(".")
    return "".join(parts)


def claim_summary(explained: list[Explanation]) -> list[str]:
    """Per claim and kernel: on how many GPUs it holds, and where it does not."""
    sentences = []
    for key, label, factor in CLAIMS:
        pieces = []
        for kernel in dict.fromkeys(e.kernel for e in explained):
            rows = [e for e in explained if e.kernel == kernel]
            held = [e for e in rows if e.claims[key]]
            failed = [e.gpu for e in rows if not e.claims[key]]
            eps = [e.elasticities[factor] for e in rows]
            text = (f"{kernel}: holds on {len(held)} of {len(rows)} GPUs "
                    f"(ε_{factor} from {min(eps):+.2f} to {max(eps):+.2f})")
            if failed and len(failed) <= 4:
                text += "; not on " + ", ".join(failed)
            weak = [e.gpu for e in held if abs(e.elasticities[factor]) < BARELY and key != "flops_matter_little"]
            if weak:
                text += f"; only nominally (|ε| < {BARELY}) on " + ", ".join(weak)
            pieces.append(text)
        sentences.append(f"**Claim {label}** — " + "; ".join(pieces) + ".")
    return sentences
