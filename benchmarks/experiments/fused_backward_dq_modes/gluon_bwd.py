"""Exploratory copy of the fused five-product backward (v0.8) with a DQ_MODE switch for the way dQ_i leaves
the program (0: not computed, 1: per-element atomics, 2: plain stores, 3: no dQ and constant LSE/D, 4:
atomics without the scale, 5: atomics from a blocked layout, 6: TMA bulk reduce-add), used by probe.py to
find where the time went. The library's kernel is src/flashio/kernels/backward_gluon.py (mode 6)."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)
from triton.experimental.gluon.language._core import builtin
from triton._C.libtriton import ir


@builtin
def async_reduce_add_shared_to_global(tensor_desc, coord, src, _semantic=None):
    coord = _semantic._convert_to_ir_values(coord, require_i64=False)
    _semantic.builder.create_async_tma_reduce(ir.DESCRIPTOR_REDUCE_KIND.ADD, tensor_desc.handle, coord, src.handle)


@gluon.jit
def _head_descriptor(base, batch, head, stride_b, stride_h, stride_row, seqlen,
                     BLOCK_ROWS: gl.constexpr, HEAD_DIM: gl.constexpr, layout: gl.constexpr):
    start = base + batch.to(gl.int64) * stride_b + head.to(gl.int64) * stride_h
    return tma.make_tensor_descriptor(start, shape=[seqlen, HEAD_DIM], strides=[stride_row, 1],
                                      block_shape=[BLOCK_ROWS, HEAD_DIM], layout=layout)


@gluon.jit
def attention_backward_fused_kernel(
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
    NUM_STAGES: gl.constexpr, WARPS: gl.constexpr, DQ_MODE: gl.constexpr = 1,
):
    LOG2E: gl.constexpr = 1.4426950408889634
    dtype: gl.constexpr = Q.dtype.element_ty
    # Accumulator layouts: the key rows of S^T, dP^T, dK, dV split over the warps (16 rows per warp, a
    # warpgroup per 64 rows); dQ_i (BLOCK_M rows) split over warpgroups along the head dim instead.
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                       instr_shape=[16, BLOCK_M, 16])
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    dq_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, WARPS // 4],
                                                        instr_shape=[16, HEAD_DIM // (WARPS // 4), 16])
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout, k_width=2)
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], dtype)
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    ds_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_M], dtype)
    dq_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], gl.float32)

    start_n = gl.program_id(0) * BLOCK_N
    kv_head = gl.program_id(1)
    batch = gl.program_id(2)

    k_desc = _head_descriptor(K, batch, kv_head, stride_kb, stride_kh, stride_kn, seqlen_k, BLOCK_N, HEAD_DIM,
                              kv_tile_layout)
    v_desc = _head_descriptor(V, batch, kv_head, stride_vb, stride_vh, stride_vn, seqlen_k, BLOCK_N, HEAD_DIM,
                              kv_tile_layout)
    k_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
    v_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
    q_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    do_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    ds_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, BLOCK_M], ds_tile_layout)
    if DQ_MODE == 6:
        dq_smem = gl.allocate_shared_memory(gl.float32, [2, BLOCK_M, HEAD_DIM], dq_tile_layout)
    ready = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    kv_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NUM_STAGES):
        mbarrier.init(ready.index(i), count=1)
    mbarrier.init(kv_ready, count=1)

    mbarrier.expect(kv_ready, 2 * BLOCK_N * HEAD_DIM * dtype.primitive_bitwidth // 8)
    tma.async_copy_global_to_shared(k_desc, [start_n, 0], kv_ready, k_smem)
    tma.async_copy_global_to_shared(v_desc, [start_n, 0], kv_ready, v_smem)

    TILE_BYTES: gl.constexpr = 2 * BLOCK_M * HEAD_DIM * dtype.primitive_bitwidth // 8
    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    offs_n = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, s_layout))
    if IS_CAUSAL:
        first_row = offs_n - causal_shift  # query i sees key j iff i >= j - shift
        lo = gl.maximum(start_n - causal_shift, 0) // BLOCK_M * BLOCK_M
    else:
        first_row = offs_n * 0
        lo = 0
    num_blocks = gl.cdiv(seqlen_q - lo, BLOCK_M)

    dk = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    dv = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    zero_s = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, s_layout)
    zero_dq = gl.zeros([BLOCK_M, HEAD_DIM], gl.float32, dq_layout)
    dq_rows = gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, dq_layout))
    dq_cols = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, dq_layout))
    s_cols = gl.arange(0, BLOCK_M, layout=gl.SliceLayout(0, s_layout))

    it = 0
    for group_index in range(kv_group_size):
        head = kv_head * kv_group_size + group_index
        q_desc = _head_descriptor(Q, batch, head, stride_qb, stride_qh, stride_qm, seqlen_q, BLOCK_M, HEAD_DIM,
                                  q_tile_layout)
        do_desc = _head_descriptor(DO, batch, head, stride_dob, stride_doh, stride_dom, seqlen_q, BLOCK_M,
                                   HEAD_DIM, q_tile_layout)
        lse_head = LSE + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        delta_head = DELTA + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        dq_head = DQ_ACC + batch.to(gl.int64) * stride_dqb + head.to(gl.int64) * stride_dqh
        if DQ_MODE == 6:
            dq_desc = _head_descriptor(DQ_ACC, batch, head, stride_dqb, stride_dqh, stride_dqm, seqlen_q, BLOCK_M,
                                       HEAD_DIM, dq_tile_layout)
        # All warps are done with the previous head's buffers before they are refilled.
        gl.thread_barrier()
        for prefetch in gl.static_range(NUM_STAGES - 1):
            stage = (it + prefetch) % NUM_STAGES
            pred = prefetch < num_blocks
            mbarrier.expect(ready.index(stage), TILE_BYTES, pred=pred)
            tma.async_copy_global_to_shared(q_desc, [lo + prefetch * BLOCK_M, 0], ready.index(stage),
                                            q_smem.index(stage), pred=pred)
            tma.async_copy_global_to_shared(do_desc, [lo + prefetch * BLOCK_M, 0], ready.index(stage),
                                            do_smem.index(stage), pred=pred)
        mbarrier.wait(kv_ready, 0)
        for block in range(num_blocks):
            stage = it % NUM_STAGES
            start_m = lo + block * BLOCK_M
            q_buf = q_smem.index(stage)
            do_buf = do_smem.index(stage)
            mbarrier.wait(ready.index(stage), (it // NUM_STAGES) & 1)
            sT = warpgroup_mma(k_smem, q_buf.permute((1, 0)), zero_s, use_acc=False, is_async=True)
            dpT = warpgroup_mma(v_smem, do_buf.permute((1, 0)), zero_s, use_acc=False, is_async=True)

            offs_m = start_m + s_cols
            row_in = offs_m < seqlen_q
            if DQ_MODE == 3:
                lse2 = offs_m.to(gl.float32)
                delta = offs_m.to(gl.float32) * 0.5
            else:
                lse = gl.load(lse_head + offs_m * stride_lm, mask=row_in, other=float("inf"))
                lse2 = gl.where(lse == float("-inf"), float("inf"), lse) * LOG2E
                delta = gl.load(delta_head + offs_m * stride_lm, mask=row_in, other=0.0)

            sT = warpgroup_mma_wait(num_outstanding=1, deps=[sT])
            pT = gl.exp2(sT * qk_scale - lse2[None, :])
            if IS_CAUSAL:
                pT = gl.where(offs_m[None, :] >= first_row[:, None], pT, 0.0)
            dpT = warpgroup_mma_wait(num_outstanding=0, deps=[dpT])
            # dS before any dK/dV product is issued, so that P^T and dP^T in float32 die here (registers).
            ds_lo = (pT * (dpT - delta[None, :])).to(dtype)
            p_lo = pT.to(dtype)

            # Every warp has finished the previous iteration (its dQ product read ds_smem, its dK/dV
            # products the buffers the prefetch below refills).
            gl.thread_barrier()
            if DQ_MODE == 6:
                if block > 0:  # the previous block's dQ_i, written and fenced by every warp
                    async_reduce_add_shared_to_global(dq_desc, [start_m - BLOCK_M, 0], dq_smem.index((it + 1) % 2))
            ahead = block + NUM_STAGES - 1
            next_stage = (it + NUM_STAGES - 1) % NUM_STAGES
            pred = ahead < num_blocks
            mbarrier.expect(ready.index(next_stage), TILE_BYTES, pred=pred)
            tma.async_copy_global_to_shared(q_desc, [lo + ahead * BLOCK_M, 0], ready.index(next_stage),
                                            q_smem.index(next_stage), pred=pred)
            tma.async_copy_global_to_shared(do_desc, [lo + ahead * BLOCK_M, 0], ready.index(next_stage),
                                            do_smem.index(next_stage), pred=pred)
            ds_smem.store(ds_lo)
            if DQ_MODE == 6:
                tma.store_wait(1)  # the reduce that read dq_smem[it % 2] (two blocks ago) is done
            fence_async_shared()
            gl.thread_barrier()
            dv = warpgroup_mma(gl.convert_layout(p_lo, lhs_layout), do_buf, dv, is_async=True)
            dk = warpgroup_mma(gl.convert_layout(ds_lo, lhs_layout), q_buf, dk, is_async=True)
            if DQ_MODE == 0 or DQ_MODE == 3:
                dv, dk = warpgroup_mma_wait(num_outstanding=0, deps=[dv, dk])
            else:
                dq = warpgroup_mma(ds_smem.permute((1, 0)), k_smem, zero_dq, use_acc=False, is_async=True)
                dv, dk, dq = warpgroup_mma_wait(num_outstanding=0, deps=[dv, dk, dq])
                dq_offs = (start_m + dq_rows)[:, None] * stride_dqm + dq_cols[None, :]
                if DQ_MODE == 6:
                    dq_smem.index(it % 2).store(dq * softmax_scale)
                    fence_async_shared()
                elif DQ_MODE == 1:
                    gl.atomic_add(dq_head + dq_offs, dq * softmax_scale,
                                  mask=((start_m + dq_rows) < seqlen_q)[:, None], sem="relaxed")
                elif DQ_MODE == 4:
                    gl.atomic_add(dq_head + dq_offs, dq, mask=((start_m + dq_rows) < seqlen_q)[:, None], sem="relaxed")
                elif DQ_MODE == 5:
                    blocked: gl.constexpr = gl.BlockedLayout([1, 4], [2, 16], [WARPS, 1], [1, 0])
                    dqb = gl.convert_layout(dq, blocked)
                    rb = start_m + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, blocked))
                    cb = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, blocked))
                    gl.atomic_add(dq_head + rb[:, None] * stride_dqm + cb[None, :], dqb, mask=(rb < seqlen_q)[:, None], sem="relaxed")
                else:
                    gl.store(dq_head + dq_offs, dq * softmax_scale, mask=((start_m + dq_rows) < seqlen_q)[:, None])
            it += 1
        if DQ_MODE == 6:
            gl.thread_barrier()
            if num_blocks > 0:
                async_reduce_add_shared_to_global(dq_desc, [lo + (num_blocks - 1) * BLOCK_M, 0],
                                                  dq_smem.index((it + 1) % 2))

    if DQ_MODE == 6:
        tma.store_wait(0)
    for i in gl.static_range(NUM_STAGES):
        mbarrier.invalidate(ready.index(i))
    mbarrier.invalidate(kv_ready)

    out_rows = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, kv_layout))
    out_cols = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, kv_layout))
    key_in = (out_rows < seqlen_k)[:, None]
    dk_ptrs = DK + batch.to(gl.int64) * stride_dkb + kv_head.to(gl.int64) * stride_dkh + \
        out_rows[:, None] * stride_dkn + out_cols[None, :]
    dv_ptrs = DV + batch.to(gl.int64) * stride_dvb + kv_head.to(gl.int64) * stride_dvh + \
        out_rows[:, None] * stride_dvn + out_cols[None, :]
    gl.store(dk_ptrs, (dk * softmax_scale).to(dtype), mask=key_in)
    gl.store(dv_ptrs, dv.to(dtype), mask=key_in)
