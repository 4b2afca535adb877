"""The H200 measurements the time model is calibrated against, and the constants derived from them.

Source of every number: ``shared/reference/h200_anchors.md`` (one NVIDIA H200, 2026-11-30, bf16,
batch × seqlen = 16384 tokens, hidden 2048: 32 heads at d=64, 16 heads at d=128; median of do_bench)
and ``shared/reference/gpu_specs.md`` (copy 4.28 TB/s, bf16 8192³ matmul 698–800 TFLOP/s).

Calibration/validation split (so that part of the H200 grid is held out):
- **calibration set**: d = 64 (causal and not), all N — it sets the standard path's achieved share of
  the copy bandwidth per sequence length, and the flash kernel's matmul efficiency, per-thread-block
  overhead and masked-tile penalty, forward and backward;
- **validation set**: d = 128 (causal and not), all N — nothing is fitted there; the model must carry
  the change of d (twice the matmul work per score, half the heads) on its own.
Constants are never fitted per predicted GPU: other GPUs use these H200 factors and their own specs.
"""

from __future__ import annotations

from dataclasses import dataclass

# --------------------------------------------------------------------------------------------------
# Measured on the H200 (h200_anchors.md, gpu_specs.md)
# --------------------------------------------------------------------------------------------------

H200_COPY_TBPS = 4.28  # device-to-device copy, bytes read + written
H200_DATASHEET_TBPS = 4.8
COPY_FRACTION = H200_COPY_TBPS / H200_DATASHEET_TBPS  # 0.89: what streaming kernels reach of the datasheet
# bf16 8192³ matmul: 698 TFLOP/s in the anchor run, 770–800 in other runs; the middle of 698–790 (the range
# quoted in the brief) over 989 TFLOP/s. Standard attention's matmuls are memory-bound at d ≤ 128, so this
# factor matters little for the standard path.
MATMUL_FRACTION = 744.0 / 989.0

SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
TOKENS = 16384
HIDDEN = 2048

# TFLOP/s (FLOPs by the convention: forward 4·B·H·N²·d, halved when causal; backward 2.5× forward),
# keyed by (system, pass, head_dim, causal) → values for SEQLENS.
ANCHOR_TFLOPS: dict[tuple[str, str, int, bool], tuple[float, ...]] = {
    ("standard", "fwd", 64, False): (69, 71, 61, 50, 45, 67),
    ("sdpa_flash", "fwd", 64, False): (265, 287, 298, 306, 307, 303),
    ("standard", "fwd", 64, True): (15, 17, 15, 14, 13, 16),
    ("sdpa_flash", "fwd", 64, True): (153, 215, 261, 283, 295, 300),
    ("standard", "fwd", 128, False): (117, 136, 121, 99, 89, 132),
    ("sdpa_flash", "fwd", 128, False): (303, 324, 337, 341, 348, 343),
    ("standard", "fwd", 128, True): (29, 32, 31, 27, 25, 31),
    ("sdpa_flash", "fwd", 128, True): (184, 248, 284, 307, 322, 325),
    ("standard", "bwd", 64, False): (92, 95, 108, 111, 111, 106),
    ("sdpa_flash", "bwd", 64, False): (171, 216, 251, 270, 280, 285),
    ("standard", "bwd", 64, True): (32, 31, 34, 34, 34, 34),
    ("sdpa_flash", "bwd", 64, True): (107, 156, 201, 234, 256, 274),
    ("standard", "bwd", 128, False): (142, 172, 205, 213, 218, 220),
    ("sdpa_flash", "bwd", 128, False): (179, 229, 269, 294, 303, 312),
    ("standard", "bwd", 128, True): (50, 58, 65, 67, 67, 68),
    ("sdpa_flash", "bwd", 128, True): (118, 171, 217, 255, 280, 309),
}

# ncu DRAM bytes, GPT-2 medium attention (batch 64, 16 heads, N=1024, d=64, fp16), GB = 1e9 bytes:
# (system, pass, causal) → (read GB, write GB).
NCU_GPT2_MEDIUM_GB: dict[tuple[str, str, bool], tuple[float, float]] = {
    ("standard", "fwd", False): (6.85, 6.50),
    ("standard", "fwd", True): (8.63, 8.62),
    ("sdpa_flash", "fwd", False): (0.40, 0.14),
    ("sdpa_flash", "fwd", True): (0.41, 0.15),
    ("standard", "fwdbwd", False): (24.83, 15.51),
    ("standard", "fwdbwd", True): (28.41, 19.75),
    ("sdpa_flash", "fwdbwd", False): (2.02, 1.25),
    ("sdpa_flash", "fwdbwd", True): (2.02, 1.27),
}

# ncu DRAM bytes per backward kernel at the same shape, non-causal (GB), from
# benchmarks/results/2026-11-30_h200_ncu_dram_gpt2medium.json (system "standard" there is
# flashio.attention_reference with upcast=False: it scales Q rather than S, so it has no N×N scale
# kernel, but the rest of its backward is the chain of counts.standard_ops). Keyed by our kernel names.
NCU_STANDARD_BACKWARD_KERNELS_GB: dict[str, tuple[float, float]] = {
    "dV=P^TdO": (2.282, 0.130),  # nvjet ..._NTT: reads P and dO, writes dV
    "dP=dOV^T": (0.269, 2.118),  # nvjet ..._TNT: reads dO and V, writes dP
    "softmax_bwd_mul": (4.295, 2.130),  # vectorized_elementwise_kernel<BinaryFunctor>: P∘dP
    "softmax_bwd": (4.295, 2.132),  # softmax_warp_backward
    "dQ=dSK": (2.282, 0.130),  # nvjet ..._NTN
    "dK=dS^TQ": (2.282, 0.130),  # nvjet ..._NNT
}


