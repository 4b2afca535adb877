"""The persistent fused five-product backward with the query blocks of a key block alternating between two
MMA warpgroups that never wait for each other inside the block loop, for Hopper; only ``@gluon.jit`` code
here.

Why a fourth structure: Nsight Compute (v0.20, benchmarks/experiments/backward_limiter/ncu_profile.py run 7)
puts the other fused backwards' warps 15 cycles apart between issues at d=128 1k against cuDNN's 7.4-8, with
the same 12 warps, registers and shared memory: a query block's chain (score products, exponentials, dS^T,
the dV/dK/dQ products) runs on both MMA warpgroups at once, so both wait on the same steps at the same time.
Removing the 8-warp barrier alone (``backward_gluon_rows.py``: the key rows on two partitions, still
exchanging dS^T halves every block) did not help. cuDNN's d=128 kernel is named for 64x64 tiles. Here both
warpgroups own all BLOCK_N = 64 key rows of the block, and the query blocks go to them in turn (ring
position ``it``: warpgroup ``it % 2``), as FlashAttention-3's forward runs its two consumers on different
query tiles, so one warpgroup's exponentials run while the other's products occupy the tensor cores:

- warpgroup w holds float32 dK and dV partial sums for the block's 64 key rows (64 + 64 registers per thread
  at d=128) over its query blocks; for each it computes S^T, dP^T, P^T and dS^T
  (``_probabilities_and_score_gradients``), issues dV += P^T dO and dK += dS^T Q (P^T and dS^T from
  registers), stores dS^T into its own shared tile and computes dQ_i = tau dS_i K_j (``DQ_PIECES`` column
  pieces, fewer registers live at once) into its own float32 dQ tile (``dq_smem`` index w: ring position
  ``it`` uses buffer ``it % 2``, the order the reducer warp drains them in), then hands the tile to the
  reducer (``dq_ready``) and its Q/dO slot back (``empty``): one arrival each, its own;
- after a key block's last query block both hand K_j, V_j back (``kv_empty``, two arrivals) and warpgroup 1
  passes its dV and then its dK partial sums to warpgroup 0 through its own dQ tile (``xchg_full`` /
  ``xchg_empty``, two handshakes per key block, so their waits' parities are always 0 then 1); warpgroup 0
  adds them and stores dK_j, dV_j;
- the loader warp and the dQ reducer warp are the persistent specialised kernel's
  (``_persistent_fused_ws_loader``, ``_persistent_fused_ws_dq_reducer``), unchanged.

The warpgroups meet once per key block (the exchange), not per query block. Each MMA thread gets MMA_REGS
registers (``setmaxnreg``): dK and dV take 128 of them at d=128, S^T and dP^T 32 each, so the dQ product goes
in two 64-column pieces there (``DQ_PIECES`` = 2; in one, ptxas lacks registers for the MMA pipeline and
serialises every warpgroup MMA, its warning C7512). Shared memory at d=128, 64x64 tiles, three Q/dO slots: K, V
32 KB, Q/dO 96 KB, dS^T 2 x 8 KB, dQ 2 x 32 KB, LSE/D rows 1.5 KB (211 KB; four slots do not fit); at d=64
115 KB. LSE/D rows always come through shared memory. Gluon has no interpreter: on a CPU this file is only
compiled (tests/bench/test_resources.py) and its barrier protocol modelled
(benchmarks/experiments/fused_backward_alternating/protocol_model.py); its numerics are checked on the GPU by
``python -m flashio.check``. Prepared in v0.20, not yet run on a GPU.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, warpgroup_mma,
                                                              warpgroup_mma_wait)

from flashio.kernels.backward_gluon import (_entry_block, _persistent_fused_ws_dq_reducer,
                                            _persistent_fused_ws_loader, _probabilities_and_score_gradients,
                                            _program_entries, _query_blocks, _score_operands_in_registers,
                                            _store_key_gradients)


@gluon.jit
def _alternate_query_block(lse_head, delta_head, stride_lm, start_m, query_cols, seqlen_q, first_row, qk_scale,
                           softmax_scale, k_operand, v_operand, k_smem, q_smem, do_smem, ds_tile, dq_tile, lse_smem,
                           delta_smem,
                           ready, empty, dq_ready, dq_empty, position, dk, dv, zero_s,
                           BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                           IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, DQ_PIECES: gl.constexpr):
    """One query block of this warpgroup (ring position ``position``): the five products (the score products'
    A operands K_j, V_j from shared memory or registers), dQ into this warpgroup's dQ tile; returns (dK / tau,
    dV) partial sums."""
    DQ_COLS: gl.constexpr = HEAD_DIM // DQ_PIECES
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    dq_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, DQ_COLS, 16])
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout, k_width=2)
    stage = position % NUM_STAGES
    q_buf = q_smem.index(stage)
    do_buf = do_smem.index(stage)
    mbarrier.wait(ready.index(stage), (position // NUM_STAGES) & 1)
    p_t, ds_t = _probabilities_and_score_gradients(
        k_operand, v_operand, q_buf, do_buf, zero_s, lse_head, delta_head, stride_lm, start_m, query_cols, seqlen_q,
        first_row, qk_scale, IS_CAUSAL, lse_smem.index(stage), delta_smem.index(stage), True)
    dv = warpgroup_mma(gl.convert_layout(p_t, lhs_layout), do_buf, dv, is_async=True)
    dk = warpgroup_mma(gl.convert_layout(ds_t, lhs_layout), q_buf, dk, is_async=True)
    # This warpgroup's last dQ product, which read ds_tile, was waited for at the end of its previous block.
    ds_tile.store(ds_t)
    fence_async_shared()
    gl.thread_barrier()  # the four warps' rows of dS^T are stored before any of them reads the tile
    # The reducer drained this warpgroup's dQ tile of two ring positions ago (and, for warpgroup 1, warpgroup 0
    # read the last key block's exchange out of it: waited for at the end of the exchange).
    mbarrier.wait(dq_empty, ((position // 2) & 1) ^ 1)
    for piece in gl.static_range(DQ_PIECES):
        zero_dq = gl.zeros([BLOCK_M, DQ_COLS], gl.float32, dq_layout)
        dq = warpgroup_mma(ds_tile.permute((1, 0)), k_smem.slice(piece * DQ_COLS, DQ_COLS, dim=1), zero_dq,
                           use_acc=False, is_async=True)
        dq = warpgroup_mma_wait(num_outstanding=0, deps=[dq])  # (the first piece's wait also ends dV, dK)
        dq_tile.slice(piece * DQ_COLS, DQ_COLS, dim=1).store(dq * softmax_scale)
    dv, dk = warpgroup_mma_wait(num_outstanding=0, deps=[dv, dk])
    fence_async_shared()
    gl.thread_barrier()  # every warp is past its products (Q/dO slot, dS^T) and its dQ stores
    mbarrier.arrive(dq_ready)
    mbarrier.arrive(empty.index(stage))
    return dk, dv


@gluon.jit
def _alternate_mma_tile(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks,
                        seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                        k_smem, v_smem, q_smem, do_smem, ds_tile, dq_tile, lse_smem, delta_smem,
                        kv_ready, ready, empty, dq_ready, dq_empty, it, kv_phase,
                        WARPGROUP: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                        HEAD_DIM: gl.constexpr, IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr,
                        DQ_PIECES: gl.constexpr, KV_IN_REGISTERS: gl.constexpr):
    """One warpgroup's share of one key block's tile: the query blocks at its ring positions (``it`` on, every
    second one from the first with ``position % 2 == WARPGROUP``) of every query head of the group (with
    KV_IN_REGISTERS, K_j and V_j loaded once into registers as the score products' A operands). Returns its
    float32 (dK / tau, dV) partial sums and ``it`` advanced past the tile's positions."""
    LOG2E: gl.constexpr = 1.4426950408889634
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BLOCK_M, 16])
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    qk_scale = softmax_scale * LOG2E
    key_rows = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, s_layout))
    first_row = key_rows - (seqlen_k - seqlen_q)  # causal: query i sees key j iff i >= j - shift
    query_cols = gl.arange(0, BLOCK_M, layout=gl.SliceLayout(0, s_layout))
    dk = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    dv = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    zero_s = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, s_layout)
    mbarrier.wait(kv_ready, kv_phase)
    k_operand = k_smem
    v_operand = v_smem
    if KV_IN_REGISTERS:
        k_operand, v_operand = _score_operands_in_registers(k_smem, v_smem, s_layout)
    for group_index in range(kv_group_size):
        head = kv_head * kv_group_size + group_index
        lse_head = LSE + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        delta_head = DELTA + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        first = (it + WARPGROUP) % 2  # the first block of this head at one of this warpgroup's positions
        for block in range(first, num_blocks, 2):
            dk, dv = _alternate_query_block(lse_head, delta_head, stride_lm, lo + block * BLOCK_M, query_cols,
                                            seqlen_q, first_row, qk_scale, softmax_scale, k_operand, v_operand,
                                            k_smem, q_smem, do_smem, ds_tile, dq_tile, lse_smem, delta_smem, ready,
                                            empty, dq_ready, dq_empty, it + block, dk, dv, zero_s, BLOCK_M, BLOCK_N,
                                            HEAD_DIM, IS_CAUSAL, NUM_STAGES, DQ_PIECES)
        it += num_blocks
    return dk, dv, it


