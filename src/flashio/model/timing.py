"""Roofline time model of standard and FlashAttention kernels on any GPU, from its specifications.

Per kernel (FlashAttention §3.2 / FlashAttention-2 §3 for the algorithms; roofline in the usual sense):

- **standard attention** is the chain of PyTorch kernels of ``counts.standard_ops`` (the same list the
  counts and the simulator use; its softmax backward is two kernels, as PyTorch runs it): each takes
  launch + max(matmul FLOPs / (f_mm · R_tensor), exps / R_exp, FP32 ops / R_fp32,
  DRAM bytes / (f_stream(N) · f_copy · BW)). f_copy (0.89) and f_mm (0.75) are the H200's measured copy
  and cuBLAS fractions; f_stream(N) is the share of the copy rate that PyTorch's N×N kernels reach at row
  length N, measured on the H200 (calibration.py).
- **FlashAttention kernels** run thread blocks (CTAs) in waves over the SMs: a CTA's time is
  (active tiles + c + p · partially-masked tiles) × t_tile, with
  t_tile = tile matmul FLOPs / (η · m · R_tensor / SMs) + max(tile exps / (R_exp / SMs),
  tile FP32 ops / (R_fp32 / SMs)); η, c, p are the H200-measured FlashEfficiency and m the share of the
  tensor peak the kernel's instruction reaches (2/3 for mma.sync on Hopper). The CTAs are list-scheduled
  on SMs × occupancy slots (heavy query blocks first); the kernel takes launch + max(makespan,
  DRAM bytes / (f_copy · BW)), DRAM bytes from ``l2.py``.

Kernels modelled: ``fa2`` (FlashAttention-2: forward parallel over query blocks, 128×128 tiles at d ≤ 64,
128×64 at d ≤ 128; backward parallel over key blocks with dQ by atomic adds into an fp32 buffer), ``flashio``
(this project's Triton kernels: the same design and block sizes, so the same model — on Hopper Triton can
emit wgmma, which this model does not credit until flashio itself is measured), and ``fa1`` (the paper's
Algorithm 1: one CTA per (batch, head), blocks from the SRAM rule B_c = ⌈M/4d⌉, B_r = min(B_c, d)).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import numpy as np

from flashio.model import calibration as cal
from flashio.model.counts import (
    BACKWARD_TILES,
    FLASH_BWD_OPS,
    FLASH_FWD_OPS,
    FORWARD_TILES,
    PASSES,
    AttentionProblem,
    Blocking,
    IOCount,
    block_activity,
    block_ranges,
    convention_flops,
    fa1_io,
    fa2_io,
    flash_flops,
    paper_blocking,
    STANDARD_NN_TENSORS,
    standard_flops,
    standard_ops,
    tensor_element_bytes,
)
from flashio.model.gpus import GPUSpec
from flashio.model.l2 import concurrent_heads, dram_traffic, intermediate_hits_l2

FLASH_KERNELS = ("fa1", "fa2", "flashio")
DTYPE_BYTES = {"fp16": 2, "bf16": 2}
# The paper's 'masking' benchmark draws key lengths in [N − 20, N]; we use the mean.
PADDING_MEAN_KEYS_MISSING = 10
_HEAP_LIMIT = 200_000  # above this many CTAs the schedule is computed in closed form (fluid + tail)


@dataclass(frozen=True)
class Workload:
    """An attention call: batch × heads × seqlen × head_dim, and its variants."""

    batch: int
    heads: int
    seqlen: int
    head_dim: int
    causal: bool = False
    dropout_p: float = 0.0
    padding_mask: bool = False
    dtype: str = "bf16"

    def __post_init__(self) -> None:
        for name in ("batch", "heads", "seqlen", "head_dim"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if not 0.0 <= self.dropout_p < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout_p}")
        if self.dtype not in DTYPE_BYTES:
            raise ValueError(f"dtype must be one of {tuple(DTYPE_BYTES)}, got {self.dtype!r}")

    @property
    def n_heads_total(self) -> int:
        return self.batch * self.heads

    @property
    def input_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    def problem(self) -> AttentionProblem:
        key_valid = max(1, self.seqlen - PADDING_MEAN_KEYS_MISSING) if self.padding_mask else None
        return AttentionProblem(self.seqlen, self.head_dim, self.causal, self.dropout_p, key_valid)


@dataclass(frozen=True)
class KernelTiming:
    """One kernel launch: its time and the parts of the roofline behind it (all in seconds)."""

    name: str
    time_s: float
    tensor_s: float  # time the matmuls take at the kernel's achievable rate
    nonmatmul_s: float  # exp / FP32 time not hidden behind the matmuls
    memory_s: float  # DRAM time at the achievable bandwidth
    overhead_s: float  # launch, per-CTA fixed cost, masked-tile penalty, wave tail
    dram_read_bytes: float
    dram_write_bytes: float
    matmul_flops: float
    other_flops: float
    exps: float
    sram_level_bytes: float = 0.0

    @property
    def bound(self) -> str:
        parts = {"tensor": self.tensor_s, "non-matmul": self.nonmatmul_s, "memory": self.memory_s,
                 "overhead": self.overhead_s}
        return max(parts, key=parts.get)


@dataclass(frozen=True)
class PassTiming:
    kernels: tuple[KernelTiming, ...]

    @property
    def time_s(self) -> float:
        return sum(k.time_s for k in self.kernels)

    @property
    def dram_bytes(self) -> float:
        return sum(k.dram_read_bytes + k.dram_write_bytes for k in self.kernels)

    @property
    def dram_read_bytes(self) -> float:
        return sum(k.dram_read_bytes for k in self.kernels)

    @property
    def dram_write_bytes(self) -> float:
        return sum(k.dram_write_bytes for k in self.kernels)

    @property
    def sram_level_bytes(self) -> float:
        return sum(k.sram_level_bytes for k in self.kernels)

    @property
    def matmul_flops(self) -> float:
        return sum(k.matmul_flops for k in self.kernels)

    @property
    def total_flops(self) -> float:
        return sum(k.matmul_flops + k.other_flops + k.exps for k in self.kernels)

    def shares(self) -> dict[str, float]:
        """Share of the pass's time that each factor accounts for: each kernel's time split in proportion
        to its roofline parts (a memory-bound kernel's time goes to memory, and so on)."""
        totals = {"tensor": 0.0, "non-matmul": 0.0, "memory": 0.0, "overhead": 0.0}
        for k in self.kernels:
            parts = {"tensor": k.tensor_s, "non-matmul": k.nonmatmul_s, "memory": k.memory_s,
                     "overhead": k.overhead_s}
            s = sum(parts.values())
            for key, value in parts.items():
                totals[key] += k.time_s * value / s if s > 0 else 0.0
        whole = sum(totals.values())
        return {key: value / whole for key, value in totals.items()} if whole > 0 else totals


# --------------------------------------------------------------------------------------------------
# Standard attention
# --------------------------------------------------------------------------------------------------


def _interp_by_seqlen(table: dict[int, float], seqlen: int) -> float:
    """Linear interpolation in log2(N) over a calibration table, clamped at its ends."""
    keys = sorted(table)
    x = math.log2(seqlen)
    xs = [math.log2(k) for k in keys]
    return float(np.interp(x, xs, [table[k] for k in keys]))


def standard_time(gpu: GPUSpec, workload: Workload, pass_: str = "fwd") -> PassTiming:
    """Time of PyTorch's materialising attention (the paper's baseline), kernel by kernel."""
    _check_pass(pass_)
    problem = workload.problem()
    heads = workload.n_heads_total
    nbytes = workload.input_bytes
    n = workload.seqlen
    nn_bytes_all_heads = heads * n * n * nbytes
    # Intermediates that fit in L2 are read back from it by the next kernel.
    l2_resident = intermediate_hits_l2(nn_bytes_all_heads, gpu.l2_bytes)
    kernels = []
    for op in standard_ops(problem, pass_):
        if op.kind == "mask":
            table = cal.STANDARD_MASK_FRACTION_BWD if op.backward else cal.STANDARD_MASK_FRACTION_FWD
        else:
            table = cal.STANDARD_STREAM_FRACTION_BWD if op.backward else cal.STANDARD_STREAM_FRACTION_FWD
        stream_fraction = _interp_by_seqlen(table, n)
        read = sum(c * tensor_element_bytes(k, nbytes) for k, c in op.io.reads.items()
                   if not (l2_resident and k in STANDARD_NN_TENSORS))
        write = op.io.write_bytes(nbytes)
        read, write = read * heads, write * heads
        bandwidth = stream_fraction * cal.COPY_FRACTION * gpu.bandwidth_bytes_per_s
        memory_s = (read + write) / bandwidth
        tensor_s = heads * op.flops.matmul_flops / (cal.MATMUL_FRACTION * gpu.tensor_flops_per_s)
        exp_s = heads * op.flops.exps / gpu.exp_ops_per_s
        fp32_s = heads * op.flops.other_flops / gpu.fp32_flops_per_s
        busy = max(memory_s, tensor_s, exp_s, fp32_s)
        kernels.append(KernelTiming(
            name=op.name, time_s=cal.LAUNCH_OVERHEAD_S + busy,
            tensor_s=tensor_s if busy == tensor_s else 0.0,
            nonmatmul_s=max(exp_s, fp32_s) if busy in (exp_s, fp32_s) and busy != memory_s else 0.0,
            memory_s=memory_s if busy == memory_s else 0.0,
            overhead_s=cal.LAUNCH_OVERHEAD_S, dram_read_bytes=read, dram_write_bytes=write,
            matmul_flops=heads * op.flops.matmul_flops, other_flops=heads * op.flops.other_flops,
            exps=heads * op.flops.exps, sram_level_bytes=read + write))
    return PassTiming(tuple(kernels))


# --------------------------------------------------------------------------------------------------
# FlashAttention kernels
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlashDesign:
    """Block sizes and occupancy of a FlashAttention-2-design kernel on a GPU."""

    forward: Blocking
    backward: Blocking
    forward_ctas_per_sm: int
    backward_ctas_per_sm: int


def _fa2_smem_forward(b: Blocking, d: int, nbytes: int) -> int:
    return (b.block_rows + 2 * b.block_cols) * d * nbytes  # Q_i, K_j, V_j tiles; P stays in registers


def _fa2_smem_backward(b: Blocking, d: int, nbytes: int) -> int:
    # Q_i, dO_i, K_j, V_j tiles plus the P and dS tiles shared between warps.
    return (2 * b.block_rows + 2 * b.block_cols) * d * nbytes + 2 * b.block_rows * b.block_cols * nbytes


def fa2_design(gpu: GPUSpec, head_dim: int, nbytes: int = 2) -> FlashDesign:
    """FlashAttention-2's tiles: forward 128×128 (d ≤ 64) or 128×64 (d ≤ 128) or 64×64; backward 128×128
    (d ≤ 64) or 64×128; halved (rows first) until they fit the GPU's shared memory per block.
    Occupancy: up to 2 forward CTAs (4 warps, register-limited) and 1 backward CTA (8 warps) per SM."""
    fwd = Blocking(128, 128) if head_dim <= 64 else Blocking(128, 64) if head_dim <= 128 else Blocking(64, 64)
    bwd = Blocking(128, 128) if head_dim <= 64 else Blocking(64, 128) if head_dim <= 128 else Blocking(64, 64)
    limit = gpu.smem_per_block_bytes
    fwd = _shrink(fwd, lambda b: _fa2_smem_forward(b, head_dim, nbytes) <= limit)
    bwd = _shrink(bwd, lambda b: _fa2_smem_backward(b, head_dim, nbytes) <= limit)
    fwd_occ = max(1, min(2, gpu.smem_per_sm_bytes // max(1, _fa2_smem_forward(fwd, head_dim, nbytes))))
    bwd_occ = max(1, min(1, gpu.smem_per_sm_bytes // max(1, _fa2_smem_backward(bwd, head_dim, nbytes))))
    return FlashDesign(fwd, bwd, fwd_occ, bwd_occ)


def _shrink(blocking: Blocking, fits) -> Blocking:
    rows, cols = blocking.block_rows, blocking.block_cols
    while not fits(Blocking(rows, cols)) and (rows > 16 or cols > 16):
        if rows >= cols and rows > 16:
            rows //= 2
        else:
            cols //= 2
    return Blocking(rows, cols)


def fa1_design(gpu: GPUSpec, head_dim: int, nbytes: int = 2) -> FlashDesign:
    """The paper's Algorithm 1: blocks from the SRAM rule with M = shared memory per block; one CTA per
    (batch, head), one CTA per SM (its tiles fill the shared memory)."""
    fwd = paper_blocking(gpu.smem_per_block_bytes, head_dim, nbytes, FORWARD_TILES)
    bwd = paper_blocking(gpu.smem_per_block_bytes, head_dim, nbytes, BACKWARD_TILES)
    return FlashDesign(fwd, bwd, 1, 1)


def _partially_masked(problem: AttentionProblem, blocking: Blocking, active: np.ndarray) -> np.ndarray:
    """Active tiles that need element masking: crossing the causal diagonal or the key-padding end."""
    rows = block_ranges(problem.seqlen, blocking.block_rows)
    cols = block_ranges(problem.seqlen, blocking.block_cols)
    r_first = np.array([a for a, _ in rows])[:, None]
    c_last = np.array([b - 1 for _, b in cols])[None, :]
    partial = np.zeros_like(active)
    if problem.causal:
        partial |= c_last > r_first
    partial |= (c_last >= problem.n_keys_valid) & np.ones_like(active)
    return partial & active


def _tile_time(gpu: GPUSpec, eff: cal.FlashEfficiency, blocking: Blocking, head_dim: int, backward: bool,
               problem: AttentionProblem) -> tuple[float, float]:
    """(matmul seconds, non-matmul seconds) of one B_r × B_c tile on one SM."""
    scores = blocking.block_rows * blocking.block_cols
    if backward:
        matmul = 10.0 * scores * head_dim
        ops = FLASH_BWD_OPS["recompute"] + FLASH_BWD_OPS["dS"]
        ops += FLASH_BWD_OPS["mask"] if problem.masked else 0
        ops += FLASH_BWD_OPS["dropout"] if problem.dropout_p > 0 else 0
        other = ops * scores
    else:
        matmul = 4.0 * scores * head_dim
        ops = FLASH_FWD_OPS["online_softmax"] + (FLASH_FWD_OPS["mask"] if problem.masked else 0)
        ops += FLASH_FWD_OPS["dropout"] if problem.dropout_p > 0 else 0
        other = ops * scores + blocking.block_rows * head_dim  # + rescale of the O accumulator
    per_sm_tensor = eff.matmul_fraction * cal.MMA_SYNC_FRACTION[gpu.native_mma] * gpu.tensor_flops_per_s / gpu.sm_count
    matmul_s = matmul / per_sm_tensor
    exp_s = scores / (gpu.exp_ops_per_s / gpu.sm_count)
    fp32_s = other / (gpu.fp32_flops_per_s / gpu.sm_count)
    return matmul_s, max(exp_s, fp32_s)


def schedule_makespan(durations: np.ndarray, slots: int) -> float:
    """Greedy list scheduling of CTAs (in launch order) on ``slots`` equal slots; the time the last ends."""
    n = len(durations)
    if n == 0:
        return 0.0
    if n <= slots:
        return float(durations.max())
    if n > _HEAP_LIMIT:
        return float(durations.sum() / slots + durations.max() / 2)
    finish = [0.0] * slots
    heapq.heapify(finish)
    for duration in durations.tolist():
        start = heapq.heappop(finish)
        heapq.heappush(finish, start + duration)
    return float(max(finish))


def _flash_main_kernel(name: str, gpu: GPUSpec, workload: Workload, eff: cal.FlashEfficiency,
                       blocking: Blocking, ctas_per_sm: int, backward: bool, per_head_ctas: str,
                       sram_io: IOCount, reused: frozenset[str], flops) -> KernelTiming:
    """One tiled kernel: ``per_head_ctas`` is "rows" (a CTA per query block), "cols" (per key block) or
    "head" (one CTA per head, Algorithm 1)."""
    problem = workload.problem()
    heads = workload.n_heads_total
    active = block_activity(problem, blocking)
    partial = _partially_masked(problem, blocking, active)
    if per_head_ctas == "rows":
        work, masked = active.sum(axis=1), partial.sum(axis=1)
    elif per_head_ctas == "cols":
        work, masked = active.sum(axis=0), partial.sum(axis=0)
    else:
        work, masked = np.array([active.sum()]), np.array([partial.sum()])
    overhead_iters = eff.cta_overhead_iters * (1 if per_head_ctas != "head" else active.shape[1])
    mm_s, other_s = _tile_time(gpu, eff, blocking, workload.head_dim, backward, problem)
    tile_s = mm_s + other_s
    per_head = np.sort((work + overhead_iters + eff.masked_penalty_iters * masked) * tile_s)[::-1]
    durations = np.tile(per_head, heads) * ctas_per_sm  # ctas_per_sm CTAs share an SM's throughput
    slots = gpu.sm_count * ctas_per_sm
    makespan = schedule_makespan(durations, slots)
    ctas_each = len(per_head)
    active_heads = concurrent_heads(ctas_each, slots, heads)
    sizes = _tensor_sizes(problem)
    traffic = dram_traffic(sram_io, sizes, heads, reused, active_heads, gpu.l2_bytes, workload.input_bytes)
    memory_s = traffic.total_bytes / (cal.COPY_FRACTION * gpu.bandwidth_bytes_per_s)
    busy = max(makespan, memory_s)
    useful_tiles = heads * float(work.sum())
    tensor_s = useful_tiles * mm_s / gpu.sm_count
    nonmm_s = useful_tiles * other_s / gpu.sm_count
    compute_overhead = max(0.0, makespan - tensor_s - nonmm_s)
    if memory_s >= makespan:
        tensor_s = nonmm_s = compute_overhead = 0.0
    return KernelTiming(
        name=name, time_s=cal.LAUNCH_OVERHEAD_S + busy, tensor_s=tensor_s, nonmatmul_s=nonmm_s,
        memory_s=memory_s if memory_s >= makespan else 0.0,
        overhead_s=cal.LAUNCH_OVERHEAD_S + compute_overhead,
        dram_read_bytes=traffic.read_bytes, dram_write_bytes=traffic.write_bytes,
        matmul_flops=heads * flops.matmul_flops, other_flops=heads * flops.other_flops, exps=heads * flops.exps,
        sram_level_bytes=heads * (sram_io.read_bytes(workload.input_bytes) + sram_io.write_bytes(workload.input_bytes)))


def _tensor_sizes(problem: AttentionProblem) -> dict[str, int]:
    n, d = problem.seqlen, problem.head_dim
    sizes = {name: n * d for name in ("Q", "K", "V", "O", "dO", "dQ", "dK", "dV", "dQacc")}
    sizes.update({name: n for name in ("l", "m", "lse", "D")})
    return sizes


def _stream_kernel(name: str, gpu: GPUSpec, workload: Workload, io: IOCount) -> KernelTiming:
    """A small memory-bound helper kernel (preprocessing, memset, conversion) at the copy rate."""
    heads = workload.n_heads_total
    read, write = heads * io.read_bytes(workload.input_bytes), heads * io.write_bytes(workload.input_bytes)
    memory_s = (read + write) / (cal.COPY_FRACTION * gpu.bandwidth_bytes_per_s)
    return KernelTiming(name, cal.LAUNCH_OVERHEAD_S + memory_s, 0.0, 0.0, memory_s, cal.LAUNCH_OVERHEAD_S,
                        read, write, 0.0, 0.0, 0.0, read + write)


def flash_time(gpu: GPUSpec, workload: Workload, pass_: str = "fwd", kernel: str = "flashio",
               forward_eff: cal.FlashEfficiency | None = None,
               backward_eff: cal.FlashEfficiency | None = None) -> PassTiming:
    """Time of a FlashAttention kernel (``fa1``, ``fa2`` or ``flashio``) for one pass."""
    _check_pass(pass_)
    if kernel not in FLASH_KERNELS:
        raise ValueError(f"kernel must be one of {FLASH_KERNELS}, got {kernel!r}")
    forward_eff = forward_eff or cal.FLASH_FORWARD
    backward_eff = backward_eff or cal.FLASH_BACKWARD
    problem = workload.problem()
    nbytes = workload.input_bytes
    n, d = workload.seqlen, workload.head_dim
    kernels: list[KernelTiming] = []
    if kernel == "fa1":
        design = fa1_design(gpu, d, nbytes)
        if pass_ in ("fwd", "fwdbwd"):
            io = fa1_io(problem, design.forward, "fwd")
            kernels.append(_flash_main_kernel(
                "fa1_fwd", gpu, workload, forward_eff, design.forward, 1, False, "head", io,
                frozenset({"Q", "O", "l", "m"}), flash_flops(problem, design.forward, "fwd")))
        if pass_ in ("bwd", "fwdbwd"):
            io = fa1_io(problem, design.backward, "bwd")
            kernels.append(_flash_main_kernel(
                "fa1_bwd", gpu, workload, backward_eff, design.backward, 1, True, "head", io,
                frozenset({"Q", "O", "dO", "dQ", "l", "m"}), flash_flops(problem, design.backward, "bwd")))
        return PassTiming(tuple(kernels))
    design = fa2_design(gpu, d, nbytes)
    if pass_ in ("fwd", "fwdbwd"):
        io = fa2_io(problem, design.forward, "fwd")
        kernels.append(_flash_main_kernel(
            f"{kernel}_fwd", gpu, workload, forward_eff, design.forward, design.forward_ctas_per_sm, False,
            "rows", io, frozenset({"K", "V"}), flash_flops(problem, design.forward, "fwd")))
    if pass_ in ("bwd", "fwdbwd"):
        whole = fa2_io(problem, design.backward, "bwd")
        nd = n * d
        pre = IOCount({"O": nd, "dO": nd}, {"D": n})
        memset = IOCount({}, {"dQacc": nd})
        convert = IOCount({"dQacc": nd}, {"dQ": nd})
        main_reads = dict(whole.reads)
        main_writes = dict(whole.writes)
        for part in (pre, memset, convert):
            for k, v in part.reads.items():
                main_reads[k] -= v
            for k, v in part.writes.items():
                main_writes[k] -= v
        main = IOCount({k: v for k, v in main_reads.items() if v}, {k: v for k, v in main_writes.items() if v})
        kernels.append(_stream_kernel(f"{kernel}_bwd_preprocess", gpu, workload, pre))
        kernels.append(_stream_kernel(f"{kernel}_bwd_dq_zero", gpu, workload, memset))
        kernels.append(_flash_main_kernel(
            f"{kernel}_bwd", gpu, workload, backward_eff, design.backward, design.backward_ctas_per_sm, True,
            "cols", main, frozenset({"Q", "dO", "lse", "D", "dQacc"}), flash_flops(problem, design.backward, "bwd")))
        kernels.append(_stream_kernel(f"{kernel}_bwd_dq_convert", gpu, workload, convert))
    return PassTiming(tuple(kernels))


# --------------------------------------------------------------------------------------------------
# Predictions
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prediction:
    gpu: str
    kernel: str
    pass_: str
    workload: Workload
    standard: PassTiming
    flash: PassTiming
    convention_flops: float = field(default=0.0)

    @property
    def speedup(self) -> float:
        return self.standard.time_s / self.flash.time_s

    def to_dict(self) -> dict:
        w = self.workload
        return {
            "gpu": self.gpu, "kernel": self.kernel, "pass": self.pass_,
            "batch": w.batch, "heads": w.heads, "seqlen": w.seqlen, "head_dim": w.head_dim,
            "causal": w.causal, "dropout": w.dropout_p, "padding_mask": w.padding_mask, "dtype": w.dtype,
            "standard_ms": self.standard.time_s * 1e3,
            "flash_ms": self.flash.time_s * 1e3,
            "speedup": self.speedup,
            "standard_hbm_bytes": self.standard.dram_bytes,
            "flash_hbm_bytes": self.flash.dram_bytes,
            "flash_sram_level_bytes": self.flash.sram_level_bytes,
            "standard_flops": self.standard.total_flops,
            "flash_flops": self.flash.total_flops,
            "standard_matmul_flops": self.standard.matmul_flops,
            "flash_matmul_flops": self.flash.matmul_flops,
            "convention_flops": self.convention_flops,
            "standard_tflops_convention": self.convention_flops / self.standard.time_s / 1e12,
            "flash_tflops_convention": self.convention_flops / self.flash.time_s / 1e12,
            "standard_time_shares": self.standard.shares(),
            "flash_time_shares": self.flash.shares(),
            "standard_kernels": [_kernel_dict(k) for k in self.standard.kernels],
            "flash_kernels": [_kernel_dict(k) for k in self.flash.kernels],
        }


def _kernel_dict(k: KernelTiming) -> dict:
    return {"name": k.name, "ms": k.time_s * 1e3, "bound": k.bound,
            "dram_read_bytes": k.dram_read_bytes, "dram_write_bytes": k.dram_write_bytes}


def predict(gpu: GPUSpec, workload: Workload, pass_: str = "fwd", kernel: str = "flashio") -> Prediction:
    """Predicted standard and flash time, speedup and counts for one workload on one GPU."""
    _check_pass(pass_)
    conv = workload.n_heads_total * convention_flops(workload.seqlen, workload.head_dim, workload.causal, pass_)
    return Prediction(gpu.name, kernel, pass_, workload, standard_time(gpu, workload, pass_),
                      flash_time(gpu, workload, pass_, kernel), conv)


def _check_pass(pass_: str) -> None:
    if pass_ not in PASSES:
        raise ValueError(f"pass must be one of {PASSES}, got {pass_!r}")


__all__ = ["Workload", "KernelTiming", "PassTiming", "Prediction", "predict", "standard_time", "flash_time",
           "fa2_design", "fa1_design", "schedule_makespan", "standard_flops"]
