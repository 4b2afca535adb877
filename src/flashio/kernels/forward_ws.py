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
def _query_tile(
    Q, K, V, O, LSE,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_ob, stride_oh, stride_om,
    stride_lb, stride_lh, stride_lm,
    batch, head, kv_head, start_m, seqlen_q, seqlen_k, softmax_scale, tile_row_base,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
    IS_CAUSAL: tl.constexpr, MAY_MASK: tl.constexpr, SPECIALISE_KEY_LOOP: tl.constexpr,
):
    """O and LSE of the query rows [start_m, start_m + BLOCK_M) of (batch, head): the key loop of
    FlashAttention-2 with the online softmax in base 2. ``SPECIALISE_KEY_LOOP``: the key loop is the one
    Triton splits into producer and consumers (one program per tile); otherwise the caller's loop is.

    ``MAY_MASK`` is False only when no key block can need a mask (not causal, seqlen_k a multiple of
    BLOCK_N); otherwise each score tile is masked against a per-row last visible key,
    min(row + seqlen_k - seqlen_q, seqlen_k - 1) for causal attention (two operations per score).
    """
    LOG2E: tl.constexpr = 1.4426950408889634
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
    for start_n in tl.range(0, end_n, BLOCK_N, warp_specialize=SPECIALISE_KEY_LOOP):
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
    """O and LSE for one query block (``_query_tile`` with the key loop specialised); grid
    (cdiv(seqlen_q, BLOCK_M), num_heads, batch); ``tile_row_base`` must be 0. Fixed-length batches only."""
    batch, head, kv_head, _, seqlen_q, _, seqlen_k, start_m = query_block_program(
        0, 0, fixed_seqlen_q, fixed_seqlen_k, kv_group_size, BLOCK_M, IS_CAUSAL, False)  # no cu_seqlens
    _query_tile(Q, K, V, O, LSE,
                stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                stride_vb, stride_vh, stride_vn, stride_ob, stride_oh, stride_om,
                stride_lb, stride_lh, stride_lm,
                batch, head, kv_head, start_m, seqlen_q, seqlen_k, softmax_scale, tile_row_base,
                BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, MAY_MASK, True)


@triton.jit
def attention_forward_ws_persistent_kernel(
    Q, K, V, O, LSE,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_ob, stride_oh, stride_om,
    stride_lb, stride_lh, stride_lm,
    fixed_seqlen_q, fixed_seqlen_k, num_heads, kv_group_size, softmax_scale, tile_row_base, num_tiles, schedule,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
    IS_CAUSAL: tl.constexpr, MAY_MASK: tl.constexpr, LISTED: tl.constexpr = False,
):
    """The loop of ``attention_forward_ws_kernel`` in a persistent grid: (programs,) with programs <=
    ``num_tiles``, each program taking tiles ``program_id, program_id + programs, ...`` of the
    cdiv(seqlen_q, BLOCK_M) * heads * batch query blocks (causal: pairs of blocks, below);
    ``tile_row_base`` must be 0.

    Here the warp-specialised loop is the loop over tiles and the key loop runs inside it, so the producer
    fetches the next tile's Q and first K/V blocks while the consumers finish the current tile (the
    rescale, the LSE and O stores): with few key blocks per tile (short sequences, the upper causal
    blocks) that epilogue and the pipeline's start are a large share of a tile's time. Tiles run head by
    head (one head's K/V stay in L2 while its query blocks pass). Causal tiles differ in work (block i
    sees i + 1 key blocks), and a static round-robin over them leaves some programs with far more work
    than others (v0.7 measured two such orders up to 47% slower than the one-program-per-tile grid at
    N=16k). So causal tiles go in pairs, the heaviest block of a head with its lightest, the second
    heaviest with the second lightest, and so on: every pair is the same work (n + 1 key blocks for n
    blocks per head), a program takes both tiles of each pair it draws, and the round-robin is over pairs.
    With an odd number of blocks per head the middle block pairs with itself and is computed twice (the
    same program, one after the other, writing the same values). ``num_tiles`` is then the number of pairs,
    cdiv(blocks, 2) * heads * batch. ``LISTED``: the program's tiles are instead its entries of ``schedule``,
    a host-made table (``flashio.schedules``: the ``programs + 1`` offsets, then tile ids ``head_batch *
    blocks + block``) that keeps the pairs but evens out the last rounds.
    """
    blocks_per_head = tl.cdiv(fixed_seqlen_q, BLOCK_M)
    num_programs = tl.num_programs(0)
    if LISTED:  # compile-time branches: the loop itself has none
        first, last, step = tl.load(schedule + tl.program_id(0)), tl.load(schedule + tl.program_id(0) + 1), 1
    elif IS_CAUSAL:
        pairs_per_head = (blocks_per_head + 1) // 2
        trips = 2 * tl.cdiv(num_tiles - tl.program_id(0), num_programs)  # both tiles of each of its pairs
        first, last, step = 0, trips, 1
    else:
        first, last, step = tl.program_id(0), num_tiles, num_programs
    for tile in tl.range(first, last, step, warp_specialize=True):
        if LISTED:
            listed = tl.load(schedule + num_programs + 1 + tile)
            pid_m = listed % blocks_per_head
            batch_head = listed // blocks_per_head
        elif IS_CAUSAL:
            pair = tl.program_id(0) + (tile // 2) * num_programs
            within = pair % pairs_per_head
            pid_m = tl.where(tile % 2 == 0, blocks_per_head - 1 - within, within)  # heavy, then light
            batch_head = pair // pairs_per_head
        else:
            pid_m = tile % blocks_per_head
            batch_head = tile // blocks_per_head
        head = batch_head % num_heads
        batch = batch_head // num_heads
        _query_tile(Q, K, V, O, LSE,
                    stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                    stride_vb, stride_vh, stride_vn, stride_ob, stride_oh, stride_om,
                    stride_lb, stride_lh, stride_lm,
                    batch, head, head // kv_group_size, pid_m * BLOCK_M, fixed_seqlen_q, fixed_seqlen_k,
                    softmax_scale, tile_row_base,
                    BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, MAY_MASK, False)