@gluon.jit
def _alternate_mma_partition(LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm,
                             stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                             seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_kv_heads, num_units,
                             k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, lse_smem, delta_smem,
                             kv_ready, kv_empty, ready, empty, dq_ready, dq_empty, xchg_full, xchg_empty,
                             WARPGROUP: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                             HEAD_DIM: gl.constexpr, IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr,
                             DQ_PIECES: gl.constexpr, KV_IN_REGISTERS: gl.constexpr, schedule=None,
                             LISTED: gl.constexpr = False):
    """One MMA warpgroup of the persistent grid: its query blocks of every key block of this program's units
    (LISTED: of its entries in ``schedule``), in the loader's order; after a key block's last product it hands
    K_j, V_j back (``kv_empty``, one of two arrivals), then the dK/dV exchange: warpgroup 1 passes its partial
    sums through its dQ tile, warpgroup 0 adds them and stores dK_j, dV_j."""
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    ds_tile = ds_smem.index(WARPGROUP)
    dq_tile = dq_smem.index(WARPGROUP)
    num_key_blocks = gl.cdiv(seqlen_k, BLOCK_N)
    it = num_key_blocks * 0
    tile_iter = num_key_blocks * 0
    first_entry, num_entries = _program_entries(schedule, num_units, LISTED)
    for entry in range(num_entries):
        key_block, kv_head, batch, present = _entry_block(schedule, first_entry, entry, num_key_blocks, num_kv_heads,
                                                          LISTED)
        if present:
            start_n = key_block * BLOCK_N
            lo, num_blocks = _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
            dk, dv, it = _alternate_mma_tile(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n,
                                             lo, num_blocks, seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                                             k_smem, v_smem, q_smem, do_smem, ds_tile, dq_tile, lse_smem,
                                             delta_smem, kv_ready, ready, empty, dq_ready.index(WARPGROUP),
                                             dq_empty.index(WARPGROUP), it, tile_iter & 1, WARPGROUP, BLOCK_M,
                                             BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, DQ_PIECES, KV_IN_REGISTERS)
            gl.thread_barrier()  # every warp of this warpgroup is past its reads of K_j, V_j
            mbarrier.arrive(kv_empty)
            if WARPGROUP == 1:
                # Its dQ tile is free once the reducer drained the last tile put there (the wait the next
                # query block would make; the exchange adds no phase to dq_empty).
                mbarrier.wait(dq_empty.index(1), ((it // 2) & 1) ^ 1)
                dq_tile.store(dv)
                gl.thread_barrier()
                mbarrier.arrive(xchg_full)
                mbarrier.wait(xchg_empty, 0)
                dq_tile.store(dk)
                gl.thread_barrier()
                mbarrier.arrive(xchg_full)
                mbarrier.wait(xchg_empty, 1)  # warpgroup 0 has read dK: the tile may take dQ again
            else:
                mbarrier.wait(xchg_full, 0)
                dv += dq_smem.index(1).load(kv_layout)
                gl.thread_barrier()
                mbarrier.arrive(xchg_empty)
                mbarrier.wait(xchg_full, 1)
                dk += dq_smem.index(1).load(kv_layout)
                gl.thread_barrier()
                mbarrier.arrive(xchg_empty)
                _store_key_gradients(DK, DV, stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh,
                                     stride_dvn, batch, kv_head, start_n, seqlen_k, softmax_scale, dk, dv, BLOCK_N,
                                     HEAD_DIM, kv_layout)
            tile_iter += 1


@gluon.jit
def attention_backward_fused_alternating_kernel(
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
    NUM_STAGES: gl.constexpr, MMA_REGS: gl.constexpr, WORKER_REGS: gl.constexpr, DQ_PIECES: gl.constexpr = 1,
    KV_IN_REGISTERS: gl.constexpr = False, LISTED: gl.constexpr = False,
):
    """dK, dV and the dQ contributions of every key block, in a persistent grid of one program per
    multiprocessor (same arguments and grid as ``attention_backward_fused_ws_persistent_kernel``; ``LISTED``
    and ``schedule`` as there). Launch with num_warps=4 (MMA warpgroup 0); MMA warpgroup 1 (4 warps), the
    loader warp and the dQ reducer warp are added. BLOCK_M = BLOCK_N (warpgroup 1's dK and dV partial sums pass
    through its BLOCK_M x HEAD_DIM float32 dQ tile); two dQ tiles, one per warpgroup. KV_IN_REGISTERS: each
    warpgroup holds K_j and V_j in registers as the score products' A operands (d=64: at d=128 there are no
    registers for them)."""
    dtype: gl.constexpr = Q.dtype.element_ty
    gl.static_assert(BLOCK_M == BLOCK_N, "the dK/dV exchange goes through a BLOCK_M-row dQ tile")
    gl.static_assert(NUM_STAGES >= 2, "each warpgroup needs a Q/dO slot of its own")
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
    dq_smem = gl.allocate_shared_memory(gl.float32, [2, BLOCK_M, HEAD_DIM], dq_tile_layout)
    lse_smem = gl.allocate_shared_memory(gl.float32, [NUM_STAGES, BLOCK_M], stats_layout)
    delta_smem = gl.allocate_shared_memory(gl.float32, [NUM_STAGES, BLOCK_M], stats_layout)
    kv_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    kv_empty = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    dq_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    dq_empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    xchg_full = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    xchg_empty = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    # Arrivals: the loader's (and the copy engine's bytes) on the ready barriers, the reducer's on dq_empty,
    # both MMA warpgroups' on kv_empty, the owning warpgroup's on a slot's empty and a tile's dq_ready,
    # warpgroup 1's on xchg_full and warpgroup 0's on xchg_empty.
    mbarrier.init(kv_ready, count=1)
    mbarrier.init(kv_empty, count=2)
    for slot in gl.static_range(NUM_STAGES):
        mbarrier.init(ready.index(slot), count=1)
        mbarrier.init(empty.index(slot), count=1)
    for buf in gl.static_range(2):
        mbarrier.init(dq_ready.index(buf), count=1)
        mbarrier.init(dq_empty.index(buf), count=1)
    mbarrier.init(xchg_full, count=1)
    mbarrier.init(xchg_empty, count=1)

    # The two MMA partitions' argument tuples differ only in WARPGROUP; written out because Gluon 3.6 will not
    # concatenate a tuple holding ``schedule`` when it is None (the round-robin launch).
    gl.warp_specialize([
        (_alternate_mma_partition, (
            LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm,
            stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
            seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_kv_heads, num_units,
            k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, lse_smem, delta_smem,
            kv_ready, kv_empty, ready, empty, dq_ready, dq_empty, xchg_full, xchg_empty,
            0, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, DQ_PIECES, KV_IN_REGISTERS, schedule, LISTED)),
        (_alternate_mma_partition, (
            LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm,
            stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
            seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_kv_heads, num_units,
            k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, lse_smem, delta_smem,
            kv_ready, kv_empty, ready, empty, dq_ready, dq_empty, xchg_full, xchg_empty,
            1, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, DQ_PIECES, KV_IN_REGISTERS, schedule, LISTED)),
        (_persistent_fused_ws_loader, (
            Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
            stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
            seqlen_q, seqlen_k, kv_group_size, num_kv_heads, num_units,
            k_smem, v_smem, q_smem, do_smem, kv_ready, kv_empty, ready, empty,
            BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, IS_CAUSAL,
            LSE, DELTA, stride_lb, stride_lh, stride_lm, lse_smem, delta_smem, True, schedule, LISTED)),
        (_persistent_fused_ws_dq_reducer, (
            DQ_ACC, stride_dqb, stride_dqh, stride_dqm, seqlen_q, seqlen_k, kv_group_size, num_kv_heads, num_units,
            dq_smem, dq_ready, dq_empty, BLOCK_M, BLOCK_N, HEAD_DIM, 2, IS_CAUSAL, schedule, LISTED)),
    ], [4, 1, 1], [MMA_REGS, WORKER_REGS, WORKER_REGS])
