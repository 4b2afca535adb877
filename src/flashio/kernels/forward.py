"""Forward pass of exact attention, tiled through on-chip memory (only ``@triton.jit`` code here).

One program owns one block of ``BLOCK_M`` query rows of one (batch, head) and streams the key/value
blocks past it (FlashAttention-2's loop order, section 3.2), keeping the running row maximum ``m``, the
running normaliser ``l`` and the unnormalised output in registers (online softmax, FlashAttention
section 3.1). Only O (N x d) and the row log-sum-exp (N) are written to HBM; the N x N scores never are.

Key blocks are visited in two phases: blocks that no mask touches (no per-element work beyond the
softmax), then blocks that straddle the causal diagonal or the end of the keys (masked). With a
block-sparse mask, the program visits only the key blocks listed for its query block, so zero blocks are
never loaded (FlashAttention section 3.3).
"""

import triton
import triton.language as tl

from flashio.kernels.common import (dropout_keep, key_block_ranges, key_visibility, online_softmax_update,
                                    query_block_program, row_pointer)


@triton.jit
def _forward_tile(
    acc, l_i, m_i, q,
    k_head, v_head, stride_kn, stride_kd, stride_vn, stride_vd,
    start_n, offs_m, offs_d, seqlen_k, head_dim, causal_shift, qk_scale,
    seed, bh, drop_threshold,
    BLOCK_N: tl.constexpr, MASKED: tl.constexpr, IS_CAUSAL: tl.constexpr,
    EVEN_D: tl.constexpr, HAS_DROPOUT: tl.constexpr, DOT_PRECISION: tl.constexpr,
):
    """One step of the online softmax over the key block starting at ``start_n``.

    m_new = max(m, rowmax(qk_scale * Q K_j^T));  P = exp2(qk_scale * Q K_j^T - m_new)
    l <- 2^(m - m_new) * l + rowsum(P);  acc <- 2^(m - m_new) * acc + (P o Z) V_j
    (Z is the dropout keep-mask; the 1/(1-p) factor is applied once at the end.)
    """
    offs_n = start_n + tl.arange(0, BLOCK_N)
    # K is loaded transposed ([d, BLOCK_N]) so that Q @ K^T is a plain dot.
    kt_ptrs = k_head + tl.cast(start_n, tl.int64) * stride_kn + \
        tl.arange(0, BLOCK_N)[None, :] * stride_kn + offs_d[:, None] * stride_kd
    v_ptrs = v_head + tl.cast(start_n, tl.int64) * stride_vn + \
        tl.arange(0, BLOCK_N)[:, None] * stride_vn + offs_d[None, :] * stride_vd
    if MASKED:
        key_in = offs_n < seqlen_k
        if EVEN_D:
            kt = tl.load(kt_ptrs, mask=key_in[None, :], other=0.0)
            v = tl.load(v_ptrs, mask=key_in[:, None], other=0.0)
        else:
            d_in = offs_d < head_dim
            kt = tl.load(kt_ptrs, mask=key_in[None, :] & d_in[:, None], other=0.0)
            v = tl.load(v_ptrs, mask=key_in[:, None] & d_in[None, :], other=0.0)
    else:
        if EVEN_D:
            kt = tl.load(kt_ptrs)
            v = tl.load(v_ptrs)
        else:
            d_in = offs_d < head_dim
            kt = tl.load(kt_ptrs, mask=d_in[:, None], other=0.0)
            v = tl.load(v_ptrs, mask=d_in[None, :], other=0.0)

    qk = tl.dot(q, kt, input_precision=DOT_PRECISION)
    visible = key_visibility(offs_m[:, None], offs_n[None, :], seqlen_k, causal_shift, IS_CAUSAL)
    p, alpha, l_i, m_new = online_softmax_update(qk, m_i, l_i, qk_scale, visible, MASKED)
    acc = acc * alpha[:, None]
    if HAS_DROPOUT:
        keep = dropout_keep(seed, bh, offs_m[:, None] + tl.zeros_like(offs_n)[None, :],
                            offs_n[None, :] + tl.zeros_like(offs_m)[:, None], drop_threshold)
        p = tl.where(keep, p, 0.0)
    acc = tl.dot(p.to(v.dtype), v, acc, input_precision=DOT_PRECISION)
    return acc, l_i, m_new


