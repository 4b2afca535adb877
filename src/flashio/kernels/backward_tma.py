"""Backward pass through tensor descriptors (TMA bulk copies on Hopper); only ``@triton.jit`` code here.

The algorithm of ``backward.py`` (recompute P from Q, K and the row LSE; D = rowsum(dO o O) from the
shared preprocess kernel) for the case the tensor-descriptor forward takes: no dropout, no block mask, a
power-of-two head dimension, 16-byte aligned rows. Tiles of Q, dO (and K, V in the dQ kernel) move
through descriptors made per (batch, head, sequence); rows past the sequence read as zeros and are
never written.

``attention_backward_dkdv_tma_kernel`` with ``ATOMIC_DQ`` also adds tau dS K_j into a float32 dQ
accumulator through the descriptor's reduce-add (one bulk ``cp.reduce.async.bulk.tensor`` per tile on
Hopper, as FlashAttention-3 does) instead of one atomic instruction per element: the backward then does
the five matrix products per tile of the FLOP count instead of the seven of the two-kernel scheme.
"""

import triton
import triton.language as tl

from flashio.kernels.common import (key_block_ranges, key_visibility, query_block_program, query_block_ranges,
                                    row_log2_normaliser, row_pointer, row_tile_descriptor, sequence_bounds)


@triton.jit
def _dkdv_tma_tile(
    dk, dv, k, v, start_m, q_desc, do_desc, dq_desc, lse_head, delta_head, stride_lm,
    offs_n, seqlen_q, seqlen_k, causal_shift, qk_scale, softmax_scale,
    BLOCK_M: tl.constexpr, MASKED: tl.constexpr, IS_CAUSAL: tl.constexpr, ATOMIC_DQ: tl.constexpr,
):
    """One query block's contribution to dK_j, dV_j (tiles held transposed: [keys, rows]); with
    ``ATOMIC_DQ`` also its dQ_i contribution, reduce-added through ``dq_desc``."""
    offs_m = start_m + tl.arange(0, BLOCK_M)
    row_in = offs_m < seqlen_q
    q = q_desc.load([start_m, 0])
    do = do_desc.load([start_m, 0])
    lse2 = row_log2_normaliser(lse_head + offs_m * stride_lm, row_in)
    delta = tl.load(delta_head + offs_m * stride_lm, mask=row_in, other=0.0)

    qkT = tl.dot(k, q.T)
    pT = tl.math.exp2(qkT * qk_scale - lse2[None, :])
    if MASKED:
        visible = key_visibility(offs_m[None, :], offs_n[:, None], seqlen_k, causal_shift, IS_CAUSAL)
        pT = tl.where(visible, pT, 0.0)
    dpT = tl.dot(v, do.T)
    dv = tl.dot(pT.to(do.dtype), do, dv)
    dsT = (pT * (dpT - delta[None, :])).to(q.dtype)
    dk = tl.dot(dsT, q, dk)
    if ATOMIC_DQ:
        dq_desc.atomic_add([start_m, 0], tl.dot(dsT.T, k) * softmax_scale)
    return dk, dv


