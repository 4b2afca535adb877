"""Triton helpers shared by the forward and backward kernels (only ``@triton.jit`` code here).

Index conventions used throughout the kernels
---------------------------------------------
* Every tensor is addressed as ``base + b*stride_b + h*stride_h + row*stride_row + col*stride_d``, so
  any layout (SDPA's (B, H, N, d), flash-attn's (B, N, H, d), packed varlen (total, H, d), arbitrary
  views) is handled by the strides alone.
* Scores live in base 2: ``qk_scale = softmax_scale * log2(e)``, so that ``exp(tau*s - m)`` becomes one
  ``exp2`` of a fused multiply-add (FlashAttention-2, section 3.1).
* Causal masking is bottom-right aligned as in flash-attn: query row ``i`` sees key ``j`` iff
  ``j <= i + (seqlen_k - seqlen_q)``.
"""

import triton
import triton.language as tl


@triton.jit
def dropout_keep(seed, bh, rows, cols, drop_threshold):
    """Keep-mask of dropout for the score entries at (``rows``, ``cols``) of head ``bh``.

    A counter-based RNG (Philox 4x32) keyed by ``seed`` with the counter (col, row, batch*heads+head, 0)
    gives every score entry its own random number, so the backward pass regenerates exactly the mask of
    the forward pass without storing it (FlashAttention, section 3.1). ``rows`` and ``cols`` must already
    be broadcast to the tile's shape. An entry is kept iff its top 24 random bits are
    ``>= drop_threshold = round(p * 2**24)``.
    """
    c0 = cols.to(tl.uint32)
    c1 = rows.to(tl.uint32)
    c2 = tl.zeros_like(c0) + bh.to(tl.uint32)
    c3 = tl.zeros_like(c0)
    r0, _, _, _ = tl.philox(seed, c0, c1, c2, c3)
    return (r0 >> 8).to(tl.int32) >= drop_threshold


@triton.jit
def sequence_bounds(cu_seqlens, batch, fixed_seqlen, IS_VARLEN: tl.constexpr):
    """(start, length) of sequence ``batch``: from ``cu_seqlens`` for packed batches, else (0, fixed)."""
    if IS_VARLEN:
        start = tl.load(cu_seqlens + batch)
        length = tl.load(cu_seqlens + batch + 1) - start
    else:
        start = 0
        length = fixed_seqlen
    return start, length


@triton.jit
def query_block_program(cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k, kv_group_size,
                        BLOCK_M: tl.constexpr, IS_CAUSAL: tl.constexpr, IS_VARLEN: tl.constexpr):
    """Where a program of a query-block grid (cdiv(max_seqlen_q, BLOCK_M), num_heads, batch) works:
    (batch, head, kv_head, q_start, seqlen_q, k_start, seqlen_k, start_m).

    For causal attention the query blocks are taken in reverse, so that the heaviest (bottom) blocks
    start first and the triangle balances. The caller returns early when ``start_m >= seqlen_q`` (a
    packed sequence shorter than the longest)."""
    pid_m = tl.program_id(0)
    head = tl.program_id(1)
    batch = tl.program_id(2)
    if IS_CAUSAL:
        pid_m = tl.num_programs(0) - 1 - pid_m
    q_start, seqlen_q = sequence_bounds(cu_seqlens_q, batch, fixed_seqlen_q, IS_VARLEN)
    k_start, seqlen_k = sequence_bounds(cu_seqlens_k, batch, fixed_seqlen_k, IS_VARLEN)
    return batch, head, head // kv_group_size, q_start, seqlen_q, k_start, seqlen_k, pid_m * BLOCK_M


@triton.jit
def key_visibility(rows, cols, seqlen_k, causal_shift, IS_CAUSAL: tl.constexpr):
    """Which (row, key) entries of a tile exist and are visible: ``rows`` and ``cols`` are broadcastable
    index tensors ([M, 1] and [1, N], or transposed for the [keys, rows] tiles of the dK/dV kernels)."""
    visible = cols < seqlen_k
    if IS_CAUSAL:
        visible = visible & (cols <= rows + causal_shift)
    return visible