@triton.jit
def attention_forward_kernel(
    Q, K, V, O, LSE,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_ob, stride_oh, stride_om, stride_od,
    stride_lb, stride_lh, stride_lm,
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
    """O = softmax(tau Q K^T + mask) V and LSE = log(rowsum(exp(tau Q K^T + mask))), per query block.

    Grid: (cdiv(max_seqlen_q, BLOCK_M), num_heads, batch). For causal attention the query blocks are
    taken in reverse so that the heaviest (bottom) blocks start first and the triangle balances.
    Rows that see no key (causal with seqlen_q > seqlen_k, or an empty key sequence) get O = 0 and
    LSE = -inf (the log of an empty sum).
    """
    LOG2E: tl.constexpr = 1.4426950408889634
    batch, head, kv_head, q_start, seqlen_q, k_start, seqlen_k, start_m = query_block_program(
        cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k, kv_group_size, BLOCK_M, IS_CAUSAL, IS_VARLEN)
    if start_m >= seqlen_q:
        return
    q_head = row_pointer(Q, batch, head, q_start, stride_qb, stride_qh, stride_qm)
    k_head = row_pointer(K, batch, kv_head, k_start, stride_kb, stride_kh, stride_kn)
    v_head = row_pointer(V, batch, kv_head, k_start, stride_vb, stride_vh, stride_vn)
    o_head = row_pointer(O, batch, head, q_start, stride_ob, stride_oh, stride_om)
    lse_head = row_pointer(LSE, batch, head, q_start, stride_lb, stride_lh, stride_lm)

    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    row_in = offs_m < seqlen_q
    q_ptrs = q_head + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd
    if EVEN_D:
        q = tl.load(q_ptrs, mask=row_in[:, None], other=0.0)
    else:
        q = tl.load(q_ptrs, mask=row_in[:, None] & (offs_d[None, :] < head_dim), other=0.0)

    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    bh = batch * num_heads + head
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)

    if BLOCK_SPARSE:
        # Visit only the key blocks listed for this query block; every visited tile is masked
        # (causal and sequence end), which costs little next to the loads it saves.
        sparse_row = start_m // SPARSE_BLOCK_M
        count_ptr = row_pointer(sparse_counts, batch, head, sparse_row, stride_scb, stride_sch, stride_scm)
        index_base = row_pointer(sparse_indices, batch, head, sparse_row, stride_sib, stride_sih, stride_sim)
        num_listed = tl.load(count_ptr)
        for listed in range(0, num_listed):
            key_block = tl.load(index_base + listed * stride_sik)
            for sub in range(0, SPARSE_BLOCK_N // BLOCK_N):
                start_n = key_block * SPARSE_BLOCK_N + sub * BLOCK_N
                acc, l_i, m_i = _forward_tile(
                    acc, l_i, m_i, q, k_head, v_head, stride_kn, stride_kd, stride_vn, stride_vd,
                    start_n, offs_m, offs_d, seqlen_k, head_dim, causal_shift, qk_scale,
                    seed, bh, drop_threshold,
                    BLOCK_N, True, IS_CAUSAL, EVEN_D, HAS_DROPOUT, DOT_PRECISION)
    else:
        full_end, end_n = key_block_ranges(start_m, seqlen_q, seqlen_k, BLOCK_M, BLOCK_N, IS_CAUSAL)
        for start_n in range(0, full_end, BLOCK_N):
            acc, l_i, m_i = _forward_tile(
                acc, l_i, m_i, q, k_head, v_head, stride_kn, stride_kd, stride_vn, stride_vd,
                start_n, offs_m, offs_d, seqlen_k, head_dim, causal_shift, qk_scale,
                seed, bh, drop_threshold,
                BLOCK_N, False, IS_CAUSAL, EVEN_D, HAS_DROPOUT, DOT_PRECISION)
        for start_n in range(full_end, end_n, BLOCK_N):
            acc, l_i, m_i = _forward_tile(
                acc, l_i, m_i, q, k_head, v_head, stride_kn, stride_kd, stride_vn, stride_vd,
                start_n, offs_m, offs_d, seqlen_k, head_dim, causal_shift, qk_scale,
                seed, bh, drop_threshold,
                BLOCK_N, True, IS_CAUSAL, EVEN_D, HAS_DROPOUT, DOT_PRECISION)

    # Rows with no visible key have l = 0: output 0, LSE = -inf.
    empty = l_i == 0.0
    l_safe = tl.where(empty, 1.0, l_i)
    if HAS_DROPOUT:
        out = acc * (drop_rescale / l_safe)[:, None]
    else:
        out = acc * (1.0 / l_safe)[:, None]
    lse = tl.where(empty, float("-inf"), (m_i + tl.math.log2(l_safe)) / LOG2E)
    tl.store(lse_head + offs_m * stride_lm, lse, mask=row_in)
    o_ptrs = o_head + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od
    if EVEN_D:
        tl.store(o_ptrs, out.to(O.dtype.element_ty), mask=row_in[:, None])
    else:
        tl.store(o_ptrs, out.to(O.dtype.element_ty), mask=row_in[:, None] & (offs_d[None, :] < head_dim))


@triton.jit(do_not_specialize=["num_blocks", "num_heads", "seqlen_q", "combines"])
def split_tail_combine_kernel(
    PARTIALS, COMBINES, O, LSE,
    stride_ob, stride_oh, stride_om,
    stride_lb, stride_lh, stride_lm,
    num_blocks, num_heads, seqlen_q, combines,
    TILE_ROWS: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_ROWS: tl.constexpr, NUM_STAGES: tl.constexpr,
):
    """The output rows of one tile that a split-tail persistent forward cut along its keys
    (``flashio.schedules.split_tail_forward_schedule``), from its pieces: merge ``program_id(0)`` of the
    ``combines`` in the int32 table ``COMBINES`` (tile ids, then first slots, then piece counts, ``combines`` each;
    tile id ``head_batch * num_blocks + block``), rows [program_id(1) * BLOCK_ROWS, + BLOCK_ROWS) of the tile.
    Slot s of ``PARTIALS`` holds a piece's O_j (TILE_ROWS x HEAD_DIM float32, divided by the piece's own softmax
    sum), then its LSE_j (TILE_ROWS). With M = max_j LSE_j (FlashAttention's split-KV combine):
    LSE = M + log(sum_j exp(LSE_j - M)), O = sum_j exp(LSE_j - LSE) O_j, in one pass over the pieces (the running
    maximum rescales the sums, as the online softmax does). Rows that saw no key (every LSE_j = -inf) get O = 0,
    LSE = -inf; rows past ``seqlen_q`` are not written. Integer arguments are not specialised, so that a new
    length does not compile it again. ``NUM_STAGES`` > 1 software-pipelines the loop over the pieces: the next
    pieces' loads are in flight while one is merged (one piece after another costs a memory latency each)."""
    combine = tl.program_id(0)
    tile = tl.load(COMBINES + combine)
    first_slot = tl.load(COMBINES + combines + combine)
    pieces = tl.load(COMBINES + 2 * combines + combine)
    head_batch = tile // num_blocks
    head = head_batch % num_heads
    batch = head_batch // num_heads
    tile_rows = tl.program_id(1) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, HEAD_DIM)
    rows = (tile % num_blocks) * TILE_ROWS + tile_rows
    SLOT: tl.constexpr = TILE_ROWS * (HEAD_DIM + 1)
    m = tl.full([BLOCK_ROWS], float("-inf"), tl.float32)
    total = tl.zeros([BLOCK_ROWS], tl.float32)
    acc = tl.zeros([BLOCK_ROWS, HEAD_DIM], tl.float32)
    for piece in tl.range(0, pieces, num_stages=NUM_STAGES):
        base = PARTIALS + (first_slot + piece).to(tl.int64) * SLOT
        lse_j = tl.load(base + TILE_ROWS * HEAD_DIM + tile_rows)
        o_j = tl.load(base + tile_rows[:, None] * HEAD_DIM + cols[None, :])
        m_new = tl.maximum(m, lse_j)
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no piece has seen a key yet: no NaN
        rescale = tl.exp(m - m_safe)
        weight = tl.exp(lse_j - m_safe)
        total = total * rescale + weight
        acc = acc * rescale[:, None] + weight[:, None] * o_j
        m = m_new
    seen = total > 0.0
    total_safe = tl.where(seen, total, 1.0)
    lse = tl.where(seen, m + tl.log(total_safe), float("-inf"))
    out = acc / total_safe[:, None]
    in_range = rows < seqlen_q
    tl.store(LSE + batch.to(tl.int64) * stride_lb + head.to(tl.int64) * stride_lh + rows * stride_lm, lse,
             mask=in_range)
    tl.store(O + batch.to(tl.int64) * stride_ob + head.to(tl.int64) * stride_oh + rows.to(tl.int64)[:, None] *
             stride_om + cols[None, :], out.to(O.dtype.element_ty), mask=in_range[:, None])
