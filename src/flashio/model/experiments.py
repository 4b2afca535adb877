"""The paper's IO experiments, reproduced in kind from the counts, the simulator and the time model.

- Theorem 2: FlashAttention's HBM accesses scale as N²d²/M (``theorem2_sweep``: accesses beyond the
  compulsory 4Nd, for a range of SRAM sizes M and head dims d; the log-log slopes are −1 in M and +2 in d
  while B_c ≤ d, i.e. while both block dimensions grow with M).
- Figure 2 (middle): forward HBM accesses and runtime versus block size at the GPT-2 medium shape
  (batch 64, 16 heads, N = 1024, d = 64) on the A100 (``block_size_sweep``): accesses fall as 1/B_c, the
  runtime falls with them until the kernel becomes compute-bound and then flattens.
"""

from __future__ import annotations

from dataclasses import dataclass

from flashio.model import calibration as cal
from flashio.model.counts import AttentionProblem, Blocking, analytic_io, fa1_io, flash_flops
from flashio.model.gpus import GPUSpec
from flashio.model.timing import Workload, _flash_main_kernel


@dataclass(frozen=True)
class SweepPoint:
    sram_bytes: int
    head_dim: int
    accesses: int  # HBM accesses (elements) beyond the compulsory 4·N·d
    n2d2_over_m: float  # N²d²/M with M in elements


def theorem2_sweep(seqlen: int, head_dims: tuple[int, ...], sram_bytes: tuple[int, ...],
                   element_bytes: int = 2) -> list[SweepPoint]:
    """FA1 forward accesses (Algorithm 1 counts) over a grid of d and M."""
    points = []
    for d in head_dims:
        for m in sram_bytes:
            io = analytic_io("fa1", AttentionProblem(seqlen, d), m, "fwd", element_bytes)
            compulsory = 4 * seqlen * d
            points.append(SweepPoint(m, d, io.total - compulsory, seqlen ** 2 * d ** 2 / (m / element_bytes)))
    return points


@dataclass(frozen=True)
class BlockSizePoint:
    block_cols: int
    block_rows: int
    hbm_accesses_gb: float  # the paper's count: accesses past the SRAM, all heads, bytes / 1e9
    dram_gb: float  # after the L2 model
    runtime_ms: float


def block_size_sweep(gpu: GPUSpec, workload: Workload, block_sizes=(64, 128, 256, 512)) -> list[BlockSizePoint]:
    """Algorithm 1 forward with B_c = block size and B_r = min(B_c, d) (the paper's rule), one CTA per
    (batch, head) — Figure 2 (middle) of the FlashAttention paper in kind."""
    problem = workload.problem()
    points = []
    for bc in block_sizes:
        blocking = Blocking(min(bc, workload.head_dim), bc)
        io = fa1_io(problem, blocking, "fwd")
        kernel = _flash_main_kernel("fa1_fwd", gpu, workload, cal.FLASH_FORWARD, blocking, 1, False, "head", io,
                                    frozenset({"Q", "O", "l", "m"}), flash_flops(problem, blocking, "fwd"))
        points.append(BlockSizePoint(bc, blocking.block_rows, kernel.sram_level_bytes / 1e9,
                                     (kernel.dram_read_bytes + kernel.dram_write_bytes) / 1e9, kernel.time_s * 1e3))
    return points