@triton.jit
def attention_backward_dkdv_tma_kernel(
    Q, K, V, DO, LSE, DELTA, DK, DV, DQ_ACC,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_dob, stride_doh, stride_dom,
    stride_lb, stride_lh, stride_lm,
    stride_dkb, stride_dkh, stride_dkn,
    stride_dvb, stride_dvh, stride_dvn,
    stride_dqb, stride_dqh, stride_dqm,
    cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k,
    kv_group_size, softmax_scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
    IS_CAUSAL: tl.constexpr, IS_VARLEN: tl.constexpr, ATOMIC_DQ: tl.constexpr,
):
    """dK_j, dV_j (and, with ``ATOMIC_DQ``, the dQ contributions) for one key block of one (batch, KV
    head), summed over the query heads of its group. Grid: (cdiv(max_seqlen_k, BLOCK_N), kv_heads, batch).

    Query blocks straddling the causal diagonal (masked) come first, then the blocks entirely below it,
    as in ``backward.attention_backward_dkdv_kernel``. Head-dimension strides are 1 (launcher's check).
    """
    LOG2E: tl.constexpr = 1.4426950408889634
    pid_n = tl.program_id(0)
    kv_head = tl.program_id(1)
    batch = tl.program_id(2)
    q_start, seqlen_q = sequence_bounds(cu_seqlens_q, batch, fixed_seqlen_q, IS_VARLEN)
    k_start, seqlen_k = sequence_bounds(cu_seqlens_k, batch, fixed_seqlen_k, IS_VARLEN)
    start_n = pid_n * BLOCK_N
    if start_n >= seqlen_k:
        return
    offs_n = start_n + tl.arange(0, BLOCK_N)
    k_desc = row_tile_descriptor(K, batch, kv_head, k_start, stride_kb, stride_kh, stride_kn,
                                 seqlen_k, HEAD_DIM, BLOCK_N)
    v_desc = row_tile_descriptor(V, batch, kv_head, k_start, stride_vb, stride_vh, stride_vn,
                                 seqlen_k, HEAD_DIM, BLOCK_N)
    k = k_desc.load([start_n, 0])
    v = v_desc.load([start_n, 0])
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q

    lo, full_start = query_block_ranges(start_n, seqlen_q, seqlen_k, BLOCK_M, BLOCK_N, IS_CAUSAL)

    for group_member in range(0, kv_group_size):
        head = kv_head * kv_group_size + group_member
        q_desc = row_tile_descriptor(Q, batch, head, q_start, stride_qb, stride_qh, stride_qm,
                                     seqlen_q, HEAD_DIM, BLOCK_M)
        do_desc = row_tile_descriptor(DO, batch, head, q_start, stride_dob, stride_doh, stride_dom,
                                      seqlen_q, HEAD_DIM, BLOCK_M)
        dq_desc = row_tile_descriptor(DQ_ACC, batch, head, q_start, stride_dqb, stride_dqh, stride_dqm,
                                      seqlen_q, HEAD_DIM, BLOCK_M)
        lse_head = row_pointer(LSE, batch, head, q_start, stride_lb, stride_lh, stride_lm)
        delta_head = row_pointer(DELTA, batch, head, q_start, stride_lb, stride_lh, stride_lm)
        for start_m in range(lo, full_start, BLOCK_M):
            dk, dv = _dkdv_tma_tile(dk, dv, k, v, start_m, q_desc, do_desc, dq_desc, lse_head, delta_head,
                                    stride_lm, offs_n, seqlen_q, seqlen_k, causal_shift, qk_scale,
                                    softmax_scale, BLOCK_M, True, IS_CAUSAL, ATOMIC_DQ)
        for start_m in range(full_start, seqlen_q, BLOCK_M):
            dk, dv = _dkdv_tma_tile(dk, dv, k, v, start_m, q_desc, do_desc, dq_desc, lse_head, delta_head,
                                    stride_lm, offs_n, seqlen_q, seqlen_k, causal_shift, qk_scale,
                                    softmax_scale, BLOCK_M, False, IS_CAUSAL, ATOMIC_DQ)

    dk_desc = row_tile_descriptor(DK, batch, kv_head, k_start, stride_dkb, stride_dkh, stride_dkn,
                                  seqlen_k, HEAD_DIM, BLOCK_N)
    dv_desc = row_tile_descriptor(DV, batch, kv_head, k_start, stride_dvb, stride_dvh, stride_dvn,
                                  seqlen_k, HEAD_DIM, BLOCK_N)
    dk_desc.store([start_n, 0], (dk * softmax_scale).to(DK.dtype.element_ty))
    dv_desc.store([start_n, 0], dv.to(DV.dtype.element_ty))


