"""Forward pass through tensor descriptors (TMA bulk copies on Hopper); only ``@triton.jit`` code here.

The same algorithm as ``forward.py`` (FlashAttention-2 loop order, online softmax in base 2, unmasked
then masked key blocks), for the common case: no dropout, no block-sparse mask, a power-of-two head
dimension and rows whose strides are multiples of 16 bytes. Tiles move through descriptors made in the
kernel for each (batch, head, sequence): on Hopper they become TMA bulk copies, which take the address
arithmetic and bounds checks off the math warps; rows past the sequence end read as zeros and are never
written, so no masks are needed on loads and stores.

Warp specialisation of the key loop (``tl.range(..., warp_specialize=True)``) was tried on the H200 with
Triton 3.6 and does not compile for Hopper there (MLIR pass failure), so this kernel does not ask for it.
Issuing the next block's Q K^T before the current block's softmax (a software form of FlashAttention-3's
intra-warpgroup overlap) was measured 2-10% slower at d=64 and d=128 (v0.5 in benchmarks/PERFORMANCE.md)
and was removed.
"""

import triton
import triton.language as tl

from flashio.kernels.common import (key_block_ranges, key_visibility, online_softmax_update, query_block_program,
                                    row_pointer, row_tile_descriptor)


@triton.jit
def _online_softmax_step(acc, l_i, m_i, qk, v, start_n, offs_m, seqlen_k, causal_shift, qk_scale,
                         BLOCK_N: tl.constexpr, MASKED: tl.constexpr, IS_CAUSAL: tl.constexpr):
    """One step of the online softmax (``common.online_softmax_update``) and the P V product."""
    offs_n = start_n + tl.arange(0, BLOCK_N)
    visible = key_visibility(offs_m[:, None], offs_n[None, :], seqlen_k, causal_shift, IS_CAUSAL)
    p, alpha, l_i, m_new = online_softmax_update(qk, m_i, l_i, qk_scale, visible, MASKED)
    acc = acc * alpha[:, None]
    acc = tl.dot(p.to(v.dtype), v, acc)
    return acc, l_i, m_new


@triton.jit
def _forward_tma_loop(
    acc, l_i, m_i, q, k_desc, v_desc, lo, hi, offs_m, seqlen_k, causal_shift, qk_scale,
    BLOCK_N: tl.constexpr, MASKED: tl.constexpr, IS_CAUSAL: tl.constexpr,
):
    """Online softmax over the key blocks [lo, hi): see ``forward._forward_tile`` for the recurrence."""
    for start_n in tl.range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        qk = tl.dot(q, k_desc.load([start_n, 0]).T)
        acc, l_i, m_i = _online_softmax_step(acc, l_i, m_i, qk, v_desc.load([start_n, 0]), start_n, offs_m,
                                             seqlen_k, causal_shift, qk_scale, BLOCK_N, MASKED, IS_CAUSAL)
    return acc, l_i, m_i


@triton.jit
def attention_forward_tma_kernel(
    Q, K, V, O, LSE,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_ob, stride_oh, stride_om,
    stride_lb, stride_lh, stride_lm,
    cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k,
    kv_group_size, softmax_scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
    IS_CAUSAL: tl.constexpr, IS_VARLEN: tl.constexpr,
):
    """O and LSE for one query block; grid (cdiv(max_seqlen_q, BLOCK_M), num_heads, batch).

    Strides of the head dimension are 1 (the launcher guarantees it), so they are not arguments.
    """
    LOG2E: tl.constexpr = 1.4426950408889634
    batch, head, kv_head, q_start, seqlen_q, k_start, seqlen_k, start_m = query_block_program(
        cu_seqlens_q, cu_seqlens_k, fixed_seqlen_q, fixed_seqlen_k, kv_group_size, BLOCK_M, IS_CAUSAL, IS_VARLEN)
    if start_m >= seqlen_q:
        return
    q_desc = row_tile_descriptor(Q, batch, head, q_start, stride_qb, stride_qh, stride_qm,
                                 seqlen_q, HEAD_DIM, BLOCK_M)
    k_desc = row_tile_descriptor(K, batch, kv_head, k_start, stride_kb, stride_kh, stride_kn,
                                 seqlen_k, HEAD_DIM, BLOCK_N)
    v_desc = row_tile_descriptor(V, batch, kv_head, k_start, stride_vb, stride_vh, stride_vn,
                                 seqlen_k, HEAD_DIM, BLOCK_N)
    o_desc = row_tile_descriptor(O, batch, head, q_start, stride_ob, stride_oh, stride_om,
                                 seqlen_q, HEAD_DIM, BLOCK_M)

    offs_m = start_m + tl.arange(0, BLOCK_M)
    q = q_desc.load([start_m, 0])
    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    full_end, end_n = key_block_ranges(start_m, seqlen_q, seqlen_k, BLOCK_M, BLOCK_N, IS_CAUSAL)
    acc, l_i, m_i = _forward_tma_loop(acc, l_i, m_i, q, k_desc, v_desc, 0, full_end, offs_m, seqlen_k,
                                      causal_shift, qk_scale, BLOCK_N, False, IS_CAUSAL)
    acc, l_i, m_i = _forward_tma_loop(acc, l_i, m_i, q, k_desc, v_desc, full_end, end_n, offs_m, seqlen_k,
                                      causal_shift, qk_scale, BLOCK_N, True, IS_CAUSAL)
    empty = l_i == 0.0
    l_safe = tl.where(empty, 1.0, l_i)
    lse = tl.where(empty, float("-inf"), (m_i + tl.math.log2(l_safe)) / LOG2E)
    lse_head = row_pointer(LSE, batch, head, q_start, stride_lb, stride_lh, stride_lm)
    tl.store(lse_head + offs_m * stride_lm, lse, mask=offs_m < seqlen_q)
    o_desc.store([start_m, 0], (acc * (1.0 / l_safe)[:, None]).to(O.dtype.element_ty))
