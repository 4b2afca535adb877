"""Warp-specialised dK/dV and dQ kernels through tensor descriptors (Hopper and newer); only ``@triton.jit``
code here.

The two-kernel backward of ``backward.py`` (dK/dV in one kernel, dQ in another, no atomics; D from the
shared preprocess kernel). The dK/dV kernel is the portable one with its loop over query blocks marked
``warp_specialize=True``: a producer warpgroup issues the TMA copies of Q_i and dO_i into a ring of
shared-memory buffers, and two consumer warpgroups, each owning half of the key block, run the four matrix
products and the exponentials; the consumers meet only at the buffers' barriers, so one's exponentials
overlap the other's tensor-core work (FlashAttention-3's backward does the same with hand-written
warpgroups).

Triton 3.6 partitions a loop only in a particular shape (``forward_ws.py`` says which, and why the row
coordinate of the resident K/V tile is ``start_n + tile_row_base``, a run-time 0): one loop, no branch in
it, no early return. So the causal mask is applied in every iteration of a causal call (two operations
per score), and the kernel takes fixed-length batches with one query head per KV head; the launcher
sends everything else to the portable kernels (the dQ kernel also takes grouped query heads: each query
head reads its group's K/V head). Rows past the end of the queries read as zeros with an infinite LSE
(P = 0), and keys past the end read as zeros (their dK/dV rows are never written), so only causality
needs a mask.

At d=256 the one-pass form spills ~1 KB per thread; the two passes (``COMPUTE_DK``/``COMPUTE_DV``) compile
without spills on 32x128 tiles. The dK/dV kernel also comes in a persistent grid (one program per
multiprocessor looping over the key blocks, as ``forward_ws.py``'s persistent forward).

The warp-specialised dQ kernel splits the query rows between the consumers (as the forward does); each
streams K_j and V_j from the producer and accumulates dQ_i = tau sum_j dS_ij K_j for its rows. Its row-wise
LSE and D come through one-dimensional tensor descriptors loaded before the loop: Triton 3.6 cannot split
pointer loads of row vectors between the consumers (v0.6 measured a first version that fell back to one
consumer, 1.3-2x slower than the portable kernel), while descriptor loads are split like the Q tile. So
the LSE and D rows of a head must start 16-byte aligned (seqlen_q a multiple of 4); the launcher checks.
"""

import triton
import triton.language as tl

from flashio.kernels.common import query_block_program, row_log2_normaliser, row_pointer, row_tile_descriptor


@triton.jit
def _key_tile(
    Q, K, V, DO, LSE, DELTA, DK, DV,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_dob, stride_doh, stride_dom,
    stride_lb, stride_lh, stride_lm,
    stride_dkb, stride_dkh, stride_dkn,
    stride_dvb, stride_dvh, stride_dvn,
    batch, head, start_n, seqlen_q, seqlen_k, softmax_scale, tile_row_base,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, IS_CAUSAL: tl.constexpr,
    COMPUTE_DK: tl.constexpr, COMPUTE_DV: tl.constexpr, SPECIALISE_QUERY_LOOP: tl.constexpr,
):
    """dK_j = tau sum_i dS_ij^T Q_i and/or dV_j = sum_i P_ij^T dO_i (``COMPUTE_DK``, ``COMPUTE_DV``) for the
    keys [start_n, start_n + BLOCK_N) of (batch, head), tiles held transposed ([keys, rows]): both in one
    pass, or a dV pass then a dK pass with one float32 accumulator live at a time, as in ``backward.py``.
    For causal attention the loop starts at the first query block that sees the key block.
    ``SPECIALISE_QUERY_LOOP``: the query loop is the one Triton splits into producer and consumers (one
    program per key block); otherwise the caller's loop is."""
    LOG2E: tl.constexpr = 1.4426950408889634
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
    for start_m in tl.range(lo, seqlen_q, BLOCK_M, warp_specialize=SPECIALISE_QUERY_LOOP):
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
    """``_key_tile`` for one key block, its query loop specialised. Grid: (cdiv(seqlen_k, BLOCK_N), heads,
    batch); ``tile_row_base`` must be 0."""
    _key_tile(Q, K, V, DO, LSE, DELTA, DK, DV,
              stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
              stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
              stride_lb, stride_lh, stride_lm, stride_dkb, stride_dkh, stride_dkn,
              stride_dvb, stride_dvh, stride_dvn,
              tl.program_id(2), tl.program_id(1), tl.program_id(0) * BLOCK_N, seqlen_q, seqlen_k, softmax_scale,
              tile_row_base, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, COMPUTE_DK, COMPUTE_DV, True)


