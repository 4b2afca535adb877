"""Analytic FLOP and HBM counts for standard attention, FlashAttention-1 (Algorithm 1) and the
FlashAttention-2 loop order, forward and backward, per (batch, head).

Unit: elements. Every tensor is counted under its own name, so a count can be turned into bytes with the
tensor's own element size (:data:`TENSOR_ELEMENT_BYTES`): inputs and outputs in the input dtype, row
statistics and the fp32 dQ accumulator in 4 bytes, PyTorch's saved dropout mask in 1 byte.

The formulas are closed sums over the block structure (which (query block, key block) pairs are active
under causal masking, key padding and a block-sparse pattern); the simulator in ``simulator.py`` runs the
algorithms and must reproduce them exactly. References: FlashAttention (arXiv 2205.14135) Algorithm 0
(standard), Algorithm 1/2 (forward), Algorithm 3/4 (backward), Theorem 2, Proposition 4;
FlashAttention-2 (arXiv 2307.08691) §3.1–3.2 (loop order, LSE, dQ accumulation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

# Bytes per element of each counted tensor when the input dtype has ``input_bytes`` bytes.
FP32_TENSORS = frozenset({"l", "m", "lse", "D", "dQacc"})
BYTE_TENSORS = frozenset({"dropout_mask"})


def tensor_element_bytes(name: str, input_bytes: int = 2) -> int:
    """Element size of a counted tensor: fp32 statistics/accumulators, 1-byte masks, else the input dtype."""
    if name in FP32_TENSORS:
        return 4
    if name in BYTE_TENSORS:
        return 1
    return input_bytes


PASSES = ("fwd", "bwd", "fwdbwd")


@dataclass(frozen=True)
class IOCount:
    """HBM reads and writes per tensor, in elements."""

    reads: Mapping[str, int] = field(default_factory=dict)
    writes: Mapping[str, int] = field(default_factory=dict)

    @property
    def total_reads(self) -> int:
        return int(sum(self.reads.values()))

    @property
    def total_writes(self) -> int:
        return int(sum(self.writes.values()))

    @property
    def total(self) -> int:
        return self.total_reads + self.total_writes

    def read_bytes(self, input_bytes: int = 2) -> int:
        return int(sum(n * tensor_element_bytes(k, input_bytes) for k, n in self.reads.items()))

    def write_bytes(self, input_bytes: int = 2) -> int:
        return int(sum(n * tensor_element_bytes(k, input_bytes) for k, n in self.writes.items()))

    def __add__(self, other: "IOCount") -> "IOCount":
        return IOCount(_merge(self.reads, other.reads), _merge(self.writes, other.writes))

    def scaled(self, factor: int) -> "IOCount":
        """Counts for ``factor`` independent heads (batch × heads)."""
        return IOCount({k: v * factor for k, v in self.reads.items()},
                       {k: v * factor for k, v in self.writes.items()})


def _merge(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + int(v)
    return {k: v for k, v in out.items() if v}


class _Tally:
    """Accumulates element counts per tensor (used by the formulas below)."""

    def __init__(self) -> None:
        self.reads: dict[str, int] = {}
        self.writes: dict[str, int] = {}

    def read(self, name: str, n: int) -> None:
        if n:
            self.reads[name] = self.reads.get(name, 0) + int(n)

    def write(self, name: str, n: int) -> None:
        if n:
            self.writes[name] = self.writes.get(name, 0) + int(n)

    def result(self) -> IOCount:
        return IOCount(dict(self.reads), dict(self.writes))


# ----------------------------------------------------------------------------------------------------
# Problems, block sizes and the active-block structure
# ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockSparsity:
    """A block-sparse pattern: a fraction ``fraction`` of the blocks of a (pattern_rows × pattern_cols)
    grid is non-zero; exactly round(fraction · #blocks) blocks (at least one), chosen with ``seed``.

    The grid is the pattern's own (so forward and backward see the same attention); the simulator and
    the CLI set it to the forward blocking, so that the forward skips exactly a fraction 1 − s of the
    pairs. An algorithm block is active when it overlaps a non-zero pattern block. FlashAttention
    Proposition 4: IO Θ(Nd + N²d²s/M).
    """

    fraction: float
    seed: int = 0
    pattern_rows: int = 128
    pattern_cols: int = 128

    def __post_init__(self) -> None:
        if not 0.0 < self.fraction <= 1.0:
            raise ValueError(f"block-sparse fraction must be in (0, 1], got {self.fraction}")
        if self.pattern_rows <= 0 or self.pattern_cols <= 0:
            raise ValueError("block-sparse pattern blocks must be positive")

    def mask(self, seqlen: int) -> np.ndarray:
        """The (P_r, P_c) boolean pattern for a sequence of ``seqlen``."""
        n_rows, n_cols = math.ceil(seqlen / self.pattern_rows), math.ceil(seqlen / self.pattern_cols)
        total = n_rows * n_cols
        keep = max(1, int(round(self.fraction * total)))
        rng = np.random.default_rng(self.seed)
        flat = np.zeros(total, dtype=bool)
        flat[rng.choice(total, size=keep, replace=False)] = True
        return flat.reshape(n_rows, n_cols)

    def dense(self, seqlen: int) -> np.ndarray:
        pattern = self.mask(seqlen)
        return np.repeat(np.repeat(pattern, self.pattern_rows, 0), self.pattern_cols, 1)[:seqlen, :seqlen]

    def activity(self, seqlen: int, blocking: "Blocking") -> np.ndarray:
        """Which algorithm blocks overlap a non-zero pattern block (2-D prefix sums over the pattern)."""
        pattern = self.mask(seqlen).astype(np.int64)
        prefix = np.zeros((pattern.shape[0] + 1, pattern.shape[1] + 1), dtype=np.int64)
        prefix[1:, 1:] = pattern.cumsum(0).cumsum(1)
        rows = block_ranges(seqlen, blocking.block_rows)
        cols = block_ranges(seqlen, blocking.block_cols)
        r0 = np.array([a // self.pattern_rows for a, _ in rows]); r1 = np.array([(b - 1) // self.pattern_rows + 1 for _, b in rows])
        c0 = np.array([a // self.pattern_cols for a, _ in cols]); c1 = np.array([(b - 1) // self.pattern_cols + 1 for _, b in cols])
        total = (prefix[r1[:, None], c1[None, :]] - prefix[r0[:, None], c1[None, :]]
                 - prefix[r1[:, None], c0[None, :]] + prefix[r0[:, None], c0[None, :]])
        return total > 0


@dataclass(frozen=True)
class AttentionProblem:
    """One (batch, head) slice: N queries and N keys of head dimension d, and the masking variants.

    ``key_valid``: number of valid (unpadded) keys, None = all N (key padding mask, the paper's
    'masking' benchmark). ``causal``: query i sees keys j ≤ i. ``dropout_p``: dropout on P.
    """

    seqlen: int
    head_dim: int
    causal: bool = False
    dropout_p: float = 0.0
    key_valid: int | None = None
    sparsity: BlockSparsity | None = None

    def __post_init__(self) -> None:
        if self.seqlen <= 0 or self.head_dim <= 0:
            raise ValueError(f"seqlen and head_dim must be positive, got {self.seqlen}, {self.head_dim}")
        if not 0.0 <= self.dropout_p < 1.0:
            raise ValueError(f"dropout probability must be in [0, 1), got {self.dropout_p}")
        if self.key_valid is not None and not 0 <= self.key_valid <= self.seqlen:
            raise ValueError(f"key_valid must be in [0, seqlen], got {self.key_valid}")

    @property
    def masked(self) -> bool:
        """Whether a mask step exists in standard attention."""
        return self.causal or self.key_valid is not None or self.sparsity is not None

    @property
    def n_keys_valid(self) -> int:
        return self.seqlen if self.key_valid is None else self.key_valid


@dataclass(frozen=True)
class Blocking:
    """Block sizes: B_r query rows and B_c key rows per tile."""

    block_rows: int
    block_cols: int

    def __post_init__(self) -> None:
        if self.block_rows <= 0 or self.block_cols <= 0:
            raise ValueError(f"block sizes must be positive, got {self.block_rows}×{self.block_cols}")


class SRAMTooSmallError(ValueError):
    """The SRAM cannot hold even one block row of every tile the algorithm keeps on chip."""


FORWARD_TILES = 4  # Q_i, K_j, V_j, O_i (Algorithm 1: B_c = ⌈M/4d⌉)
BACKWARD_TILES = 8  # K_j, V_j, dK_j, dV_j, Q_i, O_i, dO_i, dQ_i (Algorithm 4)


def paper_blocking(sram_bytes: int, head_dim: int, element_bytes: int = 2,
                   tiles: int = FORWARD_TILES) -> Blocking:
    """FlashAttention Algorithm 1 block rule: B_c = ⌈M/(4d)⌉, B_r = min(⌈M/(4d)⌉, d), M in elements.

    M = sram_bytes // element_bytes (tiles held in the input dtype, as on the GPU). The score tile
    S_ij (B_r × B_c ≤ d × B_c) and the row statistics live in registers, as in the CUDA kernels, so the
    SRAM holds exactly the ``tiles`` HBM tiles. The paper's ceiling can overshoot M by up to d−1 rows
    per tile; when it does the floor is used instead, so the tiles always fit (they coincide whenever
    M is a multiple of tiles·d). The backward pass keeps eight tiles (Algorithm 4), hence
    ``tiles=8`` there (Theorem 5 only needs blocks of Θ(M/d)).
    """
    if sram_bytes <= 0 or head_dim <= 0:
        raise ValueError("SRAM size and head dimension must be positive")
    m_elements = sram_bytes // element_bytes
    block_cols = math.ceil(m_elements / (tiles * head_dim))
    block_rows = min(block_cols, head_dim)
    if _tile_elements(block_rows, block_cols, head_dim, tiles) > m_elements:
        block_cols = m_elements // (tiles * head_dim)
        block_rows = min(block_cols, head_dim)
    if block_cols < 1:
        raise SRAMTooSmallError(
            f"SRAM of {sram_bytes} bytes cannot hold one row of the {tiles} tiles of width d={head_dim} "
            f"({tiles * head_dim * element_bytes} bytes needed)")
    return Blocking(block_rows, block_cols)


def _tile_elements(block_rows: int, block_cols: int, head_dim: int, tiles: int) -> int:
    """On-chip elements: half the tiles are query-side (B_r × d), half key-side (B_c × d)."""
    return (tiles // 2) * (block_rows + block_cols) * head_dim


def block_ranges(n: int, block: int) -> list[tuple[int, int]]:
    return [(start, min(start + block, n)) for start in range(0, n, block)]


def block_activity(problem: AttentionProblem, blocking: Blocking) -> np.ndarray:
    """Boolean (T_r, T_c) matrix: which (query block, key block) pairs hold any unmasked score.

    A pair is skipped (never loaded) when it is entirely above the causal diagonal, entirely in the key
    padding, or zero in the block-sparse pattern.
    """
    n = problem.seqlen
    rows = block_ranges(n, blocking.block_rows)
    cols = block_ranges(n, blocking.block_cols)
    row_last = np.array([stop - 1 for _, stop in rows])
    col_first = np.array([start for start, _ in cols])
    active = np.ones((len(rows), len(cols)), dtype=bool)
    if problem.causal:
        active &= col_first[None, :] <= row_last[:, None]
    active &= (col_first < problem.n_keys_valid)[None, :]
    if problem.sparsity is not None:
        active &= problem.sparsity.activity(n, blocking)
    return active


def element_mask(problem: AttentionProblem) -> np.ndarray:
    """Boolean (N, N) matrix of the scores that are kept (True) — causal, padding, block-sparse."""
    n = problem.seqlen
    keep = np.ones((n, n), dtype=bool)
    if problem.causal:
        keep &= np.tril(keep)
    keep[:, problem.n_keys_valid:] = False
    if problem.sparsity is not None:
        keep &= problem.sparsity.dense(n)
    return keep


# ----------------------------------------------------------------------------------------------------
# HBM counts
# ----------------------------------------------------------------------------------------------------


def _row_col_sizes(problem: AttentionProblem, blocking: Blocking) -> tuple[np.ndarray, np.ndarray]:
    rows = np.array([b - a for a, b in block_ranges(problem.seqlen, blocking.block_rows)], dtype=np.int64)
    cols = np.array([b - a for a, b in block_ranges(problem.seqlen, blocking.block_cols)], dtype=np.int64)
    return rows, cols


def fa1_io(problem: AttentionProblem, blocking: Blocking, pass_: str = "fwd",
           backward_blocking: Blocking | None = None) -> IOCount:
    """FlashAttention Algorithm 1 (forward) and Algorithm 4 (backward): outer loop over key blocks.

    Forward: initialise O, ℓ, m in HBM (write N·d, N, N); for each key block j with any active pair:
    read K_j, V_j; for each active query block i: read Q_i, O_i, ℓ_i, m_i and write O_i, ℓ_i, m_i back.
    So Q and O move once per active pair: Θ(T_c·N·d) = Θ(N²d²/M) (Theorem 2); block-sparse scales the
    pair count by s (Proposition 4). Dropout regenerates its mask (Algorithm 2): no extra traffic.
    Backward: initialise dQ, dK, dV in HBM; for each active key block j: read K_j, V_j; for each active
    pair: read Q_i, O_i, dO_i, dQ_i, ℓ_i, m_i, write dQ_i; then write dK_j, dV_j.
    """
    _check_pass(pass_)
    d, n = problem.head_dim, problem.seqlen
    t = _Tally()
    if pass_ in ("fwd", "fwdbwd"):
        active = block_activity(problem, blocking)
        rows, cols = _row_col_sizes(problem, blocking)
        pair_rows = int((active * rows[:, None]).sum())  # Σ over active pairs of B_r(i)
        kv_rows = int(cols[active.any(axis=0)].sum())
        t.write("O", n * d); t.write("l", n); t.write("m", n)
        t.read("K", kv_rows * d); t.read("V", kv_rows * d)
        for name, width in (("Q", d), ("O", d), ("l", 1), ("m", 1)):
            t.read(name, pair_rows * width)
        for name, width in (("O", d), ("l", 1), ("m", 1)):
            t.write(name, pair_rows * width)
    if pass_ in ("bwd", "fwdbwd"):
        active = block_activity(problem, backward_blocking or blocking)
        rows, cols = _row_col_sizes(problem, backward_blocking or blocking)
        pair_rows = int((active * rows[:, None]).sum())
        kv_rows = int(cols[active.any(axis=0)].sum())
        t.write("dQ", n * d); t.write("dK", n * d); t.write("dV", n * d)
        t.read("K", kv_rows * d); t.read("V", kv_rows * d)
        for name, width in (("Q", d), ("O", d), ("dO", d), ("dQ", d), ("l", 1), ("m", 1)):
            t.read(name, pair_rows * width)
        t.write("dQ", pair_rows * d)
        t.write("dK", kv_rows * d); t.write("dV", kv_rows * d)
    return t.result()


def fa2_io(problem: AttentionProblem, blocking: Blocking, pass_: str = "fwd",
           backward_blocking: Blocking | None = None) -> IOCount:
    """FlashAttention-2 loop order: outer loop (parallel) over query blocks in the forward pass,
    over key blocks in the backward pass (FlashAttention-2 §3.1–3.2).

    Forward: for each query block i: read Q_i if it has an active pair, read K_j, V_j for every active
    pair, then write O_i (zeros for a row block that sees no key) and LSE_i. Θ(T_r·N·d).
    Backward: preprocessing D = rowsum(dO ∘ O) (read O, dO; write D); dQ accumulator zeroed (write N·d,
    fp32); for each key block j with any active pair: read K_j, V_j; for each active pair read Q_i, dO_i,
    LSE_i, D_i and add into dQacc_i (read + write B_r·d fp32: FlashAttention-2's atomic adds); write
    dK_j, dV_j for every key block; finally convert dQacc to dQ (read N·d fp32, write N·d).
    """
    _check_pass(pass_)
    d, n = problem.head_dim, problem.seqlen
    t = _Tally()
    if pass_ in ("fwd", "fwdbwd"):
        active = block_activity(problem, blocking)
        rows, cols = _row_col_sizes(problem, blocking)
        q_rows = int(rows[active.any(axis=1)].sum())
        pair_cols = int((active * cols[None, :]).sum())
        t.read("Q", q_rows * d)
        t.read("K", pair_cols * d); t.read("V", pair_cols * d)
        t.write("O", n * d); t.write("lse", n)
    if pass_ in ("bwd", "fwdbwd"):
        bb = backward_blocking or blocking
        active = block_activity(problem, bb)
        rows, cols = _row_col_sizes(problem, bb)
        kv_rows = int(cols[active.any(axis=0)].sum())
        pair_rows = int((active * rows[:, None]).sum())
        t.read("O", n * d); t.read("dO", n * d); t.write("D", n)
        t.write("dQacc", n * d)
        t.read("K", kv_rows * d); t.read("V", kv_rows * d)
        for name, width in (("Q", d), ("dO", d), ("lse", 1), ("D", 1)):
            t.read(name, pair_rows * width)
        t.read("dQacc", pair_rows * d); t.write("dQacc", pair_rows * d)
        t.write("dK", n * d); t.write("dV", n * d)
        t.read("dQacc", n * d); t.write("dQ", n * d)
    return t.result()


def _check_pass(pass_: str) -> None:
    if pass_ not in PASSES:
        raise ValueError(f"pass must be one of {PASSES}, got {pass_!r}")


def theorem2_accesses(seqlen: int, head_dim: int, sram_elements: float) -> float:
    """Leading term of FlashAttention's forward HBM accesses, N²d²/M (Theorem 2), for comparisons."""
    return seqlen ** 2 * head_dim ** 2 / sram_elements


# ----------------------------------------------------------------------------------------------------
# FLOP counts
# ----------------------------------------------------------------------------------------------------

# Non-matmul operations per score in the tiled kernels (FP32 ALU work, excluding exp, which runs on the
# special-function units), counted from the algorithms of algorithm.md:
#   forward: scale+subtract (one FMA with τ·log2 e folded in) 1, max 1, sum 1, mask 1 on partially masked
#     tiles (counted on all executed scores when masked), dropout 2
#   backward: recompute (FMA) 1, dS = P∘(dP − D) 2, mask 1, dropout 1
# Standard attention's per-score work is listed op by op in :func:`standard_ops`.
FLASH_FWD_OPS = {"online_softmax": 3, "mask": 1, "dropout": 2}
FLASH_BWD_OPS = {"recompute": 1, "dS": 2, "mask": 1, "dropout": 1}


@dataclass(frozen=True)
class FlopCount:
    """Executed work per head: tensor-core matmul FLOPs, other FP32 operations, exponentials."""

    matmul_flops: float
    other_flops: float
    exps: float

    @property
    def total_flops(self) -> float:
        return self.matmul_flops + self.other_flops + self.exps

    def __add__(self, other: "FlopCount") -> "FlopCount":
        return FlopCount(self.matmul_flops + other.matmul_flops, self.other_flops + other.other_flops,
                         self.exps + other.exps)

    def scaled(self, factor: float) -> "FlopCount":
        return FlopCount(self.matmul_flops * factor, self.other_flops * factor, self.exps * factor)


def convention_flops(seqlen: int, head_dim: int, causal: bool, pass_: str) -> float:
    """The benchmark convention of every anchor: forward 4·N²·d per head, halved when causal;
    backward 2.5× forward; both 3.5× (algorithm.md, 'Counting FLOPs')."""
    _check_pass(pass_)
    fwd = 4.0 * seqlen * seqlen * head_dim * (0.5 if causal else 1.0)
    return {"fwd": fwd, "bwd": 2.5 * fwd, "fwdbwd": 3.5 * fwd}[pass_]


# ----------------------------------------------------------------------------------------------------
# Standard attention: the one list of its kernels (counts, timing and the simulator all use it)
# ----------------------------------------------------------------------------------------------------

# The N×N intermediates of standard attention (per head). ``dPxP`` is P∘dP, the product that PyTorch's
# softmax backward materialises before its row reduction (see :func:`standard_ops`).
STANDARD_NN_TENSORS = frozenset({"S", "P", "P_drop", "dropout_mask", "dP", "dPxP", "dS"})
STANDARD_OP_KINDS = ("matmul", "elementwise", "mask")


@dataclass(frozen=True)
class StandardOp:
    """One kernel of standard attention for one (batch, head): the tensors it reads and writes (each
    once, whole), its HBM counts in elements and its work.

    ``kind`` is "matmul" (cuBLAS), "elementwise" (an N×N element-wise or row-wise kernel) or "mask" (the
    causal/padding/block-sparse mask, whose pattern is computed from indices and moves no data).
    ``backward`` tells which pass the kernel belongs to.
    """

    name: str
    kind: str
    backward: bool
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    io: IOCount
    flops: FlopCount


def standard_ops(problem: AttentionProblem, pass_: str = "fwd") -> tuple[StandardOp, ...]:
    """The kernels PyTorch runs for materialising attention (FlashAttention Algorithm 0 and 3), in order.

    This is the single description of the standard path: :func:`standard_io` and :func:`standard_flops`
    sum it, ``timing.standard_time`` times it kernel by kernel and ``simulator`` executes it on NumPy
    arrays (each kernel given only the tensors it declares), so the three cannot disagree.

    Forward: S = QKᵀ → scale S by τ → [mask] → softmax → [dropout: writes P_drop and PyTorch's 1-byte keep
    mask] → O = P V. Every kernel reads its operands once and writes its output once (ncu on the H200:
    the cuBLAS kernels read Q and K once; h200_anchors.md).
    Backward (autograd of the same chain): dV = P_dropᵀ dO; dP = dO Vᵀ; [dropout: read dP and the mask,
    write dP]; softmax backward as **two kernels**, as PyTorch runs it on CUDA — an element-wise product
    dPxP = P∘dP (reads two N×N, writes one), then softmax_warp_backward dS = dPxP − P·rowsum(dPxP) (reads
    two N×N, writes one): 4 N×N reads and 2 writes, not the 2 and 1 of a fused kernel (ncu per kernel on the
    H200, benchmarks/results/2026-11-30_h200_ncu_dram_gpt2medium.log: BinaryFunctor 4.295 GB read /
    2.13 GB written, then softmax_warp_backward 4.295 / 2.13 GB, one N×N fp16 tensor being 2.147 GB);
    [mask: read dS, write dS]; scale: read dS, write dS; dQ = dS K; dK = dSᵀ Q.
    In all, forward + backward moves 11 N×N reads and 7 N×N writes without mask or dropout (Θ(Nd + N²),
    Theorem 2); the mask adds one N×N read and write in each pass.

    Per-score FP32 work (exp counted apart): scale 1, mask 1, softmax 4 (max, subtract, sum, divide) and one
    exp, dropout 2 (draw, multiply); backward dropout 1, product 1, softmax_warp_backward 2 (row sum,
    multiply-subtract), mask 1, scale 1. Every matmul is 2·N²·d. All N² scores are computed whatever
    the mask.
    """
    _check_pass(pass_)
    n, d = problem.seqlen, problem.head_dim
    nn, nd = float(n * n), float(n * d)
    drop = problem.dropout_p > 0
    p_used = "P_drop" if drop else "P"
    ops: list[StandardOp] = []

    def add(name: str, kind: str, backward: bool, reads: tuple[str, ...], writes: tuple[str, ...],
            matmul: float = 0.0, other_per_score: float = 0.0, exps_per_score: float = 0.0) -> None:
        size = {name_: n * n if name_ in STANDARD_NN_TENSORS else n * d for name_ in reads + writes}
        t = _Tally()
        for name_ in reads:
            t.read(name_, size[name_])
        for name_ in writes:
            t.write(name_, size[name_])
        ops.append(StandardOp(name, kind, backward, reads, writes, t.result(),
                              FlopCount(matmul, other_per_score * nn, exps_per_score * nn)))

    if pass_ in ("fwd", "fwdbwd"):
        add("S=QK^T", "matmul", False, ("Q", "K"), ("S",), matmul=2 * nn * d)
        add("scale", "elementwise", False, ("S",), ("S",), other_per_score=1)
        if problem.masked:
            add("mask", "mask", False, ("S",), ("S",), other_per_score=1)
        add("softmax", "elementwise", False, ("S",), ("P",), other_per_score=4, exps_per_score=1)
        if drop:
            add("dropout", "elementwise", False, ("P",), ("P_drop", "dropout_mask"), other_per_score=2)
        add("O=PV", "matmul", False, (p_used, "V"), ("O",), matmul=2 * nn * d)
    if pass_ in ("bwd", "fwdbwd"):
        add("dV=P^TdO", "matmul", True, (p_used, "dO"), ("dV",), matmul=2 * nn * d)
        add("dP=dOV^T", "matmul", True, ("dO", "V"), ("dP",), matmul=2 * nn * d)
        if drop:
            add("dropout_bwd", "elementwise", True, ("dP", "dropout_mask"), ("dP",), other_per_score=1)
        add("softmax_bwd_mul", "elementwise", True, ("P", "dP"), ("dPxP",), other_per_score=1)
        add("softmax_bwd", "elementwise", True, ("dPxP", "P"), ("dS",), other_per_score=2)
        if problem.masked:
            add("mask_bwd", "mask", True, ("dS",), ("dS",), other_per_score=1)
        add("scale_bwd", "elementwise", True, ("dS",), ("dS",), other_per_score=1)
        add("dQ=dSK", "matmul", True, ("dS", "K"), ("dQ",), matmul=2 * nn * d)
        add("dK=dS^TQ", "matmul", True, ("dS", "Q"), ("dK",), matmul=2 * nn * d)
    return tuple(ops)


def standard_io(problem: AttentionProblem, pass_: str = "fwd") -> IOCount:
    """HBM reads and writes of standard attention: the sum over :func:`standard_ops`."""
    total = IOCount()
    for op in standard_ops(problem, pass_):
        total = total + op.io
    return total


def standard_flops(problem: AttentionProblem, pass_: str = "fwd") -> FlopCount:
    """Work of standard attention, the sum over :func:`standard_ops`: forward 2 matmuls (4N²d), backward
    4 matmuls (8N²d), and the element-wise work of every kernel on all N² scores."""
    total = FlopCount(0.0, 0.0, 0.0)
    for op in standard_ops(problem, pass_):
        total = total + op.flops
    return total


def executed_scores(problem: AttentionProblem, blocking: Blocking) -> int:
    """Scores computed by a tiled kernel: every element of every active block (masked ones included)."""
    active = block_activity(problem, blocking)
    rows, cols = _row_col_sizes(problem, blocking)
    return int((active * np.outer(rows, cols)).sum())


def flash_flops(problem: AttentionProblem, blocking: Blocking, pass_: str = "fwd",
                backward_blocking: Blocking | None = None) -> FlopCount:
    """Tiled attention computes the active blocks only: forward 2 matmuls per block (4·B_r·B_c·d),
    backward 5 (10·B_r·B_c·d: the recomputation of S plus dV, dP, dQ, dK; FlashAttention §3.1), plus
    one exp per score in each pass and the rescaling of the output accumulator (d per row per block)."""
    _check_pass(pass_)
    d = problem.head_dim
    total = FlopCount(0.0, 0.0, 0.0)
    if pass_ in ("fwd", "fwdbwd"):
        scores = float(executed_scores(problem, blocking))
        ops = FLASH_FWD_OPS["online_softmax"] + (FLASH_FWD_OPS["mask"] if problem.masked else 0)
        ops += FLASH_FWD_OPS["dropout"] if problem.dropout_p > 0 else 0
        rescale = scores * d / blocking.block_cols
        total += FlopCount(4.0 * scores * d, ops * scores + rescale, scores)
    if pass_ in ("bwd", "fwdbwd"):
        bb = backward_blocking or blocking
        scores = float(executed_scores(problem, bb))
        ops = FLASH_BWD_OPS["recompute"] + FLASH_BWD_OPS["dS"]
        ops += FLASH_BWD_OPS["mask"] if problem.masked else 0
        ops += FLASH_BWD_OPS["dropout"] if problem.dropout_p > 0 else 0
        total += FlopCount(10.0 * scores * d, ops * scores, scores)
    return total


def analytic_io(kernel: str, problem: AttentionProblem, sram_bytes: int, pass_: str = "fwd",
                element_bytes: int = 2) -> IOCount:
    """Counts of ``kernel`` (standard, fa1, fa2) with the paper's block rule for an SRAM of
    ``sram_bytes`` (forward 4 tiles, backward 8 tiles; see :func:`paper_blocking`)."""
    _check_pass(pass_)
    if kernel == "standard":
        return standard_io(problem, pass_)
    fwd = paper_blocking(sram_bytes, problem.head_dim, element_bytes, FORWARD_TILES)
    bwd = paper_blocking(sram_bytes, problem.head_dim, element_bytes, BACKWARD_TILES) if pass_ != "fwd" else None
    if kernel == "fa1":
        return fa1_io(problem, fwd, pass_, bwd)
    if kernel == "fa2":
        return fa2_io(problem, fwd, pass_, bwd)
    raise ValueError(f"kernel must be standard, fa1 or fa2, got {kernel!r}")
