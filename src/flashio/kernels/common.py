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