def anchor_shape(seqlen: int, head_dim: int) -> tuple[int, int]:
    """(batch, heads) of the anchor grid: batch·N = 16384 tokens, heads·d = 2048."""
    return TOKENS // seqlen, HIDDEN // head_dim


def anchor_time_s(system: str, pass_: str, head_dim: int, causal: bool, seqlen: int) -> float:
    """Measured time of one anchor point, from its TFLOP/s and the FLOP convention."""
    from flashio.model.counts import convention_flops

    batch, heads = anchor_shape(seqlen, head_dim)
    if pass_ == "fwdbwd":
        return sum(anchor_time_s(system, p, head_dim, causal, seqlen) for p in ("fwd", "bwd"))
    tflops = ANCHOR_TFLOPS[(system, pass_, head_dim, causal)][SEQLENS.index(seqlen)]
    return batch * heads * convention_flops(seqlen, head_dim, causal, pass_) / (tflops * 1e12)


def anchor_speedup(pass_: str, head_dim: int, causal: bool, seqlen: int) -> float:
    """Measured sdpa_flash speedup over standard attention."""
    return (anchor_time_s("standard", pass_, head_dim, causal, seqlen)
            / anchor_time_s("sdpa_flash", pass_, head_dim, causal, seqlen))


# --------------------------------------------------------------------------------------------------
# Constants of the time model
# --------------------------------------------------------------------------------------------------

# Kernel launch and the gaps between kernels: an assumption (a few µs on every CUDA GPU); not measured
# in the anchors and small at their sizes.
LAUNCH_OVERHEAD_S = 4e-6

# mma.sync (the warp-level matrix instruction of FlashAttention-1/2) reaches about 2/3 of the tensor-core
# peak on Hopper, where the peak needs wgmma (FlashAttention-3 paper, arXiv 2407.08608, §2.2; recalled,
# not re-checked here). Pre-Hopper GPUs reach their datasheet rate with mma.sync. Blackwell: assumed the
# same as Hopper (no measurement). AMD MFMA is what the ROCm FlashAttention-2 port uses: full rate.
MMA_SYNC_FRACTION = {"mma.sync": 1.0, "wgmma": 2.0 / 3.0, "tcgen05": 2.0 / 3.0, "mfma": 1.0}


@dataclass(frozen=True)
class FlashEfficiency:
    """How a FlashAttention-2-design kernel runs, measured on the H200 (calibration set, d = 64).

    matmul_fraction: its matmuls run at this fraction of the instruction ceiling (datasheet tensor rate ×
        MMA_SYNC_FRACTION): register pressure, shared-memory loads, synchronisation.
    cta_overhead_iters: fixed cost of a thread block (load Q, final rescale, write O/LSE; in the backward
        load K/V and write dK/dV) in units of one block-pair iteration.
    masked_penalty_iters: extra cost of an iteration on a partially masked tile (causal diagonal).
    The exponentials are not overlapped with the matmuls (FlashAttention-2 runs softmax and GEMMs in
    sequence inside a warp; FlashAttention-3 §3.1 introduces ping-pong scheduling to overlap them), so
    an iteration costs matmul time + max(exp time, FP32 time).
    """

    matmul_fraction: float
    cta_overhead_iters: float
    masked_penalty_iters: float


# Fitted by ``python -m flashio.model.fit`` on the d=64 anchors (see docs/model.md).
FLASH_FORWARD = FlashEfficiency(matmul_fraction=0.689, cta_overhead_iters=0.58, masked_penalty_iters=0.6)
FLASH_BACKWARD = FlashEfficiency(matmul_fraction=0.517, cta_overhead_iters=1.98, masked_penalty_iters=0.24)

# Standard attention (PyTorch ops, the kernels of counts.standard_ops): achieved share of the *copy*
# bandwidth of its N×N-streaming kernels, by row length N, fitted per N on the d=64 non-causal anchors
# (PyTorch picks its softmax and cuBLAS kernels by row length; the shares are applied at any d, batch and
# GPU). The forward dips at 2k–8k and recovers at 16k; the cause is not identified (it is the same at
# d=128, which was not fitted). The backward kernels (with the softmax backward counted as the two kernels
# PyTorch runs, 4 N×N reads + 2 writes) reach 0.87–0.99 of the copy rate.
STANDARD_STREAM_FRACTION_FWD = {512: 0.832, 1024: 0.817, 2048: 0.684, 4096: 0.554, 8192: 0.496, 16384: 0.736}
STANDARD_STREAM_FRACTION_BWD = {512: 0.887, 1024: 0.874, 2048: 0.97, 4096: 0.985, 8192: 0.979, 16384: 0.932}
# The causal mask kernels (building the mask, masked_fill and its backward) reach a roughly constant share
# of the copy rate (fitted per N on d=64 causal: 0.19–0.24 forward, 0.26–0.31 backward); one mean each.
STANDARD_MASK_FRACTION_FWD = {n: 0.222 for n in SEQLENS}
STANDARD_MASK_FRACTION_BWD = {n: 0.271 for n in SEQLENS}