@triton.jit
def _dq_tma_tile(
    dq, q, do, lse2, delta, start_n, offs_m, k_desc, v_desc, seqlen_k, causal_shift, qk_scale,
    BLOCK_N: tl.constexpr, MASKED: tl.constexpr, IS_CAUSAL: tl.constexpr,
):
    """dQ_i += dS_ij K_j for the key block starting at ``start_n`` (tau applied at the end)."""
    k = k_desc.load([start_n, 0])
    v = v_desc.load([start_n, 0])
    qk = tl.dot(q, k.T)
    p = tl.math.exp2(qk * qk_scale - lse2[:, None])
    if MASKED:
        offs_n = start_n + tl.arange(0, BLOCK_N)
        visible = key_visibility(offs_m[:, None], offs_n[None, :], seqlen_k, causal_shift, IS_CAUSAL)
        p = tl.where(visible, p, 0.0)
    dp = tl.dot(do, v.T)
    ds = p * (dp - delta[:, None])
    return tl.dot(ds.to(k.dtype), k, dq)


@triton.jit
def attention_backward_dq_tma_kernel(
    Q, K, V, DO, LSE, DELTA, DQ,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_dob, stride_doh, stride_dom,
    stride_lb, stride_lh, stride_lm,
    stride_dqb, stride_dqh, stride_dqm,
    cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k,
    kv_group_size, softmax_scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
    IS_CAUSAL: tl.constexpr, IS_VARLEN: tl.constexpr,
):
    """dQ_i = tau sum_j (P_ij o (dP_ij - D_i)) K_j for one query block, without atomics.

    Grid: (cdiv(max_seqlen_q, BLOCK_M), num_heads, batch), heavy causal blocks first.
    """
    LOG2E: tl.constexpr = 1.4426950408889634
    batch, head, kv_head, q_start, seqlen_q, k_start, seqlen_k, start_m = query_block_program(
        cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k, kv_group_size, BLOCK_M, IS_CAUSAL, IS_VARLEN)
    if start_m >= seqlen_q:
        return
    q_desc = row_tile_descriptor(Q, batch, head, q_start, stride_qb, stride_qh, stride_qm,
                                 seqlen_q, HEAD_DIM, BLOCK_M)
    do_desc = row_tile_descriptor(DO, batch, head, q_start, stride_dob, stride_doh, stride_dom,
                                  seqlen_q, HEAD_DIM, BLOCK_M)
    k_desc = row_tile_descriptor(K, batch, kv_head, k_start, stride_kb, stride_kh, stride_kn,
                                 seqlen_k, HEAD_DIM, BLOCK_N)
    v_desc = row_tile_descriptor(V, batch, kv_head, k_start, stride_vb, stride_vh, stride_vn,
                                 seqlen_k, HEAD_DIM, BLOCK_N)
    dq_desc = row_tile_descriptor(DQ, batch, head, q_start, stride_dqb, stride_dqh, stride_dqm,
                                  seqlen_q, HEAD_DIM, BLOCK_M)

    offs_m = start_m + tl.arange(0, BLOCK_M)
    row_in = offs_m < seqlen_q
    q = q_desc.load([start_m, 0])
    do = do_desc.load([start_m, 0])
    lse_head = row_pointer(LSE, batch, head, q_start, stride_lb, stride_lh, stride_lm)
    delta_head = row_pointer(DELTA, batch, head, q_start, stride_lb, stride_lh, stride_lm)
    lse2 = row_log2_normaliser(lse_head + offs_m * stride_lm, row_in)
    delta = tl.load(delta_head + offs_m * stride_lm, mask=row_in, other=0.0)
    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    full_end, end_n = key_block_ranges(start_m, seqlen_q, seqlen_k, BLOCK_M, BLOCK_N, IS_CAUSAL)
    for start_n in range(0, full_end, BLOCK_N):
        dq = _dq_tma_tile(dq, q, do, lse2, delta, start_n, offs_m, k_desc, v_desc, seqlen_k, causal_shift,
                          qk_scale, BLOCK_N, False, IS_CAUSAL)
    for start_n in range(full_end, end_n, BLOCK_N):
        dq = _dq_tma_tile(dq, q, do, lse2, delta, start_n, offs_m, k_desc, v_desc, seqlen_k, causal_shift,
                          qk_scale, BLOCK_N, True, IS_CAUSAL)
    dq_desc.store([start_m, 0], (dq * softmax_scale).to(DQ.dtype.element_ty))