@triton.jit
def attention_backward_dkdv_ws_persistent_kernel(
    Q, K, V, DO, LSE, DELTA, DK, DV,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_dob, stride_doh, stride_dom,
    stride_lb, stride_lh, stride_lm,
    stride_dkb, stride_dkh, stride_dkn,
    stride_dvb, stride_dvh, stride_dvn,
    seqlen_q, seqlen_k, num_heads, softmax_scale, tile_row_base, num_tiles,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, IS_CAUSAL: tl.constexpr,
    COMPUTE_DK: tl.constexpr, COMPUTE_DV: tl.constexpr,
):
    """``_key_tile`` in a persistent grid (programs,), the loop over the ``num_tiles`` key blocks x heads x
    batch specialised, as in ``forward_ws.attention_forward_ws_persistent_kernel``: the producer fetches
    the next key block's K, V and first Q/dO tiles while the consumers store dK and dV. Tiles run head by
    head; causal key blocks differ in work (block j is seen by the queries from j - shift on), so the lowest
    (heaviest) comes first and every other full round of the round-robin is mirrored."""
    blocks_per_head = tl.cdiv(seqlen_k, BLOCK_N)
    num_programs = tl.num_programs(0)
    for tile in tl.range(tl.program_id(0), num_tiles, num_programs, warp_specialize=True):
        if IS_CAUSAL:  # a compile-time branch: the loop itself has none
            round_index = tile // num_programs
            position = tile - round_index * num_programs
            mirrored = (round_index % 2 == 1) & ((round_index + 1) * num_programs <= num_tiles)
            order = round_index * num_programs + tl.where(mirrored, num_programs - 1 - position, position)
        else:
            order = tile
        batch_head = order // blocks_per_head
        _key_tile(Q, K, V, DO, LSE, DELTA, DK, DV,
                  stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                  stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
                  stride_lb, stride_lh, stride_lm, stride_dkb, stride_dkh, stride_dkn,
                  stride_dvb, stride_dvh, stride_dvn,
                  batch_head // num_heads, batch_head % num_heads, (order % blocks_per_head) * BLOCK_N,
                  seqlen_q, seqlen_k, softmax_scale, tile_row_base,
                  BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, COMPUTE_DK, COMPUTE_DV, False)


@triton.jit
def attention_backward_dq_ws_kernel(
    Q, K, V, DO, LSE, DELTA, DQ,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_dob, stride_doh, stride_dom,
    stride_lb, stride_lh,
    stride_dqb, stride_dqh, stride_dqm,
    seqlen_q, seqlen_k, kv_group_size, softmax_scale, tile_row_base,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, IS_CAUSAL: tl.constexpr,
):
    """dQ_i = tau * sum_j (P_ij o (dP_ij - D_i)) K_j for one query block, P and dP recomputed, without atomics.

    Grid: (cdiv(seqlen_q, BLOCK_M), heads, batch), heaviest causal blocks first; ``tile_row_base`` must be 0.
    LSE and D are (batch, head, row) float32 with unit row stride. A query head reads the K/V head of its
    group. For causal attention every key block is masked against the row's last visible key. (A
    persistent form, as the forward's, needs 228-292 KB of shared memory at d=128 on sm_90a: not kept.)"""
    LOG2E: tl.constexpr = 1.4426950408889634
    batch, head, kv_head, _, _, _, _, start_m = query_block_program(
        0, 0, seqlen_q, seqlen_k, kv_group_size, BLOCK_M, IS_CAUSAL, False)  # no cu_seqlens
    q_desc = row_tile_descriptor(Q, batch, head, 0, stride_qb, stride_qh, stride_qm, seqlen_q, HEAD_DIM, BLOCK_M)
    do_desc = row_tile_descriptor(DO, batch, head, 0, stride_dob, stride_doh, stride_dom, seqlen_q, HEAD_DIM,
                                  BLOCK_M)
    k_desc = row_tile_descriptor(K, batch, kv_head, 0, stride_kb, stride_kh, stride_kn, seqlen_k, HEAD_DIM, BLOCK_N)
    v_desc = row_tile_descriptor(V, batch, kv_head, 0, stride_vb, stride_vh, stride_vn, seqlen_k, HEAD_DIM, BLOCK_N)
    lse_desc = tl.make_tensor_descriptor(row_pointer(LSE, batch, head, 0, stride_lb, stride_lh, 1),
                                         shape=[seqlen_q], strides=[1], block_shape=[BLOCK_M])
    delta_desc = tl.make_tensor_descriptor(row_pointer(DELTA, batch, head, 0, stride_lb, stride_lh, 1),
                                           shape=[seqlen_q], strides=[1], block_shape=[BLOCK_M])
    tile_row = start_m + tile_row_base  # the coordinate of every row tile (see forward_ws.py's module note)
    q = q_desc.load([tile_row, 0])
    do = do_desc.load([tile_row, 0])
    # Rows past seqlen_q read LSE = D = 0 and zero Q/dO rows: finite, and never stored. A row that saw no
    # key (LSE = -inf) gets +inf, so its recomputed probabilities are exactly 0.
    lse = lse_desc.load([tile_row])
    lse2 = tl.where(lse == float("-inf"), float("inf"), lse) * LOG2E
    delta = delta_desc.load([tile_row])
    qk_scale = softmax_scale * LOG2E
    offs_m = start_m + tl.arange(0, BLOCK_M)
    causal_shift = seqlen_k - seqlen_q
    if IS_CAUSAL:
        last_key = offs_m + causal_shift  # query i sees key j iff j <= i + shift
        end_n = tl.minimum(tl.maximum(start_m + BLOCK_M + causal_shift, 0), seqlen_k)
    else:
        last_key = tl.zeros([BLOCK_M], dtype=tl.int32)
        end_n = seqlen_k
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(0, end_n, BLOCK_N, warp_specialize=True):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = k_desc.load([start_n, 0])
        v = v_desc.load([start_n, 0])
        p = tl.math.exp2(tl.dot(q, k.T) * qk_scale - lse2[:, None])
        if IS_CAUSAL:
            p = tl.where((start_n + tl.arange(0, BLOCK_N))[None, :] <= last_key[:, None], p, 0.0)
        dp = tl.dot(do, v.T)
        ds = (p * (dp - delta[:, None])).to(k.dtype)
        dq = tl.dot(ds, k, dq)

    dq_desc = row_tile_descriptor(DQ, batch, head, 0, stride_dqb, stride_dqh, stride_dqm, seqlen_q, HEAD_DIM,
                                  BLOCK_M)
    dq_desc.store([tile_row, 0], (dq * softmax_scale).to(DQ.dtype.element_ty))


