"""A warp-specialised forward in Gluon whose causal key loop masks only the blocks that need it (Hopper;
only ``@gluon.jit`` code here).

flashio's warp-specialised forward (src/flashio/kernels/forward_ws.py) is written at the Triton level, where
the partitioner splits one key loop into producer and consumers; a second loop (unmasked blocks, then the
masked diagonal ones) fails in it (v0.7; again in v0.9 for the one-tile-per-program kernel: a dominance
assertion in NVGPUWarpSpecialization), so every block of a causal call pays for the mask — two operations
per score on top of the softmax's five. On the H200 its causal forward loses 16% to the non-causal one at
d=128 4k while cuDNN's loses 1%. Here the partitions are explicit:

- a loader warp: the program's Q tile (two 64-row halves) once, then K_j, V_j into a ring of NUM_STAGES
  slots (``kv_ready`` with the byte count; a slot is refilled once both consumers released it);
- two consumer warpgroups (the default partition and one worker, the same code), each owning 64 query
  rows: S = Q_w K_j^T, the online softmax in base 2 (FlashAttention-2, section 3.1), O_w += P V_j with P in
  registers as the A operand; blocks entirely visible to all its rows run without a mask, the others with
  one, and blocks past its own last visible key are released without being computed;
- epilogue: O_w / l through its Q buffer (no longer needed) and a TMA store; LSE (natural log) stored
  directly. Rows that see no key get O = 0 and LSE = -inf, as in the Triton kernels.

A causal consumer's last key block straddles its diagonal; with 64-row consumers and 128-key blocks the
first consumer's rows see at most the first half of it. ``HALF_DIAGONAL`` (pipelined loop) then computes that
block's two products over the half (``_half_block_last``): v0.18, correct on the H200; with the tile list
below, +4-5% for the persistent form storing its output from registers at d=128 causal, alone -1 to -2% on
the paired form (tuned where it led).

Options (constexprs): ``PIPELINED`` — the next block's S = Q K^T is issued beside this block's P V
product and its softmax runs while that product is on the tensor cores (FlashAttention-3, section 3.2;
+8-20% at d=128 on the H200); ``SPLIT_KV`` — K and V slots with their own barriers (V's after K's in the
same arrays), so that K_j's slot is refilled as soon as S_j is computed and the pipelined loop needs two
slots, not three; ``PINGPONG`` (pipelined loop) — the consumers take turns issuing their products (two
``turn`` barriers; the less busy consumer passes its extra turns), so that one's softmax runs while the
other's products do (FlashAttention-3, section 3.1).

Grid (cdiv(seqlen_q, 2 * ROWS), heads, batch), causal query blocks taken heaviest first; num_warps=4 (the
first consumer); the second consumer and the loader are added. ``attention_forward_gluon_persistent_kernel``
runs the same partitions over a list of tiles in a grid of one program per multiprocessor (the K/V ring
continuing across tiles, each Q half handed back through ``q_empty`` once its output tile is stored; causal
tiles in pairs of equal work, head by head). Fixed lengths, no dropout or block mask (the launcher sends
those to the Triton kernels). Gluon has no interpreter: on a CPU this file is only compiled
(tests/bench/test_resources.py); its numerics are checked on the GPU by ``python -m flashio.check``
(benchmarks/experiments/forward_gluon/probe.py has its runs: H200, 2026-11-30, v0.10 and v0.11; the
persistent kernel, ``SPLIT_KV`` and ``PINGPONG`` first ran in v0.11, correct, and joined the tuned lists).
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)

from flashio.kernels.backward_gluon import (_head_descriptor, _listed_block, _listed_query_range, _paired_block,
                                             _paired_halves, _wait_for_last_loads)
from flashio.kernels.backward_gluon_split import _as_box
from flashio.kernels.gluon_claims import (claim_entry, claimed_block, claimed_count, claimed_tile, issue_claim,
                                          release_claims, tile_block)
from flashio.kernels.gluon_clock import mark_tile
from flashio.kernels.gluon_stores import store_rows_wide


@gluon.jit
def _copy_rows(desc, batch, head, row, barrier, tile, HOST: gl.constexpr):
    """Request the box of rows from ``row`` into the shared ``tile``, completing on ``barrier``: through a per-head
    descriptor written in the kernel (addressed [row, 0]), or with HOST through the launcher's descriptor over the
    whole (batch, head, row, column) tensor (addressed [batch, head, row, 0]; ``launchers.host_descriptor``)."""
    if HOST:
        tma.async_copy_global_to_shared(desc, [batch, head, row, 0], barrier, _as_box(tile, desc))
    else:
        tma.async_copy_global_to_shared(desc, [row, 0], barrier, tile)


@gluon.jit
def _load_key_blocks(k_desc, v_desc, start, end, k_smem, v_smem, kv_ready, kv_empty, it,
                     BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr, SPLIT_KV: gl.constexpr,
                     KV_BYTES: gl.constexpr, batch=0, kv_head=0, HOST: gl.constexpr = False):
    """K_j, V_j for the key blocks [start, end) into the ring from position ``it``; returns the position
    after them. HOST: ``k_desc`` and ``v_desc`` are the launcher's descriptors (``_copy_rows``)."""
    for start_n in range(start, end, BLOCK_N):
        slot = it % NUM_STAGES
        mbarrier.wait(kv_empty.index(slot), ((it // NUM_STAGES) & 1) ^ 1)
        if SPLIT_KV:  # K and V slots with their own barriers: V's at NUM_STAGES + slot
            mbarrier.expect(kv_ready.index(slot), KV_BYTES // 2)
            _copy_rows(k_desc, batch, kv_head, start_n, kv_ready.index(slot), k_smem.index(slot), HOST)
            mbarrier.wait(kv_empty.index(NUM_STAGES + slot), ((it // NUM_STAGES) & 1) ^ 1)
            mbarrier.expect(kv_ready.index(NUM_STAGES + slot), KV_BYTES // 2)
            _copy_rows(v_desc, batch, kv_head, start_n, kv_ready.index(NUM_STAGES + slot), v_smem.index(slot), HOST)
        else:
            mbarrier.expect(kv_ready.index(slot), KV_BYTES)
            _copy_rows(k_desc, batch, kv_head, start_n, kv_ready.index(slot), k_smem.index(slot), HOST)
            _copy_rows(v_desc, batch, kv_head, start_n, kv_ready.index(slot), v_smem.index(slot), HOST)
        it += 1
    return it


@gluon.jit
def _load_tile(Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh,
               stride_vn, batch, head, kv_head, start_m, end_n, seqlen_q, seqlen_k,
               q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, it, tile_iter,
               ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr,
               PERSISTENT: gl.constexpr, SPLIT_KV: gl.constexpr, KV_FIRST: gl.constexpr = False,
               CONSUMERS: gl.constexpr = 2, Q_BUFFERS: gl.constexpr = 1, key_start=0,
               HOST_DESCRIPTORS: gl.constexpr = 0):
    """One tile's loads: Q's row blocks (one per consumer, ``CONSUMERS`` of them), then K_j, V_j for the key blocks
    [key_start, end_n) (a split tail's piece starts past 0) into the ring from
    position ``it``; returns the ring position after them. In a persistent program (``tile_iter``-th tile)
    the previous tile's loads land before its descriptors are rewritten (same scratch slots), and each Q
    half waits for its consumer to have handed the buffer back. ``KV_FIRST``: the first key block is loaded
    before Q — a ring slot frees while the consumers still finish the previous tile, Q's buffer only when
    their key loop ends. ``Q_BUFFERS`` = 2: the tiles' Q row blocks alternate between two sets of buffers,
    so a tile's Q is fetched while the consumers still compute the tile before it. ``HOST_DESCRIPTORS`` (persistent
    kernel): 1, Q is the launcher's descriptor (``_copy_rows``), K and V pointers whose per-head descriptors the
    loader writes; 3, Q, K and V are, and nothing is written or waited for before a tile's first request."""
    dtype: gl.constexpr = q_smem.dtype
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, HEAD_DIM], dtype)
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    HOST_Q: gl.constexpr = HOST_DESCRIPTORS >= 1
    HOST_KV: gl.constexpr = HOST_DESCRIPTORS == 3
    if PERSISTENT:
        if not HOST_KV:  # the in-kernel K/V descriptors below reuse the previous tile's scratch slots
            _wait_for_last_loads(kv_ready, it, NUM_STAGES, 0)
            if SPLIT_KV:
                _wait_for_last_loads(kv_ready, it, NUM_STAGES, NUM_STAGES)
        if not HOST_Q:
            previous = gl.maximum(tile_iter - 1, 0)  # the previous tile's Q loads, in its set of buffers
            for half in gl.static_range(CONSUMERS):
                mbarrier.wait(q_ready.index(previous % Q_BUFFERS * CONSUMERS + half), (previous // Q_BUFFERS) & 1,
                              pred=tile_iter > 0)
    if HOST_Q:
        q_desc = Q
    else:
        q_desc = _head_descriptor(Q, batch, head, stride_qb, stride_qh, stride_qm, seqlen_q, ROWS, HEAD_DIM,
                                  q_tile_layout)
    if HOST_KV:
        k_desc = K
        v_desc = V
    else:
        k_desc = _head_descriptor(K, batch, kv_head, stride_kb, stride_kh, stride_kn, seqlen_k, BLOCK_N, HEAD_DIM,
                                  kv_tile_layout)
        v_desc = _head_descriptor(V, batch, kv_head, stride_vb, stride_vh, stride_vn, seqlen_k, BLOCK_N, HEAD_DIM,
                                  kv_tile_layout)
    KV_BYTES: gl.constexpr = 2 * BLOCK_N * HEAD_DIM * dtype.primitive_bitwidth // 8
    ahead = key_start
    if KV_FIRST:
        ahead = gl.minimum(end_n, key_start + BLOCK_N)
        it = _load_key_blocks(k_desc, v_desc, key_start, ahead, k_smem, v_smem, kv_ready, kv_empty, it,
                              BLOCK_N, NUM_STAGES, SPLIT_KV, KV_BYTES, batch, kv_head, HOST_KV)
    for half in gl.static_range(CONSUMERS):
        q_index = tile_iter % Q_BUFFERS * CONSUMERS + half
        if PERSISTENT:
            mbarrier.wait(q_empty.index(q_index), ((tile_iter // Q_BUFFERS) & 1) ^ 1)
        mbarrier.expect(q_ready.index(q_index), ROWS * HEAD_DIM * dtype.primitive_bitwidth // 8)
        _copy_rows(q_desc, batch, head, start_m + half * ROWS, q_ready.index(q_index), q_smem.index(q_index), HOST_Q)
    return _load_key_blocks(k_desc, v_desc, ahead, end_n, k_smem, v_smem, kv_ready, kv_empty, it,
                            BLOCK_N, NUM_STAGES, SPLIT_KV, KV_BYTES, batch, kv_head, HOST_KV)


@gluon.jit
def _loader(Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh,
            stride_vn, batch, head, kv_head, start_m, end_n, seqlen_q, seqlen_k,
            q_smem, k_smem, v_smem, q_ready, kv_ready, kv_empty,
            ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr,
            SPLIT_KV: gl.constexpr):
    """The loads of the program's one tile."""
    _load_tile(Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh,
               stride_vn, batch, head, kv_head, start_m, end_n, seqlen_q, seqlen_k,
               q_smem, k_smem, v_smem, q_ready, q_ready, kv_ready, kv_empty, start_m * 0, 0,
               ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, False, SPLIT_KV)


@gluon.jit
def _masked_scores(s, rows, start_n, seqlen_k, causal_shift, IS_CAUSAL: gl.constexpr, BLOCK_N: gl.constexpr,
                   s_layout: gl.constexpr):
    """S of key block ``start_n`` with the keys past the end, or (causal) past a row's last visible key
    (key > row + seqlen_k - seqlen_q), at -inf."""
    keys = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s_layout))
    visible = (keys < seqlen_k)[None, :]
    if IS_CAUSAL:
        visible = visible & (keys[None, :] <= (rows + causal_shift)[:, None])
    return gl.where(visible, s, float("-inf"))


@gluon.jit
def _online_softmax(s, m_i, l_i, rows, start_n, seqlen_k, causal_shift, qk_scale, MASKED: gl.constexpr,
                    IS_CAUSAL: gl.constexpr, BLOCK_N: gl.constexpr, s_layout: gl.constexpr,
                    MERGED_MASK: gl.constexpr = 0, mask_now=False, ROW_SUM_MMA: gl.constexpr = False):
    """One block of scores S into the running softmax (base 2, FlashAttention-2 section 3.1):
    m' = max(m, rowmax(S) qk_scale), P = exp2(S qk_scale - m'), alpha = exp2(m - m'), l' = l alpha + rowsum(P).
    Returns (P in float32, alpha, m', l'); with MASKED, keys past the end or (causal) past a row's last
    visible key score -inf. MERGED_MASK (v0.49), so that masked and unmasked blocks run one copy of this code: 1,
    the mask applied when the run-time ``mask_now`` is true, under a branch; 2, the mask computed in every block,
    without a branch, against each row's last visible key (past every key when ``mask_now`` is false).
    ROW_SUM_MMA (v0.53): l is returned as it came; the tensor cores sum P into it (``_pipelined_step``)."""
    if MERGED_MASK == 2:
        keys = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s_layout))
        if IS_CAUSAL:
            last_visible = gl.minimum(rows + causal_shift, seqlen_k - 1)  # per row
            last_visible = gl.where(mask_now, last_visible, BLOCK_N + seqlen_k)
            s = gl.where(keys[None, :] <= last_visible[:, None], s, float("-inf"))
        else:
            last_key = gl.where(mask_now, seqlen_k - 1, BLOCK_N + seqlen_k)
            s = gl.where((keys <= last_key)[None, :], s, float("-inf"))
        m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
        m_safe = gl.where(m_new == float("-inf"), 0.0, m_new)  # a row with no visible key yet: no NaN
    elif MERGED_MASK:
        if mask_now:
            s = _masked_scores(s, rows, start_n, seqlen_k, causal_shift, IS_CAUSAL, BLOCK_N, s_layout)
        m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
        m_safe = gl.where(m_new == float("-inf"), 0.0, m_new)  # a row with no visible key yet: no NaN
    elif MASKED:
        s = _masked_scores(s, rows, start_n, seqlen_k, causal_shift, IS_CAUSAL, BLOCK_N, s_layout)
        m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
        m_safe = gl.where(m_new == float("-inf"), 0.0, m_new)  # a row with no visible key yet: no NaN
    else:
        m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
        m_safe = m_new
    p = gl.exp2(s * qk_scale - m_safe[:, None])
    alpha = gl.exp2(m_i - m_safe)
    if not ROW_SUM_MMA:  # else l is summed by the tensor cores beside the P V product (``_pipelined_step``)
        l_i = l_i * alpha + gl.sum(p, 1)
    return p, alpha, m_new, l_i


@gluon.jit
def _key_block(q_buf, k_buf, v_buf, acc, m_i, l_i, rows, start_n, seqlen_k, causal_shift, qk_scale,
               MASKED: gl.constexpr, IS_CAUSAL: gl.constexpr, ROWS: gl.constexpr, BLOCK_N: gl.constexpr,
               HEAD_DIM: gl.constexpr, s_layout: gl.constexpr, o_layout: gl.constexpr):
    """One step of the online softmax: S = Q K_j^T, m, l and O updated, O += P V_j (both products waited)."""
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    s = warpgroup_mma(q_buf, k_buf.permute((1, 0)), gl.zeros([ROWS, BLOCK_N], gl.float32, s_layout),
                      use_acc=False, is_async=True)
    s = warpgroup_mma_wait(num_outstanding=0, deps=[s])
    p, alpha, m_new, l_i = _online_softmax(s, m_i, l_i, rows, start_n, seqlen_k, causal_shift, qk_scale, MASKED,
                                           IS_CAUSAL, BLOCK_N, s_layout)
    acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
    acc = warpgroup_mma(gl.convert_layout(p.to(v_buf.dtype), lhs_layout), v_buf, acc, is_async=True)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    return acc, m_new, l_i


@gluon.jit
def _key_range(q_buf, k_smem, v_smem, kv_ready, kv_empty, acc, m_i, l_i, rows, start, end, seqlen_k, causal_shift,
               qk_scale, it, MASKED: gl.constexpr, IS_CAUSAL: gl.constexpr, ROWS: gl.constexpr,
               BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr, s_layout: gl.constexpr,
               o_layout: gl.constexpr, SPLIT_KV: gl.constexpr):
    """Key blocks [start, end), all with the mask or all without, each product waited before the next block;
    the ring from position ``it``. Returns (O, m, l, ring position)."""
    for start_n in range(start, end, BLOCK_N):
        slot = it % NUM_STAGES
        mbarrier.wait(kv_ready.index(slot), (it // NUM_STAGES) & 1)
        if SPLIT_KV:
            mbarrier.wait(kv_ready.index(NUM_STAGES + slot), (it // NUM_STAGES) & 1)
        acc, m_i, l_i = _key_block(q_buf, k_smem.index(slot), v_smem.index(slot), acc, m_i, l_i, rows, start_n,
                                   seqlen_k, causal_shift, qk_scale, MASKED, IS_CAUSAL, ROWS, BLOCK_N, HEAD_DIM,
                                   s_layout, o_layout)
        mbarrier.arrive(kv_empty.index(slot))
        if SPLIT_KV:
            mbarrier.arrive(kv_empty.index(NUM_STAGES + slot))
        it += 1
    return acc, m_i, l_i, it


@gluon.jit
def _key_loop(q_buf, k_smem, v_smem, kv_ready, kv_empty, acc, m_i, l_i, rows, unmasked_end, own_end, seqlen_k,
              causal_shift, qk_scale, it, IS_CAUSAL: gl.constexpr, ROWS: gl.constexpr, BLOCK_N: gl.constexpr,
              HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr, s_layout: gl.constexpr, o_layout: gl.constexpr,
              SPLIT_KV: gl.constexpr, key_start=0):
    """Key blocks [key_start, own_end): unmasked ones up to ``unmasked_end``, then masked ones; the ring from
    position ``it``. Returns (O, m, l, ring position)."""
    acc, m_i, l_i, it = _key_range(q_buf, k_smem, v_smem, kv_ready, kv_empty, acc, m_i, l_i, rows, key_start,
                                   unmasked_end, seqlen_k, causal_shift, qk_scale, it, False, IS_CAUSAL, ROWS, BLOCK_N,
                                   HEAD_DIM, NUM_STAGES, s_layout, o_layout, SPLIT_KV)
    return _key_range(q_buf, k_smem, v_smem, kv_ready, kv_empty, acc, m_i, l_i, rows, unmasked_end, own_end,
                      seqlen_k, causal_shift, qk_scale, it, True, IS_CAUSAL, ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES,
                      s_layout, o_layout, SPLIT_KV)


@gluon.jit
def _take_turn(turn, turn_it, HALF: gl.constexpr):
    """Ping-pong between the two consumers (FlashAttention-3, section 3.1): wait until the other consumer
    has issued its products, so that one consumer's softmax runs while the other's products do. Consumer 0
    goes first: its first wait, on a fresh barrier with the opposite parity, passes."""
    mbarrier.wait(turn.index(HALF), (turn_it & 1) ^ (1 - HALF))


@gluon.jit
def _hand_back(buffer_free):
    """Arrive on ``buffer_free`` once every warp of this consumer is past its reads of the buffer (their
    products waited for): the loader may overwrite it."""
    gl.thread_barrier()
    mbarrier.arrive(buffer_free)


@gluon.jit
def _row_sums_issued(p, ones, l_i, KEYS: gl.constexpr):
    """Issue l += rowsum(P) as P [ROWS, KEYS] (a register A operand) times ``ones``, a [ONES_N, 8] block of ones in
    shared memory (v0.53): 8 equal columns, the smallest product width. With KEYS = 2 ONES_N (v0.54: one 64-key block
    for every consumer, so that it fits beside d=128's buffers) P is split in its registers along the keys (the
    64-key bit of the A operand's layout is a register bit: no data moves) and the two halves are two products.
    Returns l, its products asynchronous: ``KEYS // ONES_N`` groups to wait for."""
    ONES_N: gl.constexpr = ones.shape[0]
    if KEYS == ONES_N:
        l_i = warpgroup_mma(p, ones, l_i, is_async=True)
    else:
        gl.static_assert(KEYS == 2 * ONES_N, "P is summed in one or two pieces")
        ROWS: gl.constexpr = p.shape[0]
        lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=l_i.type.layout, k_width=2)
        first, second = gl.split(gl.permute(gl.reshape(p, [ROWS, 2, ONES_N]), (0, 2, 1)))
        l_i = warpgroup_mma(gl.convert_layout(first, lhs_layout), ones, l_i, is_async=True)
        l_i = warpgroup_mma(gl.convert_layout(second, lhs_layout), ones, l_i, is_async=True)
    return l_i


@gluon.jit
def _pipelined_step(q_buf, k_smem, v_smem, kv_ready, kv_empty, it, acc, p, m_i, l_i, rows, start_n, seqlen_k,
                    causal_shift, qk_scale, turn, turn_it, MASKED: gl.constexpr, IS_CAUSAL: gl.constexpr,
                    ROWS: gl.constexpr, BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr, s_layout: gl.constexpr,
                    o_layout: gl.constexpr, SPLIT_KV: gl.constexpr, HALF: gl.constexpr, PINGPONG: gl.constexpr,
                    q_free=None, own_end=0, EARLY_Q_RELEASE: gl.constexpr = False,
                    MERGED_MASK: gl.constexpr = 0, mask_now=False, ones=None, ROW_SUM_MMA: gl.constexpr = False):
    """Key block ``it``: S_j = Q K_j^T and O += P_{j-1} V_{j-1} issued together (in this consumer's turn
    with PINGPONG), the softmax of S_j while the second product runs, then O rescaled by alpha_j and block
    j-1's slot released. With EARLY_Q_RELEASE the last block's step (keys end at ``own_end``) hands the Q
    buffer back through ``q_free`` as soon as S_j is computed. MERGED_MASK: masked when ``mask_now``
    (``_online_softmax``). Returns (O, P_j as the A operand of the next step, m, l, turns taken)."""
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    slot = it % NUM_STAGES
    previous = (it - 1) % NUM_STAGES
    mbarrier.wait(kv_ready.index(slot), (it // NUM_STAGES) & 1)
    if PINGPONG:  # the operands first, then the turn: a consumer never holds the turn while waiting for data
        if SPLIT_KV:
            mbarrier.wait(kv_ready.index(NUM_STAGES + previous), ((it - 1) // NUM_STAGES) & 1)
        _take_turn(turn, turn_it, HALF)
    s = warpgroup_mma(q_buf, k_smem.index(slot).permute((1, 0)), gl.zeros([ROWS, BLOCK_N], gl.float32, s_layout),
                      use_acc=False, is_async=True)
    if SPLIT_KV and not PINGPONG:
        mbarrier.wait(kv_ready.index(NUM_STAGES + previous), ((it - 1) // NUM_STAGES) & 1)
    acc = warpgroup_mma(p, v_smem.index(previous), acc, is_async=True)
    SUM_GROUPS: gl.constexpr = BLOCK_N // ones.shape[0] if ROW_SUM_MMA else 0
    if ROW_SUM_MMA:  # l += rowsum(P_{j-1}) as P_{j-1} times a block of ones (``l_i`` is then [ROWS, 8])
        l_i = _row_sums_issued(p, ones, l_i, BLOCK_N)
    if PINGPONG:
        mbarrier.arrive(turn.index(1 - HALF))
        turn_it += 1
    # products complete in order: S_j is done (the P V product, and with ROW_SUM_MMA the row sum's, may run on)
    s = warpgroup_mma_wait(num_outstanding=1 + SUM_GROUPS, deps=[s])
    if SPLIT_KV:
        mbarrier.arrive(kv_empty.index(slot))  # K_j is read: its slot may be refilled during the softmax
    if EARLY_Q_RELEASE:
        if start_n + BLOCK_N >= own_end:  # the tile's last score product has read Q
            _hand_back(q_free)
    p_new, alpha, m_i, l_i = _online_softmax(s, m_i, l_i, rows, start_n, seqlen_k, causal_shift, qk_scale, MASKED,
                                             IS_CAUSAL, BLOCK_N, s_layout, MERGED_MASK, mask_now, ROW_SUM_MMA)
    if ROW_SUM_MMA:
        acc, l_i = warpgroup_mma_wait(num_outstanding=0, deps=[acc, l_i])
        l_i = l_i * gl.convert_layout(alpha, gl.SliceLayout(1, l_i.type.layout))[:, None]
    else:
        acc = warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    if SPLIT_KV:
        mbarrier.arrive(kv_empty.index(NUM_STAGES + previous))
    else:
        mbarrier.arrive(kv_empty.index(previous))
    acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
    return acc, gl.convert_layout(p_new.to(v_smem.dtype), lhs_layout), m_i, l_i, turn_it


@gluon.jit
def _half_block_last(q_buf, k_smem, v_smem, kv_ready, kv_empty, it, acc, p, m_i, l_i, rows, start_n, seqlen_k,
                     causal_shift, qk_scale, turn, turn_it, IS_CAUSAL: gl.constexpr, ROWS: gl.constexpr,
                     BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr, s_layout: gl.constexpr, o_layout: gl.constexpr,
                     SPLIT_KV: gl.constexpr, HALF: gl.constexpr, PINGPONG: gl.constexpr, q_free=None,
                     EARLY_Q_RELEASE: gl.constexpr = False, Q_IN_REGISTERS: gl.constexpr = False, ones=None,
                     ROW_SUM_MMA: gl.constexpr = False):
    """A consumer's last key block (ring position ``it``) when none of its rows sees past the block's first
    BLOCK_N / 2 keys (the first consumer's causal diagonal block with 64-row consumers and 128-key blocks):
    that half's S = Q K^T issued beside the previous block's P V product, its masked softmax while that
    runs, then O += P V over the half, waited. Both products are half the work of a full block's (a
    [ROWS, BLOCK_N / 2] score tile, a BLOCK_N / 2 reduction); the loader still fetched the whole block,
    which the other consumer reads. The same turns (PINGPONG) and releases as a ``_pipelined_step``
    followed by the loop's epilogue, written out again rather than shared: generalised to a key count, those
    two changed the instruction order of the tuned forms (sm_90a, CPU compile, v0.18), whose H200 timings
    are for this code. ROW_SUM_MMA (v0.54): l, [ROWS, 8], summed beside both P V products on the tensor cores
    (``_row_sums_issued``), rescaled with O. Returns (O, m, l, turns taken)."""
    HALF_N: gl.constexpr = BLOCK_N // 2
    half_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                          instr_shape=[16, HALF_N, 16])
    half_rows: gl.constexpr = gl.SliceLayout(1, half_layout)
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    slot = it % NUM_STAGES
    previous = (it - 1) % NUM_STAGES
    mbarrier.wait(kv_ready.index(slot), (it // NUM_STAGES) & 1)
    if PINGPONG:
        if SPLIT_KV:
            mbarrier.wait(kv_ready.index(NUM_STAGES + previous), ((it - 1) // NUM_STAGES) & 1)
        _take_turn(turn, turn_it, HALF)
    q_operand = q_buf
    if Q_IN_REGISTERS:  # a register A operand takes the layout of its product's accumulator
        q_operand = gl.convert_layout(q_buf, gl.DotOperandLayout(operand_index=0, parent=half_layout, k_width=2))
    s = warpgroup_mma(q_operand, k_smem.index(slot).slice(0, HALF_N).permute((1, 0)),
                      gl.zeros([ROWS, HALF_N], gl.float32, half_layout), use_acc=False, is_async=True)
    if SPLIT_KV and not PINGPONG:
        mbarrier.wait(kv_ready.index(NUM_STAGES + previous), ((it - 1) // NUM_STAGES) & 1)
    acc = warpgroup_mma(p, v_smem.index(previous), acc, is_async=True)
    SUM_GROUPS: gl.constexpr = BLOCK_N // ones.shape[0] if ROW_SUM_MMA else 0
    if ROW_SUM_MMA:
        l_i = _row_sums_issued(p, ones, l_i, BLOCK_N)
    if PINGPONG:
        mbarrier.arrive(turn.index(1 - HALF))
        turn_it += 1
    s = warpgroup_mma_wait(num_outstanding=1 + SUM_GROUPS, deps=[s])
    if SPLIT_KV:
        mbarrier.arrive(kv_empty.index(slot))
    if EARLY_Q_RELEASE:
        _hand_back(q_free)  # the tile's last score product has read Q
    if ROW_SUM_MMA:  # l is the tensor cores' (``_online_softmax`` returns it as it came)
        p_half, alpha, m_half, l_half = _online_softmax(s, gl.convert_layout(m_i, half_rows), l_i,
                                                        gl.convert_layout(rows, half_rows), start_n, seqlen_k,
                                                        causal_shift, qk_scale, True, IS_CAUSAL, HALF_N, half_layout,
                                                        ROW_SUM_MMA=True)
        acc, l_half = warpgroup_mma_wait(num_outstanding=0, deps=[acc, l_half])
        l_half = l_half * gl.convert_layout(alpha, gl.SliceLayout(1, l_half.type.layout))[:, None]
    else:
        p_half, alpha, m_half, l_half = _online_softmax(s, gl.convert_layout(m_i, half_rows),
                                                        gl.convert_layout(l_i, half_rows),
                                                        gl.convert_layout(rows, half_rows), start_n, seqlen_k,
                                                        causal_shift, qk_scale, True, IS_CAUSAL, HALF_N, half_layout)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    if SPLIT_KV:
        mbarrier.arrive(kv_empty.index(NUM_STAGES + previous))
    else:
        mbarrier.arrive(kv_empty.index(previous))
    acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
    p_half = gl.convert_layout(p_half.to(v_smem.dtype), lhs_layout)
    if SPLIT_KV:
        mbarrier.wait(kv_ready.index(NUM_STAGES + slot), (it // NUM_STAGES) & 1)
    if PINGPONG:
        _take_turn(turn, turn_it, HALF)
    acc = warpgroup_mma(p_half, v_smem.index(slot).slice(0, HALF_N), acc, is_async=True)
    if ROW_SUM_MMA:
        l_half = _row_sums_issued(p_half, ones, l_half, HALF_N)
    if PINGPONG:
        mbarrier.arrive(turn.index(1 - HALF))
        turn_it += 1
    if ROW_SUM_MMA:
        acc, l_half = warpgroup_mma_wait(num_outstanding=0, deps=[acc, l_half])
    else:
        acc = warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    if SPLIT_KV:
        mbarrier.arrive(kv_empty.index(NUM_STAGES + slot))
    else:
        mbarrier.arrive(kv_empty.index(slot))
    row_layout: gl.constexpr = gl.SliceLayout(1, s_layout)
    if not ROW_SUM_MMA:  # else l stays the tensor cores' [ROWS, 8]
        l_half = gl.convert_layout(l_half, row_layout)
    return acc, gl.convert_layout(m_half, row_layout), l_half, turn_it


@gluon.jit
def _key_loop_pipelined(q_buf, k_smem, v_smem, kv_ready, kv_empty, acc, m_i, l_i, rows, unmasked_end, own_end,
                        seqlen_k, causal_shift, qk_scale, it, turn, turn_it, IS_CAUSAL: gl.constexpr,
                        ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr,
                        s_layout: gl.constexpr, o_layout: gl.constexpr, SPLIT_KV: gl.constexpr,
                        HALF: gl.constexpr, PINGPONG: gl.constexpr, q_free=None,
                        EARLY_Q_RELEASE: gl.constexpr = False, full_end=None, HALF_DIAGONAL: gl.constexpr = False,
                        Q_IN_REGISTERS: gl.constexpr = False, key_start=0, MERGED_MASK: gl.constexpr = 0,
                        s_first=None, FIRST_ISSUED: gl.constexpr = False, ones=None,
                        ROW_SUM_MMA: gl.constexpr = False):
    """The key blocks [key_start, own_end) of ``_key_loop`` with FlashAttention-3's intra-warpgroup overlap (section
    3.2): block j's softmax runs while block j-1's P V product is on the tensor cores. Block 0 (masked only
    when it straddles the causal diagonal or the end of the keys) and the last P V product are the prologue
    and epilogue. Two blocks' K/V slots are held at once, so the ring needs three slots for the loader to
    stay ahead (two with SPLIT_KV). With PINGPONG each issue of products (the prologue's, every step's, the
    epilogue's) is one turn. With EARLY_Q_RELEASE the Q buffer is handed back (``q_free``) once the last
    block's scores are computed, before that block's softmax and P V product: the loader's fetch of the next
    tile's Q (after a HBM latency) overlaps them and the epilogue instead of following them. With
    HALF_DIAGONAL, when ``full_end`` < ``own_end`` the last block [full_end, own_end) is one whose second
    half no row of this consumer sees (``_half_block_last``). Returns (O, m, l, ring position, turns
    taken). ``q_buf`` is Q's shared buffer, or with Q_IN_REGISTERS Q itself as a register A operand. A split
    tail's piece (non-causal) starts at ``key_start`` > 0: its first block is then the prologue's.
    MERGED_MASK (v0.49): one loop over the unmasked and masked blocks and one softmax in the prologue, the mask
    applied under a run-time branch (1) or in every block (2) (``_online_softmax``), instead of a copy of the step
    for each. Each consumer partition's code is a copy of its own, and at short sequences a tile's once-run code
    (its masked diagonal step, its prologue's masked softmax) was fetched cold at every tile (v0.49 call 1: warps
    waiting for instructions, 16% of the consumers' stall samples at d=128 causal 1k). On the H200 the branch is
    3-6% faster at causal 1k and 7-13% slower at causal 2k-16k (ptxas waits for the P V product right after the
    branch's join); the mask in every block is slower everywhere (probe runs 57-58).
    FIRST_ISSUED (v0.50, ``_overlapped_consumer``): block 0's scores ``s_first`` were computed before the call (its K
    waited for there)."""
    gl.static_assert(not FIRST_ISSUED or not PINGPONG, "overlapped tiles take no turns")
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    p = gl.zeros([ROWS, BLOCK_N], k_smem.dtype, lhs_layout)
    if own_end > key_start:
        first_slot = it % NUM_STAGES
        if FIRST_ISSUED:
            s = s_first
        else:
            mbarrier.wait(kv_ready.index(first_slot), (it // NUM_STAGES) & 1)
            if PINGPONG:
                _take_turn(turn, turn_it, HALF)
            s = warpgroup_mma(q_buf, k_smem.index(first_slot).permute((1, 0)),
                              gl.zeros([ROWS, BLOCK_N], gl.float32, s_layout), use_acc=False, is_async=True)
            if PINGPONG:
                mbarrier.arrive(turn.index(1 - HALF))
                turn_it += 1
            s = warpgroup_mma_wait(num_outstanding=0, deps=[s])
        if SPLIT_KV:
            mbarrier.arrive(kv_empty.index(first_slot))
        if EARLY_Q_RELEASE:
            if own_end <= key_start + BLOCK_N:  # block 0 is the last: Q is read
                _hand_back(q_free)
        # Block 0 unmasked when every row of this consumer sees all of it (v0.17). Not at d=256: there the
        # second copy of the softmax costs the ping-pong form 48 B of stack, and with 64-key blocks block 0
        # is half the share of a tile's work that it is at d <= 128.
        if MERGED_MASK:
            p_first, alpha, m_i, l_i = _online_softmax(s, m_i, l_i, rows, key_start, seqlen_k, causal_shift,
                                                       qk_scale, False, IS_CAUSAL, BLOCK_N, s_layout, MERGED_MASK,
                                                       unmasked_end < key_start + BLOCK_N, ROW_SUM_MMA)
        elif HEAD_DIM <= 128 and unmasked_end >= key_start + BLOCK_N:
            p_first, alpha, m_i, l_i = _online_softmax(s, m_i, l_i, rows, key_start, seqlen_k, causal_shift,
                                                       qk_scale, False, IS_CAUSAL, BLOCK_N, s_layout,
                                                       ROW_SUM_MMA=ROW_SUM_MMA)
        else:
            p_first, alpha, m_i, l_i = _online_softmax(s, m_i, l_i, rows, key_start, seqlen_k, causal_shift,
                                                       qk_scale, True, IS_CAUSAL, BLOCK_N, s_layout,
                                                       ROW_SUM_MMA=ROW_SUM_MMA)
        p = gl.convert_layout(p_first.to(k_smem.dtype), lhs_layout)
        it += 1
    masked_end = own_end  # the key loop's end: the half diagonal block, if any, follows it
    if HALF_DIAGONAL:
        masked_end = full_end
    if MERGED_MASK:
        for start_n in range(key_start + BLOCK_N, masked_end, BLOCK_N):
            acc, p, m_i, l_i, turn_it = _pipelined_step(q_buf, k_smem, v_smem, kv_ready, kv_empty, it, acc, p, m_i,
                                                        l_i, rows, start_n, seqlen_k, causal_shift, qk_scale, turn,
                                                        turn_it, False, IS_CAUSAL, ROWS, BLOCK_N, NUM_STAGES,
                                                        s_layout, o_layout, SPLIT_KV, HALF, PINGPONG, q_free,
                                                        own_end, EARLY_Q_RELEASE, MERGED_MASK,
                                                        start_n >= unmasked_end, ones, ROW_SUM_MMA)
            it += 1
    else:
        for start_n in range(key_start + BLOCK_N, unmasked_end, BLOCK_N):
            acc, p, m_i, l_i, turn_it = _pipelined_step(q_buf, k_smem, v_smem, kv_ready, kv_empty, it, acc, p, m_i,
                                                        l_i, rows, start_n, seqlen_k, causal_shift, qk_scale, turn,
                                                        turn_it, False, IS_CAUSAL, ROWS, BLOCK_N, NUM_STAGES,
                                                        s_layout, o_layout, SPLIT_KV, HALF, PINGPONG, q_free,
                                                        own_end, EARLY_Q_RELEASE, ones=ones, ROW_SUM_MMA=ROW_SUM_MMA)
            it += 1
        for start_n in range(gl.maximum(unmasked_end, key_start + BLOCK_N), masked_end, BLOCK_N):
            acc, p, m_i, l_i, turn_it = _pipelined_step(q_buf, k_smem, v_smem, kv_ready, kv_empty, it, acc, p, m_i,
                                                        l_i, rows, start_n, seqlen_k, causal_shift, qk_scale, turn,
                                                        turn_it, True, IS_CAUSAL, ROWS, BLOCK_N, NUM_STAGES,
                                                        s_layout, o_layout, SPLIT_KV, HALF, PINGPONG, q_free,
                                                        own_end, EARLY_Q_RELEASE, ones=ones, ROW_SUM_MMA=ROW_SUM_MMA)
            it += 1
    last_block_whole = own_end > key_start
    if HALF_DIAGONAL:
        if full_end < own_end:  # the last block's second half unseen: half products (block 0 is full)
            acc, m_i, l_i, turn_it = _half_block_last(q_buf, k_smem, v_smem, kv_ready, kv_empty, it, acc, p, m_i,
                                                      l_i, rows, full_end, seqlen_k, causal_shift, qk_scale, turn,
                                                      turn_it, IS_CAUSAL, ROWS, BLOCK_N, NUM_STAGES, s_layout,
                                                      o_layout, SPLIT_KV, HALF, PINGPONG, q_free, EARLY_Q_RELEASE,
                                                      Q_IN_REGISTERS, ones, ROW_SUM_MMA)
            it += 1
            last_block_whole = False
    if last_block_whole:
        last = (it - 1) % NUM_STAGES
        if SPLIT_KV:
            mbarrier.wait(kv_ready.index(NUM_STAGES + last), ((it - 1) // NUM_STAGES) & 1)
        if PINGPONG:
            _take_turn(turn, turn_it, HALF)
        acc = warpgroup_mma(p, v_smem.index(last), acc, is_async=True)
        if ROW_SUM_MMA:
            l_i = _row_sums_issued(p, ones, l_i, BLOCK_N)
        if PINGPONG:
            mbarrier.arrive(turn.index(1 - HALF))
            turn_it += 1
        if ROW_SUM_MMA:
            acc, l_i = warpgroup_mma_wait(num_outstanding=0, deps=[acc, l_i])
        else:
            acc = warpgroup_mma_wait(num_outstanding=0, deps=[acc])
        if SPLIT_KV:
            mbarrier.arrive(kv_empty.index(NUM_STAGES + last))
        else:
            mbarrier.arrive(kv_empty.index(last))
    return acc, m_i, l_i, it, turn_it


@gluon.jit
def _own_keys(first, end_n, seqlen_k, causal_shift, ROWS: gl.constexpr, BLOCK_N: gl.constexpr,
              IS_CAUSAL: gl.constexpr):
    """(end of the key blocks that need no mask, end of the key blocks with a visible key) for the ROWS query
    rows from ``first`` of a tile whose keys end at ``end_n``."""
    full_blocks_end = seqlen_k // BLOCK_N * BLOCK_N  # blocks past it hold the end of the keys
    if IS_CAUSAL:
        # Every row of this half sees the keys up to first + shift: blocks ending there need no mask.
        unmasked_end = gl.minimum(gl.maximum(first + causal_shift + 1, 0) // BLOCK_N * BLOCK_N, full_blocks_end)
        own_end = gl.minimum(gl.maximum(first + ROWS + causal_shift, 0), seqlen_k)
        own_end = gl.minimum((own_end + BLOCK_N - 1) // BLOCK_N * BLOCK_N, end_n)
    else:
        unmasked_end = full_blocks_end
        own_end = end_n
    return unmasked_end, own_end


@gluon.jit
def _store_piece_lse(partials, slot, tile_rows, lse, TILE_ROWS: gl.constexpr, HEAD_DIM: gl.constexpr):
    """A split tail piece's LSE rows (``tile_rows``: their positions in the tile) into slot ``slot`` of
    ``partials``: each slot is TILE_ROWS x HEAD_DIM float32 outputs, then TILE_ROWS LSE values. Rows past the last
    query are written too (the merge leaves them out)."""
    base = partials + slot.to(gl.int64) * (TILE_ROWS * (HEAD_DIM + 1)) + TILE_ROWS * HEAD_DIM
    gl.store(base + tile_rows, lse)


@gluon.jit
def _store_piece_output(partials, slot, first_row, out, TILE_ROWS: gl.constexpr, ROWS: gl.constexpr,
                        HEAD_DIM: gl.constexpr, o_layout: gl.constexpr):
    """A split tail piece's output rows [first_row, first_row + ROWS) of its tile (float32, divided by the piece's
    own softmax sum) into slot ``slot`` of ``partials`` (``_store_piece_lse`` has the slot's layout)."""
    tile_rows = first_row + gl.arange(0, ROWS, layout=gl.SliceLayout(1, o_layout))
    columns = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, o_layout))
    base = partials + slot.to(gl.int64) * (TILE_ROWS * (HEAD_DIM + 1))
    gl.store(base + tile_rows[:, None] * HEAD_DIM + columns[None, :], out)


@gluon.jit
def _release_unread(kv_ready, kv_empty, it, own_end, end_n, BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr,
                    SPLIT_KV: gl.constexpr):
    """Another consumer's key blocks [own_end, end_n) of this tile, which none of these rows sees: each slot waited for
    and released unread, so that the ring's phases stay in step (``_overlapped_consumer``; ``_consumer_tile`` keeps
    its own copy of this loop, see there). Returns the ring position after them."""
    for start_n in range(own_end, end_n, BLOCK_N):
        slot = it % NUM_STAGES
        mbarrier.wait(kv_ready.index(slot), (it // NUM_STAGES) & 1)
        mbarrier.arrive(kv_empty.index(slot))
        if SPLIT_KV:
            mbarrier.wait(kv_ready.index(NUM_STAGES + slot), (it // NUM_STAGES) & 1)
            mbarrier.arrive(kv_empty.index(NUM_STAGES + slot))
        it += 1
    return it


@gluon.jit
def _consumer_tile(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                   batch, head, start_m, end_n, seqlen_q, seqlen_k, softmax_scale,
                   q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, it, tile_iter, turn, turn_it,
                   HALF: gl.constexpr, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                   IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, PIPELINED: gl.constexpr,
                   PERSISTENT: gl.constexpr, SPLIT_KV: gl.constexpr, PINGPONG: gl.constexpr,
                   OUTPUT_FROM_REGISTERS: gl.constexpr = False, OUTPUT_BUFFER: gl.constexpr = False, o_smem=None,
                   SKIP_ROWS_PAST_END: gl.constexpr = False, CONSUMERS: gl.constexpr = 2,
                   Q_BUFFERS: gl.constexpr = 1, EARLY_Q_RELEASE: gl.constexpr = False,
                   HALF_DIAGONAL: gl.constexpr = False, Q_IN_REGISTERS: gl.constexpr = False,
                   WIDE_STORES: gl.constexpr = False, KEY_RANGES: gl.constexpr = False, key_start=0,
                   piece_slot=-1, partials=None, MERGED_MASK: gl.constexpr = 0, ones=None,
                   ROW_SUM_MMA: gl.constexpr = False):
    """Query rows [start_m + HALF * ROWS, + ROWS) of one tile: the key loop in up to three ranges —
    unmasked blocks, masked ones (the causal diagonal, the end of the keys), and blocks past these rows'
    last visible key, released without work — then the epilogue; the K/V ring from position ``it``, the
    program's ``tile_iter``-th tile; with PINGPONG (pipelined loop only) ``turn_it`` turns taken so far.
    The output tile is staged through the Q buffer and stored by TMA; or (persistent kernel) with
    OUTPUT_FROM_REGISTERS stored from registers, with OUTPUT_BUFFER staged in ``o_smem`` and stored by TMA
    (waited for at the next tile's epilogue), the Q buffer handed back as soon as the key loop ends.
    SKIP_ROWS_PAST_END: rows entirely past the last query compute nothing (their key blocks are released
    unread) — with 192-row tiles a sequence's last tile often has a whole consumer's rows past its end
    (N = 1024: 128 of the last tile's 192 rows). ``Q_BUFFERS``: the tile's Q rows are in set ``tile_iter``
    mod Q_BUFFERS of the Q buffers; EARLY_Q_RELEASE (pipelined loop, Q not staging the output): Q is
    handed back once the last score product has read it (``_key_loop_pipelined``). HALF_DIAGONAL
    (pipelined loop, causal): when no row of these sees past the first half of their last key block (the
    first consumer's diagonal block with 64-row consumers and 128-key blocks, the scores of a 64 x 64 square
    its rows never see), that block's products are computed over its first half only. Q_IN_REGISTERS
    (persistent pipelined loop, output not staged through Q, no early hand-back): Q is loaded into registers
    as the score products' A operand and its buffer handed back at once, so that the loader fetches the next
    tile's Q during this tile (v0.18 runs 4-5: the consumers waited for Q at each tile start). WIDE_STORES
    (OUTPUT_FROM_REGISTERS): the output stored 16 bytes at a time (``gluon_stores.store_rows_wide``) instead of 4.
    KEY_RANGES (a split tail's tile list, non-causal): the tile's keys are [key_start, end_n); with ``piece_slot``
    >= 0 the tile is a piece of one split along its keys, whose O (divided by this piece's softmax sum) and LSE go to
    that slot of ``partials`` (``_store_piece_output``, ``_store_piece_lse``) for the merge after the kernel.
    MERGED_MASK (pipelined loop): ``_key_loop_pipelined``'s. Returns (ring position, turns taken) after the tile."""
    gl.static_assert(PIPELINED or not EARLY_Q_RELEASE, "Q is handed back early by the pipelined loop")
    LOG2E: gl.constexpr = 1.4426950408889634
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, HEAD_DIM, 16])
    q_index = tile_iter % Q_BUFFERS * CONSUMERS + HALF
    q_buf = q_smem.index(q_index)
    first = start_m + HALF * ROWS
    rows = first + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
    causal_shift = seqlen_k - seqlen_q
    qk_scale = softmax_scale * LOG2E
    unmasked_end, own_end = _own_keys(first, end_n, seqlen_k, causal_shift, ROWS, BLOCK_N, IS_CAUSAL)
    if SKIP_ROWS_PAST_END:
        has_rows = gl.maximum(gl.minimum(seqlen_q - first, 1), 0)  # 1 if a row is in range, else 0
        unmasked_end = unmasked_end * has_rows
        own_end = own_end * has_rows
    if KEY_RANGES:
        gl.static_assert(not IS_CAUSAL, "key ranges are a split tail's, non-causal")
        # This consumer's blocks are [key_start, own_end): none (own_end = key_start) for rows past the end; the
        # unmasked ones end with the piece's.
        own_end = gl.maximum(own_end, key_start)
        unmasked_end = gl.minimum(unmasked_end, own_end)

    full_end = own_end
    HALF_LAST: gl.constexpr = HALF_DIAGONAL and IS_CAUSAL  # without the causal mask no block is half seen
    if HALF_DIAGONAL:
        gl.static_assert(PIPELINED, "the half diagonal block is a form of the pipelined loop")
    if HALF_LAST:
        # Keys [0, visible_end) are all these rows see; when that ends in the first half of the last block (and
        # block 0, the loop's prologue, is not the last), the last block is a half one. The last block starts
        # at a multiple of BLOCK_N below own_end, which is not one where the tile's keys end at seqlen_k.
        visible_end = gl.minimum(gl.maximum(first + ROWS + causal_shift, 0), seqlen_k)
        last_start = (own_end - 1) // BLOCK_N * BLOCK_N
        half_last = (last_start > 0) & (visible_end <= last_start + BLOCK_N // 2) & (unmasked_end <= last_start)
        full_end = gl.where(half_last, last_start, own_end)

    m_i = gl.full([ROWS], float("-inf"), gl.float32, gl.SliceLayout(1, s_layout))
    if ROW_SUM_MMA:
        # l as P times a block of ones on the tensor cores (v0.53): 8 equal columns, the smallest product width.
        gl.static_assert(PIPELINED and PERSISTENT and not PINGPONG,
                         "the row sum by MMA is a form of the persistent pipelined loop without turns")
        l_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                           instr_shape=[16, 8, 16])
        l_i = gl.zeros([ROWS, 8], gl.float32, l_layout)
    else:
        l_i = gl.zeros([ROWS], gl.float32, gl.SliceLayout(1, s_layout))
    acc = gl.zeros([ROWS, HEAD_DIM], gl.float32, o_layout)
    mbarrier.wait(q_ready.index(q_index), (tile_iter // Q_BUFFERS) & 1)
    q_operand = q_buf
    if Q_IN_REGISTERS:
        gl.static_assert(PERSISTENT and PIPELINED and (OUTPUT_FROM_REGISTERS or OUTPUT_BUFFER)
                         and not EARLY_Q_RELEASE, "Q in registers is a form of the persistent pipelined loop "
                         "whose Q buffer does not stage the output")
        q_operand = q_buf.load(gl.DotOperandLayout(operand_index=0, parent=s_layout, k_width=2))
        _hand_back(q_empty.index(q_index))  # every warp holds its Q rows: the next tile's may land
    if PIPELINED:
        acc, m_i, l_i, it, turn_it = _key_loop_pipelined(q_operand, k_smem, v_smem, kv_ready, kv_empty, acc, m_i, l_i,
                                                         rows, unmasked_end, own_end, seqlen_k, causal_shift, qk_scale,
                                                         it, turn, turn_it, IS_CAUSAL, ROWS, BLOCK_N, HEAD_DIM,
                                                         NUM_STAGES, s_layout, o_layout, SPLIT_KV, HALF, PINGPONG,
                                                         q_empty.index(q_index), EARLY_Q_RELEASE, full_end,
                                                         HALF_LAST, Q_IN_REGISTERS, key_start, MERGED_MASK,
                                                         ones=ones, ROW_SUM_MMA=ROW_SUM_MMA)
        if ROW_SUM_MMA:
            l_i = gl.convert_layout(gl.max(l_i, 1), gl.SliceLayout(1, s_layout))  # its columns are equal
        if PINGPONG:
            # Both consumers take as many turns per tile as the busier one: the other passes its extra turns.
            _, other_end = _own_keys(start_m + (1 - HALF) * ROWS, end_n, seqlen_k, causal_shift, ROWS, BLOCK_N,
                                     IS_CAUSAL)
            if KEY_RANGES:
                own_blocks = gl.cdiv(own_end - key_start, BLOCK_N)
                other_blocks = gl.cdiv(gl.maximum(other_end, key_start) - key_start, BLOCK_N)
            else:
                own_blocks = gl.cdiv(own_end, BLOCK_N)
                other_blocks = gl.cdiv(other_end, BLOCK_N)
            for _ in range(own_blocks + gl.minimum(own_blocks, 1), other_blocks + gl.minimum(other_blocks, 1)):
                _take_turn(turn, turn_it, HALF)
                mbarrier.arrive(turn.index(1 - HALF))
                turn_it += 1
    else:
        acc, m_i, l_i, it = _key_loop(q_buf, k_smem, v_smem, kv_ready, kv_empty, acc, m_i, l_i, rows, unmasked_end,
                                      own_end, seqlen_k, causal_shift, qk_scale, it, IS_CAUSAL, ROWS, BLOCK_N,
                                      HEAD_DIM, NUM_STAGES, s_layout, o_layout, SPLIT_KV, key_start)
    if OUTPUT_BUFFER:
        gl.static_assert(PERSISTENT, "an output buffer of its own is a form of the persistent kernel")
    if PERSISTENT and (OUTPUT_FROM_REGISTERS or OUTPUT_BUFFER):
        if EARLY_Q_RELEASE:
            if own_end == 0:  # no key block ran, so none handed Q back
                _hand_back(q_empty.index(q_index))
        elif Q_IN_REGISTERS:
            pass  # handed back when loaded
        else:
            _hand_back(q_empty.index(q_index))  # every warp's score products have read Q: the next tile's may land
    else:
        gl.static_assert(not EARLY_Q_RELEASE, "Q is handed back early only when it does not stage the output")
    # The other consumer's last key block (its diagonal): each slot waited for and released unread, so the
    # ring's phases stay in step. (``_release_unread`` here changed the SASS of 16 of the 158 compiles that ran
    # before it, d=256's host forms among them: kept inline.)
    for start_n in range(own_end, end_n, BLOCK_N):  # the other half's blocks: nothing visible here
        slot = it % NUM_STAGES
        mbarrier.wait(kv_ready.index(slot), (it // NUM_STAGES) & 1)
        mbarrier.arrive(kv_empty.index(slot))
        if SPLIT_KV:
            mbarrier.wait(kv_ready.index(NUM_STAGES + slot), (it // NUM_STAGES) & 1)
            mbarrier.arrive(kv_empty.index(NUM_STAGES + slot))
        it += 1

    # The epilogue: LSE = (m + log2 l) / log2(e) (natural log; -inf for rows that saw no key), O = acc / l.
    empty = l_i == 0.0
    l_safe = gl.where(empty, 1.0, l_i)
    lse = gl.where(empty, float("-inf"), (m_i + gl.log2(l_safe)) / LOG2E)
    if KEY_RANGES:  # a split tail's piece: its output goes to its slot of ``partials``
        piece = piece_slot >= 0
    else:
        piece: gl.constexpr = False  # a constexpr, so that nothing of the pieces is compiled
    if piece:
        _store_piece_lse(partials, piece_slot, rows - start_m, lse, CONSUMERS * ROWS, HEAD_DIM)
    else:
        gl.store(LSE + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh + rows * stride_lm, lse,
                 mask=rows < seqlen_q)
    out = acc * gl.convert_layout(1.0 / l_safe, gl.SliceLayout(1, o_layout))[:, None]
    if piece:
        _store_piece_output(partials, piece_slot, first - start_m, out, CONSUMERS * ROWS, ROWS, HEAD_DIM,
                            o_layout)
        if not (OUTPUT_FROM_REGISTERS or OUTPUT_BUFFER):
            _hand_back(q_empty.index(q_index))  # Q did not stage this output: the next tile's may land
    else:
        gl.static_assert(OUTPUT_FROM_REGISTERS or not WIDE_STORES, "16-byte stores are a form of the output stored "
                         "from registers")
        if OUTPUT_FROM_REGISTERS and WIDE_STORES:
            o_head = O + batch.to(gl.int64) * stride_ob + head.to(gl.int64) * stride_oh
            store_rows_wide(o_head, first, stride_om, out.to(O.dtype.element_ty), seqlen_q, ROWS, HEAD_DIM)
        elif OUTPUT_FROM_REGISTERS:
            out_rows = gl.convert_layout(rows, gl.SliceLayout(1, o_layout))
            columns = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, o_layout))
            o_head = O + batch.to(gl.int64) * stride_ob + head.to(gl.int64) * stride_oh
            gl.store(o_head + out_rows.to(gl.int64)[:, None] * stride_om + columns[None, :],
                     out.to(O.dtype.element_ty), mask=(out_rows < seqlen_q)[:, None])
        elif OUTPUT_BUFFER:
            o_buf = o_smem.index(HALF)
            tma.store_wait(0)  # the previous tile's store (one thread's) has read o_buf and its descriptor
            gl.thread_barrier()
            o_desc = _head_descriptor(O, batch, head, stride_ob, stride_oh, stride_om, seqlen_q, ROWS, HEAD_DIM,
                                      gl.NVMMASharedLayout.get_default_for([ROWS, HEAD_DIM], O.dtype.element_ty))
            o_buf.store(out.to(O.dtype.element_ty))
            fence_async_shared()
            gl.thread_barrier()
            tma.async_copy_shared_to_global(o_desc, [first, 0], o_buf)  # waited for at the next tile, or the end
        else:
            q_buf.store(out.to(O.dtype.element_ty))  # Q is no longer read: its buffer stages the output tile
            fence_async_shared()
            gl.thread_barrier()
            o_desc = _head_descriptor(O, batch, head, stride_ob, stride_oh, stride_om, seqlen_q, ROWS, HEAD_DIM,
                                      gl.NVMMASharedLayout.get_default_for([ROWS, HEAD_DIM], O.dtype.element_ty))
            tma.async_copy_shared_to_global(o_desc, [first, 0], q_buf)
            tma.store_wait(0)
            if PERSISTENT:
                # The store (issued by one thread) has read the buffer: Q's next half may land.
                _hand_back(q_empty.index(q_index))
    return it, turn_it


@gluon.jit
def _consumer(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
              batch, head, start_m, end_n, seqlen_q, seqlen_k, softmax_scale,
              q_smem, k_smem, v_smem, q_ready, kv_ready, kv_empty,
              HALF: gl.constexpr, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
              IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, PIPELINED: gl.constexpr,
              SPLIT_KV: gl.constexpr, turn, PINGPONG: gl.constexpr, OUTPUT_FROM_REGISTERS: gl.constexpr = False,
              HALF_DIAGONAL: gl.constexpr = False, WIDE_STORES: gl.constexpr = False):
    """One consumer's half of the program's one tile (OUTPUT_FROM_REGISTERS: its output stored from
    registers, not staged through Q's buffer and stored by TMA; with WIDE_STORES 16 bytes at a time)."""
    _consumer_tile(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                   batch, head, start_m, end_n, seqlen_q, seqlen_k, softmax_scale,
                   q_smem, k_smem, v_smem, q_ready, q_ready, kv_ready, kv_empty, start_m * 0, 0, turn, start_m * 0,
                   HALF, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, False, SPLIT_KV, PINGPONG,
                   OUTPUT_FROM_REGISTERS, HALF_DIAGONAL=HALF_DIAGONAL, WIDE_STORES=WIDE_STORES)


@gluon.jit
def _key_end(start_m, seqlen_q, seqlen_k, ROWS: gl.constexpr, IS_CAUSAL: gl.constexpr, CONSUMERS: gl.constexpr = 2):
    """End of the keys that the CONSUMERS * ROWS query rows from ``start_m`` see (bottom-right causal
    alignment)."""
    if IS_CAUSAL:
        end_n = gl.minimum(gl.maximum(start_m + CONSUMERS * ROWS + seqlen_k - seqlen_q, 0), seqlen_k)
    else:
        end_n = seqlen_k + start_m * 0
    return end_n


@gluon.jit
def _unit_tiles(unit, num_blocks, IS_CAUSAL: gl.constexpr):
    """Tiles in a persistent program's work unit ``unit``: causal, a pair of query blocks of one head (1 for
    the middle block of an odd count; ``_paired_block``); otherwise one tile."""
    if IS_CAUSAL:
        count = _paired_halves(unit, num_blocks)
    else:
        count = 1
    return count


@gluon.jit
def _tile_coordinates(unit, half, num_blocks, num_heads, IS_CAUSAL: gl.constexpr):
    """(query block, head, batch) of tile ``half`` of a persistent program's work unit ``unit``. Causal: the
    pair of blocks i and num_blocks - 1 - i of one head, heavy then light, so every unit is the same work and
    the round-robin over units stays balanced, head by head (v0.13: the v0.11 order, every head's heaviest
    block first, spread the programs at work at once over all heads' K/V); otherwise a head's query blocks
    one after another, so the programs running at once share its K/V in L2."""
    if IS_CAUSAL:
        block, head, batch = _paired_block(unit, 1 - half, num_blocks, num_heads)
    else:
        block = unit % num_blocks
        head_batch = unit // num_blocks
        head = head_batch % num_heads
        batch = head_batch // num_heads
    return block, head, batch


@gluon.jit
def _publish_entry(ids, slot, index):
    """The loader's claimed tile id (``claimed_tile``; with the probe option LIST_READ_BY_CONSUMERS its entry in the
    list; with PUBLISHED_COORDINATES its ``_packed_coordinates``, in an int64 slot), or -1: no more, into the shared
    slot the consumers read once the tile's Q barrier completes (its arrival, after this store, releases it to them)."""
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [1], [0])
    ids.index(slot).store(gl.full([1], index, ids.dtype, layout=layout))


@gluon.jit
def _packed_coordinates(block, head, batch):
    """A claimed tile's (query block, head, batch) in one int64 (PUBLISHED_COORDINATES, v0.51): the block in bits
    0-19, the head in bits 20-39, the batch from bit 40 (the launcher uses the option only where the block and
    head counts are below 2^20 and the batch below 2^23, so the value stays positive and -1 still means stop)."""
    return block.to(gl.int64) | (head.to(gl.int64) << 20) | (batch.to(gl.int64) << 40)


@gluon.jit
def _unpacked_coordinates(packed):
    """(query block, head, batch) of ``_packed_coordinates``: masks and shifts, where the tile id's decode
    (``gluon_claims.tile_block``) takes two integer divisions by run-time counts (v0.49 call 1: 0.24 µs of each
    consumer's 0.44 µs between tiles at d=128 causal 1k)."""
    return ((packed & 0xFFFFF).to(gl.int32), ((packed >> 20) & 0xFFFFF).to(gl.int32),
            (packed >> 40).to(gl.int32))


@gluon.jit
def _read_entry(ids, slot, q_ready, q_index, phase, boundary_clock=None, tile=0, partition=0,
                CONSUMERS: gl.constexpr = 2, BOUNDARY_TILES: gl.constexpr = 0):
    """A consumer's next entry (DYNAMIC): its Q barrier's phase waited for, then the id the loader published
    before arriving on it (-1: the program has no more tiles). BOUNDARY_TILES > 0 (probes, v0.48): the times after
    the wait and after the read as marks 0 and 1 of slot ``tile`` + 1 (tile ``tile`` is the one this entry
    starts) in ``boundary_clock`` (``gluon_clock.mark_tile``'s layout, one partition per consumer)."""
    mbarrier.wait(q_ready.index(q_index), phase)
    if BOUNDARY_TILES > 0:
        mark_tile(boundary_clock, tile + 1, partition, 0, CONSUMERS, BOUNDARY_TILES)
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    entry = gl.max(ids.index(slot).load(layout), axis=0)
    if BOUNDARY_TILES > 0:
        mark_tile(boundary_clock, tile + 1, partition, 1, CONSUMERS, BOUNDARY_TILES)
    return entry


@gluon.jit
def _loader_tile(Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh,
                 stride_vn, seqlen_q, seqlen_k, kv_group_size, block, head, batch, q_smem, k_smem, v_smem,
                 q_ready, q_empty, kv_ready, kv_empty, it, tile_iter, ROWS: gl.constexpr, BLOCK_N: gl.constexpr,
                 HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr, IS_CAUSAL: gl.constexpr, SPLIT_KV: gl.constexpr,
                 KV_FIRST: gl.constexpr, CONSUMERS: gl.constexpr, Q_BUFFERS: gl.constexpr, tile_clock,
                 CLOCK_TILES: gl.constexpr, KEY_RANGES: gl.constexpr = False, key_start=0, key_blocks=0,
                 HOST_DESCRIPTORS: gl.constexpr = 0):
    """The persistent loader's ``tile_iter``-th tile, query block ``block`` of (``head``, ``batch``): its loads
    (``_load_tile``) from K/V ring position ``it`` (returned advanced), and with CLOCK_TILES > 0 their issue times;
    with KEY_RANGES (a split tail's list) only its ``key_blocks`` key blocks from ``key_start``.
    Every loop of ``_persistent_loader`` (round-robin, listed, dynamic) runs its tiles through it."""
    start_m = block * CONSUMERS * ROWS
    end_n = _key_end(start_m, seqlen_q, seqlen_k, ROWS, IS_CAUSAL, CONSUMERS)
    if KEY_RANGES:
        end_n = gl.minimum(key_start + key_blocks * BLOCK_N, end_n)
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, tile_iter + 1, CONSUMERS, 0, CONSUMERS + 1, CLOCK_TILES)
    it = _load_tile(Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb,
                    stride_vh, stride_vn, batch, head, head // kv_group_size, start_m, end_n, seqlen_q, seqlen_k,
                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, it, tile_iter,
                    ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, True, SPLIT_KV, KV_FIRST, CONSUMERS, Q_BUFFERS, key_start,
                    HOST_DESCRIPTORS)
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, tile_iter + 1, CONSUMERS, 1, CONSUMERS + 1, CLOCK_TILES)
    return it


@gluon.jit
def _persistent_loader(Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb,
                       stride_vh, stride_vn, seqlen_q, seqlen_k, kv_group_size, num_heads, num_units,
                       q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                       ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                       NUM_STAGES: gl.constexpr, IS_CAUSAL: gl.constexpr, SPLIT_KV: gl.constexpr,
                       KV_FIRST: gl.constexpr, CONSUMERS: gl.constexpr, Q_BUFFERS: gl.constexpr,
                       schedule=None, LISTED: gl.constexpr = False, tile_clock=None, CLOCK_TILES: gl.constexpr = 0,
                       claims=None, ids=None, DYNAMIC: gl.constexpr = False, CLAIM_FIRST: gl.constexpr = False,
                       CLAIM_AHEAD: gl.constexpr = False, SPLIT_TAIL: gl.constexpr = False,
                       HOST_DESCRIPTORS: gl.constexpr = 0, LIST_READ_BY_CONSUMERS: gl.constexpr = False,
                       PUBLISHED_COORDINATES: gl.constexpr = False):
    """The loads of every tile of this program, the K/V ring running on across tiles (LISTED: the tiles of
    this program's entries in ``schedule``, with SPLIT_TAIL each entry's key blocks only; DYNAMIC: the entries
    of ``schedule`` it claims one by one from the counter ``claims``, each published to the consumers in ``ids``,
    then -1). CLOCK_TILES > 0 (probes): its
    tiles' issue times in ``tile_clock`` as partition CONSUMERS (``gluon_clock.mark_tile``). Probe options of
    DYNAMIC (v0.36, prepared): CLAIM_FIRST, the first entry claimed too (v0.36 call 6's form) instead of entry
    program_id; CLAIM_AHEAD, each claim issued a tile before its entry is needed, so that its round trip to the L2
    overlaps the tile's loads instead of preceding them. Since v0.48 it publishes each claimed tile's id;
    LIST_READ_BY_CONSUMERS (probe option, v0.36-v0.47's form) publishes the entry for the consumers to look up;
    PUBLISHED_COORDINATES (v0.51) the tile's (block, head, batch) packed (``_packed_coordinates``), which the
    loader has decoded for its own loads, so that no consumer decodes it between its tiles."""
    num_blocks = gl.cdiv(seqlen_q, CONSUMERS * ROWS)
    it = num_blocks * 0
    tile_iter = num_blocks * 0
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, 0, CONSUMERS, 0, CONSUMERS + 1, CLOCK_TILES)
    if DYNAMIC:
        entries = gl.load(schedule)
        # The first round is static, program p taking entry p, its claims coming later a tile apart. (Done on the
        # guess that 132 programs claiming at once queue on the counter: unconfirmed, v0.36 calls 6-7.)
        if CLAIM_FIRST:
            index = claim_entry(claims)
        else:
            index = gl.program_id(0)
        if CLAIM_AHEAD:
            pending = issue_claim(claims)
        while index < entries:
            tile = claimed_tile(schedule, index)
            block, head, batch = tile_block(tile, num_blocks, num_heads)
            # The tile id, so that no consumer waits for the list's global memory between its tiles (v0.48); the
            # probe option the entry, which the consumers looked up themselves until v0.47.
            if PUBLISHED_COORDINATES:
                _publish_entry(ids, tile_iter % (2 * Q_BUFFERS), _packed_coordinates(block, head, batch))
            else:
                _publish_entry(ids, tile_iter % (2 * Q_BUFFERS), index if LIST_READ_BY_CONSUMERS else tile)
            it = _loader_tile(Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb,
                              stride_vh, stride_vn, seqlen_q, seqlen_k, kv_group_size, block, head, batch,
                              q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, it, tile_iter,
                              ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, IS_CAUSAL, SPLIT_KV, KV_FIRST, CONSUMERS,
                              Q_BUFFERS, tile_clock, CLOCK_TILES, HOST_DESCRIPTORS=HOST_DESCRIPTORS)
            tile_iter += 1
            if CLAIM_AHEAD:
                index = claimed_count(pending)
                if not CLAIM_FIRST:
                    index += gl.num_programs(0)
                pending = issue_claim(claims)
            elif CLAIM_FIRST:
                index = claim_entry(claims)
            else:
                index = gl.num_programs(0) + claim_entry(claims)
        # The consumers' stop: -1 behind each Q half's barrier, arrived on (no bytes) once they handed the last
        # tile's Q back, as a tile's Q would be.
        _publish_entry(ids, tile_iter % (2 * Q_BUFFERS), -1)
        for consumer in gl.static_range(CONSUMERS):
            stop_index = tile_iter % Q_BUFFERS * CONSUMERS + consumer
            mbarrier.wait(q_empty.index(stop_index), ((tile_iter // Q_BUFFERS) & 1) ^ 1)
            mbarrier.arrive(q_ready.index(stop_index))
        release_claims(claims, gl.num_programs(0) - 1)
        if CLOCK_TILES > 0:
            mark_tile(tile_clock, 0, CONSUMERS, 1, CONSUMERS + 1, CLOCK_TILES)
        return
    if LISTED:
        for index in range(gl.load(schedule + gl.program_id(0)), gl.load(schedule + gl.program_id(0) + 1)):
            block, head, batch = _listed_block(schedule, index, num_blocks, num_heads)
            key_start = 0
            key_blocks = 0
            if SPLIT_TAIL:
                key_start, key_blocks, _ = _listed_query_range(schedule, index, BLOCK_N)
            it = _loader_tile(Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb,
                              stride_vh, stride_vn, seqlen_q, seqlen_k, kv_group_size, block, head, batch,
                              q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, it, tile_iter,
                              ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, IS_CAUSAL, SPLIT_KV, KV_FIRST, CONSUMERS,
                              Q_BUFFERS, tile_clock, CLOCK_TILES, SPLIT_TAIL, key_start, key_blocks,
                              HOST_DESCRIPTORS)
            tile_iter += 1
        if CLOCK_TILES > 0:
            mark_tile(tile_clock, 0, CONSUMERS, 1, CONSUMERS + 1, CLOCK_TILES)
        return
    for unit in range(gl.program_id(0), num_units, gl.num_programs(0)):
        for half in range(_unit_tiles(unit, num_blocks, IS_CAUSAL)):
            block, head, batch = _tile_coordinates(unit, half, num_blocks, num_heads, IS_CAUSAL)
            it = _loader_tile(Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb,
                              stride_vh, stride_vn, seqlen_q, seqlen_k, kv_group_size, block, head, batch,
                              q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, it, tile_iter,
                              ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, IS_CAUSAL, SPLIT_KV, KV_FIRST, CONSUMERS,
                              Q_BUFFERS, tile_clock, CLOCK_TILES, HOST_DESCRIPTORS=HOST_DESCRIPTORS)
            tile_iter += 1
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, 0, CONSUMERS, 1, CONSUMERS + 1, CLOCK_TILES)


@gluon.jit
def _persistent_consumer_tile(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm, block, head,
                              batch, seqlen_q, seqlen_k, softmax_scale, q_smem, k_smem, v_smem, q_ready, q_empty,
                              kv_ready, kv_empty, it, tile_iter, turn, turn_it, HALF: gl.constexpr,
                              ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                              IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, PIPELINED: gl.constexpr,
                              SPLIT_KV: gl.constexpr, PINGPONG: gl.constexpr, OUTPUT_FROM_REGISTERS: gl.constexpr,
                              OUTPUT_BUFFER: gl.constexpr, o_smem, CONSUMERS: gl.constexpr,
                              Q_BUFFERS: gl.constexpr, EARLY_Q_RELEASE: gl.constexpr, HALF_DIAGONAL: gl.constexpr,
                              Q_IN_REGISTERS: gl.constexpr, WIDE_STORES: gl.constexpr, tile_clock,
                              CLOCK_TILES: gl.constexpr, KEY_RANGES: gl.constexpr = False, key_start=0, key_blocks=0,
                              piece_slot=-1, partials=None, MERGED_MASK: gl.constexpr = 0, ones=None,
                              ROW_SUM_MMA: gl.constexpr = False):
    """A persistent consumer's ``tile_iter``-th tile, query block ``block`` of (``head``, ``batch``)
    (``_consumer_tile``), and with CLOCK_TILES > 0 its start and end; returns (ring position, turns taken). Every
    loop of ``_persistent_consumer`` (round-robin, listed, dynamic) runs its tiles through it. KEY_RANGES (a split
    tail's list): the tile's ``key_blocks`` key blocks from ``key_start``, its output to ``piece_slot`` of
    ``partials`` when that is >= 0."""
    start_m = block * CONSUMERS * ROWS
    end_n = _key_end(start_m, seqlen_q, seqlen_k, ROWS, IS_CAUSAL, CONSUMERS)
    if KEY_RANGES:
        end_n = gl.minimum(key_start + key_blocks * BLOCK_N, end_n)
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, tile_iter + 1, HALF, 0, CONSUMERS + 1, CLOCK_TILES)
    it, turn_it = _consumer_tile(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                 batch, head, start_m, end_n, seqlen_q, seqlen_k, softmax_scale,
                                 q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                 it, tile_iter, turn, turn_it, HALF, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL,
                                 NUM_STAGES, PIPELINED, True, SPLIT_KV, PINGPONG, OUTPUT_FROM_REGISTERS,
                                 OUTPUT_BUFFER, o_smem, CONSUMERS >= 3, CONSUMERS, Q_BUFFERS,
                                 EARLY_Q_RELEASE, HALF_DIAGONAL, Q_IN_REGISTERS, WIDE_STORES, KEY_RANGES, key_start,
                                 piece_slot, partials, MERGED_MASK, ones, ROW_SUM_MMA)
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, tile_iter + 1, HALF, 1, CONSUMERS + 1, CLOCK_TILES)
    return it, turn_it


@gluon.jit
def _persistent_consumer(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                         seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                         q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                         HALF: gl.constexpr, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                         IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, PIPELINED: gl.constexpr,
                         SPLIT_KV: gl.constexpr, turn, PINGPONG: gl.constexpr,
                         OUTPUT_FROM_REGISTERS: gl.constexpr, OUTPUT_BUFFER: gl.constexpr, o_smem,
                         CONSUMERS: gl.constexpr, Q_BUFFERS: gl.constexpr, EARLY_Q_RELEASE: gl.constexpr,
                         HALF_DIAGONAL: gl.constexpr = False, schedule=None, LISTED: gl.constexpr = False,
                         Q_IN_REGISTERS: gl.constexpr = False, WIDE_STORES: gl.constexpr = False,
                         tile_clock=None, CLOCK_TILES: gl.constexpr = 0, ids=None, DYNAMIC: gl.constexpr = False,
                         partials=None, SPLIT_TAIL: gl.constexpr = False, LIST_READ_BY_CONSUMERS: gl.constexpr = False,
                         boundary_clock=None, BOUNDARY_MARKS: gl.constexpr = False,
                         MERGED_MASK: gl.constexpr = 0, OVERLAP_TILES: gl.constexpr = False,
                         PUBLISHED_COORDINATES: gl.constexpr = False, ROW_SUM_MMA: gl.constexpr = False,
                         ones=None):
    """One consumer's row block (``HALF`` of ``CONSUMERS``) of every tile of this program (LISTED: the tiles
    of this program's entries in ``schedule``, with SPLIT_TAIL each entry's key blocks, a piece's output to its
    slot of ``partials``; DYNAMIC: the tile ids its loader claimed, read from ``ids`` as each tile's Q barrier
    completes, until -1 (with the probe option LIST_READ_BY_CONSUMERS, v0.47's form, entries of ``schedule`` to look
    up). CLOCK_TILES > 0 (probes): each tile's start (before its Q
    wait; DYNAMIC: after it and the entry's read) and end (its output issued) in ``tile_clock`` as partition HALF
    (``gluon_clock.mark_tile``); with BOUNDARY_MARKS (DYNAMIC, v0.48) also, before each tile, the times after its Q
    barrier's wait and after the entry's read, in ``boundary_clock`` (``_read_entry``). OVERLAP_TILES (v0.50): DYNAMIC's
    tiles through ``_overlapped_consumer``, each tile's output stored while the next one's first product runs.
    PUBLISHED_COORDINATES (DYNAMIC, v0.51): the loader published each tile's (block, head, batch) packed, not its id.
    ROW_SUM_MMA: ``ones`` is the program's block of ones (``_block_of_ones``)."""
    BOUNDARY_TILES: gl.constexpr = CLOCK_TILES if BOUNDARY_MARKS else 0
    gl.static_assert(not (ROW_SUM_MMA and OVERLAP_TILES), "overlapped tiles sum their rows on the CUDA cores")
    num_blocks = gl.cdiv(seqlen_q, CONSUMERS * ROWS)
    it = num_blocks * 0
    tile_iter = num_blocks * 0
    turn_it = num_blocks * 0
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, 0, HALF, 0, CONSUMERS + 1, CLOCK_TILES)
    gl.static_assert(not (OVERLAP_TILES and PUBLISHED_COORDINATES), "overlapped tiles read tile ids")
    if OVERLAP_TILES and DYNAMIC:  # the other tile lists run the plain loop
        gl.static_assert(PIPELINED and OUTPUT_FROM_REGISTERS and not PINGPONG and not Q_IN_REGISTERS
                         and CLOCK_TILES == 0 and not LIST_READ_BY_CONSUMERS,
                         "overlapped tiles: pipelined loop, output stored from registers")
        _overlapped_consumer(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm, seqlen_q,
                             seqlen_k, num_heads, softmax_scale, q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready,
                             kv_empty, ids, HALF, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, SPLIT_KV, CONSUMERS,
                             Q_BUFFERS, EARLY_Q_RELEASE, HALF_DIAGONAL, WIDE_STORES, MERGED_MASK)
    elif DYNAMIC:
        index = _read_entry(ids, 0, q_ready, HALF, 0, boundary_clock, 0, HALF, CONSUMERS, BOUNDARY_TILES)
        while index >= 0:
            if PUBLISHED_COORDINATES:
                gl.static_assert(not LIST_READ_BY_CONSUMERS, "the loader publishes the coordinates or the entry")
                block, head, batch = _unpacked_coordinates(index)
            elif LIST_READ_BY_CONSUMERS:
                block, head, batch = claimed_block(schedule, index, num_blocks, num_heads)
            else:  # the loader published the tile's id (v0.48)
                block, head, batch = tile_block(index, num_blocks, num_heads)
            it, turn_it = _persistent_consumer_tile(
                O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm, block, head, batch,
                seqlen_q, seqlen_k, softmax_scale, q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, it,
                tile_iter, turn, turn_it, HALF, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV,
                PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS, EARLY_Q_RELEASE,
                HALF_DIAGONAL, Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, MERGED_MASK=MERGED_MASK,
                ones=ones, ROW_SUM_MMA=ROW_SUM_MMA)
            tile_iter += 1
            index = _read_entry(ids, tile_iter % (2 * Q_BUFFERS), q_ready, tile_iter % Q_BUFFERS * CONSUMERS + HALF,
                                (tile_iter // Q_BUFFERS) & 1, boundary_clock, tile_iter, HALF, CONSUMERS,
                                BOUNDARY_TILES)
    elif LISTED:
        for index in range(gl.load(schedule + gl.program_id(0)), gl.load(schedule + gl.program_id(0) + 1)):
            block, head, batch = _listed_block(schedule, index, num_blocks, num_heads)
            key_start = 0
            key_blocks = 0
            piece_slot = -1
            if SPLIT_TAIL:
                key_start, key_blocks, piece_slot = _listed_query_range(schedule, index, BLOCK_N)
            it, turn_it = _persistent_consumer_tile(
                O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm, block, head, batch,
                seqlen_q, seqlen_k, softmax_scale, q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, it,
                tile_iter, turn, turn_it, HALF, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV,
                PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS, EARLY_Q_RELEASE,
                HALF_DIAGONAL, Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, SPLIT_TAIL, key_start,
                key_blocks, piece_slot, partials, MERGED_MASK, ones, ROW_SUM_MMA)
            tile_iter += 1
    else:
        for unit in range(gl.program_id(0), num_units, gl.num_programs(0)):
            for half in range(_unit_tiles(unit, num_blocks, IS_CAUSAL)):
                block, head, batch = _tile_coordinates(unit, half, num_blocks, num_heads, IS_CAUSAL)
                it, turn_it = _persistent_consumer_tile(
                    O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm, block, head, batch,
                    seqlen_q, seqlen_k, softmax_scale, q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, it,
                    tile_iter, turn, turn_it, HALF, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV,
                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS, EARLY_Q_RELEASE,
                    HALF_DIAGONAL, Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, MERGED_MASK=MERGED_MASK,
                    ones=ones, ROW_SUM_MMA=ROW_SUM_MMA)
                tile_iter += 1
    if OUTPUT_BUFFER:
        tma.store_wait(0)  # the last output store has read its buffer before the program ends
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, 0, HALF, 1, CONSUMERS + 1, CLOCK_TILES)


@gluon.jit
def _tile_key_ends(first, end_n, seqlen_q, seqlen_k, causal_shift, ROWS: gl.constexpr, BLOCK_N: gl.constexpr,
                   IS_CAUSAL: gl.constexpr, SKIP_ROWS_PAST_END: gl.constexpr, HALF_LAST: gl.constexpr):
    """(end of the unmasked key blocks, end of the blocks with a visible key, end of the whole blocks) of the ROWS
    query rows from ``first`` of a tile whose keys end at ``end_n``: ``_consumer_tile``'s key ranges, for
    ``_overlapped_consumer`` (rows past the last query see none with SKIP_ROWS_PAST_END; with HALF_LAST the last
    block is a half one when these rows see no further than its first half and block 0 is not the last)."""
    unmasked_end, own_end = _own_keys(first, end_n, seqlen_k, causal_shift, ROWS, BLOCK_N, IS_CAUSAL)
    if SKIP_ROWS_PAST_END:
        has_rows = gl.maximum(gl.minimum(seqlen_q - first, 1), 0)  # 1 if a row is in range, else 0
        unmasked_end = unmasked_end * has_rows
        own_end = own_end * has_rows
    full_end = own_end
    if HALF_LAST:
        visible_end = gl.minimum(gl.maximum(first + ROWS + causal_shift, 0), seqlen_k)
        last_start = (own_end - 1) // BLOCK_N * BLOCK_N
        half_last = (last_start > 0) & (visible_end <= last_start + BLOCK_N // 2) & (unmasked_end <= last_start)
        full_end = gl.where(half_last, last_start, own_end)
    return unmasked_end, own_end, full_end


@gluon.jit
def _first_scores(q_buf, k_smem, kv_ready, it, needed, ROWS: gl.constexpr, BLOCK_N: gl.constexpr,
                  NUM_STAGES: gl.constexpr, s_layout: gl.constexpr):
    """A tile's first score product S_0 = Q K_0^T (K_0 at ring position ``it``), issued and not waited for
    (``_overlapped_consumer``). K_0's barrier is waited for when ``needed`` (the tile has a key block for these
    rows); otherwise the product is issued all the same, over whatever the two buffers hold, and never read, so
    that no run-time branch surrounds the warpgroup MMA (a branch's join with a product in flight made ptxas
    serialise the kernel's MMAs) and the caller's waits count one product."""
    slot = it % NUM_STAGES
    mbarrier.wait(kv_ready.index(slot), (it // NUM_STAGES) & 1, pred=needed)
    return warpgroup_mma(q_buf, k_smem.index(slot).permute((1, 0)), gl.zeros([ROWS, BLOCK_N], gl.float32, s_layout),
                         use_acc=False, is_async=True)


@gluon.jit
def _store_from_registers(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm, batch, head,
                          first, rows, acc, m_i, l_i, seqlen_q, ROWS: gl.constexpr, HEAD_DIM: gl.constexpr,
                          o_layout: gl.constexpr, WIDE_STORES: gl.constexpr):
    """A consumer's output rows from registers: LSE = (m + log2 l) / log2(e) (natural log; -inf for rows that saw
    no key) and O = acc / l, 16 bytes a store with WIDE_STORES (``gluon_stores.store_rows_wide``), else 4; rows
    past ``seqlen_q`` are not written. ``_consumer_tile``'s epilogue with OUTPUT_FROM_REGISTERS."""
    LOG2E: gl.constexpr = 1.4426950408889634
    empty = l_i == 0.0
    l_safe = gl.where(empty, 1.0, l_i)
    lse = gl.where(empty, float("-inf"), (m_i + gl.log2(l_safe)) / LOG2E)
    gl.store(LSE + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh + rows * stride_lm, lse,
             mask=rows < seqlen_q)
    out = acc * gl.convert_layout(1.0 / l_safe, gl.SliceLayout(1, o_layout))[:, None]
    o_head = O + batch.to(gl.int64) * stride_ob + head.to(gl.int64) * stride_oh
    if WIDE_STORES:
        store_rows_wide(o_head, first, stride_om, out.to(O.dtype.element_ty), seqlen_q, ROWS, HEAD_DIM)
    else:
        out_rows = gl.convert_layout(rows, gl.SliceLayout(1, o_layout))
        columns = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, o_layout))
        gl.store(o_head + out_rows.to(gl.int64)[:, None] * stride_om + columns[None, :],
                 out.to(O.dtype.element_ty), mask=(out_rows < seqlen_q)[:, None])


@gluon.jit
def _overlapped_consumer(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                         seqlen_q, seqlen_k, num_heads, softmax_scale, q_smem, k_smem, v_smem, q_ready, q_empty,
                         kv_ready, kv_empty, ids, HALF: gl.constexpr, ROWS: gl.constexpr, BLOCK_N: gl.constexpr,
                         HEAD_DIM: gl.constexpr, IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr,
                         SPLIT_KV: gl.constexpr, CONSUMERS: gl.constexpr, Q_BUFFERS: gl.constexpr,
                         EARLY_Q_RELEASE: gl.constexpr, HALF_DIAGONAL: gl.constexpr, WIDE_STORES: gl.constexpr,
                         MERGED_MASK: gl.constexpr):
    """``_persistent_consumer``'s claimed tiles (DYNAMIC, pipelined loop, output from registers, no ping-pong) with
    each tile's output stored while the next tile's first score product runs (v0.50, ``OVERLAP_TILES``): a tile
    starts by issuing its S_0 (``_first_scores``), then stores the previous tile's output (the first tile: a store
    of rows past the last query, which writes nothing), then waits for S_0 and runs its key loop; its O, m and l are
    carried to the next tile. In the plain loop a consumer's tensor-core work stops at each boundary for the
    epilogue and S_0's latency. Nothing is in flight across a branch's join or the loop's back edge: v0.50's first
    forms, the last P V product left in flight past the key loop's branches or S_0 carried into the next iteration,
    made ptxas serialise every warpgroup MMA of the kernel (C7515, C7512; CPU compiles). On the H200 (v0.50) correct
    and no faster: a tile's two consumers run 1.5-2.3 µs apart at d=128 causal 1k (consumer_offsets.py), so one's
    boundary never left the tensor cores idle; a forced check path's form."""
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, HEAD_DIM, 16])
    HALF_LAST: gl.constexpr = HALF_DIAGONAL and IS_CAUSAL
    SKIP_ROWS_PAST_END: gl.constexpr = CONSUMERS >= 3
    LOG2E: gl.constexpr = 1.4426950408889634
    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    num_blocks = gl.cdiv(seqlen_q, CONSUMERS * ROWS)
    it = num_blocks * 0
    tile_iter = num_blocks * 0
    index = _read_entry(ids, 0, q_ready, HALF, 0, CONSUMERS=CONSUMERS)
    # The previous tile's output, stored at the next tile's start: none before the first (rows past the end).
    done_rows = seqlen_q + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
    done_acc = gl.zeros([ROWS, HEAD_DIM], gl.float32, o_layout)
    done_m = gl.full([ROWS], float("-inf"), gl.float32, gl.SliceLayout(1, s_layout))
    done_l = gl.zeros([ROWS], gl.float32, gl.SliceLayout(1, s_layout))
    done_first = seqlen_q
    done_head = num_blocks * 0
    done_batch = num_blocks * 0
    while index >= 0:
        block, head, batch = tile_block(index, num_blocks, num_heads)
        start_m = block * CONSUMERS * ROWS
        end_n = _key_end(start_m, seqlen_q, seqlen_k, ROWS, IS_CAUSAL, CONSUMERS)
        first = start_m + HALF * ROWS
        unmasked_end, own_end, full_end = _tile_key_ends(first, end_n, seqlen_q, seqlen_k, causal_shift, ROWS,
                                                         BLOCK_N, IS_CAUSAL, SKIP_ROWS_PAST_END, HALF_LAST)
        q_index = tile_iter % Q_BUFFERS * CONSUMERS + HALF
        s = _first_scores(q_smem.index(q_index), k_smem, kv_ready, it, own_end > 0, ROWS, BLOCK_N, NUM_STAGES,
                          s_layout)
        s = warpgroup_mma_wait(num_outstanding=1, deps=[s])  # the only product in flight: left so, S_0 a tensor
        _store_from_registers(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm, done_batch,
                              done_head, done_first, done_rows, done_acc, done_m, done_l, seqlen_q, ROWS, HEAD_DIM,
                              o_layout, WIDE_STORES)
        s = warpgroup_mma_wait(num_outstanding=0, deps=[s])
        rows = first + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
        m_i = gl.full([ROWS], float("-inf"), gl.float32, gl.SliceLayout(1, s_layout))
        l_i = gl.zeros([ROWS], gl.float32, gl.SliceLayout(1, s_layout))
        acc = gl.zeros([ROWS, HEAD_DIM], gl.float32, o_layout)
        acc, m_i, l_i, it, _ = _key_loop_pipelined(q_smem.index(q_index), k_smem, v_smem, kv_ready, kv_empty, acc,
                                                   m_i, l_i, rows, unmasked_end, own_end, seqlen_k, causal_shift,
                                                   qk_scale, it, q_ready, it * 0, IS_CAUSAL, ROWS, BLOCK_N, HEAD_DIM,
                                                   NUM_STAGES, s_layout, o_layout, SPLIT_KV, HALF, False,
                                                   q_empty.index(q_index), EARLY_Q_RELEASE, full_end, HALF_LAST,
                                                   False, 0, MERGED_MASK, s, True)
        # Every score product of the tile has read Q: the next tile's may land. With EARLY_Q_RELEASE the last
        # block's step handed it back, unless there was none.
        if EARLY_Q_RELEASE:
            if own_end == 0:
                _hand_back(q_empty.index(q_index))
        else:
            _hand_back(q_empty.index(q_index))
        it = _release_unread(kv_ready, kv_empty, it, own_end, end_n, BLOCK_N, NUM_STAGES, SPLIT_KV)
        done_rows = rows
        done_acc = acc
        done_m = m_i
        done_l = l_i
        done_first = first
        done_head = head
        done_batch = batch
        tile_iter += 1
        index = _read_entry(ids, tile_iter % (2 * Q_BUFFERS), q_ready, tile_iter % Q_BUFFERS * CONSUMERS + HALF,
                            (tile_iter // Q_BUFFERS) & 1, CONSUMERS=CONSUMERS)
    _store_from_registers(O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm, done_batch,
                          done_head, done_first, done_rows, done_acc, done_m, done_l, seqlen_q, ROWS, HEAD_DIM,
                          o_layout, WIDE_STORES)


@gluon.jit
def _block_of_ones(dtype: gl.constexpr, ONES_N: gl.constexpr = 64):
    """The program's block of ones, the B operand [ONES_N, 8] of every consumer's row sums (``ROW_SUM_MMA``), written
    once before the partitions start (their start is a barrier of all warps, after each writer's proxy fence).
    Stored K-major, [8, ONES_N] read transposed as K is in S = Q K^T (128-byte swizzle): an N-major [BLOCK_N, 8]
    buffer (no swizzle) faulted on the H200 (v0.53 call 4: illegal address). 64 keys (1 KB, one swizzle atom), one
    block for all consumers (v0.54; v0.53 had one [8, BLOCK_N] block per consumer, written by each); wider P is summed
    in two pieces (``_row_sums_issued``)."""
    ones_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([8, ONES_N], dtype)
    ones_rows = gl.allocate_shared_memory(dtype, [8, ONES_N], ones_layout)
    ones_rows.store(gl.full([8, ONES_N], 1.0, dtype, gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])))
    fence_async_shared()
    return ones_rows.permute((1, 0))


@gluon.jit
def _shared_buffers(Q, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr,
                    SPLIT_KV: gl.constexpr, PINGPONG: gl.constexpr, PERSISTENT: gl.constexpr,
                    OUTPUT_BUFFER: gl.constexpr = False, CONSUMERS: gl.constexpr = 2, Q_BUFFERS: gl.constexpr = 1):
    """A program's shared memory, barriers initialised: (Q's row blocks, one per consumer in each of
    ``Q_BUFFERS`` sets, the K and V rings, q_ready,
    q_empty (PERSISTENT: a consumer hands its Q half back; else q_ready, unused), kv_ready and kv_empty
    (with SPLIT_KV, V's barriers after K's), turn (PINGPONG: consumer h may issue its products; else
    q_ready, unused), the output tiles' two halves (OUTPUT_BUFFER; else Q's buffer, which then stages
    them))."""
    dtype: gl.constexpr = Q.dtype.element_ty
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, HEAD_DIM], dtype)
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    q_smem = gl.allocate_shared_memory(dtype, [Q_BUFFERS * CONSUMERS, ROWS, HEAD_DIM], q_tile_layout)
    k_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_N, HEAD_DIM], kv_tile_layout)
    v_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_N, HEAD_DIM], kv_tile_layout)
    q_ready = gl.allocate_shared_memory(gl.int64, [Q_BUFFERS * CONSUMERS, 1], mbarrier.MBarrierLayout())
    if PERSISTENT:
        q_empty = gl.allocate_shared_memory(gl.int64, [Q_BUFFERS * CONSUMERS, 1], mbarrier.MBarrierLayout())
    else:
        q_empty = q_ready
    KV_BARRIERS: gl.constexpr = 2 * NUM_STAGES if SPLIT_KV else NUM_STAGES
    kv_ready = gl.allocate_shared_memory(gl.int64, [KV_BARRIERS, 1], mbarrier.MBarrierLayout())
    kv_empty = gl.allocate_shared_memory(gl.int64, [KV_BARRIERS, 1], mbarrier.MBarrierLayout())
    for half in gl.static_range(Q_BUFFERS * CONSUMERS):
        mbarrier.init(q_ready.index(half), count=1)
        if PERSISTENT:
            mbarrier.init(q_empty.index(half), count=1)  # the consumer of that half
    for slot in gl.static_range(KV_BARRIERS):
        mbarrier.init(kv_ready.index(slot), count=1)
        mbarrier.init(kv_empty.index(slot), count=CONSUMERS)  # every consumer reads every slot
    if PINGPONG:
        turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        for half in gl.static_range(2):
            mbarrier.init(turn.index(half), count=1)
    else:
        turn = q_ready
    if OUTPUT_BUFFER:
        o_smem = gl.allocate_shared_memory(dtype, [CONSUMERS, ROWS, HEAD_DIM], q_tile_layout)
    else:
        o_smem = q_smem
    return q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, turn, o_smem


@gluon.jit
def attention_forward_gluon_kernel(
    Q, K, V, O, LSE,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_ob, stride_oh, stride_om,
    stride_lb, stride_lh, stride_lm,
    seqlen_q, seqlen_k, kv_group_size, softmax_scale,
    ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, IS_CAUSAL: gl.constexpr,
    NUM_STAGES: gl.constexpr, CONSUMER_REGS: gl.constexpr, LOADER_REGS: gl.constexpr,
    PIPELINED: gl.constexpr = False, SPLIT_KV: gl.constexpr = False, PINGPONG: gl.constexpr = False,
    OUTPUT_FROM_REGISTERS: gl.constexpr = False, HALF_DIAGONAL: gl.constexpr = False,
    WIDE_STORES: gl.constexpr = False,
):
    """O and LSE for the 2 * ROWS query rows of program_id(0) (taken in reverse when causal, heaviest first)
    of head program_id(1), batch program_id(2); LSE (batch, head, row) float32, natural log.
    OUTPUT_FROM_REGISTERS: O stored from registers instead of through Q's buffer and a TMA store. Launched
    with ``maxnreg`` = 80 and CONSUMER_REGS = 104 (d=64, 64-key blocks, plain loop) two programs share a
    multiprocessor, so one's tile boundary (first scores and softmax, last P V product, epilogue) overlaps
    the other's key loop: v0.15, +8-20% over the persistent forms at d=64 N <= 2k on the H200. WIDE_STORES
    (OUTPUT_FROM_REGISTERS): the output stored 16 bytes at a time (``gluon_stores.store_rows_wide``)."""
    block = gl.program_id(0)
    if IS_CAUSAL:
        block = gl.num_programs(0) - 1 - block
    head = gl.program_id(1)
    batch = gl.program_id(2)
    kv_head = head // kv_group_size
    start_m = block * 2 * ROWS
    end_n = _key_end(start_m, seqlen_q, seqlen_k, ROWS, IS_CAUSAL)
    q_smem, k_smem, v_smem, q_ready, _, kv_ready, kv_empty, turn, _ = _shared_buffers(
        Q, ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, SPLIT_KV, PINGPONG, False)

    gl.warp_specialize([
        (_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                     batch, head, start_m, end_n, seqlen_q, seqlen_k, softmax_scale,
                     q_smem, k_smem, v_smem, q_ready, kv_ready, kv_empty,
                     0, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                     PINGPONG, OUTPUT_FROM_REGISTERS, HALF_DIAGONAL, WIDE_STORES)),
        (_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                     batch, head, start_m, end_n, seqlen_q, seqlen_k, softmax_scale,
                     q_smem, k_smem, v_smem, q_ready, kv_ready, kv_empty,
                     1, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                     PINGPONG, OUTPUT_FROM_REGISTERS, HALF_DIAGONAL, WIDE_STORES)),
        (_loader, (Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh,
                   stride_vn, batch, head, kv_head, start_m, end_n, seqlen_q, seqlen_k,
                   q_smem, k_smem, v_smem, q_ready, kv_ready, kv_empty, ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES,
                   SPLIT_KV)),
    ], [4, 1], [CONSUMER_REGS, LOADER_REGS])


@gluon.jit
def attention_forward_gluon_persistent_kernel(
    Q, K, V, O, LSE,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_ob, stride_oh, stride_om,
    stride_lb, stride_lh, stride_lm,
    seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_heads, num_units, schedule,
    ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, IS_CAUSAL: gl.constexpr,
    NUM_STAGES: gl.constexpr, CONSUMER_REGS: gl.constexpr, LOADER_REGS: gl.constexpr,
    PIPELINED: gl.constexpr = False, SPLIT_KV: gl.constexpr = False, PINGPONG: gl.constexpr = False,
    OUTPUT_FROM_REGISTERS: gl.constexpr = False, OUTPUT_BUFFER: gl.constexpr = False, CONSUMERS: gl.constexpr = 2,
    Q_BUFFERS: gl.constexpr = 1, EARLY_Q_RELEASE: gl.constexpr = False,
    HALF_DIAGONAL: gl.constexpr = False, LISTED: gl.constexpr = False, Q_IN_REGISTERS: gl.constexpr = False,
    WIDE_STORES: gl.constexpr = False, tile_clock=None, CLOCK_TILES: gl.constexpr = 0, claims=None,
    DYNAMIC: gl.constexpr = False, CLAIM_FIRST: gl.constexpr = False, CLAIM_AHEAD: gl.constexpr = False,
    partials=None, SPLIT_TAIL: gl.constexpr = False, HOST_DESCRIPTORS: gl.constexpr = 0,
    LIST_READ_BY_CONSUMERS: gl.constexpr = False, boundary_clock=None, BOUNDARY_MARKS: gl.constexpr = False,
    MERGED_MASK: gl.constexpr = 0, OVERLAP_TILES: gl.constexpr = False, PUBLISHED_COORDINATES: gl.constexpr = False,
    ROW_SUM_MMA: gl.constexpr = False,
):
    """``attention_forward_gluon_kernel`` in a persistent grid: each program takes the work units
    ``program_id(0)``, ``+ num_programs(0)``, ... (``num_units`` in all: tiles of CONSUMERS * ROWS query rows of
    one head and batch, or causal pairs of them, ``_tile_coordinates``), so the
    loader fetches a tile's Q and first K/V blocks while the consumers still work on the previous one, and
    a tile's output store overlaps the next tile. Q buffers are handed back through ``q_empty`` once their
    output tile has been stored (or, with OUTPUT_FROM_REGISTERS / OUTPUT_BUFFER, once the key loop ends).
    ``CONSUMERS`` = 3 (FlashAttention-3's 192-row tile at d=64): a third consumer warpgroup, so that while
    two issue products the third's exponentials run; no ping-pong then (its turns are between two). On the
    H200 (v0.14) correct, level with two consumers at N >= 4k and non-causal 1k, 12-26% slower at causal
    1k-2k; not tuned. ``CONSUMERS`` = 4 (v0.52, d=64, 256-row tiles of 64-key blocks: a 64 x 128 score block does not
    fit in the 112-120 registers four consumers get): faster than three at causal 1k-4k, slower non-causal.
    ``Q_BUFFERS`` = 2: two sets of Q buffers, tiles alternating between them, so the
    loader fetches a tile's Q (before its first K/V block) while the consumers compute the previous tile;
    ``EARLY_Q_RELEASE``: Q handed back after the last score product instead of after the key loop. On the
    H200 (v0.15) both correct; two Q sets +0-4% at d=64 (tuned there), the early hand-back -6% to +5%
    (not tuned). ``LISTED`` (causal; DYNAMIC, SPLIT_TAIL): each program takes its entries of ``schedule``, not
    round-robin units, a host-made list (``flashio.schedules``) keeping the pairs, the last two rounds evened out
    (otherwise ``schedule`` is None); ``HALF_DIAGONAL``: see the module note; ``Q_IN_REGISTERS``: Q held in
    registers as the score products' A operand, its buffer handed back as soon as it is loaded
    (``_consumer_tile``; v0.18; on the H200 in v0.19 1-5% slower at d=128, up to 5% faster at d=64, where it
    is tuned); ``WIDE_STORES``: the output stored from registers 16 bytes at a time
    (``gluon_stores.store_rows_wide``); ``CLOCK_TILES`` > 0 (probes only): per-tile timestamps of every
    partition in ``tile_clock`` (``gluon_clock.mark_tile``; off, nothing of it is compiled); ``DYNAMIC``
    (LISTED; v0.39 non-causal too, its list the round-robin's order): one list for all programs; program p takes entry
    p, then its loader claims entry num_programs + c for c from the int32 counters ``claims`` (zero at launch, set
    back to zero by the last program to finish), one tile at a time, so that a program that ran fast takes more
    tiles (v0.36), each claimed tile's id published to the consumers in shared memory (v0.48);
    ``CLAIM_FIRST`` / ``CLAIM_AHEAD`` / ``LIST_READ_BY_CONSUMERS``: probe options of it (``_persistent_loader``);
    ``BOUNDARY_MARKS`` (with CLOCK_TILES, v0.48 probes): the consumers' marks between tiles (``_persistent_consumer``).
    ``MERGED_MASK`` (pipelined, v0.49): masked and unmasked key blocks through one copy of the step, the mask under a
    branch (1) or computed in every block (2) (``_key_loop_pipelined``). ``OVERLAP_TILES`` (DYNAMIC, v0.50): each tile's
    output stored while the next tile's first score product runs (``_overlapped_consumer``). ``PUBLISHED_COORDINATES``
    (DYNAMIC, v0.51): the loader publishes each claimed tile's (block, head, batch) packed in an int64
    (``_packed_coordinates``) instead of its id, so that the consumers do not divide between tiles. ``ROW_SUM_MMA``
    (pipelined, no turns; v0.53, with the half diagonal v0.54): each consumer's l is P times the program's block of
    ones on the tensor cores, issued beside the P V product and rescaled with O (``_pipelined_step``), not summed on
    the CUDA cores; on the H200 +7% at d=64 causal 1k (its tenth candidate), 3-12% slower at d=128 (v0.54 probe run 67:
    there the m64n8 products take tensor-core time the additions did not).
    ``SPLIT_TAIL`` (LISTED, non-causal; v0.38): ``schedule`` is ``flashio.schedules.split_tail_forward_schedule``'s,
    whose last round's tiles are cut along their key blocks into one run per program; a piece of a split tile
    leaves its O (divided by its own softmax sum) and LSE in its slot of the float32 buffer ``partials``, merged
    after the kernel (``kernels/forward.py``'s ``split_tail_combine_kernel``). ``HOST_DESCRIPTORS`` (v0.46): 1, Q is a
    tensor descriptor the launcher made on the host over the whole (batch, head, row, column) tensor
    (``launchers.host_descriptor``, boxes of a consumer's ROWS rows); 3, Q, K and V are (K and V in BLOCK_N-row boxes),
    so the loader writes no descriptor and waits for no earlier load at a tile's start (``_load_tile``; on the H200
    +7-12% at causal 1k, forward probe run 52)."""
    gl.static_assert(Q_BUFFERS == 1 or Q_BUFFERS == 2, "one or two sets of Q buffers")
    gl.static_assert(CONSUMERS >= 2 and CONSUMERS <= 4, "two, three or four consumer warpgroups")
    gl.static_assert(CONSUMERS == 2 or not PINGPONG, "ping-pong turns are taken between two consumers")
    gl.static_assert(HOST_DESCRIPTORS == 0 or HOST_DESCRIPTORS == 1 or HOST_DESCRIPTORS == 3,
                     "host descriptors: none, Q's, or Q's, K's and V's")
    # O for the element type: with HOST_DESCRIPTORS, Q is a descriptor (the same element type).
    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty, turn, o_smem = _shared_buffers(
        O, ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, SPLIT_KV, PINGPONG, True, OUTPUT_BUFFER, CONSUMERS, Q_BUFFERS)
    if DYNAMIC:
        gl.static_assert(LISTED, "a dynamic tile list is a form of the listed persistent forward")
        # The claimed entries, in 2 * Q_BUFFERS slots used in turn. The loader publishes tile t's entry once it has
        # issued tile t - 1's loads, for which it waited for the consumers to hand back tile t - 1 - Q_BUFFERS's Q
        # (they read that tile's entry before): the entries of up to Q_BUFFERS tiles may still be unread, so a slot
        # must come round no sooner than Q_BUFFERS + 1 tiles later. (v0.36 call 7: two slots with two Q sets, d=64,
        # let the loader overwrite an unread entry; the check's d=64 causal 1k case hung.)
        ids = gl.allocate_shared_memory(gl.int64 if PUBLISHED_COORDINATES else gl.int32, [2 * Q_BUFFERS, 1],
                                        gl.SwizzledSharedLayout(1, 1, 1, order=[0]))
    else:
        gl.static_assert(not PUBLISHED_COORDINATES, "coordinates are published with a dynamic tile list")
        ids = q_ready  # unused (as ``turn`` without PINGPONG): a partition argument cannot be None
    if SPLIT_TAIL:
        gl.static_assert(LISTED and not IS_CAUSAL and not DYNAMIC, "a split tail is a non-causal tile list")
    # Q back at the end of the key loop, before the epilogue: a K/V block goes first. With two sets of Q
    # buffers the next tile's Q goes first (its buffers were freed a tile earlier).
    KV_FIRST: gl.constexpr = (OUTPUT_FROM_REGISTERS or OUTPUT_BUFFER) and Q_BUFFERS == 1
    ones = q_smem  # a partition argument cannot be None: unused without ROW_SUM_MMA
    if ROW_SUM_MMA:
        ones = _block_of_ones(q_smem.dtype)

    # The partitions' argument lists are written out in full: Gluon 3.6 passes a tuple built in the kernel
    # to a partition as run-time values, and the constexprs in it would stop being constexprs.
    if CONSUMERS == 4:
        gl.warp_specialize([
            (_persistent_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                    seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                    0, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS,
                                    EARLY_Q_RELEASE, HALF_DIAGONAL, schedule, LISTED,
                                    Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, ids, DYNAMIC,
                                    partials, SPLIT_TAIL, LIST_READ_BY_CONSUMERS, boundary_clock,
                                    BOUNDARY_MARKS, MERGED_MASK, OVERLAP_TILES, PUBLISHED_COORDINATES,
                                    ROW_SUM_MMA, ones)),
            (_persistent_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                    seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                    1, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS,
                                    EARLY_Q_RELEASE, HALF_DIAGONAL, schedule, LISTED,
                                    Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, ids, DYNAMIC,
                                    partials, SPLIT_TAIL, LIST_READ_BY_CONSUMERS, boundary_clock,
                                    BOUNDARY_MARKS, MERGED_MASK, OVERLAP_TILES, PUBLISHED_COORDINATES,
                                    ROW_SUM_MMA, ones)),
            (_persistent_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                    seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                    2, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS,
                                    EARLY_Q_RELEASE, HALF_DIAGONAL, schedule, LISTED,
                                    Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, ids, DYNAMIC,
                                    partials, SPLIT_TAIL, LIST_READ_BY_CONSUMERS, boundary_clock,
                                    BOUNDARY_MARKS, MERGED_MASK, OVERLAP_TILES, PUBLISHED_COORDINATES,
                                    ROW_SUM_MMA, ones)),
            (_persistent_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                    seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                    3, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS,
                                    EARLY_Q_RELEASE, HALF_DIAGONAL, schedule, LISTED,
                                    Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, ids, DYNAMIC,
                                    partials, SPLIT_TAIL, LIST_READ_BY_CONSUMERS, boundary_clock,
                                    BOUNDARY_MARKS, MERGED_MASK, OVERLAP_TILES, PUBLISHED_COORDINATES,
                                    ROW_SUM_MMA, ones)),
            (_persistent_loader, (Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                                  stride_vb, stride_vh, stride_vn, seqlen_q, seqlen_k, kv_group_size, num_heads,
                                  num_units, q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                  ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, IS_CAUSAL, SPLIT_KV, KV_FIRST, CONSUMERS,
                                  Q_BUFFERS, schedule, LISTED, tile_clock, CLOCK_TILES, claims, ids, DYNAMIC,
                                  CLAIM_FIRST, CLAIM_AHEAD, SPLIT_TAIL, HOST_DESCRIPTORS,
                                  LIST_READ_BY_CONSUMERS, PUBLISHED_COORDINATES)),
        ], [4, 4, 4, 1], [CONSUMER_REGS, CONSUMER_REGS, CONSUMER_REGS, LOADER_REGS])
    elif CONSUMERS == 3:
        gl.warp_specialize([
            (_persistent_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                    seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                    0, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS,
                                    EARLY_Q_RELEASE, HALF_DIAGONAL, schedule, LISTED,
                                    Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, ids, DYNAMIC,
                                    partials, SPLIT_TAIL, LIST_READ_BY_CONSUMERS, boundary_clock,
                                    BOUNDARY_MARKS, MERGED_MASK, OVERLAP_TILES, PUBLISHED_COORDINATES,
                                    ROW_SUM_MMA, ones)),
            (_persistent_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                    seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                    1, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS,
                                    EARLY_Q_RELEASE, HALF_DIAGONAL, schedule, LISTED,
                                    Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, ids, DYNAMIC,
                                    partials, SPLIT_TAIL, LIST_READ_BY_CONSUMERS, boundary_clock,
                                    BOUNDARY_MARKS, MERGED_MASK, OVERLAP_TILES, PUBLISHED_COORDINATES,
                                    ROW_SUM_MMA, ones)),
            (_persistent_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                    seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                    2, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS,
                                    EARLY_Q_RELEASE, HALF_DIAGONAL, schedule, LISTED,
                                    Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, ids, DYNAMIC,
                                    partials, SPLIT_TAIL, LIST_READ_BY_CONSUMERS, boundary_clock,
                                    BOUNDARY_MARKS, MERGED_MASK, OVERLAP_TILES, PUBLISHED_COORDINATES,
                                    ROW_SUM_MMA, ones)),
            (_persistent_loader, (Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                                  stride_vb, stride_vh, stride_vn, seqlen_q, seqlen_k, kv_group_size, num_heads,
                                  num_units, q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                  ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, IS_CAUSAL, SPLIT_KV, KV_FIRST, CONSUMERS,
                                  Q_BUFFERS, schedule, LISTED, tile_clock, CLOCK_TILES, claims, ids, DYNAMIC,
                                  CLAIM_FIRST, CLAIM_AHEAD, SPLIT_TAIL, HOST_DESCRIPTORS,
                                  LIST_READ_BY_CONSUMERS, PUBLISHED_COORDINATES)),
        ], [4, 4, 1], [CONSUMER_REGS, CONSUMER_REGS, LOADER_REGS])
    else:
        gl.warp_specialize([
            (_persistent_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                    seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                    0, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS,
                                    EARLY_Q_RELEASE, HALF_DIAGONAL, schedule, LISTED,
                                    Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, ids, DYNAMIC,
                                    partials, SPLIT_TAIL, LIST_READ_BY_CONSUMERS, boundary_clock,
                                    BOUNDARY_MARKS, MERGED_MASK, OVERLAP_TILES, PUBLISHED_COORDINATES,
                                    ROW_SUM_MMA, ones)),
            (_persistent_consumer, (O, LSE, stride_ob, stride_oh, stride_om, stride_lb, stride_lh, stride_lm,
                                    seqlen_q, seqlen_k, num_heads, num_units, softmax_scale,
                                    q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                    1, ROWS, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, PIPELINED, SPLIT_KV, turn,
                                    PINGPONG, OUTPUT_FROM_REGISTERS, OUTPUT_BUFFER, o_smem, CONSUMERS, Q_BUFFERS,
                                    EARLY_Q_RELEASE, HALF_DIAGONAL, schedule, LISTED,
                                    Q_IN_REGISTERS, WIDE_STORES, tile_clock, CLOCK_TILES, ids, DYNAMIC,
                                    partials, SPLIT_TAIL, LIST_READ_BY_CONSUMERS, boundary_clock,
                                    BOUNDARY_MARKS, MERGED_MASK, OVERLAP_TILES, PUBLISHED_COORDINATES,
                                    ROW_SUM_MMA, ones)),
            (_persistent_loader, (Q, K, V, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                                  stride_vb, stride_vh, stride_vn, seqlen_q, seqlen_k, kv_group_size, num_heads,
                                  num_units, q_smem, k_smem, v_smem, q_ready, q_empty, kv_ready, kv_empty,
                                  ROWS, BLOCK_N, HEAD_DIM, NUM_STAGES, IS_CAUSAL, SPLIT_KV, KV_FIRST, CONSUMERS,
                                  Q_BUFFERS, schedule, LISTED, tile_clock, CLOCK_TILES, claims, ids, DYNAMIC,
                                  CLAIM_FIRST, CLAIM_AHEAD, SPLIT_TAIL, HOST_DESCRIPTORS,
                                  LIST_READ_BY_CONSUMERS, PUBLISHED_COORDINATES)),
        ], [4, 1], [CONSUMER_REGS, LOADER_REGS])
