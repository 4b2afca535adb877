"""Backward pass of exact attention with recomputation (only ``@triton.jit`` code here).

Given Q, K, V, O, dO and the forward's row log-sum-exp, nothing of size N x N is read from HBM: each
block of probabilities is recomputed as P = exp(tau Q K^T - LSE) (FlashAttention section 3.1,
Algorithm 4; FlashAttention-2 section 3.1.2). Three kernels:

1. ``attention_backward_preprocess_kernel``: D = rowsum(dO o O), one float32 per query row.
2. ``attention_backward_dkdv_kernel``: one program per key block of one (batch, KV head); it streams the
   query blocks of every query head of its group past its K_j, V_j and accumulates
       dV_j += (P o Z/(1-p))^T dO,   dP = (dO V_j^T) o Z/(1-p),   dS = P o (dP - D),   dK_j += tau dS^T Q
   in registers, so GQA needs no K/V copies and no reduction afterwards. With ``ATOMIC_DQ`` it also adds
   tau dS K_j into a float32 dQ accumulator with atomic adds (fast, not bitwise deterministic). It can
   also run as two passes, dV then dK (``COMPUTE_DV``/``COMPUTE_DK``), one accumulator live at a time:
   one matrix product more per tile, far fewer registers (what makes 64-row tiles fit at d=256).
3. ``attention_backward_dq_kernel``: one program per query block; it recomputes P and dP and sums
   dQ_i = tau sum_j dS_ij K_j in registers: deterministic, at the price of two more matmuls per tile.

``key_gradient_parts_kernel`` converts the float32 partial sums that the persistent fused backward
(kernels/backward_gluon.py, ``SPLIT_TAIL``) leaves for its last round's key blocks into dK and dV.
"""

import triton
import triton.language as tl

from flashio.kernels.common import (dropout_keep, key_block_ranges, key_visibility, query_block_program,
                                    query_block_ranges, row_log2_normaliser, row_pointer, sequence_bounds)


@triton.jit
def attention_backward_preprocess_kernel(
    O, DO, DELTA,
    stride_ob, stride_oh, stride_om, stride_od,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_db, stride_dh, stride_dm,
    cu_seqlens_q, fixed_seqlen_q, head_dim,
    BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr, IS_VARLEN: tl.constexpr,
):
    """D_i = sum_d dO_id * O_id in float32. Grid: (cdiv(max_seqlen_q, BLOCK_M), num_heads, batch)."""
    pid_m = tl.program_id(0)
    head = tl.program_id(1)
    batch = tl.program_id(2)
    q_start, seqlen_q = sequence_bounds(cu_seqlens_q, batch, fixed_seqlen_q, IS_VARLEN)
    start_m = pid_m * BLOCK_M
    if start_m >= seqlen_q:
        return
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    mask = (offs_m[:, None] < seqlen_q) & (offs_d[None, :] < head_dim)
    o_head = row_pointer(O, batch, head, q_start, stride_ob, stride_oh, stride_om)
    do_head = row_pointer(DO, batch, head, q_start, stride_dob, stride_doh, stride_dom)
    o = tl.load(o_head + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od, mask=mask, other=0.0)
    do = tl.load(do_head + offs_m[:, None] * stride_dom + offs_d[None, :] * stride_dod, mask=mask, other=0.0)
    delta = tl.sum(o.to(tl.float32) * do.to(tl.float32), 1)
    delta_head = row_pointer(DELTA, batch, head, q_start, stride_db, stride_dh, stride_dm)
    tl.store(delta_head + offs_m * stride_dm, delta, mask=offs_m < seqlen_q)


@triton.jit
def _load_rows(ptrs, row_in, offs_d, head_dim, EVEN_D: tl.constexpr):
    """Load a [rows, BLOCK_D] tile, zero-filling rows past the sequence and columns past head_dim."""
    if EVEN_D:
        return tl.load(ptrs, mask=row_in[:, None], other=0.0)
    else:
        return tl.load(ptrs, mask=row_in[:, None] & (offs_d[None, :] < head_dim), other=0.0)


