"""Run the tiled attention algorithms on NumPy arrays through an explicit SRAM, counting HBM traffic.

The simulator is the check on ``counts.py``: it executes standard attention, FlashAttention Algorithm 1
(forward) / Algorithm 4 (backward) and the FlashAttention-2 loop order, one (batch, head) slice at a
time, with causal masking, key padding, block sparsity and dropout. Every tile that the algorithm keeps
on chip goes through :class:`SRAM`, which refuses to hold more than M bytes; every read or write of an
HBM tensor goes through :class:`HBM`, which counts elements per tensor. The score tile S_ij/P_ij and the
per-row statistics live in registers (as in the CUDA kernels), see ``counts.paper_blocking``.

Arithmetic is fp32 (the kernels' accumulator precision); the reference is computed in float64, so the
outputs agree to fp32 rounding.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import numpy as np

from flashio.model.counts import (
    BACKWARD_TILES,
    FORWARD_TILES,
    AttentionProblem,
    Blocking,
    IOCount,
    block_activity,
    block_ranges,
    element_mask,
    paper_blocking,
    standard_ops,
)

KERNELS = ("standard", "fa1", "fa2")


class SRAMOverflowError(RuntimeError):
    """An algorithm tried to keep more bytes on chip than the SRAM holds."""


class SRAM:
    """On-chip memory of ``capacity_bytes``; tiles are accounted at ``element_bytes`` per element."""

    def __init__(self, capacity_bytes: int, element_bytes: int = 2) -> None:
        self.capacity_bytes = int(capacity_bytes)
        self.element_bytes = int(element_bytes)
        self._tiles: dict[str, int] = {}
        self.peak_bytes = 0

    @property
    def used_bytes(self) -> int:
        return sum(self._tiles.values())

    def hold(self, key: str, tile: np.ndarray) -> np.ndarray:
        """Place ``tile`` on chip under ``key`` (replacing a tile of the same key); refuse to overflow."""
        size = tile.size * self.element_bytes
        new_used = self.used_bytes - self._tiles.get(key, 0) + size
        if new_used > self.capacity_bytes:
            raise SRAMOverflowError(
                f"holding {key!r} ({size} B) needs {new_used} B of SRAM, capacity {self.capacity_bytes} B")
        self._tiles[key] = size
        self.peak_bytes = max(self.peak_bytes, new_used)
        return tile

    def release(self, *keys: str) -> None:
        for key in keys:
            self._tiles.pop(key, None)


class HBM:
    """Off-chip tensors with per-tensor read/write counters (elements)."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.reads: dict[str, int] = {}
        self.writes: dict[str, int] = {}

    def put(self, name: str, array: np.ndarray) -> None:
        """Place an input in HBM without counting (it is already there when the kernel starts)."""
        self.arrays[name] = np.array(array, dtype=np.float32, copy=True)

    def allocate(self, name: str, shape: tuple[int, ...], fill: float = 0.0) -> None:
        """Allocate without counting (allocation moves no data; initialising writes are counted)."""
        self.arrays[name] = np.full(shape, fill, dtype=np.float32)

    def read(self, name: str, rows: slice | None = None) -> np.ndarray:
        block = self.arrays[name] if rows is None else self.arrays[name][rows]
        self.reads[name] = self.reads.get(name, 0) + block.size
        return block.astype(np.float32, copy=True)

    def write(self, name: str, values: np.ndarray, rows: slice | None = None) -> None:
        values = np.asarray(values, dtype=np.float32)
        if name not in self.arrays:
            if rows is not None:
                raise KeyError(f"write of rows of unallocated tensor {name!r}")
            self.arrays[name] = values.copy()
        elif rows is None:
            self.arrays[name] = values.copy()
        else:
            self.arrays[name][rows] = values
        self.writes[name] = self.writes.get(name, 0) + values.size

    def counts(self) -> IOCount:
        return IOCount({k: v for k, v in self.reads.items() if v}, {k: v for k, v in self.writes.items() if v})


