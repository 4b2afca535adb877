"""A warp-specialised form of the fused five-product backward (v0.8 experiment: compiled for sm_90a on the
CPU, **not yet run on a GPU**). The library's kernel (src/flashio/kernels/backward_gluon.py) runs every phase
in the same warps, one after another; FlashAttention-3 gives the loads and the dQ reductions their own warps.
Here, with Gluon's ``warp_specialize``:

- a loader warp: K_j, V_j once, then Q_i, dO_i of every query block into a ring of NUM_STAGES buffers
  (``ready`` barriers carry the TMA byte counts; it waits on ``empty`` before refilling a buffer);
- the MMA warps (the default partition, WARPS warps, 16 key rows each): S^T, dP^T, exponentials, dS, the dV,
  dK and dQ products; dQ_i goes to one of DQ_BUFFERS float32 shared tiles (``dq_empty`` -> write ->
  ``dq_ready``), and the Q/dO buffer is released (``empty``) once the products that read it are done;
- a reducer warp: for each ready dQ tile, one TMA bulk reduce-add into the float32 accumulator, then it
  waits for the read to finish and releases the tile (``dq_empty``).

Producers wait on a fresh "empty" barrier with the opposite parity, so their first wait passes. Same
arguments and grid as ``attention_backward_fused_kernel`` (plus LOADER_REGS / REDUCER_REGS).
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)

from flashio.kernels.backward_gluon import (_head_descriptor, _probabilities_and_score_gradients, _store_key_gradients,
                                           async_reduce_add_shared_to_global)


@gluon.jit
def _loader(Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
            stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
            batch, kv_head, start_n, lo, num_blocks, seqlen_q, seqlen_k, kv_group_size,
            k_smem, v_smem, q_smem, do_smem, kv_ready, ready, empty,
            BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr):
    dtype: gl.constexpr = Q.dtype.element_ty
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], dtype)
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    TILE_BYTES: gl.constexpr = 2 * BLOCK_M * HEAD_DIM * dtype.primitive_bitwidth // 8
    k_desc = _head_descriptor(K, batch, kv_head, stride_kb, stride_kh, stride_kn, seqlen_k, BLOCK_N, HEAD_DIM,
                              kv_tile_layout)
    v_desc = _head_descriptor(V, batch, kv_head, stride_vb, stride_vh, stride_vn, seqlen_k, BLOCK_N, HEAD_DIM,
                              kv_tile_layout)
    mbarrier.expect(kv_ready, 2 * BLOCK_N * HEAD_DIM * dtype.primitive_bitwidth // 8)
    tma.async_copy_global_to_shared(k_desc, [start_n, 0], kv_ready, k_smem)
    tma.async_copy_global_to_shared(v_desc, [start_n, 0], kv_ready, v_smem)
    it = 0
    for group_index in range(kv_group_size):
        head = kv_head * kv_group_size + group_index
        q_desc = _head_descriptor(Q, batch, head, stride_qb, stride_qh, stride_qm, seqlen_q, BLOCK_M, HEAD_DIM,
                                  q_tile_layout)
        do_desc = _head_descriptor(DO, batch, head, stride_dob, stride_doh, stride_dom, seqlen_q, BLOCK_M,
                                   HEAD_DIM, q_tile_layout)
        for block in range(num_blocks):
            stage = it % NUM_STAGES
            mbarrier.wait(empty.index(stage), ((it // NUM_STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(stage), TILE_BYTES)
            tma.async_copy_global_to_shared(q_desc, [lo + block * BLOCK_M, 0], ready.index(stage),
                                            q_smem.index(stage))
            tma.async_copy_global_to_shared(do_desc, [lo + block * BLOCK_M, 0], ready.index(stage),
                                            do_smem.index(stage))
            it += 1


@gluon.jit
def _dq_reducer(DQ_ACC, stride_dqb, stride_dqh, stride_dqm, batch, kv_head, lo, num_blocks, seqlen_q,
                kv_group_size, dq_smem, dq_ready, dq_empty,
                BLOCK_M: gl.constexpr, HEAD_DIM: gl.constexpr, DQ_BUFFERS: gl.constexpr):
    dq_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], gl.float32)
    it = 0
    for group_index in range(kv_group_size):
        head = kv_head * kv_group_size + group_index
        dq_desc = _head_descriptor(DQ_ACC, batch, head, stride_dqb, stride_dqh, stride_dqm, seqlen_q, BLOCK_M,
                                   HEAD_DIM, dq_tile_layout)
        for block in range(num_blocks):
            buf = it % DQ_BUFFERS
            mbarrier.wait(dq_ready.index(buf), (it // DQ_BUFFERS) & 1)
            async_reduce_add_shared_to_global(dq_desc, [lo + block * BLOCK_M, 0], dq_smem.index(buf))
            tma.store_wait(0)  # the tile has been read: it may be rewritten
            mbarrier.arrive(dq_empty.index(buf))
            it += 1


@gluon.jit
def _mma_partition(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks,
                   seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                   k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, ready, empty, dq_ready, dq_empty,
                   BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, IS_CAUSAL: gl.constexpr,
                   NUM_STAGES: gl.constexpr, WARPS: gl.constexpr, DQ_CHUNKS: gl.constexpr,
                   DQ_BUFFERS: gl.constexpr):
    LOG2E: gl.constexpr = 1.4426950408889634
    DQ_COLS: gl.constexpr = HEAD_DIM // DQ_CHUNKS
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                       instr_shape=[16, BLOCK_M, 16])
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    dq_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, WARPS // 4],
                                                        instr_shape=[16, DQ_COLS // (WARPS // 4), 16])
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout, k_width=2)

    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    key_rows = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, s_layout))
    first_row = key_rows - causal_shift
    query_cols = gl.arange(0, BLOCK_M, layout=gl.SliceLayout(0, s_layout))
    dk = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    dv = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    zero_s = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, s_layout)
    zero_dq = gl.zeros([BLOCK_M, DQ_COLS], gl.float32, dq_layout)
    mbarrier.wait(kv_ready, 0)
    it = 0
    for group_index in range(kv_group_size):
        head = kv_head * kv_group_size + group_index
        lse_head = LSE + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        delta_head = DELTA + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        for block in range(num_blocks):
            stage = it % NUM_STAGES
            start_m = lo + block * BLOCK_M
            q_buf = q_smem.index(stage)
            do_buf = do_smem.index(stage)
            mbarrier.wait(ready.index(stage), (it // NUM_STAGES) & 1)
            p_lo, ds_lo = _probabilities_and_score_gradients(
                k_smem, v_smem, q_buf, do_buf, zero_s, lse_head, delta_head, stride_lm, start_m, query_cols,
                seqlen_q, first_row, qk_scale, IS_CAUSAL)
            # Every MMA warp finished the previous block's dQ product (which read ds_smem): the barrier at the
            # end of the previous iteration.
            ds_smem.store(ds_lo)
            fence_async_shared()
            gl.thread_barrier()
            dq = warpgroup_mma(ds_smem.permute((1, 0)), k_smem.slice(0, DQ_COLS, dim=1), zero_dq, use_acc=False,
                               is_async=True)
            dv = warpgroup_mma(gl.convert_layout(p_lo, lhs_layout), do_buf, dv, is_async=True)
            dk = warpgroup_mma(gl.convert_layout(ds_lo, lhs_layout), q_buf, dk, is_async=True)
            dq = warpgroup_mma_wait(num_outstanding=2, deps=[dq])
            buf = it % DQ_BUFFERS
            dq_buf = dq_smem.index(buf)
            mbarrier.wait(dq_empty.index(buf), ((it // DQ_BUFFERS) & 1) ^ 1)
            dq_buf.slice(0, DQ_COLS, dim=1).store(dq * softmax_scale)
            for chunk in gl.static_range(1, DQ_CHUNKS):
                dq = warpgroup_mma(ds_smem.permute((1, 0)), k_smem.slice(chunk * DQ_COLS, DQ_COLS, dim=1), zero_dq,
                                   use_acc=False, is_async=True)
                dq = warpgroup_mma_wait(num_outstanding=0, deps=[dq])
                dq_buf.slice(chunk * DQ_COLS, DQ_COLS, dim=1).store(dq * softmax_scale)
            dv, dk = warpgroup_mma_wait(num_outstanding=0, deps=[dv, dk])
            fence_async_shared()
            gl.thread_barrier()
            mbarrier.arrive(dq_ready.index(buf))
            mbarrier.arrive(empty.index(stage))
            it += 1
    return dk, dv


@gluon.jit
def attention_backward_fused_ws_kernel(
    Q, K, V, DO, LSE, DELTA, DK, DV, DQ_ACC,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_dob, stride_doh, stride_dom,
    stride_lb, stride_lh, stride_lm,
    stride_dkb, stride_dkh, stride_dkn,
    stride_dvb, stride_dvh, stride_dvn,
    stride_dqb, stride_dqh, stride_dqm,
    seqlen_q, seqlen_k, kv_group_size, softmax_scale,
    BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, IS_CAUSAL: gl.constexpr,
    NUM_STAGES: gl.constexpr, WARPS: gl.constexpr, DQ_CHUNKS: gl.constexpr, DQ_BUFFERS: gl.constexpr,
    LOADER_REGS: gl.constexpr, REDUCER_REGS: gl.constexpr,
):
    dtype: gl.constexpr = Q.dtype.element_ty
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], dtype)
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    ds_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_M], dtype)
    dq_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], gl.float32)

    start_n = gl.program_id(0) * BLOCK_N
    kv_head = gl.program_id(1)
    batch = gl.program_id(2)
    causal_shift = seqlen_k - seqlen_q
    if IS_CAUSAL:
        lo = gl.maximum(start_n - causal_shift, 0) // BLOCK_M * BLOCK_M
    else:
        lo = start_n * 0
    num_blocks = gl.maximum(gl.cdiv(seqlen_q - lo, BLOCK_M), 0)

    k_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
    v_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
    q_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    do_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    ds_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, BLOCK_M], ds_tile_layout)
    dq_smem = gl.allocate_shared_memory(gl.float32, [DQ_BUFFERS, BLOCK_M, HEAD_DIM], dq_tile_layout)
    kv_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    dq_ready = gl.allocate_shared_memory(gl.int64, [DQ_BUFFERS, 1], mbarrier.MBarrierLayout())
    dq_empty = gl.allocate_shared_memory(gl.int64, [DQ_BUFFERS, 1], mbarrier.MBarrierLayout())
    mbarrier.init(kv_ready, count=1)
    for ring_index in gl.static_range(NUM_STAGES):
        mbarrier.init(ready.index(ring_index), count=1)
        mbarrier.init(empty.index(ring_index), count=1)
    for buffer_index in gl.static_range(DQ_BUFFERS):
        mbarrier.init(dq_ready.index(buffer_index), count=1)
        mbarrier.init(dq_empty.index(buffer_index), count=1)

    dk, dv = gl.warp_specialize([
        (_mma_partition, (LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks,
                          seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                          k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, ready, empty, dq_ready, dq_empty,
                          BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, WARPS, DQ_CHUNKS, DQ_BUFFERS)),
        (_loader, (Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                   stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
                   batch, kv_head, start_n, lo, num_blocks, seqlen_q, seqlen_k, kv_group_size,
                   k_smem, v_smem, q_smem, do_smem, kv_ready, ready, empty,
                   BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES)),
        (_dq_reducer, (DQ_ACC, stride_dqb, stride_dqh, stride_dqm, batch, kv_head, lo, num_blocks, seqlen_q,
                       kv_group_size, dq_smem, dq_ready, dq_empty, BLOCK_M, HEAD_DIM, DQ_BUFFERS)),
    ], [1, 1], [LOADER_REGS, REDUCER_REGS])

    _store_key_gradients(DK, DV, stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                         batch, kv_head, start_n, seqlen_k, softmax_scale, dk, dv, BLOCK_N, HEAD_DIM, kv_layout)
