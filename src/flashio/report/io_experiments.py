"""The paper's IO experiments for the report: HBM accesses versus block size and versus N.

- Figure 2 (middle) in kind: at the GPT-2 medium shape (batch 64, 16 heads, N = 1024, d = 64, fp16) the
  forward of Algorithm 1 with B_c = 64 … 512 (B_r = min(B_c, d)). The SRAM simulator runs one head with
  an SRAM of exactly the four tiles (M = 2·(B_r + B_c)·d elements rounded up to the paper's rule) and its
  count, times the 1024 heads, is set beside the analytic count of ``experiments.block_size_sweep``;
  the time model gives the runtime on three GPUs.
- Theorem 2: FlashAttention's accesses beyond the compulsory 4·N·d grow as N²d²/M — analytic counts for
  N = 256 … 16k and three SRAM sizes (the simulator confirms them up to N = 512), next to standard
  attention's Θ(Nd + N²); and accesses / (N²d²/M) over M and d (``experiments.theorem2_sweep``).
"""

from __future__ import annotations

from dataclasses import dataclass

from flashio.model.counts import AttentionProblem, analytic_io, standard_io
from flashio.model.experiments import BlockSizePoint, SweepPoint, block_size_sweep, theorem2_sweep
from flashio.model.gpus import get_gpu
from flashio.model.simulator import simulate
from flashio.model.timing import Workload

GPT2_MEDIUM = Workload(64, 16, 1024, 64, dtype="fp16")
BLOCK_SIZES = (64, 128, 256, 512)
BLOCK_SIZE_GPUS = ("a100-40gb", "t4", "h200")
ELEMENT_BYTES = 2

THEOREM2_HEAD_DIM = 64
THEOREM2_SRAM_KIB = (64, 163, 227)  # per-block shared memory of the T4, the A100 and the H100/H200
THEOREM2_SEQLENS = (256, 512, 1024, 2048, 4096, 8192, 16384)
SIMULATED_SEQLENS = (256, 512)  # one head in NumPy: ~0.1 s at N = 512 (N = 1024 is simulated by the block sweep)
THEOREM2_SWEEP_SEQLEN = 4096
THEOREM2_SWEEP_HEAD_DIMS = (16, 32, 64)
THEOREM2_SWEEP_SRAM_BYTES = (16384, 32768, 65536, 131072)


@dataclass(frozen=True)
class BlockSizeRow:
    block_cols: int
    block_rows: int
    analytic_gb: float  # accesses past the SRAM, all heads (GB = 1e9 bytes)
    simulated_gb: float  # the simulator's count for one head × heads
    runtime_ms: dict[str, float]  # per GPU slug
    dram_gb: dict[str, float]  # after the L2 model, per GPU slug


def sram_bytes_for_block(block_cols: int, head_dim: int) -> int:
    """An SRAM for which the paper's rule B_c = ⌈M/4d⌉ gives exactly ``block_cols`` (M = 4·d·B_c elements)."""
    return 4 * head_dim * block_cols * ELEMENT_BYTES


def block_size_rows(block_sizes=BLOCK_SIZES, gpus=BLOCK_SIZE_GPUS, simulate_heads: bool = True) -> list[BlockSizeRow]:
    """Figure 2 (middle): accesses (analytic and simulated) and runtime versus block size."""
    sweeps: dict[str, list[BlockSizePoint]] = {g: block_size_sweep(get_gpu(g), GPT2_MEDIUM, block_sizes) for g in gpus}
    heads = GPT2_MEDIUM.n_heads_total
    problem = GPT2_MEDIUM.problem()
    rows = []
    for index, block_cols in enumerate(block_sizes):
        point = sweeps[gpus[0]][index]
        simulated = float("nan")
        if simulate_heads:
            result = simulate("fa1", problem, sram_bytes_for_block(block_cols, problem.head_dim), "fwd")
            simulated = heads * (result.io.read_bytes(ELEMENT_BYTES) + result.io.write_bytes(ELEMENT_BYTES)) / 1e9
        rows.append(BlockSizeRow(block_cols, point.block_rows, point.hbm_accesses_gb, simulated,
                                 {g: sweeps[g][index].runtime_ms for g in gpus},
                                 {g: sweeps[g][index].dram_gb for g in gpus}))
    return rows


@dataclass(frozen=True)
class AccessesVsN:
    seqlen: int
    sram_kib: int
    flash_accesses: int  # FA1 forward accesses beyond the compulsory 4·N·d (elements, one head)
    simulated_accesses: int | None  # the simulator's count where it was run
    standard_accesses: int  # standard attention forward, all accesses (elements, one head)
    n2d2_over_m: float  # N²d²/M with M in elements


def accesses_vs_seqlen(seqlens=THEOREM2_SEQLENS, sram_kib=THEOREM2_SRAM_KIB, head_dim=THEOREM2_HEAD_DIM,
                       simulated_seqlens=SIMULATED_SEQLENS) -> list[AccessesVsN]:
    """Theorem 2 versus N: FA1 forward accesses for each SRAM size, and standard attention's."""
    rows = []
    for kib in sram_kib:
        sram_bytes = kib * 1024
        for n in seqlens:
            problem = AttentionProblem(n, head_dim)
            compulsory = 4 * n * head_dim
            flash = analytic_io("fa1", problem, sram_bytes, "fwd", ELEMENT_BYTES).total - compulsory
            simulated = None
            if n in simulated_seqlens:
                simulated = simulate("fa1", problem, sram_bytes, "fwd").io.total - compulsory
            rows.append(AccessesVsN(n, kib, flash, simulated, standard_io(problem, "fwd").total,
                                    n * n * head_dim * head_dim / (sram_bytes / ELEMENT_BYTES)))
    return rows


def theorem2_grid() -> list[SweepPoint]:
    """Accesses beyond the compulsory over d × M at N = 4096 (``experiments.theorem2_sweep``)."""
    return theorem2_sweep(THEOREM2_SWEEP_SEQLEN, THEOREM2_SWEEP_HEAD_DIMS, THEOREM2_SWEEP_SRAM_BYTES, ELEMENT_BYTES)