@triton.jit
def online_softmax_update(qk, m_i, l_i, qk_scale, visible, MASKED: tl.constexpr):
    """One step of the online softmax (FlashAttention-2, section 3.1) for the raw score tile ``qk``:

        m_new = max(m, rowmax(qk_scale * qk));  P = exp2(qk_scale * qk - m_new);
        alpha = 2^(m - m_new);  l <- alpha * l + rowsum(P)

    Returns (P, alpha, l, m_new); the caller rescales its accumulator by alpha and adds P V. With
    ``MASKED``, entries outside ``visible`` are -inf, and a row that has seen no visible key yet keeps
    m = -inf while subtracting 0 instead, so that exp2(-inf - -inf) never makes a NaN."""
    if MASKED:
        qk = tl.where(visible, qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
    else:
        m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        m_safe = m_new
    p = tl.math.exp2(qk * qk_scale - m_safe[:, None])
    alpha = tl.math.exp2(m_i - m_safe)
    return p, alpha, l_i * alpha + tl.sum(p, 1), m_new


@triton.jit
def key_block_ranges(start_m, seqlen_q, seqlen_k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     IS_CAUSAL: tl.constexpr):
    """(unmasked_end, end) for the query rows [start_m, start_m + BLOCK_M): key blocks starting below
    ``unmasked_end`` need no mask at all; blocks in [unmasked_end, end) straddle the causal diagonal or the
    end of the keys and are masked; keys from ``end`` on are invisible to every row of the block.

    With causal attention (query i sees key j iff j <= i + seqlen_k - seqlen_q) the last visible key of
    the block is start_m + BLOCK_M - 1 + shift and every row sees keys up to start_m + shift.
    """
    if IS_CAUSAL:
        shift = seqlen_k - seqlen_q
        end = tl.minimum(tl.maximum(start_m + BLOCK_M + shift, 0), seqlen_k)
        unmasked_end = tl.minimum(tl.maximum(start_m + shift + 1, 0), seqlen_k)
    else:
        end = seqlen_k
        unmasked_end = seqlen_k
    return (unmasked_end // BLOCK_N) * BLOCK_N, end


@triton.jit
def query_block_ranges(start_n, seqlen_q, seqlen_k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       IS_CAUSAL: tl.constexpr):
    """(start, unmasked_start) for the key block [start_n, start_n + BLOCK_N), the mirror of
    ``key_block_ranges`` for the dK/dV kernels: query blocks from ``start`` on see part of the key block,
    blocks from ``unmasked_start`` on see all of it (both multiples of BLOCK_M, clipped to seqlen_q).

    Causal: row i sees the block's first key iff i >= start_n - shift and its last iff
    i >= start_n + BLOCK_N - 1 - shift. A key block running past seqlen_k is always masked.
    """
    if IS_CAUSAL:
        shift = seqlen_k - seqlen_q
        start = tl.maximum(start_n - shift, 0)
        start = tl.minimum((start // BLOCK_M) * BLOCK_M, seqlen_q)
        unmasked_start = tl.maximum(start_n + BLOCK_N - 1 - shift, 0)
        unmasked_start = tl.maximum(tl.minimum(tl.cdiv(unmasked_start, BLOCK_M) * BLOCK_M, seqlen_q), start)
    else:
        start = 0
        unmasked_start = 0
    if start_n + BLOCK_N > seqlen_k:
        unmasked_start = seqlen_q
    return start, unmasked_start


@triton.jit
def row_log2_normaliser(lse_ptrs, row_in):
    """LSE in base 2 for the backward's recomputation P = exp2(qk_scale*s - lse2).

    Rows past the sequence and rows that saw no key (stored LSE = -inf) get +inf, which makes every
    recomputed probability of that row exactly 0 (and never NaN)."""
    LOG2E: tl.constexpr = 1.4426950408889634
    lse = tl.load(lse_ptrs, mask=row_in, other=float("inf"))
    lse = tl.where(lse == float("-inf"), float("inf"), lse)
    return lse * LOG2E


@triton.jit
def row_tile_descriptor(base, batch, head, start, stride_b, stride_h, stride_row, seqlen,
                        HEAD_DIM: tl.constexpr, BLOCK_ROWS: tl.constexpr):
    """A tensor descriptor over the ``seqlen`` rows of (``batch``, ``head``) starting at row ``start``,
    loading [BLOCK_ROWS, HEAD_DIM] tiles (unit stride along the head dim; rows past ``seqlen`` read as
    zeros and are never written)."""
    return tl.make_tensor_descriptor(row_pointer(base, batch, head, start, stride_b, stride_h, stride_row),
                                     shape=[seqlen, HEAD_DIM], strides=[stride_row, 1],
                                     block_shape=[BLOCK_ROWS, HEAD_DIM])


@triton.jit
def row_pointer(base, batch, head, row, stride_b, stride_h, stride_row):
    """Address of ``row`` of (``batch``, ``head``) in a tensor with these strides, computed in 64 bits
    (a packed batch or a large one can hold more than 2**31 elements)."""
    return base + tl.cast(batch, tl.int64) * stride_b + tl.cast(head, tl.int64) * stride_h + \
        tl.cast(row, tl.int64) * stride_row