def dropout_keep(seed: int, row_index: np.ndarray, col_index: np.ndarray, p: float, n: int) -> np.ndarray:
    """Counter-based keep mask (the role Philox plays in the kernels): a hash of (seed, row, column), so
    the backward pass and the reference regenerate the same mask without storing it. SplitMix64 mixing."""
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps modulo 2^64 by design
        x = (np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
             + row_index.astype(np.uint64)[:, None] * np.uint64(n) + col_index.astype(np.uint64)[None, :])
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    uniform = (x >> np.uint64(11)).astype(np.float64) / float(1 << 53)
    return uniform >= p


# ----------------------------------------------------------------------------------------------------
# Reference (float64)
# ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    d_out: np.ndarray
    dropout_seed: int = 0


def random_inputs(problem: AttentionProblem, seed: int = 0) -> Inputs:
    rng = np.random.default_rng(seed)
    shape = (problem.seqlen, problem.head_dim)
    q, k, v, d_out = (rng.standard_normal(shape).astype(np.float32) for _ in range(4))
    return Inputs(q, k, v, d_out, dropout_seed=seed + 1)


def reference_attention(problem: AttentionProblem, inputs: Inputs) -> dict[str, np.ndarray]:
    """Materialised attention in float64: O, and dQ, dK, dV for the upstream gradient dO.
    Rows that see no key output zeros and get zero gradients (the flash-attn convention)."""
    n, d = problem.seqlen, problem.head_dim
    tau = 1.0 / np.sqrt(d)
    q, k, v, d_out = (x.astype(np.float64) for x in (inputs.q, inputs.k, inputs.v, inputs.d_out))
    keep = element_mask(problem)
    s = np.where(keep, tau * q @ k.T, -np.inf)
    row_max = np.max(s, axis=1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.where(keep, np.exp(s - row_max), 0.0)
    denom = e.sum(axis=1, keepdims=True)
    p = np.divide(e, denom, out=np.zeros_like(e), where=denom > 0)
    z = _dropout_scale(problem, inputs, np.arange(n), np.arange(n)).astype(np.float64)
    p_drop = p * z
    out = p_drop @ v
    dv = p_drop.T @ d_out
    dp = (d_out @ v.T) * z
    ds = p * (dp - (p * dp).sum(axis=1, keepdims=True))
    return {"O": out, "dQ": tau * ds @ k, "dK": tau * ds.T @ q, "dV": dv}


def _dropout_scale(problem: AttentionProblem, inputs: Inputs, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Z = keep/(1 − p) for the given rows × cols (ones without dropout)."""
    if problem.dropout_p == 0:
        return np.ones((rows.size, cols.size), dtype=np.float32)
    keep = dropout_keep(inputs.dropout_seed, rows, cols, problem.dropout_p, problem.seqlen)
    return (keep / (1.0 - problem.dropout_p)).astype(np.float32)


def _exp_shifted(s: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """exp(s − shift) with exp(−inf − anything) = 0 and a −inf shift treated as 0 (nothing seen yet)."""
    safe_shift = np.where(np.isfinite(shift), shift, 0.0).astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(np.isneginf(s), np.float32(0.0), np.exp(s - safe_shift)).astype(np.float32)


def _scale_factor(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """e^{old − new}, 0 when old = −inf (nothing accumulated)."""
    safe_new = np.where(np.isfinite(new), new, 0.0)
    with np.errstate(invalid="ignore"):
        return np.where(np.isneginf(old), 0.0, np.exp(old - safe_new)).astype(np.float32)


# ----------------------------------------------------------------------------------------------------
# Algorithms
# ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimulationResult:
    kernel: str
    pass_: str
    io: IOCount
    outputs: dict
    reference: dict
    blocking: Blocking | None
    backward_blocking: Blocking | None
    peak_sram_bytes: int

    @property
    def max_abs_error(self) -> float:
        return float(max(np.max(np.abs(self.outputs[k] - self.reference[k])) if self.outputs[k].size else 0.0
                         for k in self.outputs))


def _scores(problem: AttentionProblem, keep: np.ndarray, q: np.ndarray, k: np.ndarray,
            rows: slice, cols: slice) -> np.ndarray:
    tau = np.float32(1.0 / np.sqrt(problem.head_dim))
    return np.where(keep[rows, cols], (q @ k.T) * tau, np.float32(-np.inf)).astype(np.float32)


def _standard_kernels(problem: AttentionProblem, inputs: Inputs) -> dict[str, Callable[..., tuple]]:
    """NumPy bodies of the kernels of ``counts.standard_ops``, keyed by op name: each takes the arrays
    the op declares it reads (in order) and returns those it declares it writes (in order). The mask
    pattern is computed from indices and the forward dropout draws its keep mask from the RNG, so neither
    is an input; the backward reads the saved keep mask from HBM."""
    n, d = problem.seqlen, problem.head_dim
    keep = element_mask(problem)
    z = _dropout_scale(problem, inputs, np.arange(n), np.arange(n))
    tau = np.float32(1.0 / np.sqrt(d))
    keep_scale = np.float32(1.0 / (1.0 - problem.dropout_p))

    def softmax(s: np.ndarray) -> tuple:
        e = _exp_shifted(s, s.max(axis=1, keepdims=True))
        denom = e.sum(axis=1, keepdims=True)
        return (np.divide(e, denom, out=np.zeros_like(e), where=denom > 0),)

    return {
        "S=QK^T": lambda q, k: (q @ k.T,),
        "scale": lambda s: (s * tau,),
        "mask": lambda s: (np.where(keep, s, np.float32(-np.inf)),),
        "softmax": softmax,
        "dropout": lambda p: (p * z, (z > 0).astype(np.float32)),
        "O=PV": lambda p, v: (p @ v,),
        "dV=P^TdO": lambda p, d_out: (p.T @ d_out,),
        "dP=dOV^T": lambda d_out, v: (d_out @ v.T,),
        "dropout_bwd": lambda dp, kept: (dp * kept * keep_scale,),
        "softmax_bwd_mul": lambda p, dp: (p * dp,),
        "softmax_bwd": lambda dpxp, p: (dpxp - p * dpxp.sum(axis=1, keepdims=True),),
        "mask_bwd": lambda ds: (np.where(keep, ds, np.float32(0.0)),),
        "scale_bwd": lambda ds: (ds * tau,),
        "dQ=dSK": lambda ds, k: (ds @ k,),
        "dK=dS^TQ": lambda ds, q: (ds.T @ q,),
    }


def _standard(problem: AttentionProblem, inputs: Inputs, hbm: HBM, pass_: str) -> tuple[dict, IOCount]:
    """Algorithm 0 / 3: run the kernels of ``counts.standard_ops`` in order, each reading its declared
    inputs from HBM and writing its declared outputs back (so the dataflow of the op list is checked by
    the outputs matching the reference, and its element counts by the HBM counters).
    Returns the outputs and the HBM counts after the forward kernels."""
    bodies = _standard_kernels(problem, inputs)
    forward_io = IOCount()
    forward_done = False
    for op in standard_ops(problem, "fwd" if pass_ == "fwd" else "fwdbwd"):
        if op.backward and not forward_done:
            forward_io, forward_done = hbm.counts(), True
        results = bodies[op.name](*(hbm.read(name) for name in op.reads))
        if len(results) != len(op.writes):
            raise RuntimeError(f"kernel {op.name} produced {len(results)} tensors, declares {op.writes}")
        for name, value in zip(op.writes, results):
            hbm.write(name, value)
    if not forward_done:
        forward_io = hbm.counts()
    out = {name: hbm.arrays[name] for name in ("O", "dQ", "dK", "dV") if name in hbm.arrays}
    return out, forward_io


def _fa1_forward(problem: AttentionProblem, inputs: Inputs, hbm: HBM, sram: SRAM, blocking: Blocking) -> None:
    """FlashAttention Algorithm 1 (Algorithm 2 with dropout): outer loop over K_j, V_j, inner over Q_i.
    O is kept normalised: O_i ← diag(ℓ_new)⁻¹(diag(ℓ_i)e^{m_i−m_new}O_i + e^{m̃−m_new} P̃_drop V_j)."""
    n, d = problem.seqlen, problem.head_dim
    keep = element_mask(problem)
    active = block_activity(problem, blocking)
    rows, cols = block_ranges(n, blocking.block_rows), block_ranges(n, blocking.block_cols)
    hbm.write("O", np.zeros((n, d), np.float32))
    hbm.write("l", np.zeros(n, np.float32))
    hbm.write("m", np.full(n, -np.inf, np.float32))
    for j, (c0, c1) in enumerate(cols):
        if not active[:, j].any():
            continue
        kj = sram.hold("K_j", hbm.read("K", slice(c0, c1)))
        vj = sram.hold("V_j", hbm.read("V", slice(c0, c1)))
        for i, (r0, r1) in enumerate(rows):
            if not active[i, j]:
                continue
            r = slice(r0, r1)
            qi = sram.hold("Q_i", hbm.read("Q", r))
            oi = sram.hold("O_i", hbm.read("O", r))
            li, mi = hbm.read("l", r), hbm.read("m", r)  # registers
            s = _scores(problem, keep, qi, kj, r, slice(c0, c1))
            m_tilde = s.max(axis=1)
            p_tilde = _exp_shifted(s, m_tilde[:, None])
            l_tilde = p_tilde.sum(axis=1)
            m_new = np.maximum(mi, m_tilde)
            alpha, beta = _scale_factor(mi, m_new), _scale_factor(m_tilde, m_new)
            l_new = alpha * li + beta * l_tilde
            p_drop = p_tilde * _dropout_scale(problem, inputs, np.arange(r0, r1), np.arange(c0, c1))
            numer = (li * alpha)[:, None] * oi + beta[:, None] * (p_drop @ vj)
            o_new = np.divide(numer, l_new[:, None], out=np.zeros_like(numer), where=l_new[:, None] > 0)
            hbm.write("O", o_new, r)
            hbm.write("l", l_new, r)
            hbm.write("m", m_new, r)
            sram.release("Q_i", "O_i")
        sram.release("K_j", "V_j")


def _fa1_backward(problem: AttentionProblem, inputs: Inputs, hbm: HBM, sram: SRAM, blocking: Blocking) -> None:
    """FlashAttention Algorithm 4: outer loop over K_j, V_j (accumulating dK_j, dV_j on chip), inner over
    Q_i, O_i, dO_i, dQ_i, ℓ_i, m_i; P recomputed as diag(ℓ)⁻¹ exp(S − m); dQ_i read-modify-written."""
    n, d = problem.seqlen, problem.head_dim
    tau = np.float32(1.0 / np.sqrt(d))
    keep = element_mask(problem)
    active = block_activity(problem, blocking)
    rows, cols = block_ranges(n, blocking.block_rows), block_ranges(n, blocking.block_cols)
    for name in ("dQ", "dK", "dV"):
        hbm.write(name, np.zeros((n, d), np.float32))
    for j, (c0, c1) in enumerate(cols):
        if not active[:, j].any():
            continue
        c = slice(c0, c1)
        kj = sram.hold("K_j", hbm.read("K", c))
        vj = sram.hold("V_j", hbm.read("V", c))
        dkj = sram.hold("dK_j", np.zeros((c1 - c0, d), np.float32))
        dvj = sram.hold("dV_j", np.zeros((c1 - c0, d), np.float32))
        for i, (r0, r1) in enumerate(rows):
            if not active[i, j]:
                continue
            r = slice(r0, r1)
            qi = sram.hold("Q_i", hbm.read("Q", r))
            oi = sram.hold("O_i", hbm.read("O", r))
            doi = sram.hold("dO_i", hbm.read("dO", r))
            dqi = sram.hold("dQ_i", hbm.read("dQ", r))
            li, mi = hbm.read("l", r), hbm.read("m", r)
            s = _scores(problem, keep, qi, kj, r, c)
            e = _exp_shifted(s, mi[:, None])
            p = np.divide(e, li[:, None], out=np.zeros_like(e), where=li[:, None] > 0)
            z = _dropout_scale(problem, inputs, np.arange(r0, r1), np.arange(c0, c1))
            dvj += (p * z).T @ doi
            dp = (doi @ vj.T) * z
            d_row = (doi * oi).sum(axis=1, keepdims=True)
            ds = p * (dp - d_row)
            hbm.write("dQ", dqi + tau * ds @ kj, r)
            dkj += tau * ds.T @ qi
            sram.release("Q_i", "O_i", "dO_i", "dQ_i")
        hbm.write("dK", dkj, c)
        hbm.write("dV", dvj, c)
        sram.release("K_j", "V_j", "dK_j", "dV_j")


def _fa2_forward(problem: AttentionProblem, inputs: Inputs, hbm: HBM, sram: SRAM, blocking: Blocking) -> None:
    """FlashAttention-2 forward: each query block streams its active K_j, V_j, keeps O unnormalised with
    the running max m and sum ℓ (registers), and writes O_i = O/ℓ and LSE_i = m + log ℓ once."""
    n, d = problem.seqlen, problem.head_dim
    keep = element_mask(problem)
    active = block_activity(problem, blocking)
    rows, cols = block_ranges(n, blocking.block_rows), block_ranges(n, blocking.block_cols)
    hbm.allocate("O", (n, d))
    hbm.allocate("lse", (n,))
    for i, (r0, r1) in enumerate(rows):
        r = slice(r0, r1)
        acc = sram.hold("O_i", np.zeros((r1 - r0, d), np.float32))
        m = np.full(r1 - r0, -np.inf, np.float32)
        ell = np.zeros(r1 - r0, np.float32)
        if active[i].any():
            qi = sram.hold("Q_i", hbm.read("Q", r))
            for j, (c0, c1) in enumerate(cols):
                if not active[i, j]:
                    continue
                c = slice(c0, c1)
                kj = sram.hold("K_j", hbm.read("K", c))
                vj = sram.hold("V_j", hbm.read("V", c))
                s = _scores(problem, keep, qi, kj, r, c)
                m_new = np.maximum(m, s.max(axis=1))
                p = _exp_shifted(s, m_new[:, None])
                alpha = _scale_factor(m, m_new)
                ell = alpha * ell + p.sum(axis=1)
                p_drop = p * _dropout_scale(problem, inputs, np.arange(r0, r1), np.arange(c0, c1))
                acc = sram.hold("O_i", alpha[:, None] * acc + p_drop @ vj)
                m = m_new
                sram.release("K_j", "V_j")
        out = np.divide(acc, ell[:, None], out=np.zeros_like(acc), where=ell[:, None] > 0)
        with np.errstate(divide="ignore"):
            lse = np.where(ell > 0, m + np.log(np.where(ell > 0, ell, 1.0)), -np.inf).astype(np.float32)
        hbm.write("O", out, r)
        hbm.write("lse", lse, r)
        sram.release("Q_i", "O_i")


def _fa2_backward(problem: AttentionProblem, inputs: Inputs, hbm: HBM, sram: SRAM, blocking: Blocking) -> None:
    """FlashAttention-2 backward: D = rowsum(dO ∘ O); parallel over key blocks, each accumulating dK_j,
    dV_j on chip and adding its dQ_i contributions into an fp32 HBM accumulator (the atomic adds); P is
    recomputed as exp(S − LSE); finally dQ is converted from the accumulator."""
    n, d = problem.seqlen, problem.head_dim
    tau = np.float32(1.0 / np.sqrt(d))
    keep = element_mask(problem)
    active = block_activity(problem, blocking)
    rows, cols = block_ranges(n, blocking.block_rows), block_ranges(n, blocking.block_cols)
    hbm.allocate("D", (n,))
    for r0, r1 in rows:
        r = slice(r0, r1)
        oi = sram.hold("O_i", hbm.read("O", r))
        doi = sram.hold("dO_i", hbm.read("dO", r))
        hbm.write("D", (oi * doi).sum(axis=1), r)
        sram.release("O_i", "dO_i")
    hbm.write("dQacc", np.zeros((n, d), np.float32))
    hbm.allocate("dK", (n, d)); hbm.allocate("dV", (n, d))
    for j, (c0, c1) in enumerate(cols):
        c = slice(c0, c1)
        dkj = sram.hold("dK_j", np.zeros((c1 - c0, d), np.float32))
        dvj = sram.hold("dV_j", np.zeros((c1 - c0, d), np.float32))
        if active[:, j].any():
            kj = sram.hold("K_j", hbm.read("K", c))
            vj = sram.hold("V_j", hbm.read("V", c))
            for i, (r0, r1) in enumerate(rows):
                if not active[i, j]:
                    continue
                r = slice(r0, r1)
                qi = sram.hold("Q_i", hbm.read("Q", r))
                doi = sram.hold("dO_i", hbm.read("dO", r))
                lse, d_row = hbm.read("lse", r), hbm.read("D", r)
                s = _scores(problem, keep, qi, kj, r, c)
                # A row that sees no key has LSE = −inf and all its scores −inf, so P = 0 there.
                p = _exp_shifted(s, lse[:, None])
                z = _dropout_scale(problem, inputs, np.arange(r0, r1), np.arange(c0, c1))
                dvj += (p * z).T @ doi
                ds = p * ((doi @ vj.T) * z - d_row[:, None])
                dq_tile = sram.hold("dQ_i", hbm.read("dQacc", r) + tau * ds @ kj)
                hbm.write("dQacc", dq_tile, r)
                dkj += tau * ds.T @ qi
                sram.release("Q_i", "dO_i", "dQ_i")
            sram.release("K_j", "V_j")
        hbm.write("dK", dkj, c)
        hbm.write("dV", dvj, c)
        sram.release("dK_j", "dV_j")
    hbm.write("dQ", hbm.read("dQacc"))


def simulate(kernel: str, problem: AttentionProblem, sram_bytes: int, pass_: str = "fwd",
             seed: int = 0, element_bytes: int = 2) -> SimulationResult:
    """Run ``kernel`` (standard, fa1, fa2) on random inputs and return its counts, outputs and error.

    Block sizes follow ``counts.paper_blocking`` (forward: 4 tiles, backward: 8 tiles). A block-sparse
    pattern without its own grid is laid on the forward blocking. For ``fwdbwd`` the counts are the sum
    of both passes; for ``bwd`` alone the forward is run first and only its counts are discarded.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    fwd_blocking = paper_blocking(sram_bytes, problem.head_dim, element_bytes, FORWARD_TILES)
    bwd_blocking = paper_blocking(sram_bytes, problem.head_dim, element_bytes, BACKWARD_TILES) \
        if pass_ != "fwd" else None
    inputs = random_inputs(problem, seed)
    hbm = HBM()
    for name, array in (("Q", inputs.q), ("K", inputs.k), ("V", inputs.v), ("dO", inputs.d_out)):
        hbm.put(name, array)
    sram = SRAM(sram_bytes, element_bytes)
    if kernel == "standard":
        outputs, fwd_io = _standard(problem, inputs, hbm, pass_)
        io = hbm.counts()
        if pass_ == "bwd":
            io = IOCount(_subtract(io.reads, fwd_io.reads), _subtract(io.writes, fwd_io.writes))
    else:
        forward: Callable = _fa1_forward if kernel == "fa1" else _fa2_forward
        backward: Callable = _fa1_backward if kernel == "fa1" else _fa2_backward
        forward(problem, inputs, hbm, sram, fwd_blocking)
        fwd_io = hbm.counts()
        outputs = {"O": hbm.arrays["O"].copy()}
        if pass_ != "fwd":
            backward(problem, inputs, hbm, sram, bwd_blocking)
            outputs.update(dQ=hbm.arrays["dQ"], dK=hbm.arrays["dK"], dV=hbm.arrays["dV"])
        io = hbm.counts()
        if pass_ == "bwd":
            io = IOCount(_subtract(io.reads, fwd_io.reads), _subtract(io.writes, fwd_io.writes))
    reference = reference_attention(problem, inputs)
    return SimulationResult(kernel, pass_, io, outputs, {k: reference[k] for k in outputs},
                            None if kernel == "standard" else fwd_blocking,
                            None if kernel == "standard" else bwd_blocking, sram.peak_bytes)


def _subtract(a: dict, b: dict) -> dict:
    out = {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)}
    return {k: v for k, v in out.items() if v}


def with_sparsity_grid(problem: AttentionProblem, blocking: Blocking) -> AttentionProblem:
    """Lay a block-sparse pattern on the given (forward) blocking, so the forward skips exactly 1 − s."""
    if problem.sparsity is None:
        return problem
    grid = dataclasses.replace(problem.sparsity, pattern_rows=blocking.block_rows,
                               pattern_cols=blocking.block_cols)
    return dataclasses.replace(problem, sparsity=grid)
