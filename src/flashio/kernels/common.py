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
def row_pointer(base, batch, head, row, stride_b, stride_h, stride_row):
    """Address of ``row`` of (``batch``, ``head``) in a tensor with these strides, computed in 64 bits
    (a packed batch or a large one can hold more than 2**31 elements)."""
    return base + tl.cast(batch, tl.int64) * stride_b + tl.cast(head, tl.int64) * stride_h + \
        tl.cast(row, tl.int64) * stride_row