@triton.jit
def _dkdv_tile(
    dk, dv, k, v, start_m,
    q_head, do_head, lse_head, delta_head, dq_head,
    stride_qm, stride_qd, stride_dom, stride_dod, stride_lm, stride_dm, stride_dqm, stride_dqd,
    offs_n, offs_d, seqlen_q, seqlen_k, head_dim, causal_shift, qk_scale, softmax_scale,
    seed, bh, drop_threshold, drop_rescale,
    BLOCK_M: tl.constexpr, MASKED: tl.constexpr, IS_CAUSAL: tl.constexpr, EVEN_D: tl.constexpr,
    HAS_DROPOUT: tl.constexpr, ATOMIC_DQ: tl.constexpr, DOT_PRECISION: tl.constexpr,
    COMPUTE_DK: tl.constexpr, COMPUTE_DV: tl.constexpr,
):
    """Accumulate one query block's contribution to dK_j and/or dV_j (tiles held transposed: [keys, rows]).

    ``COMPUTE_DK``/``COMPUTE_DV`` select the gradients of this pass: both in one pass (four matrix
    products per tile), or a dV pass (Q K^T and P^T dO) and a dK pass (Q K^T, dO V^T, dS^T Q, and dQ when
    ``ATOMIC_DQ``) with one float32 accumulator live at a time, trading a fifth product for registers."""
    offs_m = start_m + tl.arange(0, BLOCK_M)
    row_in = offs_m < seqlen_q
    q = _load_rows(q_head + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                   row_in, offs_d, head_dim, EVEN_D)
    do = _load_rows(do_head + offs_m[:, None] * stride_dom + offs_d[None, :] * stride_dod,
                    row_in, offs_d, head_dim, EVEN_D)
    lse2 = row_log2_normaliser(lse_head + offs_m * stride_lm, row_in)

    qkT = tl.dot(k, tl.trans(q), input_precision=DOT_PRECISION)
    pT = tl.math.exp2(qkT * qk_scale - lse2[None, :])
    if MASKED:
        visible = key_visibility(offs_m[None, :], offs_n[:, None], seqlen_k, causal_shift, IS_CAUSAL)
        pT = tl.where(visible, pT, 0.0)
    if HAS_DROPOUT:
        keepT = dropout_keep(seed, bh, offs_m[None, :] + tl.zeros_like(offs_n)[:, None],
                             offs_n[:, None] + tl.zeros_like(offs_m)[None, :], drop_threshold)
    if COMPUTE_DV:
        if HAS_DROPOUT:
            dv = tl.dot(tl.where(keepT, pT * drop_rescale, 0.0).to(do.dtype), do, dv,
                        input_precision=DOT_PRECISION)
        else:
            dv = tl.dot(pT.to(do.dtype), do, dv, input_precision=DOT_PRECISION)
    if COMPUTE_DK:
        delta = tl.load(delta_head + offs_m * stride_dm, mask=row_in, other=0.0)
        dpT = tl.dot(v, tl.trans(do), input_precision=DOT_PRECISION)
        if HAS_DROPOUT:
            dpT = tl.where(keepT, dpT * drop_rescale, 0.0)
        dsT = pT * (dpT - delta[None, :])
        dk = tl.dot(dsT.to(q.dtype), q, dk, input_precision=DOT_PRECISION)
        if ATOMIC_DQ:
            dq = tl.dot(tl.trans(dsT.to(k.dtype)), k, input_precision=DOT_PRECISION) * softmax_scale
            dq_ptrs = dq_head + offs_m[:, None] * stride_dqm + offs_d[None, :] * stride_dqd
            tl.atomic_add(dq_ptrs, dq, mask=row_in[:, None] & (offs_d[None, :] < head_dim), sem="relaxed")
    return dk, dv


