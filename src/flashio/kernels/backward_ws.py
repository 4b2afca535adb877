"""Warp-specialised dK/dV kernel through tensor descriptors (Hopper and newer); only ``@triton.jit`` code here.

The dK/dV kernel of ``backward.py`` (two-kernel scheme: dQ comes from the portable dQ kernel, no atomics;
D from the shared preprocess kernel) with its loop over query blocks marked ``warp_specialize=True``: a
producer warpgroup issues the TMA copies of Q_i and dO_i into a ring of shared-memory buffers, and two
consumer warpgroups, each owning half of the key block, run the four matrix products and the
exponentials; the consumers meet only at the buffers' barriers, so one's exponentials overlap the other's
tensor-core work (FlashAttention-3's backward does the same with hand-written warpgroups).

Triton 3.6 partitions a loop only in a particular shape (``forward_ws.py`` says which, and why the row
coordinate of the resident K/V tile is ``start_n + tile_row_base``, a run-time 0): one loop, no branch in
it, no early return. So the causal mask is applied in every iteration of a causal call (two operations
per score), and the kernel takes fixed-length batches with one query head per KV head; the launcher
sends everything else to the portable kernels. Rows past the end of the queries read as zeros with an
infinite LSE (P = 0), and keys past the end read as zeros (their dK/dV rows are never written), so only
causality needs a mask.

At d=256 the one-pass form spills ~1 KB per thread; the two passes compile without spills on 32x128 tiles
(CPU compile for sm_90a), but have not run on a GPU yet, so they are only run when forced.

A warp-specialised dQ kernel was measured too (v0.6 in benchmarks/PERFORMANCE.md): Triton 3.6 does not
split its row-wise LSE and D loads between two consumers, so it ran with one and was 1.3-2x slower than
the portable dQ kernel; it was removed.
"""

import triton
import triton.language as tl

from flashio.kernels.common import row_log2_normaliser, row_pointer, row_tile_descriptor


@triton.jit
def attention_backward_dkdv_ws_kernel(
    Q, K, V, DO, LSE, DELTA, DK, DV,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_dob, stride_doh, stride_dom,
    stride_lb, stride_lh, stride_lm,
    stride_dkb, stride_dkh, stride_dkn,
    stride_dvb, stride_dvh, stride_dvn,
    seqlen_q, seqlen_k, softmax_scale, tile_row_base,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, IS_CAUSAL: tl.constexpr,
    COMPUTE_DK: tl.constexpr, COMPUTE_DV: tl.constexpr,
):
    """dK_j = tau sum_i dS_ij^T Q_i and/or dV_j = sum_i P_ij^T dO_i (``COMPUTE_DK``, ``COMPUTE_DV``) for one
    key block of one (batch, head), tiles held transposed ([keys, rows]): both in one pass, or a dV pass
    then a dK pass with one float32 accumulator live at a time, as in ``backward.py``. Grid:
    (cdiv(seqlen_k, BLOCK_N), heads, batch); ``tile_row_base`` must be 0. For causal attention the loop
    starts at the first query block that sees the key block."""
    LOG2E: tl.constexpr = 1.4426950408889634
    pid_n = tl.program_id(0)
    head = tl.program_id(1)
    batch = tl.program_id(2)
    start_n = pid_n * BLOCK_N
    offs_n = start_n + tl.arange(0, BLOCK_N)
    k_desc = row_tile_descriptor(K, batch, head, 0, stride_kb, stride_kh, stride_kn, seqlen_k, HEAD_DIM, BLOCK_N)
    v_desc = row_tile_descriptor(V, batch, head, 0, stride_vb, stride_vh, stride_vn, seqlen_k, HEAD_DIM, BLOCK_N)
    q_desc = row_tile_descriptor(Q, batch, head, 0, stride_qb, stride_qh, stride_qm, seqlen_q, HEAD_DIM, BLOCK_M)
    do_desc = row_tile_descriptor(DO, batch, head, 0, stride_dob, stride_doh, stride_dom, seqlen_q, HEAD_DIM,
                                  BLOCK_M)
    tile_row = start_n + tile_row_base  # the K/V/dK/dV tile coordinate (see the module note)
    k = k_desc.load([tile_row, 0])
    v = v_desc.load([tile_row, 0])
    lse_head = row_pointer(LSE, batch, head, 0, stride_lb, stride_lh, stride_lm)
    delta_head = row_pointer(DELTA, batch, head, 0, stride_lb, stride_lh, stride_lm)
    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    if IS_CAUSAL:
        first_row = offs_n - causal_shift  # query i sees key j iff i >= j - shift
        lo = tl.maximum(start_n - causal_shift, 0) // BLOCK_M * BLOCK_M
    else:
        first_row = tl.zeros([BLOCK_N], dtype=tl.int32)
        lo = 0
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    for start_m in tl.range(lo, seqlen_q, BLOCK_M, warp_specialize=True):
        start_m = tl.multiple_of(start_m, BLOCK_M)
        offs_m = start_m + tl.arange(0, BLOCK_M)
        row_in = offs_m < seqlen_q
        q = q_desc.load([start_m, 0])
        do = do_desc.load([start_m, 0])
        lse2 = row_log2_normaliser(lse_head + offs_m * stride_lm, row_in)
        delta = tl.load(delta_head + offs_m * stride_lm, mask=row_in, other=0.0)
        pT = tl.math.exp2(tl.dot(k, q.T) * qk_scale - lse2[None, :])
        if IS_CAUSAL:
            pT = tl.where(offs_m[None, :] >= first_row[:, None], pT, 0.0)
        if COMPUTE_DK:
            dpT = tl.dot(v, do.T)
        if COMPUTE_DV:
            dv = tl.dot(pT.to(do.dtype), do, dv)
        if COMPUTE_DK:
            dsT = (pT * (dpT - delta[None, :])).to(q.dtype)
            dk = tl.dot(dsT, q, dk)

    dk_desc = row_tile_descriptor(DK, batch, head, 0, stride_dkb, stride_dkh, stride_dkn, seqlen_k, HEAD_DIM,
                                  BLOCK_N)
    dv_desc = row_tile_descriptor(DV, batch, head, 0, stride_dvb, stride_dvh, stride_dvn, seqlen_k, HEAD_DIM,
                                  BLOCK_N)
    if COMPUTE_DK:
        dk_desc.store([tile_row, 0], (dk * softmax_scale).to(DK.dtype.element_ty))
    if COMPUTE_DV:
        dv_desc.store([tile_row, 0], dv.to(DV.dtype.element_ty))

