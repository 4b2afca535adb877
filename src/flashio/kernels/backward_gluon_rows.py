"""The persistent fused five-product backward with the key rows of a block split between two MMA
warpgroups that synchronise only through mbarriers, for Hopper (d=128); only ``@gluon.jit`` code here.

Why a third structure (``backward_gluon.py`` runs its 8 MMA warps as one partition): there, each query
block has two barriers over all 8 warps, and removing the second (two dS^T tiles, ``DS_BUFFERS``) hands a
block's Q/dO slot and dQ tile back one block late, because an mbarrier arrival of a multi-warp partition
comes from one of its threads after a barrier over the whole partition. v0.19 measured that at d=64 with a
third Q/dO slot (+3-10%), but at d=128 the third slot does not fit beside two dS^T and two dQ tiles, and
with one dQ tile the late hand-back of the dQ tile costs more than the barrier (-2% to -5%). Here each
warpgroup is a partition of its own (FlashAttention-3's backward: one warpgroup per 64 key rows), so each
hands back what it has finished when it has finished it:

- warpgroup w (w = 0, 1; ``ROW0`` = 64 w) owns key rows [start_n + 64 w, +64) of K_j, V_j: per query block
  it computes S^T, dP^T, P^T and dS^T of its rows (``_probabilities_and_score_gradients``), issues its
  dV and dK products at once (P^T and dS^T in registers), stores its half of dS^T into one of two dS^T
  tiles and arrives at ``ds_ready`` (count 2);
- once both halves are in (``ds_ready``), it computes its half of the dQ columns, dQ_i[:, 64 w : +64] =
  tau dS_ij K_j[:, 64 w : +64] (both halves of dS^T, read transposed from shared memory), writes it into
  the float32 dQ tile and arrives at ``dq_ready`` (count 2, the reducer warp reduce-adds the whole tile),
  and ``empty`` (count 2: the Q/dO slot) — no wait for the other warpgroup's dV/dK products. The dS^T tile
  needs no barrier of its own: a warpgroup rewrites tile i % 2 at block i + 2 only after the exchange of
  block i + 1, for which the other warpgroup stored its half after finishing block i (each warpgroup runs
  its blocks in order; benchmarks/experiments/fused_backward_rows/protocol_model.py checks the protocol
  under random interleavings);
- the loader warp and the dQ reducer warp are the persistent specialised kernel's
  (``_persistent_fused_ws_loader``, ``_persistent_fused_ws_dq_reducer``), unchanged: their barriers simply
  count two arrivals now; K_j, V_j are handed back per tile (``kv_empty``, count 2).

The only cross-warpgroup wait left is the dS^T exchange that the dQ product needs. Each warpgroup thread
gets MMA_REGS registers (``setmaxnreg``; 2 x 128 x 240 + 128 x 24 of the 65536), against 168 for the
8-warp partition. Shared memory at d=128, 64x128 tiles, two Q/dO slots: K, V 64 KB, Q/dO 64 KB, dS^T 2 x 16
KB, dQ 2 x 32 KB, LSE/D rows 1 KB. LSE/D rows always come through shared memory (``STATS_IN_SMEM``). Gluon
has no interpreter: on a CPU this file is only compiled (tests/bench/test_resources.py); its numerics are
checked on the GPU by ``python -m flashio.check``.

Measured on the H200 (v0.20, benchmarks/PERFORMANCE.md): correct on its first run (forced check path, 10 of
10), but level or slower than the 8-warp partition's tuned forms at every point probed — d=128 0 to -3%,
d=64 -1% to -8% — with 12% more instructions and many more local-memory requests (339 k against 11 k at d=128
causal 1k) and about the same cycles between a warp's issues; so it is not a tuning candidate. Since then
(v0.20 review) its key-block decoding comes from the helpers it shared with the alternating kernel (removed in
v0.21): the causal compile is unchanged, the non-causal one orders 34 of its 3407 prologue instructions
differently (same registers, stack and MMAs).
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, warpgroup_mma,
                                                              warpgroup_mma_wait)

from flashio.kernels.backward_gluon import (_entry_block, _mma_tile_start, _persistent_fused_ws_dq_reducer,
                                            _persistent_fused_ws_loader, _probabilities_and_score_gradients,
                                            _program_entries, _query_blocks, _store_key_gradients)


@gluon.jit
def _rows_mma_tile(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks,
                   seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                   k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, lse_smem, delta_smem,
                   kv_ready, ready, empty, ds_ready, dq_ready, dq_empty, it, kv_phase,
                   ROW0: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                   IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, DQ_BUFFERS: gl.constexpr,
                   KV_IN_REGISTERS: gl.constexpr):
    """One warpgroup's work on one key block's tile: its BLOCK_N / 2 key rows from ROW0 on, every query block
    of every query head of the group, ring positions from ``it`` on (with KV_IN_REGISTERS its rows of K_j and
    V_j loaded once into registers as the score products' A operands). Returns its float32 (dK / tau, dV)
    rows and ``it`` advanced."""
    ROWS: gl.constexpr = BLOCK_N // 2
    DQ_COLS: gl.constexpr = HEAD_DIM // 2
    COL0: gl.constexpr = ROW0 // ROWS * DQ_COLS  # warpgroup 0: dQ columns [0, d/2); 1: [d/2, d)
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BLOCK_M, 16])
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    dq_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, DQ_COLS, 16])
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout, k_width=2)

    # This warpgroup's ROWS key rows as a tile of their own (first_row: causal, query i sees key j iff
    # i >= j - (seqlen_k - seqlen_q)).
    qk_scale, first_row, query_cols, dk, dv, zero_s, zero_dq, k_rows, v_rows = _mma_tile_start(
        start_n + ROW0, seqlen_q, seqlen_k, softmax_scale, k_smem.slice(ROW0, ROWS, dim=0),
        v_smem.slice(ROW0, ROWS, dim=0), kv_ready, kv_phase, s_layout, kv_layout, dq_layout, BLOCK_M, ROWS,
        HEAD_DIM, DQ_COLS, KV_IN_REGISTERS)
    k_cols = k_smem.slice(COL0, DQ_COLS, dim=1)
    for group_index in range(kv_group_size):
        head = kv_head * kv_group_size + group_index
        lse_head = LSE + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        delta_head = DELTA + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        for block in range(num_blocks):
            stage = it % NUM_STAGES
            q_buf = q_smem.index(stage)
            do_buf = do_smem.index(stage)
            mbarrier.wait(ready.index(stage), (it // NUM_STAGES) & 1)
            p_lo, ds_lo = _probabilities_and_score_gradients(
                k_rows, v_rows, q_buf, do_buf, zero_s, lse_head, delta_head, stride_lm, lo + block * BLOCK_M,
                query_cols, seqlen_q, first_row, qk_scale, IS_CAUSAL, lse_smem.index(stage), delta_smem.index(stage),
                True)
            # This warpgroup's dV and dK products need nothing of the other's: issued before the exchange.
            dv = warpgroup_mma(gl.convert_layout(p_lo, lhs_layout), do_buf, dv, is_async=True)
            dk = warpgroup_mma(gl.convert_layout(ds_lo, lhs_layout), q_buf, dk, is_async=True)
            ds_slot = it % 2
            ds_tile = ds_smem.index(ds_slot)
            # The other warpgroup's dQ product of two blocks ago, which read this tile, is done: it stored its
            # half of the last block's dS^T (this warpgroup waited for that) only after finishing that product.
            ds_tile.slice(ROW0, ROWS, dim=0).store(ds_lo)
            fence_async_shared()
            gl.thread_barrier()  # this warpgroup's four warps have stored their rows
            mbarrier.arrive(ds_ready.index(ds_slot))
            mbarrier.wait(ds_ready.index(ds_slot), (it // 2) & 1)  # and the other warpgroup its half
            dq = warpgroup_mma(ds_tile.permute((1, 0)), k_cols, zero_dq, use_acc=False, is_async=True)
            dv, dk, dq = warpgroup_mma_wait(num_outstanding=0, deps=[dv, dk, dq])
            buf = it % DQ_BUFFERS
            mbarrier.wait(dq_empty.index(buf), ((it // DQ_BUFFERS) & 1) ^ 1)
            dq_smem.index(buf).slice(COL0, DQ_COLS, dim=1).store(dq * softmax_scale)
            fence_async_shared()
            gl.thread_barrier()  # every warp of this warpgroup is past its products and its dQ stores
            mbarrier.arrive(dq_ready.index(buf))
            mbarrier.arrive(empty.index(stage))
            it += 1
    return dk, dv, it


@gluon.jit
def _rows_mma_partition(LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm,
                        stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                        seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_kv_heads, num_units,
                        k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, lse_smem, delta_smem,
                        kv_ready, kv_empty, ready, empty, ds_ready, dq_ready, dq_empty,
                        ROW0: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                        IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, DQ_BUFFERS: gl.constexpr,
                        KV_IN_REGISTERS: gl.constexpr, schedule=None, LISTED: gl.constexpr = False):
    """One MMA warpgroup of the persistent grid: its key rows of every key block of this program's units
    (LISTED: of its entries in ``schedule``), in the loader's order; after a block's last product it hands
    K_j, V_j back (``kv_empty``, one of two arrivals) and stores its rows of dK and dV."""
    ROWS: gl.constexpr = BLOCK_N // 2
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    num_key_blocks = gl.cdiv(seqlen_k, BLOCK_N)
    it = num_key_blocks * 0
    tile_iter = num_key_blocks * 0
    # One loop over this program's key blocks, listed or round-robin: the loader and reducer walk the same
    # blocks in the same order.
    first_entry, num_entries = _program_entries(schedule, num_units, LISTED)
    for entry in range(num_entries):
        key_block, kv_head, batch, present = _entry_block(schedule, first_entry, entry, num_key_blocks, num_kv_heads,
                                                          LISTED)
        if present:
            start_n = key_block * BLOCK_N
            lo, num_blocks = _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
            dk, dv, it = _rows_mma_tile(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo,
                                        num_blocks, seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                                        k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, lse_smem, delta_smem,
                                        kv_ready, ready, empty, ds_ready, dq_ready, dq_empty, it,
                                        tile_iter & 1, ROW0, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES,
                                        DQ_BUFFERS, KV_IN_REGISTERS)
            gl.thread_barrier()  # every warp of this warpgroup is past its reads of K_j, V_j
            mbarrier.arrive(kv_empty)
            _store_key_gradients(DK, DV, stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                                 batch, kv_head, start_n + ROW0, seqlen_k, softmax_scale, dk, dv, ROWS, HEAD_DIM,
                                 kv_layout)
            tile_iter += 1


@gluon.jit
def attention_backward_fused_rows_kernel(
    Q, K, V, DO, LSE, DELTA, DK, DV, DQ_ACC,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_dob, stride_doh, stride_dom,
    stride_lb, stride_lh, stride_lm,
    stride_dkb, stride_dkh, stride_dkn,
    stride_dvb, stride_dvh, stride_dvn,
    stride_dqb, stride_dqh, stride_dqm,
    seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_kv_heads, num_units, schedule,
    BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, IS_CAUSAL: gl.constexpr,
    NUM_STAGES: gl.constexpr, DQ_BUFFERS: gl.constexpr, MMA_REGS: gl.constexpr, WORKER_REGS: gl.constexpr,
    KV_IN_REGISTERS: gl.constexpr = False, LISTED: gl.constexpr = False,
):
    """dK, dV and the dQ contributions of every key block, in a persistent grid of one program per
    multiprocessor (same arguments and grid as ``attention_backward_fused_ws_persistent_kernel``; ``LISTED``
    and ``schedule`` as there). Launch with num_warps=4 (the first MMA warpgroup, rows [0, BLOCK_N / 2) of
    each key block); the second MMA warpgroup (4 warps), the loader warp and the dQ reducer warp are added.
    BLOCK_N = 128 (64 key rows per warpgroup), dQ in two column halves, LSE/D rows through shared memory;
    KV_IN_REGISTERS as in the specialised kernels (each warpgroup holds its 64 rows of K_j and V_j)."""
    dtype: gl.constexpr = Q.dtype.element_ty
    gl.static_assert(BLOCK_N == 128, "two warpgroups of 64 key rows")
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], dtype)
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    ds_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_M], dtype)
    dq_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], gl.float32)
    stats_layout: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, order=[0])
    k_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
    v_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
    q_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    do_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    ds_smem = gl.allocate_shared_memory(dtype, [2, BLOCK_N, BLOCK_M], ds_tile_layout)
    dq_smem = gl.allocate_shared_memory(gl.float32, [DQ_BUFFERS, BLOCK_M, HEAD_DIM], dq_tile_layout)
    lse_smem = gl.allocate_shared_memory(gl.float32, [NUM_STAGES, BLOCK_M], stats_layout)
    delta_smem = gl.allocate_shared_memory(gl.float32, [NUM_STAGES, BLOCK_M], stats_layout)
    kv_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    kv_empty = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    ds_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    dq_ready = gl.allocate_shared_memory(gl.int64, [DQ_BUFFERS, 1], mbarrier.MBarrierLayout())
    dq_empty = gl.allocate_shared_memory(gl.int64, [DQ_BUFFERS, 1], mbarrier.MBarrierLayout())
    # Arrivals: the loader's (and the copy engine's bytes) on the ready barriers, the reducer's on dq_empty,
    # both MMA warpgroups' on the rest.
    mbarrier.init(kv_ready, count=1)
    mbarrier.init(kv_empty, count=2)
    for slot in gl.static_range(NUM_STAGES):
        mbarrier.init(ready.index(slot), count=1)
        mbarrier.init(empty.index(slot), count=2)
    for slot in gl.static_range(2):
        mbarrier.init(ds_ready.index(slot), count=2)
    for buf in gl.static_range(DQ_BUFFERS):
        mbarrier.init(dq_ready.index(buf), count=2)
        mbarrier.init(dq_empty.index(buf), count=1)

    # The two MMA partitions' argument tuples differ only in ROW0; they are written out because Gluon 3.6 will
    # not concatenate a tuple holding ``schedule`` when it is None (the round-robin launch).
    gl.warp_specialize([
        (_rows_mma_partition, (
            LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm,
            stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
            seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_kv_heads, num_units,
            k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, lse_smem, delta_smem,
            kv_ready, kv_empty, ready, empty, ds_ready, dq_ready, dq_empty,
            0, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, DQ_BUFFERS, KV_IN_REGISTERS, schedule, LISTED)),
        (_rows_mma_partition, (
            LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm,
            stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
            seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_kv_heads, num_units,
            k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, lse_smem, delta_smem,
            kv_ready, kv_empty, ready, empty, ds_ready, dq_ready, dq_empty,
            BLOCK_N // 2, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, DQ_BUFFERS, KV_IN_REGISTERS, schedule,
            LISTED)),
        (_persistent_fused_ws_loader, (
            Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
            stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
            seqlen_q, seqlen_k, kv_group_size, num_kv_heads, num_units,
            k_smem, v_smem, q_smem, do_smem, kv_ready, kv_empty, ready, empty,
            BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, IS_CAUSAL,
            LSE, DELTA, stride_lb, stride_lh, stride_lm, lse_smem, delta_smem, True, schedule, LISTED)),
        (_persistent_fused_ws_dq_reducer, (
            DQ_ACC, stride_dqb, stride_dqh, stride_dqm, seqlen_q, seqlen_k, kv_group_size, num_kv_heads, num_units,
            dq_smem, dq_ready, dq_empty, BLOCK_M, BLOCK_N, HEAD_DIM, DQ_BUFFERS, IS_CAUSAL, schedule, LISTED)),
    ], [4, 1, 1], [MMA_REGS, WORKER_REGS, WORKER_REGS])
