"""Warp-specialised forward through tensor descriptors (Hopper and newer); only ``@triton.jit`` code here.

The algorithm of ``forward_tma.py`` (FlashAttention-2 loop order, online softmax in base 2) with the key
loop marked ``warp_specialize=True``: Triton splits the program into a producer warpgroup that issues the
TMA copies of K_j and V_j into a ring of shared-memory buffers, and two consumer warpgroups that each own
half of the query rows and run Q K_j^T, the softmax and P V_j (FlashAttention-3, section 3.1). The two
consumers synchronise only through the buffers' barriers, so one's exponentials overlap the other's
matrix products; in the single-partition kernels every warp waits at the same point of each iteration and
the tensor cores idle during the softmax.

Triton 3.6 partitions a loop only in a particular shape, which this kernel keeps to: one loop in the
kernel (so the unmasked and masked key blocks share it, and a mask is applied in every iteration when
any block may need one), no branch inside the loop and no early return. When it splits the query rows
between the two consumers, Triton 3.6 offsets the second consumer's copy of the SSA value used as a
tile's row coordinate, and every other use of that same value with it, while also slicing the
``tl.arange`` of the row indices: a coordinate of ``start_m`` would shift that consumer's row indices
(its causal mask and LSE rows) twice, and a coordinate of 0 would shift the column coordinate too. So the
row coordinate of the Q and O tiles is ``start_m + tile_row_base``, with ``tile_row_base`` a run-time 0
from the launcher: a value used nowhere else. Packed variable-length batches are not taken (a program
past the end of a short sequence would need an early return); the plain tensor-descriptor kernel runs
them.
"""

import triton
import triton.language as tl

from flashio.kernels.common import online_softmax_update, query_block_program, row_pointer, row_tile_descriptor


@triton.jit
def attention_forward_ws_kernel(
    Q, K, V, O, LSE,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_ob, stride_oh, stride_om,
    stride_lb, stride_lh, stride_lm,
    fixed_seqlen_q, fixed_seqlen_k, kv_group_size, softmax_scale, tile_row_base,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
    IS_CAUSAL: tl.constexpr, MAY_MASK: tl.constexpr,
):
    """O and LSE for one query block; grid (cdiv(seqlen_q, BLOCK_M), num_heads, batch); ``tile_row_base``
    must be 0.

    Fixed-length batches only. ``MAY_MASK`` is False only when no key block can need a mask (not causal,
    seqlen_k a multiple of BLOCK_N); otherwise each score tile is masked against a per-row last visible key,
    min(row + seqlen_k - seqlen_q, seqlen_k - 1) for causal attention (two operations per score).
    """
    LOG2E: tl.constexpr = 1.4426950408889634
    batch, head, kv_head, _, seqlen_q, _, seqlen_k, start_m = query_block_program(
        0, 0, fixed_seqlen_q, fixed_seqlen_k, kv_group_size, BLOCK_M, IS_CAUSAL, False)  # no cu_seqlens
    q_desc = row_tile_descriptor(Q, batch, head, 0, stride_qb, stride_qh, stride_qm, seqlen_q, HEAD_DIM, BLOCK_M)
    k_desc = row_tile_descriptor(K, batch, kv_head, 0, stride_kb, stride_kh, stride_kn, seqlen_k, HEAD_DIM, BLOCK_N)
    v_desc = row_tile_descriptor(V, batch, kv_head, 0, stride_vb, stride_vh, stride_vn, seqlen_k, HEAD_DIM, BLOCK_N)
    o_desc = row_tile_descriptor(O, batch, head, 0, stride_ob, stride_oh, stride_om, seqlen_q, HEAD_DIM, BLOCK_M)
    tile_row = start_m + tile_row_base  # the Q/O tile coordinate (see the module note)

    offs_m = start_m + tl.arange(0, BLOCK_M)
    q = q_desc.load([tile_row, 0])
    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    if IS_CAUSAL:
        last_key = tl.minimum(offs_m + causal_shift, seqlen_k - 1)
        end_n = tl.minimum(tl.maximum(start_m + BLOCK_M + causal_shift, 0), seqlen_k)
    else:
        last_key = tl.zeros([BLOCK_M], dtype=tl.int32) + (seqlen_k - 1)
        end_n = seqlen_k
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(0, end_n, BLOCK_N, warp_specialize=True):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        qk = tl.dot(q, k_desc.load([start_n, 0]).T)
        visible = (start_n + tl.arange(0, BLOCK_N))[None, :] <= last_key[:, None]
        p, alpha, l_i, m_i = online_softmax_update(qk, m_i, l_i, qk_scale, visible, MAY_MASK)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v_desc.dtype), v_desc.load([start_n, 0]), acc)

    empty = l_i == 0.0
    l_safe = tl.where(empty, 1.0, l_i)
    lse = tl.where(empty, float("-inf"), (m_i + tl.math.log2(l_safe)) / LOG2E)
    lse_head = row_pointer(LSE, batch, head, 0, stride_lb, stride_lh, stride_lm)
    tl.store(lse_head + offs_m * stride_lm, lse, mask=offs_m < seqlen_q)
    o_desc.store([tile_row, 0], (acc * (1.0 / l_safe)[:, None]).to(O.dtype.element_ty))