@triton.jit
def attention_backward_dkdv_kernel(
    Q, K, V, DO, LSE, DELTA, DK, DV, DQ_ACC,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_lb, stride_lh, stride_lm,
    stride_dkb, stride_dkh, stride_dkn, stride_dkd,
    stride_dvb, stride_dvh, stride_dvn, stride_dvd,
    stride_dqb, stride_dqh, stride_dqm, stride_dqd,
    cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k,
    kv_group_size, num_heads, head_dim, softmax_scale,
    seed, drop_threshold, drop_rescale,
    sparse_counts, sparse_indices,
    stride_scb, stride_sch, stride_scn,
    stride_sib, stride_sih, stride_sin, stride_sik,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
    IS_CAUSAL: tl.constexpr, IS_VARLEN: tl.constexpr, HAS_DROPOUT: tl.constexpr,
    BLOCK_SPARSE: tl.constexpr, SPARSE_BLOCK_M: tl.constexpr, SPARSE_BLOCK_N: tl.constexpr,
    EVEN_D: tl.constexpr, ATOMIC_DQ: tl.constexpr, DOT_PRECISION: tl.constexpr,
    COMPUTE_DK: tl.constexpr, COMPUTE_DV: tl.constexpr,
):
    """dK_j and/or dV_j (``COMPUTE_DK``, ``COMPUTE_DV``; see ``_dkdv_tile``) for one key block of one
    (batch, KV head), summed over the heads of its query group.

    Grid: (cdiv(max_seqlen_k, BLOCK_N), num_kv_heads, batch). Query blocks are visited in two phases for
    causal attention: the blocks straddling the diagonal (masked), then the blocks entirely below it.
    The LSE and D tensors use the query-head layout (stride_lb, stride_lh, stride_lm) for both.
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
    offs_d = tl.arange(0, BLOCK_D)
    key_in = offs_n < seqlen_k
    k_head = row_pointer(K, batch, kv_head, k_start, stride_kb, stride_kh, stride_kn)
    v_head = row_pointer(V, batch, kv_head, k_start, stride_vb, stride_vh, stride_vn)
    k = _load_rows(k_head + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                   key_in, offs_d, head_dim, EVEN_D)
    if COMPUTE_DK:
        v = _load_rows(v_head + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                       key_in, offs_d, head_dim, EVEN_D)
    else:
        v = k  # unused by a dV-only pass
    dk = tl.zeros([BLOCK_N, BLOCK_D], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, BLOCK_D], dtype=tl.float32)
    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q

    lo, full_start = query_block_ranges(start_n, seqlen_q, seqlen_k, BLOCK_M, BLOCK_N, IS_CAUSAL)

    for group_member in range(0, kv_group_size):
        head = kv_head * kv_group_size + group_member
        q_head = row_pointer(Q, batch, head, q_start, stride_qb, stride_qh, stride_qm)
        do_head = row_pointer(DO, batch, head, q_start, stride_dob, stride_doh, stride_dom)
        lse_head = row_pointer(LSE, batch, head, q_start, stride_lb, stride_lh, stride_lm)
        delta_head = row_pointer(DELTA, batch, head, q_start, stride_lb, stride_lh, stride_lm)
        dq_head = row_pointer(DQ_ACC, batch, head, q_start, stride_dqb, stride_dqh, stride_dqm)
        bh = batch * num_heads + head
        if BLOCK_SPARSE:
            sparse_col = start_n // SPARSE_BLOCK_N
            count_ptr = row_pointer(sparse_counts, batch, head, sparse_col, stride_scb, stride_sch, stride_scn)
            index_base = row_pointer(sparse_indices, batch, head, sparse_col, stride_sib, stride_sih, stride_sin)
            num_listed = tl.load(count_ptr)
            for listed in range(0, num_listed):
                query_block = tl.load(index_base + listed * stride_sik)
                for sub in range(0, SPARSE_BLOCK_M // BLOCK_M):
                    dk, dv = _dkdv_tile(
                        dk, dv, k, v, query_block * SPARSE_BLOCK_M + sub * BLOCK_M,
                        q_head, do_head, lse_head, delta_head, dq_head,
                        stride_qm, stride_qd, stride_dom, stride_dod, stride_lm, stride_lm,
                        stride_dqm, stride_dqd,
                        offs_n, offs_d, seqlen_q, seqlen_k, head_dim, causal_shift, qk_scale, softmax_scale,
                        seed, bh, drop_threshold, drop_rescale,
                        BLOCK_M, True, IS_CAUSAL, EVEN_D, HAS_DROPOUT, ATOMIC_DQ, DOT_PRECISION,
                        COMPUTE_DK, COMPUTE_DV)
        else:
            for start_m in range(lo, full_start, BLOCK_M):
                dk, dv = _dkdv_tile(
                    dk, dv, k, v, start_m,
                    q_head, do_head, lse_head, delta_head, dq_head,
                    stride_qm, stride_qd, stride_dom, stride_dod, stride_lm, stride_lm,
                    stride_dqm, stride_dqd,
                    offs_n, offs_d, seqlen_q, seqlen_k, head_dim, causal_shift, qk_scale, softmax_scale,
                    seed, bh, drop_threshold, drop_rescale,
                    BLOCK_M, True, IS_CAUSAL, EVEN_D, HAS_DROPOUT, ATOMIC_DQ, DOT_PRECISION,
                    COMPUTE_DK, COMPUTE_DV)
            for start_m in range(full_start, seqlen_q, BLOCK_M):
                dk, dv = _dkdv_tile(
                    dk, dv, k, v, start_m,
                    q_head, do_head, lse_head, delta_head, dq_head,
                    stride_qm, stride_qd, stride_dom, stride_dod, stride_lm, stride_lm,
                    stride_dqm, stride_dqd,
                    offs_n, offs_d, seqlen_q, seqlen_k, head_dim, causal_shift, qk_scale, softmax_scale,
                    seed, bh, drop_threshold, drop_rescale,
                    BLOCK_M, False, IS_CAUSAL, EVEN_D, HAS_DROPOUT, ATOMIC_DQ, DOT_PRECISION,
                    COMPUTE_DK, COMPUTE_DV)

    store_mask = key_in[:, None] & (offs_d[None, :] < head_dim)
    if COMPUTE_DK:
        dk_head = row_pointer(DK, batch, kv_head, k_start, stride_dkb, stride_dkh, stride_dkn)
        tl.store(dk_head + offs_n[:, None] * stride_dkn + offs_d[None, :] * stride_dkd,
                 (dk * softmax_scale).to(DK.dtype.element_ty), mask=store_mask)
    if COMPUTE_DV:
        dv_head = row_pointer(DV, batch, kv_head, k_start, stride_dvb, stride_dvh, stride_dvn)
        tl.store(dv_head + offs_n[:, None] * stride_dvn + offs_d[None, :] * stride_dvd,
                 dv.to(DV.dtype.element_ty), mask=store_mask)


@triton.jit
def _dq_tile(
    dq, q, do, lse2, delta, start_n, offs_m,
    k_head, v_head, stride_kn, stride_kd, stride_vn, stride_vd,
    offs_d, seqlen_k, head_dim, causal_shift, qk_scale,
    seed, bh, drop_threshold, drop_rescale,
    BLOCK_N: tl.constexpr, MASKED: tl.constexpr, IS_CAUSAL: tl.constexpr, EVEN_D: tl.constexpr,
    HAS_DROPOUT: tl.constexpr, DOT_PRECISION: tl.constexpr,
):
    """dQ_i += dS_ij K_j for the key block starting at ``start_n`` (the tau factor is applied at the end)."""
    offs_n = start_n + tl.arange(0, BLOCK_N)
    key_in = offs_n < seqlen_k
    k = _load_rows(k_head + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                   key_in, offs_d, head_dim, EVEN_D)
    v = _load_rows(v_head + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                   key_in, offs_d, head_dim, EVEN_D)
    qk = tl.dot(q, tl.trans(k), input_precision=DOT_PRECISION)
    p = tl.math.exp2(qk * qk_scale - lse2[:, None])
    if MASKED:
        visible = key_visibility(offs_m[:, None], offs_n[None, :], seqlen_k, causal_shift, IS_CAUSAL)
        p = tl.where(visible, p, 0.0)
    dp = tl.dot(do, tl.trans(v), input_precision=DOT_PRECISION)
    if HAS_DROPOUT:
        keep = dropout_keep(seed, bh, offs_m[:, None] + tl.zeros_like(offs_n)[None, :],
                            offs_n[None, :] + tl.zeros_like(offs_m)[:, None], drop_threshold)
        dp = tl.where(keep, dp * drop_rescale, 0.0)
    ds = p * (dp - delta[:, None])
    dq = tl.dot(ds.to(k.dtype), k, dq, input_precision=DOT_PRECISION)
    return dq


@triton.jit
def attention_backward_dq_kernel(
    Q, K, V, DO, LSE, DELTA, DQ,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_lb, stride_lh, stride_lm,
    stride_dqb, stride_dqh, stride_dqm, stride_dqd,
    cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k,
    kv_group_size, num_heads, head_dim, softmax_scale,
    seed, drop_threshold, drop_rescale,
    sparse_counts, sparse_indices,
    stride_scb, stride_sch, stride_scm,
    stride_sib, stride_sih, stride_sim, stride_sik,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
    IS_CAUSAL: tl.constexpr, IS_VARLEN: tl.constexpr, HAS_DROPOUT: tl.constexpr,
    BLOCK_SPARSE: tl.constexpr, SPARSE_BLOCK_M: tl.constexpr, SPARSE_BLOCK_N: tl.constexpr,
    EVEN_D: tl.constexpr, DOT_PRECISION: tl.constexpr,
):
    """dQ_i = tau * sum_j (P_ij o (dP_ij - D_i)) K_j for one query block, without atomics.

    Grid: (cdiv(max_seqlen_q, BLOCK_M), num_heads, batch); the key loop mirrors the forward kernel's.
    """
    LOG2E: tl.constexpr = 1.4426950408889634
    batch, head, kv_head, q_start, seqlen_q, k_start, seqlen_k, start_m = query_block_program(
        cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k, kv_group_size, BLOCK_M, IS_CAUSAL, IS_VARLEN)
    if start_m >= seqlen_q:
        return
    q_head = row_pointer(Q, batch, head, q_start, stride_qb, stride_qh, stride_qm)
    do_head = row_pointer(DO, batch, head, q_start, stride_dob, stride_doh, stride_dom)
    lse_head = row_pointer(LSE, batch, head, q_start, stride_lb, stride_lh, stride_lm)
    delta_head = row_pointer(DELTA, batch, head, q_start, stride_lb, stride_lh, stride_lm)
    k_head = row_pointer(K, batch, kv_head, k_start, stride_kb, stride_kh, stride_kn)
    v_head = row_pointer(V, batch, kv_head, k_start, stride_vb, stride_vh, stride_vn)

    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    row_in = offs_m < seqlen_q
    q = _load_rows(q_head + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                   row_in, offs_d, head_dim, EVEN_D)
    do = _load_rows(do_head + offs_m[:, None] * stride_dom + offs_d[None, :] * stride_dod,
                    row_in, offs_d, head_dim, EVEN_D)
    lse2 = row_log2_normaliser(lse_head + offs_m * stride_lm, row_in)
    delta = tl.load(delta_head + offs_m * stride_lm, mask=row_in, other=0.0)
    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    bh = batch * num_heads + head
    dq = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)

    if BLOCK_SPARSE:
        sparse_row = start_m // SPARSE_BLOCK_M
        count_ptr = row_pointer(sparse_counts, batch, head, sparse_row, stride_scb, stride_sch, stride_scm)
        index_base = row_pointer(sparse_indices, batch, head, sparse_row, stride_sib, stride_sih, stride_sim)
        num_listed = tl.load(count_ptr)
        for listed in range(0, num_listed):
            key_block = tl.load(index_base + listed * stride_sik)
            for sub in range(0, SPARSE_BLOCK_N // BLOCK_N):
                dq = _dq_tile(dq, q, do, lse2, delta, key_block * SPARSE_BLOCK_N + sub * BLOCK_N, offs_m,
                              k_head, v_head, stride_kn, stride_kd, stride_vn, stride_vd,
                              offs_d, seqlen_k, head_dim, causal_shift, qk_scale,
                              seed, bh, drop_threshold, drop_rescale,
                              BLOCK_N, True, IS_CAUSAL, EVEN_D, HAS_DROPOUT, DOT_PRECISION)
    else:
        full_end, end_n = key_block_ranges(start_m, seqlen_q, seqlen_k, BLOCK_M, BLOCK_N, IS_CAUSAL)
        for start_n in range(0, full_end, BLOCK_N):
            dq = _dq_tile(dq, q, do, lse2, delta, start_n, offs_m,
                          k_head, v_head, stride_kn, stride_kd, stride_vn, stride_vd,
                          offs_d, seqlen_k, head_dim, causal_shift, qk_scale,
                          seed, bh, drop_threshold, drop_rescale,
                          BLOCK_N, False, IS_CAUSAL, EVEN_D, HAS_DROPOUT, DOT_PRECISION)
        for start_n in range(full_end, end_n, BLOCK_N):
            dq = _dq_tile(dq, q, do, lse2, delta, start_n, offs_m,
                          k_head, v_head, stride_kn, stride_kd, stride_vn, stride_vd,
                          offs_d, seqlen_k, head_dim, causal_shift, qk_scale,
                          seed, bh, drop_threshold, drop_rescale,
                          BLOCK_N, True, IS_CAUSAL, EVEN_D, HAS_DROPOUT, DOT_PRECISION)

    dq = dq * softmax_scale
    dq_head = row_pointer(DQ, batch, head, q_start, stride_dqb, stride_dqh, stride_dqm)
    tl.store(dq_head + offs_m[:, None] * stride_dqm + offs_d[None, :] * stride_dqd,
             dq.to(DQ.dtype.element_ty), mask=row_in[:, None] & (offs_d[None, :] < head_dim))


@triton.jit
def dropout_mask_kernel(
    KEEP, stride_kb, stride_kh, stride_km, stride_kn,
    seqlen_q, seqlen_k, num_heads, seed, drop_threshold,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    """Write the dropout keep-mask the attention kernels use, for (batch, head, rows, keys).

    Used by ``return_attn_probs`` and by tests; the same ``dropout_keep`` generator as the kernels.
    Grid: (cdiv(seqlen_q, BLOCK_M), num_heads, batch); one program loops over all key blocks.
    """
    pid_m = tl.program_id(0)
    head = tl.program_id(1)
    batch = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    base = row_pointer(KEEP, batch, head, 0, stride_kb, stride_kh, stride_km)
    bh = batch * num_heads + head
    for start_n in range(0, seqlen_k, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        keep = dropout_keep(seed, bh, offs_m[:, None] + tl.zeros_like(offs_n)[None, :],
                            offs_n[None, :] + tl.zeros_like(offs_m)[:, None], drop_threshold)
        mask = (offs_m[:, None] < seqlen_q) & (offs_n[None, :] < seqlen_k)
        tl.store(base + offs_m[:, None] * stride_km + offs_n[None, :] * stride_kn, keep.to(tl.int8), mask=mask)


@triton.jit(do_not_specialize=["first_tile", "blocks_per_head", "num_kv_heads", "seqlen_k"])
def key_gradient_parts_kernel(
    PARTS, DK, DV,
    stride_dkb, stride_dkh, stride_dkn,
    stride_dvb, stride_dvh, stride_dvn,
    first_tile, blocks_per_head, num_kv_heads, seqlen_k,
    BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
):
    """dK and dV of key block ``first_tile + program_id(0)`` (tile id ``(batch * num_kv_heads + kv_head) *
    blocks_per_head + block``) from its slot of ``PARTS`` ([slots, 2, BLOCK_N, HEAD_DIM] float32: tau dk, then
    dv, summed over the pieces of a split tail), in the output precision; key rows past ``seqlen_k`` are not
    written. Its integer arguments are not specialised (Triton otherwise compiles a variant per divisibility by
    16): a new sequence length in a tuned bucket should not compile even this small kernel again."""
    slot = tl.program_id(0)
    tile = first_tile + slot
    head_batch = tile // blocks_per_head
    kv_head = head_batch % num_kv_heads
    batch = head_batch // num_kv_heads
    rows = (tile % blocks_per_head) * BLOCK_N + tl.arange(0, BLOCK_N)
    cols = tl.arange(0, HEAD_DIM)
    parts = PARTS + slot.to(tl.int64) * (2 * BLOCK_N * HEAD_DIM) + tl.arange(0, BLOCK_N)[:, None] * HEAD_DIM + \
        cols[None, :]
    key_in = (rows < seqlen_k)[:, None]
    dk_ptrs = DK + batch.to(tl.int64) * stride_dkb + kv_head.to(tl.int64) * stride_dkh + \
        rows[:, None] * stride_dkn + cols[None, :]
    dv_ptrs = DV + batch.to(tl.int64) * stride_dvb + kv_head.to(tl.int64) * stride_dvh + \
        rows[:, None] * stride_dvn + cols[None, :]
    tl.store(dk_ptrs, tl.load(parts).to(DK.dtype.element_ty), mask=key_in)
    tl.store(dv_ptrs, tl.load(parts + BLOCK_N * HEAD_DIM).to(DV.dtype.element_ty), mask=key_in)
