"""The fused five-product backward in Gluon (Triton's explicit-layout dialect), for Hopper; only
``@gluon.jit`` code here (and the one device operation Triton 3.6's Gluon builds but does not export).

One program per key block K_j, V_j (and KV head: it loops over the query heads of its group) computes, for
each query block i,

    S_ij^T = K_j Q_i^T,   P_ij^T = exp2(qk_scale S_ij^T - lse2_i),   dP_ij^T = V_j dO_i^T,
    dS_ij^T = P_ij^T o (dP_ij^T - D_i),
    dV_j += P_ij^T dO_i,   dK_j += dS_ij^T Q_i,   dQ_i += tau dS_ij K_j   (reduce-added in global memory)

— the five matrix products of the FLOP count (FlashAttention-2, Algorithm 2; FlashAttention-3, section
3.3) instead of the seven of the two-kernel scheme, which recomputes S and dP in its dQ kernel. The
partial dQ_i goes register -> shared memory -> a TMA bulk reduce-add (``cp.reduce.async.bulk.tensor``)
into a float32 accumulator: one asynchronous L2 reduction per tile rather than one atomic instruction
per element (measured: the per-element atomics ran the kernel at 255 TFLOP/s, the bulk reduce at 350,
d=128 N=16k on the H200). Triton 3.6's Triton-level partitioner cannot express this kernel (the dQ
product sums over the dimension it splits between consumers), which is why it is written in Gluon:
layouts, shared-memory buffers, mbarriers and the asynchronous warpgroup MMAs are explicit.

``attention_backward_fused_ws_kernel`` is the same computation with warp specialisation: a loader warp, a
dQ reduce-add warp and the MMA warps, synchronised by mbarrier rings (``ready``/``empty`` for Q/dO,
``dq_ready``/``dq_empty`` for the float32 dQ tiles); ``attention_backward_fused_ws_persistent_kernel`` runs it
in a persistent grid (one program per multiprocessor over pairs of key blocks; a ``kv_empty`` barrier lets
the loader fetch the next block's K/V while the MMA warps store the previous block's dK/dV). Both take
``STATS_IN_SMEM``: the loader warp also puts each query block's LSE and D rows in shared memory beside its
Q/dO slot, which removes the d=128 kernel's register spills (v0.13 on the H200: +12-20% at d=128 non-causal;
every specialised candidate takes it). The persistent kernel's causal calls take their key blocks from a host-made
list (``LISTED``), one per program or, with ``DYNAMIC`` (v0.37), one for all programs, claimed a key block at a time
through a counter (``gluon_claims``; on the H200 +3% at d=128 causal 1k-2k, level at d=64).

Pipeline: Q_i and dO_i arrive by TMA into a ring of ``NUM_STAGES`` buffers (the next blocks are
requested while the current one is computed); S^T and dP^T are issued together and the exponentials of
S^T run while dP^T is still on the tensor cores; P^T and dS^T stay in registers as the A operands of the
dV and dK products; dS^T also goes to shared memory, where the dQ product reads it transposed. dQ_i is
computed in ``DQ_CHUNKS`` column chunks (fewer live registers) into ``DQ_BUFFERS`` float32 tiles, whose
reduce-add overlaps the next block. With ``KV_IN_REGISTERS`` K_j and V_j are also held in registers as
the A operands of S^T and dP^T (less shared-memory traffic, more registers). Keys past the end read as
zeros (their dK/dV rows are not written), rows past the end of the queries have an infinite LSE (P = 0)
and are clipped by the reduce, so only causality needs a mask (applied to every block of a causal call).
No dropout, block mask or packed variable-length batch: the launcher sends those to the Triton kernels.
Gluon has no interpreter, so on a CPU this file is only compiled (tests/bench/test_resources.py); its
numerics are checked on the GPU by ``python -m flashio.check``.
"""

from triton._C.libtriton import ir
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language._core import builtin
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_init, warpgroup_mma_wait)

from flashio.kernels.gluon_claims import claim_entry, claimed_block, release_claims
from flashio.kernels.gluon_clock import mark_tile
from flashio.kernels.gluon_stores import store_float32_spread, store_rows_wide


@builtin
def async_reduce_add_shared_to_global(tensor_desc, coord, src, _semantic=None):
    """TMA bulk reduce-add of the shared-memory tile ``src`` into the global tile of ``tensor_desc`` at
    ``coord`` (asynchronous, bulk-group completion: wait with ``tma.store_wait``). Triton 3.6's Gluon
    builder has the operation (``create_async_tma_reduce``) but its Hopper ``tma`` module does not export it."""
    coord = _semantic._convert_to_ir_values(coord, require_i64=False)
    _semantic.builder.create_async_tma_reduce(ir.DESCRIPTOR_REDUCE_KIND.ADD, tensor_desc.handle, coord, src.handle)


@gluon.jit
def _head_descriptor(base, batch, head, stride_b, stride_h, stride_row, seqlen,
                     BLOCK_ROWS: gl.constexpr, HEAD_DIM: gl.constexpr, layout: gl.constexpr):
    """A descriptor over the ``seqlen`` rows of (``batch``, ``head``), [BLOCK_ROWS, HEAD_DIM] tiles."""
    start = base + batch.to(gl.int64) * stride_b + head.to(gl.int64) * stride_h
    return tma.make_tensor_descriptor(start, shape=[seqlen, HEAD_DIM], strides=[stride_row, 1],
                                      block_shape=[BLOCK_ROWS, HEAD_DIM], layout=layout)


@gluon.jit
def _wait_for_last_loads(ready, it, STAGES: gl.constexpr, FIRST: gl.constexpr):
    """Wait until the last STAGES loads into a ring of STAGES slots (ring positions it - STAGES .. it - 1,
    completion barriers ``ready[FIRST + slot]``) have landed. A loader calls it before rewriting in-kernel
    descriptors that those loads read (one global scratch slot per creation site). Only the loader refills
    a slot, so each slot's barrier cannot have moved past its last load."""
    for back in gl.static_range(1, STAGES + 1):
        previous = it - back
        slot = gl.maximum(previous, 0)
        mbarrier.wait(ready.index(FIRST + slot % STAGES), (slot // STAGES) & 1, pred=previous >= 0)


@gluon.jit
def _load_key_block(K, V, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh, stride_vn, batch, kv_head,
                    start_n, seqlen_k, k_smem, v_smem, kv_ready, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr):
    """Request K_j and V_j (keys start_n.. of (batch, kv_head)) into k_smem and v_smem, completing kv_ready:
    a backward program's key block, loaded once."""
    dtype: gl.constexpr = K.dtype.element_ty
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    k_desc = _head_descriptor(K, batch, kv_head, stride_kb, stride_kh, stride_kn, seqlen_k, BLOCK_N, HEAD_DIM,
                              kv_tile_layout)
    v_desc = _head_descriptor(V, batch, kv_head, stride_vb, stride_vh, stride_vn, seqlen_k, BLOCK_N, HEAD_DIM,
                              kv_tile_layout)
    mbarrier.expect(kv_ready, 2 * BLOCK_N * HEAD_DIM * dtype.primitive_bitwidth // 8)
    tma.async_copy_global_to_shared(k_desc, [start_n, 0], kv_ready, k_smem)
    tma.async_copy_global_to_shared(v_desc, [start_n, 0], kv_ready, v_smem)


@gluon.jit
def _probabilities_and_score_gradients(k_operand, v_operand, q_buf, do_buf, zero_s, lse_head, delta_head,
                                       stride_lm, start_m, query_cols, seqlen_q, first_row, qk_scale,
                                       IS_CAUSAL: gl.constexpr, lse_buf=None, delta_buf=None,
                                       STATS_IN_SMEM: gl.constexpr = False, EARLY_LSE: gl.constexpr = False):
    """(P^T, dS^T) of one tile in the input precision: S^T = K_j Q_i^T and dP^T = V_j dO_i^T issued together,
    the exponentials of S^T while dP^T is still on the tensor cores, dS^T = P^T o (dP^T - D_i). Both come
    out before any dK/dV product is issued, so that P^T and dP^T in float32 die here (registers). K_j and V_j
    (the A operands) are shared-memory tiles or, with KV_IN_REGISTERS, register tensors. The block's LSE
    and D rows are loaded from global memory while the products run, or with STATS_IN_SMEM read from the
    shared-memory rows ``lse_buf``/``delta_buf`` (put there by the loader warp) only when each is needed,
    so that they hold no registers across the products' wait. EARLY_LSE (with STATS_IN_SMEM): the LSE row is read
    right after the products' issue instead, its shared-memory latency under S^T's product (v0.35, ncu run 15: at
    d=128 the first uses of a row read after the wait held 7% of the MMA warps' stall samples)."""
    LOG2E: gl.constexpr = 1.4426950408889634
    dtype: gl.constexpr = k_operand.dtype
    s_t = warpgroup_mma(k_operand, q_buf.permute((1, 0)), zero_s, use_acc=False, is_async=True)
    dp_t = warpgroup_mma(v_operand, do_buf.permute((1, 0)), zero_s, use_acc=False, is_async=True)
    query_rows = start_m + query_cols
    if STATS_IN_SMEM:
        if EARLY_LSE:
            lse = lse_buf.load(query_cols.type.layout)
        s_t = warpgroup_mma_wait(num_outstanding=1, deps=[s_t])
        if not EARLY_LSE:
            lse = lse_buf.load(query_cols.type.layout)
    else:
        row_in = query_rows < seqlen_q
        lse = gl.load(lse_head + query_rows * stride_lm, mask=row_in, other=float("inf"))
    lse2 = gl.where(lse == float("-inf"), float("inf"), lse) * LOG2E  # rows that saw no key: P = 0
    if not STATS_IN_SMEM:
        delta = gl.load(delta_head + query_rows * stride_lm, mask=row_in, other=0.0)
        s_t = warpgroup_mma_wait(num_outstanding=1, deps=[s_t])
    p_t = gl.exp2(s_t * qk_scale - lse2[None, :])
    if IS_CAUSAL:
        p_t = gl.where(query_rows[None, :] >= first_row[:, None], p_t, 0.0)
    dp_t = warpgroup_mma_wait(num_outstanding=0, deps=[dp_t])
    if STATS_IN_SMEM:
        delta = delta_buf.load(query_cols.type.layout)
    ds_lo = (p_t * (dp_t - delta[None, :])).to(dtype)
    return p_t.to(dtype), ds_lo


@gluon.jit
def _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M: gl.constexpr, IS_CAUSAL: gl.constexpr):
    """(first query row, number of BLOCK_M-row query blocks) that see keys start_n.. : all queries, or for
    causal attention (bottom-right aligned: query i sees key j iff i >= j - (seqlen_k - seqlen_q)) those
    from the first block holding a row that sees key start_n."""
    if IS_CAUSAL:
        lo = gl.maximum(start_n - (seqlen_k - seqlen_q), 0) // BLOCK_M * BLOCK_M
    else:
        lo = start_n * 0
    return lo, gl.maximum(gl.cdiv(seqlen_q - lo, BLOCK_M), 0)


@gluon.jit
def _score_operands_in_registers(k_smem, v_smem, s_layout: gl.constexpr):
    """K_j and V_j as register A operands of S^T = K_j Q_i^T and dP^T = V_j dO_i^T (the KV_IN_REGISTERS
    option): loaded once, they halve the shared-memory traffic of those two products, whose Q^T / dO^T
    operand still comes from shared memory, at the price of the registers."""
    a_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=s_layout, k_width=2)
    return k_smem.load(a_layout), v_smem.load(a_layout)


@gluon.jit
def _store_key_gradients(DK, DV, stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                         batch, kv_head, start_n, seqlen_k, softmax_scale, dk, dv,
                         BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, kv_layout: gl.constexpr,
                         WIDE_STORES: gl.constexpr = False):
    """dK_j = tau * dk and dV_j = dv, in the input precision; key rows past ``seqlen_k`` are not written.
    WIDE_STORES: 16 bytes per store instruction instead of 4 (``gluon_stores.store_rows_wide``; ``kv_layout``
    then has its warps stacked along the key rows)."""
    dtype: gl.constexpr = DK.dtype.element_ty
    if WIDE_STORES:
        dk_head = DK + batch.to(gl.int64) * stride_dkb + kv_head.to(gl.int64) * stride_dkh
        dv_head = DV + batch.to(gl.int64) * stride_dvb + kv_head.to(gl.int64) * stride_dvh
        store_rows_wide(dk_head, start_n, stride_dkn, (dk * softmax_scale).to(dtype), seqlen_k, BLOCK_N, HEAD_DIM)
        store_rows_wide(dv_head, start_n, stride_dvn, dv.to(dtype), seqlen_k, BLOCK_N, HEAD_DIM)
    else:
        out_rows = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, kv_layout))
        out_cols = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, kv_layout))
        key_in = (out_rows < seqlen_k)[:, None]
        dk_ptrs = DK + batch.to(gl.int64) * stride_dkb + kv_head.to(gl.int64) * stride_dkh + \
            out_rows[:, None] * stride_dkn + out_cols[None, :]
        dv_ptrs = DV + batch.to(gl.int64) * stride_dvb + kv_head.to(gl.int64) * stride_dvh + \
            out_rows[:, None] * stride_dvn + out_cols[None, :]
        gl.store(dk_ptrs, (dk * softmax_scale).to(dtype), mask=key_in)
        gl.store(dv_ptrs, dv.to(dtype), mask=key_in)


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
    NUM_STAGES: gl.constexpr, WARPS: gl.constexpr, DQ_CHUNKS: gl.constexpr, DQ_BUFFERS: gl.constexpr,
    KV_IN_REGISTERS: gl.constexpr = False,
):
    """dK_j, dV_j for the key block ``program_id(0)`` of KV head ``program_id(1)``, batch ``program_id(2)``,
    and its contributions tau dS_ij K_j reduce-added into the float32 ``DQ_ACC`` (zeroed by the caller).

    Grid: (cdiv(seqlen_k, BLOCK_N), kv_heads, batch); ``WARPS`` must equal the launch's num_warps (4 or 8:
    one warpgroup per 64 key rows). LSE and D are (batch, head, row) float32, LSE in natural log."""
    LOG2E: gl.constexpr = 1.4426950408889634
    dtype: gl.constexpr = Q.dtype.element_ty
    DQ_COLS: gl.constexpr = HEAD_DIM // DQ_CHUNKS
    # Register layouts of the warpgroup MMAs: the key rows of S^T, dP^T, dK and dV split over the warps
    # (16 rows each); the BLOCK_M rows of dQ_i over the first four warps, the columns over the warpgroups.
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                       instr_shape=[16, BLOCK_M, 16])
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    dq_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, WARPS // 4],
                                                        instr_shape=[16, DQ_COLS // (WARPS // 4), 16])
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout, k_width=2)
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], dtype)
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    ds_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_M], dtype)
    dq_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], gl.float32)
    TILE_BYTES: gl.constexpr = 2 * BLOCK_M * HEAD_DIM * dtype.primitive_bitwidth // 8

    start_n = gl.program_id(0) * BLOCK_N
    kv_head = gl.program_id(1)
    batch = gl.program_id(2)

    k_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
    v_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
    q_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    do_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    ds_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, BLOCK_M], ds_tile_layout)
    dq_smem = gl.allocate_shared_memory(gl.float32, [DQ_BUFFERS, BLOCK_M, HEAD_DIM], dq_tile_layout)
    ready = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    kv_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for ring_index in gl.static_range(NUM_STAGES):
        mbarrier.init(ready.index(ring_index), count=1)
    mbarrier.init(kv_ready, count=1)

    _load_key_block(K, V, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh, stride_vn, batch, kv_head, start_n,
                    seqlen_k, k_smem, v_smem, kv_ready, BLOCK_N, HEAD_DIM)

    qk_scale = softmax_scale * LOG2E
    causal_shift = seqlen_k - seqlen_q
    key_rows = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, s_layout))
    first_row = key_rows - causal_shift  # causal: query i sees key j iff i >= j - shift
    lo, num_blocks = _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
    query_cols = gl.arange(0, BLOCK_M, layout=gl.SliceLayout(0, s_layout))

    dk = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    dv = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    zero_s = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, s_layout)
    zero_dq = gl.zeros([BLOCK_M, DQ_COLS], gl.float32, dq_layout)

    it = 0  # blocks done by this program over all heads: the ring positions and barrier phases
    for group_index in range(kv_group_size):
        head = kv_head * kv_group_size + group_index
        q_desc = _head_descriptor(Q, batch, head, stride_qb, stride_qh, stride_qm, seqlen_q, BLOCK_M, HEAD_DIM,
                                  q_tile_layout)
        do_desc = _head_descriptor(DO, batch, head, stride_dob, stride_doh, stride_dom, seqlen_q, BLOCK_M,
                                   HEAD_DIM, q_tile_layout)
        dq_desc = _head_descriptor(DQ_ACC, batch, head, stride_dqb, stride_dqh, stride_dqm, seqlen_q, BLOCK_M,
                                   HEAD_DIM, dq_tile_layout)
        lse_head = LSE + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        delta_head = DELTA + batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh
        gl.thread_barrier()  # every warp is done with the previous head's buffers before they are refilled
        for first in gl.static_range(NUM_STAGES - 1):
            first_stage = (it + first) % NUM_STAGES
            mbarrier.expect(ready.index(first_stage), TILE_BYTES, pred=first < num_blocks)
            tma.async_copy_global_to_shared(q_desc, [lo + first * BLOCK_M, 0], ready.index(first_stage),
                                            q_smem.index(first_stage), pred=first < num_blocks)
            tma.async_copy_global_to_shared(do_desc, [lo + first * BLOCK_M, 0], ready.index(first_stage),
                                            do_smem.index(first_stage), pred=first < num_blocks)
        mbarrier.wait(kv_ready, 0)
        k_operand, v_operand = k_smem, v_smem
        if KV_IN_REGISTERS:
            k_operand, v_operand = _score_operands_in_registers(k_smem, v_smem, s_layout)

        for block in range(num_blocks):
            stage = it % NUM_STAGES
            start_m = lo + block * BLOCK_M
            q_buf = q_smem.index(stage)
            do_buf = do_smem.index(stage)
            mbarrier.wait(ready.index(stage), (it // NUM_STAGES) & 1)
            p_lo, ds_lo = _probabilities_and_score_gradients(
                k_operand, v_operand, q_buf, do_buf, zero_s, lse_head, delta_head, stride_lm, start_m, query_cols,
                seqlen_q, first_row, qk_scale, IS_CAUSAL)

            # Request the block NUM_STAGES - 1 ahead, into the buffers of the previous block (all warps
            # finished it: the barrier at the end of the previous iteration).
            ahead = block + NUM_STAGES - 1
            next_stage = (it + NUM_STAGES - 1) % NUM_STAGES
            pred = ahead < num_blocks
            mbarrier.expect(ready.index(next_stage), TILE_BYTES, pred=pred)
            tma.async_copy_global_to_shared(q_desc, [lo + ahead * BLOCK_M, 0], ready.index(next_stage),
                                            q_smem.index(next_stage), pred=pred)
            tma.async_copy_global_to_shared(do_desc, [lo + ahead * BLOCK_M, 0], ready.index(next_stage),
                                            do_smem.index(next_stage), pred=pred)
            ds_smem.store(ds_lo)
            # The reduce-add that last read this block's dQ buffer (DQ_BUFFERS blocks ago) has finished:
            # the issuing thread waits, and the barrier below makes the others wait for it.
            tma.store_wait(DQ_BUFFERS - 1)
            fence_async_shared()
            gl.thread_barrier()

            dq_buf = dq_smem.index(it % DQ_BUFFERS)
            dq = warpgroup_mma(ds_smem.permute((1, 0)), k_smem.slice(0, DQ_COLS, dim=1), zero_dq, use_acc=False,
                               is_async=True)
            dv = warpgroup_mma(gl.convert_layout(p_lo, lhs_layout), do_buf, dv, is_async=True)
            dk = warpgroup_mma(gl.convert_layout(ds_lo, lhs_layout), q_buf, dk, is_async=True)
            dq = warpgroup_mma_wait(num_outstanding=2, deps=[dq])
            dq_buf.slice(0, DQ_COLS, dim=1).store(dq * softmax_scale)  # while dV and dK are computed
            for chunk in gl.static_range(1, DQ_CHUNKS):
                dq = warpgroup_mma(ds_smem.permute((1, 0)), k_smem.slice(chunk * DQ_COLS, DQ_COLS, dim=1), zero_dq,
                                   use_acc=False, is_async=True)
                dq = warpgroup_mma_wait(num_outstanding=0, deps=[dq])
                dq_buf.slice(chunk * DQ_COLS, DQ_COLS, dim=1).store(dq * softmax_scale)
            dv, dk = warpgroup_mma_wait(num_outstanding=0, deps=[dv, dk])
            fence_async_shared()
            gl.thread_barrier()
            async_reduce_add_shared_to_global(dq_desc, [start_m, 0], dq_buf)
            it += 1

    tma.store_wait(0)  # the last reduce-adds have read shared memory before the program exits
    for ring_index in gl.static_range(NUM_STAGES):
        mbarrier.invalidate(ready.index(ring_index))
    mbarrier.invalidate(kv_ready)

    _store_key_gradients(DK, DV, stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                         batch, kv_head, start_n, seqlen_k, softmax_scale, dk, dv, BLOCK_N, HEAD_DIM, kv_layout)


@gluon.jit
def _fused_ws_load_tile(Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                        stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
                        batch, kv_head, start_n, lo, num_blocks, seqlen_q, seqlen_k, kv_group_size,
                        k_smem, v_smem, q_smem, do_smem, kv_ready, ready, empty, it,
                        BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                        NUM_STAGES: gl.constexpr, LSE, DELTA, stride_lb, stride_lh, stride_lm,
                        lse_smem, delta_smem, STATS_IN_SMEM: gl.constexpr):
    """The loads of one key block's tile: K_j and V_j once (``kv_ready``), then Q_i and dO_i of every query
    block of every query head of the group into the ring of NUM_STAGES buffers, from ring position ``it``
    on (returned advanced); ``ready`` carries the TMA byte count, and a buffer is refilled only after the MMA
    warps released it (``empty``; a fresh barrier is waited on with the opposite parity, so the first pass
    through the ring does not wait). With STATS_IN_SMEM the block's LSE and D rows also go into the slot's
    ``lse_smem``/``delta_smem`` rows (plain loads and stores by this warp, before the arrival that the MMA
    warps wait for)."""
    dtype: gl.constexpr = Q.dtype.element_ty
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], dtype)
    TILE_BYTES: gl.constexpr = 2 * BLOCK_M * HEAD_DIM * dtype.primitive_bitwidth // 8
    _load_key_block(K, V, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh, stride_vn, batch, kv_head, start_n,
                    seqlen_k, k_smem, v_smem, kv_ready, BLOCK_N, HEAD_DIM)
    for group_index in range(kv_group_size):
        head = kv_head * kv_group_size + group_index
        # The next head's descriptors are written where the previous head's were: first let the loads still
        # in flight, which read them, land. Without this wait, 128-row query tiles with one block per head
        # read the wrong head's rows (v0.9, H200, GQA 8/2, 1000x1500).
        _wait_for_last_loads(ready, it, NUM_STAGES, 0)
        q_desc = _head_descriptor(Q, batch, head, stride_qb, stride_qh, stride_qm, seqlen_q, BLOCK_M, HEAD_DIM,
                                  q_tile_layout)
        do_desc = _head_descriptor(DO, batch, head, stride_dob, stride_doh, stride_dom, seqlen_q, BLOCK_M,
                                   HEAD_DIM, q_tile_layout)
        it = _load_query_blocks(q_desc, do_desc, batch, head, lo, 0, num_blocks, seqlen_q, q_smem, do_smem, ready,
                                empty, it, BLOCK_M, NUM_STAGES, TILE_BYTES, LSE, DELTA, stride_lb, stride_lh,
                                stride_lm, lse_smem, delta_smem, STATS_IN_SMEM)
    return it


@gluon.jit
def _load_query_blocks(q_desc, do_desc, batch, head, lo, first, end, seqlen_q, q_smem, do_smem, ready, empty, it,
                       BLOCK_M: gl.constexpr, NUM_STAGES: gl.constexpr, TILE_BYTES: gl.constexpr, LSE, DELTA,
                       stride_lb, stride_lh, stride_lm, lse_smem, delta_smem, STATS_IN_SMEM: gl.constexpr):
    """Q_i and dO_i (TILE_BYTES together) of query blocks [first, end) of ``head`` (rows from ``lo``) into the ring
    from position ``it`` (returned advanced), each slot once the MMA warps released it (``empty``), with
    STATS_IN_SMEM its LSE and D rows too (``_fused_ws_load_tile``)."""
    stats_layout: gl.constexpr = gl.BlockedLayout([BLOCK_M // 32], [32], [1], [0])
    for block in range(first, end):
        stage = it % NUM_STAGES
        mbarrier.wait(empty.index(stage), ((it // NUM_STAGES) & 1) ^ 1)
        if STATS_IN_SMEM:
            rows = lo + block * BLOCK_M + gl.arange(0, BLOCK_M, layout=stats_layout)
            row_in = rows < seqlen_q
            stats_offset = batch.to(gl.int64) * stride_lb + head.to(gl.int64) * stride_lh + rows * stride_lm
            lse_smem.index(stage).store(gl.load(LSE + stats_offset, mask=row_in, other=float("inf")))
            delta_smem.index(stage).store(gl.load(DELTA + stats_offset, mask=row_in, other=0.0))
            gl.thread_barrier()  # every lane's rows are stored before the arrival below releases them
        mbarrier.expect(ready.index(stage), TILE_BYTES)
        tma.async_copy_global_to_shared(q_desc, [lo + block * BLOCK_M, 0], ready.index(stage), q_smem.index(stage))
        tma.async_copy_global_to_shared(do_desc, [lo + block * BLOCK_M, 0], ready.index(stage), do_smem.index(stage))
        it += 1
    return it


@gluon.jit
def _fused_ws_load_tile_queries_first(Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                                      stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
                                      batch, kv_head, start_n, lo, num_blocks, seqlen_q, seqlen_k, kv_group_size,
                                      k_smem, v_smem, q_smem, do_smem, kv_ready, kv_empty, kv_phase, ready, empty, it,
                                      tile_iter, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                                      HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr, LSE, DELTA, stride_lb,
                                      stride_lh, stride_lm, lse_smem, delta_smem, STATS_IN_SMEM: gl.constexpr):
    """``_fused_ws_load_tile`` for a persistent program's ``tile_iter``-th key block in its one K/V slot, with the
    waits in another order (v0.42). The block's first NUM_STAGES - 1 query blocks (Q_i, dO_i, their LSE/D rows) are
    requested as ring slots free, and the K_j/V_j descriptors are written as soon as the previous block's K/V have
    landed; only then does the loader wait for the MMA warps to release the slot (``kv_empty``, phase ``kv_phase``)
    and request K_j, V_j. In ``_fused_ws_load_tile`` order everything of the block waits for that release: its
    first query blocks' stats loads and TMA loads land after K_j, V_j, and the MMA warps wait for both at every key
    block's start."""
    dtype: gl.constexpr = Q.dtype.element_ty
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], dtype)
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    TILE_BYTES: gl.constexpr = 2 * BLOCK_M * HEAD_DIM * dtype.primitive_bitwidth // 8
    ahead = gl.minimum(num_blocks, NUM_STAGES - 1)
    for group_index in range(kv_group_size):
        head = kv_head * kv_group_size + group_index
        _wait_for_last_loads(ready, it, NUM_STAGES, 0)  # as in _fused_ws_load_tile: the Q/dO descriptors' loads
        q_desc = _head_descriptor(Q, batch, head, stride_qb, stride_qh, stride_qm, seqlen_q, BLOCK_M, HEAD_DIM,
                                  q_tile_layout)
        do_desc = _head_descriptor(DO, batch, head, stride_dob, stride_doh, stride_dom, seqlen_q, BLOCK_M,
                                   HEAD_DIM, q_tile_layout)
        first = 0
        if group_index == 0:
            it = _load_query_blocks(q_desc, do_desc, batch, head, lo, 0, ahead, seqlen_q, q_smem, do_smem, ready,
                                    empty, it, BLOCK_M, NUM_STAGES, TILE_BYTES, LSE, DELTA, stride_lb, stride_lh,
                                    stride_lm, lse_smem, delta_smem, STATS_IN_SMEM)
            # The K/V descriptors are rewritten where the previous block's were, once its K/V loads, which read
            # them, have landed (the slot's previous kv_ready phase; after the kv_empty wait that was implied). They
            # are written here, after the waits for ring slots, so that they are not held across those: the loader
            # has 24 registers.
            mbarrier.wait(kv_ready, kv_phase ^ 1, pred=tile_iter > 0)
            k_desc = _head_descriptor(K, batch, kv_head, stride_kb, stride_kh, stride_kn, seqlen_k, BLOCK_N,
                                      HEAD_DIM, kv_tile_layout)
            v_desc = _head_descriptor(V, batch, kv_head, stride_vb, stride_vh, stride_vn, seqlen_k, BLOCK_N,
                                      HEAD_DIM, kv_tile_layout)
            mbarrier.wait(kv_empty, kv_phase ^ 1)
            mbarrier.expect(kv_ready, 2 * BLOCK_N * HEAD_DIM * dtype.primitive_bitwidth // 8)
            tma.async_copy_global_to_shared(k_desc, [start_n, 0], kv_ready, k_smem)
            tma.async_copy_global_to_shared(v_desc, [start_n, 0], kv_ready, v_smem)
            first = ahead
        it = _load_query_blocks(q_desc, do_desc, batch, head, lo, first, num_blocks, seqlen_q, q_smem, do_smem,
                                ready, empty, it, BLOCK_M, NUM_STAGES, TILE_BYTES, LSE, DELTA, stride_lb, stride_lh,
                                stride_lm, lse_smem, delta_smem, STATS_IN_SMEM)
    return it


@gluon.jit
def _fused_ws_loader(Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                     stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
                     batch, kv_head, start_n, lo, num_blocks, seqlen_q, seqlen_k, kv_group_size,
                     k_smem, v_smem, q_smem, do_smem, kv_ready, ready, empty,
                     BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr,
                     LSE, DELTA, stride_lb, stride_lh, stride_lm, lse_smem, delta_smem, STATS_IN_SMEM: gl.constexpr):
    """The loader warp: the loads of this program's one tile (``_fused_ws_load_tile``)."""
    _fused_ws_load_tile(Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                        stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
                        batch, kv_head, start_n, lo, num_blocks, seqlen_q, seqlen_k, kv_group_size,
                        k_smem, v_smem, q_smem, do_smem, kv_ready, ready, empty, lo * 0,
                        BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, LSE, DELTA, stride_lb, stride_lh, stride_lm,
                        lse_smem, delta_smem, STATS_IN_SMEM)


@gluon.jit
def _fused_ws_reduce_tile(DQ_ACC, stride_dqb, stride_dqh, stride_dqm, batch, kv_head, lo, num_blocks, seqlen_q,
                          kv_group_size, dq_smem, dq_ready, dq_empty, it,
                          BLOCK_M: gl.constexpr, HEAD_DIM: gl.constexpr, DQ_BUFFERS: gl.constexpr):
    """The dQ reduce-adds of one key block's tile, from dQ buffer position ``it`` on (returned advanced):
    for each float32 dQ_i tile the MMA warps mark ready, one TMA bulk reduce-add into the accumulator; once
    the copy engine has read the tile, the buffer is handed back (``dq_empty``)."""
    dq_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], gl.float32)
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
    return it


@gluon.jit
def _fused_ws_dq_reducer(DQ_ACC, stride_dqb, stride_dqh, stride_dqm, batch, kv_head, lo, num_blocks, seqlen_q,
                         kv_group_size, dq_smem, dq_ready, dq_empty,
                         BLOCK_M: gl.constexpr, HEAD_DIM: gl.constexpr, DQ_BUFFERS: gl.constexpr):
    """The dQ warp: the reduce-adds of this program's one tile (``_fused_ws_reduce_tile``)."""
    _fused_ws_reduce_tile(DQ_ACC, stride_dqb, stride_dqh, stride_dqm, batch, kv_head, lo, num_blocks, seqlen_q,
                          kv_group_size, dq_smem, dq_ready, dq_empty, lo * 0, BLOCK_M, HEAD_DIM, DQ_BUFFERS)


@gluon.jit
def _mma_tile_start(start_n, seqlen_q, seqlen_k, softmax_scale, k_smem, v_smem, kv_ready, kv_phase,
                    s_layout: gl.constexpr, kv_layout: gl.constexpr, dq_layout: gl.constexpr, BLOCK_M: gl.constexpr,
                    BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, DQ_COLS: gl.constexpr,
                    KV_IN_REGISTERS: gl.constexpr):
    """What the MMA warps set up for a key block's tile (the specialised kernels' tile functions): the
    exponent scale tau log2(e), each key row's first query row (causal), the query columns, zeroed dK/dV
    accumulators and product tiles, and -- once K_j, V_j have landed (``kv_ready`` phase ``kv_phase``) --
    the score products' A operands (shared tiles, or with KV_IN_REGISTERS registers)."""
    qk_scale = softmax_scale * 1.4426950408889634  # tau log2(e): the exponentials are exp2
    causal_shift = seqlen_k - seqlen_q
    key_rows = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, s_layout))
    first_row = key_rows - causal_shift
    query_cols = gl.arange(0, BLOCK_M, layout=gl.SliceLayout(0, s_layout))
    dk = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    dv = gl.zeros([BLOCK_N, HEAD_DIM], gl.float32, kv_layout)
    zero_s = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, s_layout)
    zero_dq = gl.zeros([BLOCK_M, DQ_COLS], gl.float32, dq_layout)
    mbarrier.wait(kv_ready, kv_phase)
    k_operand, v_operand = k_smem, v_smem
    if KV_IN_REGISTERS:
        k_operand, v_operand = _score_operands_in_registers(k_smem, v_smem, s_layout)
    return qk_scale, first_row, query_cols, dk, dv, zero_s, zero_dq, k_operand, v_operand


@gluon.jit
def _fused_ws_mma_tile(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks,
                       seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                       k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, ready, empty, dq_ready,
                       dq_empty, it, kv_phase,
                       BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                       IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, WARPS: gl.constexpr,
                       DQ_CHUNKS: gl.constexpr, DQ_BUFFERS: gl.constexpr, KV_IN_REGISTERS: gl.constexpr,
                       lse_smem, delta_smem, STATS_IN_SMEM: gl.constexpr, DS_BUFFERS: gl.constexpr = 1,
                       LATE_KV_WAIT: gl.constexpr = False, SPREAD_DQ: gl.constexpr = False,
                       EARLY_LSE: gl.constexpr = False):
    """The MMA warps' work on one key block's tile (WARPS warps, 16 key rows each), once its K_j and V_j
    have landed (``kv_ready`` phase ``kv_phase``): per query block, S^T, dP^T, the exponentials and dS^T,
    then the dQ, dV and dK products; dQ_i goes to one of DQ_BUFFERS float32 shared tiles (wait
    ``dq_empty``, write, arrive ``dq_ready``) while dV and dK are on the tensor cores, and the Q/dO buffer
    is released (``empty``) once the products that read it are done. Ring positions start at ``it``.
    Returns the float32 (dK / tau, dV) accumulators and ``it`` advanced.

    Each query block has two barriers over all MMA warps: after the dS^T store (the dQ product reads every
    warp's rows of it) and after the block's products (dS^T may be rewritten; the dQ tile and the Q/dO
    slot are complete, so they are handed on). With DS_BUFFERS = 2, dS^T alternates between two tiles and
    the second barrier goes: block i's dQ tile and Q/dO slot are handed on after the next block's first
    barrier (which every warp reaches only when done with block i), or after the tile's last block. A warp
    done with its products then starts the next block's score products and exponentials while the other
    warpgroup's products still run. Needs NUM_STAGES >= 2 (the slot of block i is released after block i+1
    has arrived). H200, bf16 (v0.19 probes): with two slots the late hand-back starves the loader (-2% to
    -21%); with three slots at d=64 +2-7% (the d=64 tuned form); at d=128 the third slot fits only with one dQ
    tile, whose late hand-back then costs 2-5%.

    LATE_KV_WAIT (DS_BUFFERS = 2, DQ_CHUNKS = 1; v0.22; v0.23 probe run 10: +1% at d=64 causal 1k-2k, -1% at
    non-causal 16k, not a candidate): a block ends without waiting for its dV and
    dK products. Warpgroup MMA groups retire in issue order, so the next block's wait for its S^T product
    (``_probabilities_and_score_gradients``) is also theirs, and it comes before that block's barrier, where this
    block's Q/dO slot is handed back; meanwhile the warp waits for the next slot and reads its LSE/D rows with
    dV and dK on the tensor cores. The tile's last block's are waited after the loop. (The accumulators then
    cross the loop's back edge in flight: at d=64 ptxas keeps them so, its end-of-block wait moving after the
    loop; at d=128 it serialises every product instead, and the launcher refuses the form there.)"""
    gl.static_assert(not LATE_KV_WAIT or (DS_BUFFERS == 2 and DQ_CHUNKS == 1),
                     "a late dV/dK wait needs the slot handed back at the next block's barrier and dQ in one piece")
    gl.static_assert(not SPREAD_DQ or DQ_CHUNKS == 1, "the spread dQ store writes the whole tile")
    DQ_COLS: gl.constexpr = HEAD_DIM // DQ_CHUNKS
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                       instr_shape=[16, BLOCK_M, 16])
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    dq_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, WARPS // 4],
                                                        instr_shape=[16, DQ_COLS // (WARPS // 4), 16])
    lhs_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout, k_width=2)

    qk_scale, first_row, query_cols, dk, dv, zero_s, zero_dq, k_operand, v_operand = _mma_tile_start(
        start_n, seqlen_q, seqlen_k, softmax_scale, k_smem, v_smem, kv_ready, kv_phase, s_layout, kv_layout,
        dq_layout, BLOCK_M, BLOCK_N, HEAD_DIM, DQ_COLS, KV_IN_REGISTERS)
    if LATE_KV_WAIT:  # the accumulators are carried through the loops still in flight: give them that type
        dk = warpgroup_mma_init(dk)
        dv = warpgroup_mma_init(dv)
    first_it = it
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
                k_operand, v_operand, q_buf, do_buf, zero_s, lse_head, delta_head, stride_lm, start_m, query_cols,
                seqlen_q, first_row, qk_scale, IS_CAUSAL, lse_smem.index(stage), delta_smem.index(stage),
                STATS_IN_SMEM, EARLY_LSE)
            if DS_BUFFERS == 1:
                ds_buf = ds_smem
            else:
                ds_buf = ds_smem.index(it % DS_BUFFERS)
            # Every MMA warp finished the dQ product that last read ds_buf: with one tile, the barrier at the
            # end of the previous iteration; with two, this iteration's barrier one block ago.
            ds_buf.store(ds_lo)
            fence_async_shared()  # also orders this warp's stores of the previous dQ tile before its reduce
            gl.thread_barrier()
            if DS_BUFFERS > 1:
                # Every MMA warp is done with the previous block (products waited, dQ stored and fenced).
                mbarrier.arrive(dq_ready.index((it - 1) % DQ_BUFFERS), pred=it > first_it)
                mbarrier.arrive(empty.index((it - 1) % NUM_STAGES), pred=it > first_it)
            dq = warpgroup_mma(ds_buf.permute((1, 0)), k_smem.slice(0, DQ_COLS, dim=1), zero_dq, use_acc=False,
                               is_async=True)
            dv = warpgroup_mma(gl.convert_layout(p_lo, lhs_layout), do_buf, dv, is_async=True)
            dk = warpgroup_mma(gl.convert_layout(ds_lo, lhs_layout), q_buf, dk, is_async=True)
            dq = warpgroup_mma_wait(num_outstanding=2, deps=[dq])
            buf = it % DQ_BUFFERS
            dq_buf = dq_smem.index(buf)
            mbarrier.wait(dq_empty.index(buf), ((it // DQ_BUFFERS) & 1) ^ 1)
            if SPREAD_DQ:  # no bank conflicts (gluon_stores.store_float32_spread; d=128's tuned form since v0.35)
                store_float32_spread(dq_buf, dq * softmax_scale, BLOCK_M, HEAD_DIM)
            else:
                dq_buf.slice(0, DQ_COLS, dim=1).store(dq * softmax_scale)
            for chunk in gl.static_range(1, DQ_CHUNKS):
                dq = warpgroup_mma(ds_buf.permute((1, 0)), k_smem.slice(chunk * DQ_COLS, DQ_COLS, dim=1), zero_dq,
                                   use_acc=False, is_async=True)
                dq = warpgroup_mma_wait(num_outstanding=0, deps=[dq])
                dq_buf.slice(chunk * DQ_COLS, DQ_COLS, dim=1).store(dq * softmax_scale)
            if not LATE_KV_WAIT:
                dv, dk = warpgroup_mma_wait(num_outstanding=0, deps=[dv, dk])
            if DS_BUFFERS == 1:
                fence_async_shared()
                gl.thread_barrier()
                mbarrier.arrive(dq_ready.index(buf))
                mbarrier.arrive(empty.index(stage))
            it += 1
    if LATE_KV_WAIT:  # the last block's dV and dK (with no block at all, nothing is in flight)
        dv, dk = warpgroup_mma_wait(num_outstanding=0, deps=[dv, dk])
    if DS_BUFFERS > 1:  # the tile's last block, released as the next block's barrier would have
        fence_async_shared()
        gl.thread_barrier()
        mbarrier.arrive(dq_ready.index((it - 1) % DQ_BUFFERS), pred=it > first_it)
        mbarrier.arrive(empty.index((it - 1) % NUM_STAGES), pred=it > first_it)
    return dk, dv, it


@gluon.jit
def _fused_ws_mma_partition(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks,
                            seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                            k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, ready, empty, dq_ready,
                            dq_empty,
                            BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                            IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, WARPS: gl.constexpr,
                            DQ_CHUNKS: gl.constexpr, DQ_BUFFERS: gl.constexpr, KV_IN_REGISTERS: gl.constexpr,
                            lse_smem, delta_smem, STATS_IN_SMEM: gl.constexpr, DS_BUFFERS: gl.constexpr = 1,
                            LATE_KV_WAIT: gl.constexpr = False):
    """The MMA warps (the default partition): this program's one tile (``_fused_ws_mma_tile``). Returns the
    float32 (dK / tau, dV) accumulators, stored after the partitions join."""
    dk, dv, it = _fused_ws_mma_tile(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo,
                                    num_blocks, seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                                    k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, ready, empty,
                                    dq_ready, dq_empty, lo * 0, 0,
                                    BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, WARPS, DQ_CHUNKS,
                                    DQ_BUFFERS, KV_IN_REGISTERS, lse_smem, delta_smem, STATS_IN_SMEM, DS_BUFFERS,
                                    LATE_KV_WAIT)
    return dk, dv


@gluon.jit
def _fused_ws_shared_buffers(Q, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                             NUM_STAGES: gl.constexpr, DQ_BUFFERS: gl.constexpr, PERSISTENT: gl.constexpr,
                             STATS_IN_SMEM: gl.constexpr, DS_BUFFERS: gl.constexpr = 1, KV_SLOTS: gl.constexpr = 1):
    """The specialised kernels' shared memory, allocated and initialised in one order for both (offsets are
    part of their compiled form): K_j, V_j, the Q/dO ring, dS^T, the float32 dQ tiles, then the barriers —
    ``kv_ready``, with PERSISTENT ``kv_empty`` (else ``kv_ready`` stands in, unused), the ring's
    ``ready``/``empty``, the dQ tiles' ``dq_ready``/``dq_empty`` — and last the optional LSE/D rows. dS^T is
    one [BLOCK_N, BLOCK_M] tile, or with DS_BUFFERS = 2 a pair of them ([2, BLOCK_N, BLOCK_M]). With KV_SLOTS = 2
    (PERSISTENT) K_j and V_j get two slots each ([2, BLOCK_N, HEAD_DIM]), with a ``kv_ready`` and a ``kv_empty``
    barrier per slot ([2, 1])."""
    dtype: gl.constexpr = Q.dtype.element_ty
    q_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], dtype)
    kv_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, HEAD_DIM], dtype)
    ds_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_M], dtype)
    dq_tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, HEAD_DIM], gl.float32)
    if KV_SLOTS == 1:  # the measured forms' allocation, kept as it was
        k_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
        v_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, HEAD_DIM], kv_tile_layout)
    else:
        gl.static_assert(PERSISTENT, "two K/V slots are a form of the persistent kernel")
        k_smem = gl.allocate_shared_memory(dtype, [KV_SLOTS, BLOCK_N, HEAD_DIM], kv_tile_layout)
        v_smem = gl.allocate_shared_memory(dtype, [KV_SLOTS, BLOCK_N, HEAD_DIM], kv_tile_layout)
    q_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    do_smem = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_M, HEAD_DIM], q_tile_layout)
    if DS_BUFFERS == 1:  # the measured forms' allocation, kept as it was (its offsets are in their SASS)
        ds_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, BLOCK_M], ds_tile_layout)
    else:
        ds_smem = gl.allocate_shared_memory(dtype, [DS_BUFFERS, BLOCK_N, BLOCK_M], ds_tile_layout)
    dq_smem = gl.allocate_shared_memory(gl.float32, [DQ_BUFFERS, BLOCK_M, HEAD_DIM], dq_tile_layout)
    if KV_SLOTS == 1:
        kv_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        if PERSISTENT:
            kv_empty = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        else:
            kv_empty = kv_ready
    else:
        kv_ready = gl.allocate_shared_memory(gl.int64, [KV_SLOTS, 1], mbarrier.MBarrierLayout())
        kv_empty = gl.allocate_shared_memory(gl.int64, [KV_SLOTS, 1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    dq_ready = gl.allocate_shared_memory(gl.int64, [DQ_BUFFERS, 1], mbarrier.MBarrierLayout())
    dq_empty = gl.allocate_shared_memory(gl.int64, [DQ_BUFFERS, 1], mbarrier.MBarrierLayout())
    if KV_SLOTS == 1:
        mbarrier.init(kv_ready, count=1)
        if PERSISTENT:
            mbarrier.init(kv_empty, count=1)
    else:
        for kv_slot in gl.static_range(KV_SLOTS):
            mbarrier.init(kv_ready.index(kv_slot), count=1)
            mbarrier.init(kv_empty.index(kv_slot), count=1)
    for ring_index in gl.static_range(NUM_STAGES):
        mbarrier.init(ready.index(ring_index), count=1)
        mbarrier.init(empty.index(ring_index), count=1)
    for buffer_index in gl.static_range(DQ_BUFFERS):
        mbarrier.init(dq_ready.index(buffer_index), count=1)
        mbarrier.init(dq_empty.index(buffer_index), count=1)
    if STATS_IN_SMEM:  # one BLOCK_M row of LSE and of D per Q/dO ring slot
        stats_layout: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, order=[0])
        lse_smem = gl.allocate_shared_memory(gl.float32, [NUM_STAGES, BLOCK_M], stats_layout)
        delta_smem = gl.allocate_shared_memory(gl.float32, [NUM_STAGES, BLOCK_M], stats_layout)
    else:  # no memory taken: q_smem stands in, unused
        lse_smem = q_smem
        delta_smem = q_smem
    return (k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, kv_empty, ready, empty, dq_ready,
            dq_empty, lse_smem, delta_smem)


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
    LOADER_REGS: gl.constexpr, REDUCER_REGS: gl.constexpr, KV_IN_REGISTERS: gl.constexpr = False,
    STATS_IN_SMEM: gl.constexpr = False, DS_BUFFERS: gl.constexpr = 1, LATE_KV_WAIT: gl.constexpr = False,
):
    """``attention_backward_fused_kernel`` with its phases in warps of their own (FlashAttention-3's backward
    structure): a loader warp (``_fused_ws_loader``), a dQ reduce-add warp (``_fused_ws_dq_reducer``) and the
    MMA warps (``_fused_ws_mma_partition``), which no longer wait for a TMA load or a reduce-add to be
    issued; LOADER_REGS / REDUCER_REGS are the two one-warp workers' registers per thread (``setmaxnreg``).
    Same arguments and grid; WARPS = the MMA warps (launch num_warps), WARPS + 4 run (the workers are padded
    to a warpgroup). H200, bf16, d=128, 64x128 tiles: 487 TFLOP/s against 475 non-specialised at N=16k, 513
    against 467 causal 16k."""
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])

    start_n = gl.program_id(0) * BLOCK_N
    kv_head = gl.program_id(1)
    batch = gl.program_id(2)
    lo, num_blocks = _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)

    (k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, kv_empty, ready, empty, dq_ready, dq_empty,
     lse_smem, delta_smem) = _fused_ws_shared_buffers(Q, BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, DQ_BUFFERS, False,
                                                      STATS_IN_SMEM, DS_BUFFERS)

    # The MMA warps (default partition) get the registers the one-warp loader and reducer give up.
    dk, dv = gl.warp_specialize([
        (_fused_ws_mma_partition, (
            LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks,
            seqlen_q, seqlen_k, kv_group_size, softmax_scale,
            k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, ready, empty, dq_ready, dq_empty,
            BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, WARPS, DQ_CHUNKS, DQ_BUFFERS, KV_IN_REGISTERS,
            lse_smem, delta_smem, STATS_IN_SMEM, DS_BUFFERS, LATE_KV_WAIT)),
        (_fused_ws_loader, (
            Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
            stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
            batch, kv_head, start_n, lo, num_blocks, seqlen_q, seqlen_k, kv_group_size,
            k_smem, v_smem, q_smem, do_smem, kv_ready, ready, empty, BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES,
            LSE, DELTA, stride_lb, stride_lh, stride_lm, lse_smem, delta_smem, STATS_IN_SMEM)),
        (_fused_ws_dq_reducer, (
            DQ_ACC, stride_dqb, stride_dqh, stride_dqm, batch, kv_head, lo, num_blocks, seqlen_q,
            kv_group_size, dq_smem, dq_ready, dq_empty, BLOCK_M, HEAD_DIM, DQ_BUFFERS)),
    ], [1, 1], [LOADER_REGS, REDUCER_REGS])

    _store_key_gradients(DK, DV, stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                         batch, kv_head, start_n, seqlen_k, softmax_scale, dk, dv, BLOCK_N, HEAD_DIM, kv_layout)


@gluon.jit
def _paired_block(unit, half, num_blocks, num_heads):
    """(block index, head, batch) of ``half`` (0 or 1) of work unit ``unit`` of a persistent causal loop
    over ``num_blocks`` blocks per head: a unit is a pair of blocks of one head, j and num_blocks - 1 - j
    (one block when they coincide). With causal attention key block j sees the query rows from about j on
    (the fused backward) and query block i the keys up to about i (the forward), so the two halves' costs
    add up to the same total in every unit and a static round-robin over units stays balanced; units run
    head by head, so the programs at work at once share a few heads' tensors in L2."""
    num_pairs = (num_blocks + 1) // 2
    pair = unit % num_pairs
    head_batch = unit // num_pairs
    block = pair + half * (num_blocks - 1 - 2 * pair)
    return block, head_batch % num_heads, head_batch // num_heads


@gluon.jit
def _paired_halves(unit, num_blocks):
    """Blocks in work unit ``unit`` of ``_paired_block``: 2, or 1 for the middle block of an odd count."""
    pair = unit % ((num_blocks + 1) // 2)
    return 2 - (2 * pair == num_blocks - 1).to(gl.int32)


@gluon.jit
def _listed_block(schedule, index, num_blocks, num_heads):
    """(block, head, batch) of entry ``index`` of a host-made tile list (``flashio.schedules``: the
    ``num_programs + 1`` offsets, then ids ``head_batch * num_blocks + block``)."""
    tile = gl.load(schedule + gl.num_programs(0) + 1 + index)
    head_batch = tile // num_blocks
    return tile % num_blocks, head_batch % num_heads, head_batch // num_heads


@gluon.jit
def _listed_query_range(schedule, index, BLOCK_M: gl.constexpr):
    """(first query row, number of query blocks, buffer slot) of entry ``index`` of a split-tail tile list
    (``flashio.schedules.split_tail_schedule``: after the offsets and the E tile ids, E first query blocks,
    E ends and E slots, E being the last offset)."""
    entries = gl.load(schedule + gl.num_programs(0))
    pieces = schedule + gl.num_programs(0) + 1 + entries
    first = gl.load(pieces + index)
    return first * BLOCK_M, gl.load(pieces + entries + index) - first, gl.load(pieces + 2 * entries + index)


@gluon.jit
def _add_key_gradient_part(KEY_GRADIENT_PARTS, slot, values, PART: gl.constexpr, BLOCK_N: gl.constexpr,
                           HEAD_DIM: gl.constexpr, kv_layout: gl.constexpr):
    """A piece's partial tau dk (``PART`` 0) or dv (1) added (relaxed float32 atomics: only the sums after the
    kernel are read) into slot ``slot`` of the [slots, 2, BLOCK_N, HEAD_DIM] buffer, which the launcher
    converts into dK and dV after the kernel (``kernels/backward.py``'s ``key_gradient_parts_kernel``)."""
    rows = gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, kv_layout))
    cols = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, kv_layout))
    slot_ptrs = KEY_GRADIENT_PARTS + slot.to(gl.int64) * (2 * BLOCK_N * HEAD_DIM) + rows[:, None] * HEAD_DIM + \
        cols[None, :]
    gl.atomic_add(slot_ptrs + PART * (BLOCK_N * HEAD_DIM), values, sem="relaxed")


@gluon.jit
def _add_key_gradients(KEY_GRADIENT_PARTS, slot, softmax_scale, dk, dv, BLOCK_N: gl.constexpr,
                       HEAD_DIM: gl.constexpr, kv_layout: gl.constexpr):
    """A piece's partial tau dk and dv, both parts of its slot (``_add_key_gradient_part``)."""
    _add_key_gradient_part(KEY_GRADIENT_PARTS, slot, dk * softmax_scale, 0, BLOCK_N, HEAD_DIM, kv_layout)
    _add_key_gradient_part(KEY_GRADIENT_PARTS, slot, dv, 1, BLOCK_N, HEAD_DIM, kv_layout)


@gluon.jit
def _program_entries(schedule, num_units, LISTED: gl.constexpr):
    """(first entry, number of entries) of this program's key blocks: its span of the tile list ``schedule``
    (LISTED), or two halves of each of its round-robin units. Used by the row-split kernel
    (backward_gluon_rows.py); the specialised kernels here keep their measured loops (their SASS changed when
    their loops shared a body, v0.18)."""
    if LISTED:
        first_entry = gl.load(schedule + gl.program_id(0))
        num_entries = gl.load(schedule + gl.program_id(0) + 1) - first_entry
    else:
        first_entry = num_units * 0
        num_entries = gl.cdiv(num_units - gl.program_id(0), gl.num_programs(0)) * 2
    return first_entry, num_entries


@gluon.jit
def _entry_block(schedule, first_entry, entry, num_key_blocks, num_kv_heads, LISTED: gl.constexpr):
    """(key block, KV head, batch, present) of this program's entry ``entry``: listed, or a half of a round-robin
    unit (the second half of a unit with one block is not present), in the loader's and reducer's order."""
    if LISTED:
        key_block, kv_head, batch = _listed_block(schedule, first_entry + entry, num_key_blocks, num_kv_heads)
        present = True
    else:
        unit = gl.program_id(0) + entry // 2 * gl.num_programs(0)
        key_block, kv_head, batch = _paired_block(unit, entry % 2, num_key_blocks, num_kv_heads)
        present = entry % 2 < _paired_halves(unit, num_key_blocks)
    return key_block, kv_head, batch, present


@gluon.jit
def _publish_key_block(ids, id_ready, id_empty, entry, index, ID_SLOTS: gl.constexpr):
    """The loader's ``entry``-th claimed list entry ``index`` (or -1: no more) into id slot ``entry % ID_SLOTS``
    (DYNAMIC), once both readers, the MMA warps and the dQ warp, handed back the entry that used the slot before
    (``id_empty``, two arrivals); ``id_ready``'s arrival releases the store to them."""
    slot = entry % ID_SLOTS
    mbarrier.wait(id_empty.index(slot), ((entry // ID_SLOTS) & 1) ^ 1)
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [1], [0])
    ids.index(slot).store(gl.full([1], index, gl.int32, layout=layout))
    gl.thread_barrier()  # every lane's store before the arrival (one lane arrives)
    mbarrier.arrive(id_ready.index(slot))


@gluon.jit
def _read_key_block(ids, id_ready, id_empty, entry, ID_SLOTS: gl.constexpr, WARPS: gl.constexpr):
    """A reader's ``entry``-th list entry (DYNAMIC; -1: the program has no more key blocks), read from its id slot
    once the loader published it, the slot then handed back. ``WARPS``: the reading partition's warps."""
    slot = entry % ID_SLOTS
    mbarrier.wait(id_ready.index(slot), (entry // ID_SLOTS) & 1)
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [WARPS], [0])
    index = gl.max(ids.index(slot).load(layout), axis=0)
    gl.thread_barrier()  # every warp has read the slot before it may be rewritten
    mbarrier.arrive(id_empty.index(slot))
    return index


@gluon.jit
def _key_block_slot(k_smem, v_smem, kv_ready, kv_empty, tile_iter, KV_SLOTS: gl.constexpr):
    """(K_j tile, V_j tile, its ``kv_ready``, its ``kv_empty``, the barriers' phase) of a persistent program's
    ``tile_iter``-th key block: the one K/V slot and the parity of ``tile_iter``, or with KV_SLOTS = 2 slot
    ``tile_iter`` mod 2 and the parity of the slot's own uses."""
    if KV_SLOTS == 1:
        return k_smem, v_smem, kv_ready, kv_empty, tile_iter & 1
    else:
        slot = tile_iter % KV_SLOTS
        return (k_smem.index(slot), v_smem.index(slot), kv_ready.index(slot), kv_empty.index(slot),
                (tile_iter // KV_SLOTS) & 1)


@gluon.jit
def _persistent_load_key_block(Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                               stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom, batch, kv_head,
                               start_n, lo, num_blocks, seqlen_q, seqlen_k, kv_group_size, k_smem, v_smem, q_smem,
                               do_smem, kv_ready, kv_empty, ready, empty, it, tile_iter, BLOCK_M: gl.constexpr,
                               BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, NUM_STAGES: gl.constexpr, LSE, DELTA,
                               stride_lb, stride_lh, stride_lm, lse_smem, delta_smem, STATS_IN_SMEM: gl.constexpr,
                               KV_SLOTS: gl.constexpr = 1, QUERIES_FIRST: gl.constexpr = False):
    """The persistent loader's ``tile_iter``-th key block: once the MMA warps released its K/V slot (``kv_empty``:
    with one slot, the previous block's; with KV_SLOTS = 2, the block before that, so that K_j, V_j are requested
    while the MMA warps still work on the previous block), its K_j, V_j and query blocks [lo, lo + num_blocks)
    (``_fused_ws_load_tile``) from Q/dO ring position ``it`` (returned advanced); with QUERIES_FIRST (one slot) the
    first query blocks before the wait for the slot (``_fused_ws_load_tile_queries_first``). Every loop of
    ``_persistent_fused_ws_loader`` runs its blocks through it."""
    k_tile, v_tile, kv_tile_ready, kv_tile_empty, kv_phase = _key_block_slot(k_smem, v_smem, kv_ready, kv_empty,
                                                                             tile_iter, KV_SLOTS)
    if QUERIES_FIRST:
        gl.static_assert(KV_SLOTS == 1, "with two K/V slots the loader requests K_j, V_j a block ahead already")
        it = _fused_ws_load_tile_queries_first(
            Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh,
            stride_vn, stride_dob, stride_doh, stride_dom, batch, kv_head, start_n, lo, num_blocks, seqlen_q, seqlen_k,
            kv_group_size, k_tile, v_tile, q_smem, do_smem, kv_tile_ready, kv_tile_empty, kv_phase, ready, empty, it,
            tile_iter, BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, LSE, DELTA, stride_lb, stride_lh, stride_lm, lse_smem,
            delta_smem, STATS_IN_SMEM)
    else:
        mbarrier.wait(kv_tile_empty, kv_phase ^ 1)
        if KV_SLOTS > 1:
            if tile_iter > 0:
                # The K/V descriptors are rewritten in place: the previous block's K/V loads must have landed (with
                # one slot the kv_empty wait above implies it; here the previous block may still be in its first
                # tiles).
                _, _, previous_ready, _, previous_phase = _key_block_slot(k_smem, v_smem, kv_ready, kv_empty,
                                                                          tile_iter - 1, KV_SLOTS)
                mbarrier.wait(previous_ready, previous_phase)
        it = _fused_ws_load_tile(Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                                 stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
                                 batch, kv_head, start_n, lo, num_blocks, seqlen_q, seqlen_k, kv_group_size,
                                 k_tile, v_tile, q_smem, do_smem, kv_tile_ready, ready, empty, it,
                                 BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, LSE, DELTA, stride_lb, stride_lh,
                                 stride_lm, lse_smem, delta_smem, STATS_IN_SMEM)
    return it


@gluon.jit
def _persistent_fused_ws_loader(Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
                                stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
                                seqlen_q, seqlen_k, kv_group_size, num_kv_heads, num_units,
                                k_smem, v_smem, q_smem, do_smem, kv_ready, kv_empty, ready, empty,
                                BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                                NUM_STAGES: gl.constexpr, IS_CAUSAL: gl.constexpr,
                                LSE, DELTA, stride_lb, stride_lh, stride_lm, lse_smem, delta_smem,
                                STATS_IN_SMEM: gl.constexpr, schedule=None, LISTED: gl.constexpr = False,
                                SPLIT_TAIL: gl.constexpr = False, claims=None, ids=None, id_ready=None,
                                id_empty=None, DYNAMIC: gl.constexpr = False, ID_SLOTS: gl.constexpr = 2,
                                KV_SLOTS: gl.constexpr = 1, QUERIES_FIRST: gl.constexpr = False):
    """The loader warp of the persistent form: the loads of every key block of this program's units (LISTED:
    of its entries in ``schedule``; DYNAMIC: of the entries of ``schedule`` it claims one by one from the counter
    ``claims``, each published to the other partitions in ``ids``, then -1), the Q/dO ring running on across them.
    A key block's K_j, V_j overwrite the previous block's once the MMA warps released those (``kv_empty``), which
    they do before storing that block's dK and dV: the next block's first loads land while they do. Waiting for
    ``kv_empty`` also means the previous K/V loads have landed, so their in-kernel descriptors may be rewritten."""
    num_key_blocks = gl.cdiv(seqlen_k, BLOCK_N)
    it = num_key_blocks * 0
    tile_iter = num_key_blocks * 0
    # One loop per list, each running its blocks through the same helper: with one loop over work items for all
    # lists the round-robin kernels' SASS changed instruction order (compiled for sm_90a on the CPU, v0.18); helpers
    # inlined into separate loops leave it unchanged (v0.37).
    if DYNAMIC:
        # Program p takes entry p, then claims the next one once it has issued a key block's last loads, which is
        # about when the MMA warps start that block's last query blocks: a program that ran fast claims sooner.
        entries = gl.load(schedule)
        index = gl.program_id(0)
        while index < entries:
            _publish_key_block(ids, id_ready, id_empty, tile_iter, index, ID_SLOTS)
            key_block, kv_head, batch = claimed_block(schedule, index, num_key_blocks, num_kv_heads)
            start_n = key_block * BLOCK_N
            lo, num_blocks = _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
            it = _persistent_load_key_block(
                Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh,
                stride_vn, stride_dob, stride_doh, stride_dom, batch, kv_head, start_n, lo, num_blocks, seqlen_q,
                seqlen_k, kv_group_size, k_smem, v_smem, q_smem, do_smem, kv_ready, kv_empty, ready, empty, it,
                tile_iter, BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, LSE, DELTA, stride_lb, stride_lh, stride_lm,
                lse_smem, delta_smem, STATS_IN_SMEM, KV_SLOTS, QUERIES_FIRST)
            tile_iter += 1
            index = gl.num_programs(0) + claim_entry(claims)
        _publish_key_block(ids, id_ready, id_empty, tile_iter, -1, ID_SLOTS)
        release_claims(claims, gl.num_programs(0) - 1)
        return
    if LISTED:
        for index in range(gl.load(schedule + gl.program_id(0)), gl.load(schedule + gl.program_id(0) + 1)):
            key_block, kv_head, batch = _listed_block(schedule, index, num_key_blocks, num_kv_heads)
            start_n = key_block * BLOCK_N
            lo, num_blocks = _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
            if SPLIT_TAIL:
                lo, num_blocks, _ = _listed_query_range(schedule, index, BLOCK_M)
            it = _persistent_load_key_block(
                Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh,
                stride_vn, stride_dob, stride_doh, stride_dom, batch, kv_head, start_n, lo, num_blocks, seqlen_q,
                seqlen_k, kv_group_size, k_smem, v_smem, q_smem, do_smem, kv_ready, kv_empty, ready, empty, it,
                tile_iter, BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, LSE, DELTA, stride_lb, stride_lh, stride_lm,
                lse_smem, delta_smem, STATS_IN_SMEM, KV_SLOTS, QUERIES_FIRST)
            tile_iter += 1
        return
    for unit in range(gl.program_id(0), num_units, gl.num_programs(0)):
        for half in range(_paired_halves(unit, num_key_blocks)):
            key_block, kv_head, batch = _paired_block(unit, half, num_key_blocks, num_kv_heads)
            start_n = key_block * BLOCK_N
            lo, num_blocks = _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
            it = _persistent_load_key_block(
                Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn, stride_vb, stride_vh,
                stride_vn, stride_dob, stride_doh, stride_dom, batch, kv_head, start_n, lo, num_blocks, seqlen_q,
                seqlen_k, kv_group_size, k_smem, v_smem, q_smem, do_smem, kv_ready, kv_empty, ready, empty, it,
                tile_iter, BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, LSE, DELTA, stride_lb, stride_lh, stride_lm,
                lse_smem, delta_smem, STATS_IN_SMEM, KV_SLOTS, QUERIES_FIRST)
            tile_iter += 1


@gluon.jit
def _persistent_fused_ws_dq_reducer(DQ_ACC, stride_dqb, stride_dqh, stride_dqm, seqlen_q, seqlen_k, kv_group_size,
                                    num_kv_heads, num_units, dq_smem, dq_ready, dq_empty,
                                    BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                                    DQ_BUFFERS: gl.constexpr, IS_CAUSAL: gl.constexpr, schedule=None,
                                    LISTED: gl.constexpr = False, SPLIT_TAIL: gl.constexpr = False, ids=None,
                                    id_ready=None, id_empty=None, DYNAMIC: gl.constexpr = False,
                                    ID_SLOTS: gl.constexpr = 2):
    """The dQ warp of the persistent form: the reduce-adds of every key block of this program's units
    (LISTED: of its entries in ``schedule``; DYNAMIC: of the entries the loader claimed, read from ``ids``)."""
    num_key_blocks = gl.cdiv(seqlen_k, BLOCK_N)
    it = num_key_blocks * 0
    if DYNAMIC:
        entry = num_key_blocks * 0
        index = _read_key_block(ids, id_ready, id_empty, entry, ID_SLOTS, 1)
        while index >= 0:
            key_block, kv_head, batch = claimed_block(schedule, index, num_key_blocks, num_kv_heads)
            lo, num_blocks = _query_blocks(key_block * BLOCK_N, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
            it = _fused_ws_reduce_tile(DQ_ACC, stride_dqb, stride_dqh, stride_dqm, batch, kv_head, lo, num_blocks,
                                       seqlen_q, kv_group_size, dq_smem, dq_ready, dq_empty, it,
                                       BLOCK_M, HEAD_DIM, DQ_BUFFERS)
            entry += 1
            index = _read_key_block(ids, id_ready, id_empty, entry, ID_SLOTS, 1)
        return
    if LISTED:
        for index in range(gl.load(schedule + gl.program_id(0)), gl.load(schedule + gl.program_id(0) + 1)):
            key_block, kv_head, batch = _listed_block(schedule, index, num_key_blocks, num_kv_heads)
            lo, num_blocks = _query_blocks(key_block * BLOCK_N, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
            if SPLIT_TAIL:
                lo, num_blocks, _ = _listed_query_range(schedule, index, BLOCK_M)
            it = _fused_ws_reduce_tile(DQ_ACC, stride_dqb, stride_dqh, stride_dqm, batch, kv_head, lo, num_blocks,
                                       seqlen_q, kv_group_size, dq_smem, dq_ready, dq_empty, it,
                                       BLOCK_M, HEAD_DIM, DQ_BUFFERS)
        return
    for unit in range(gl.program_id(0), num_units, gl.num_programs(0)):
        for half in range(_paired_halves(unit, num_key_blocks)):
            key_block, kv_head, batch = _paired_block(unit, half, num_key_blocks, num_kv_heads)
            lo, num_blocks = _query_blocks(key_block * BLOCK_N, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
            it = _fused_ws_reduce_tile(DQ_ACC, stride_dqb, stride_dqh, stride_dqm, batch, kv_head, lo, num_blocks,
                                       seqlen_q, kv_group_size, dq_smem, dq_ready, dq_empty, it,
                                       BLOCK_M, HEAD_DIM, DQ_BUFFERS)


@gluon.jit
def _persistent_mma_key_block(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks,
                              seqlen_q, seqlen_k, kv_group_size, softmax_scale, k_smem, v_smem, q_smem, do_smem,
                              ds_smem, dq_smem, kv_ready, kv_empty, ready, empty, dq_ready, dq_empty, it, tile_iter,
                              BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                              IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, WARPS: gl.constexpr,
                              DQ_CHUNKS: gl.constexpr, DQ_BUFFERS: gl.constexpr, KV_IN_REGISTERS: gl.constexpr,
                              lse_smem, delta_smem, STATS_IN_SMEM: gl.constexpr, DS_BUFFERS: gl.constexpr,
                              LATE_KV_WAIT: gl.constexpr, SPREAD_DQ: gl.constexpr, EARLY_LSE: gl.constexpr,
                              KV_SLOTS: gl.constexpr):
    """The ``tile_iter``-th key block of the persistent form's MMA warps (``_fused_ws_mma_tile``) in its K/V slot
    (``_key_block_slot``), then K_j, V_j handed back to the loader (the slot's ``kv_empty``); returns (dk, dv, ring
    position). Every loop of ``_persistent_fused_ws_mma_partition`` runs
    its blocks through it (its round-robin and listed kernels' SASS the same as with the body written out, v0.37)."""
    k_tile, v_tile, kv_tile_ready, kv_tile_empty, kv_phase = _key_block_slot(k_smem, v_smem, kv_ready, kv_empty,
                                                                             tile_iter, KV_SLOTS)
    dk, dv, it = _fused_ws_mma_tile(LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo,
                                    num_blocks, seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                                    k_tile, v_tile, q_smem, do_smem, ds_smem, dq_smem, kv_tile_ready, ready,
                                    empty, dq_ready, dq_empty, it, kv_phase,
                                    BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, WARPS, DQ_CHUNKS,
                                    DQ_BUFFERS, KV_IN_REGISTERS, lse_smem, delta_smem, STATS_IN_SMEM,
                                    DS_BUFFERS, LATE_KV_WAIT, SPREAD_DQ, EARLY_LSE)
    # Every MMA warp is past its last product reading K_j, V_j (and, with KV_IN_REGISTERS, its loads of them, also
    # when the tile had no query block): the loader may overwrite them.
    gl.thread_barrier()
    mbarrier.arrive(kv_tile_empty)
    return dk, dv, it


@gluon.jit
def _persistent_mma_whole_key_block(LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm, stride_dkb, stride_dkh,
                                    stride_dkn, stride_dvb, stride_dvh, stride_dvn, batch, kv_head, key_block,
                                    seqlen_q, seqlen_k, kv_group_size, softmax_scale, k_smem, v_smem, q_smem, do_smem,
                                    ds_smem, dq_smem, kv_ready, kv_empty, ready, empty, dq_ready, dq_empty, it,
                                    tile_iter, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                                    IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, WARPS: gl.constexpr,
                                    DQ_CHUNKS: gl.constexpr, DQ_BUFFERS: gl.constexpr, KV_IN_REGISTERS: gl.constexpr,
                                    lse_smem, delta_smem, STATS_IN_SMEM: gl.constexpr, DS_BUFFERS: gl.constexpr,
                                    LATE_KV_WAIT: gl.constexpr, SPREAD_DQ: gl.constexpr, EARLY_LSE: gl.constexpr,
                                    WIDE_STORES: gl.constexpr, kv_layout: gl.constexpr, tile_clock,
                                    CLOCK_TILES: gl.constexpr, KV_SLOTS: gl.constexpr = 1):
    """The MMA warps' ``tile_iter``-th key block ``key_block`` of a head, all its query blocks
    (``_persistent_mma_key_block``), then its dK and dV stored (the round-robin and dynamic loops; the listed loop's
    blocks may be split-tail pieces); CLOCK_TILES > 0: its start and end marks. Returns the ring position."""
    start_n = key_block * BLOCK_N
    lo, num_blocks = _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, tile_iter + 1, 0, 0, 1, CLOCK_TILES)
    dk, dv, it = _persistent_mma_key_block(
        LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks, seqlen_q,
        seqlen_k, kv_group_size, softmax_scale, k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready,
        kv_empty, ready, empty, dq_ready, dq_empty, it, tile_iter, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL,
        NUM_STAGES, WARPS, DQ_CHUNKS, DQ_BUFFERS, KV_IN_REGISTERS, lse_smem, delta_smem, STATS_IN_SMEM,
        DS_BUFFERS, LATE_KV_WAIT, SPREAD_DQ, EARLY_LSE, KV_SLOTS)
    _store_key_gradients(DK, DV, stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                         batch, kv_head, start_n, seqlen_k, softmax_scale, dk, dv, BLOCK_N, HEAD_DIM,
                         kv_layout, WIDE_STORES)
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, tile_iter + 1, 0, 1, 1, CLOCK_TILES)
    return it


@gluon.jit
def _persistent_fused_ws_mma_partition(LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm,
                                       stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                                       seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_kv_heads, num_units,
                                       k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, kv_empty,
                                       ready, empty, dq_ready, dq_empty,
                                       BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                                       IS_CAUSAL: gl.constexpr, NUM_STAGES: gl.constexpr, WARPS: gl.constexpr,
                                       DQ_CHUNKS: gl.constexpr, DQ_BUFFERS: gl.constexpr,
                                       KV_IN_REGISTERS: gl.constexpr, lse_smem, delta_smem,
                                       STATS_IN_SMEM: gl.constexpr, schedule=None, LISTED: gl.constexpr = False,
                                       DS_BUFFERS: gl.constexpr = 1, LATE_KV_WAIT: gl.constexpr = False,
                                       SPLIT_TAIL: gl.constexpr = False, KEY_GRADIENT_PARTS=None,
                                       WIDE_STORES: gl.constexpr = False, SPREAD_DQ: gl.constexpr = False,
                                       EARLY_LSE: gl.constexpr = False, tile_clock=None,
                                       CLOCK_TILES: gl.constexpr = 0, ids=None, id_ready=None, id_empty=None,
                                       DYNAMIC: gl.constexpr = False, ID_SLOTS: gl.constexpr = 2,
                                       KV_SLOTS: gl.constexpr = 1):
    """The MMA warps of the persistent form: every key block of this program's units (LISTED: of its entries
    in ``schedule``; DYNAMIC: of the entries the loader claimed, read from ``ids`` until -1); after a block's last
    product they hand K_j, V_j back (``kv_empty``) and then store its dK and dV (SPLIT_TAIL: a tail piece's partial
    sums go into ``KEY_GRADIENT_PARTS`` instead; WIDE_STORES: 16 bytes per store). CLOCK_TILES > 0 (probes): their
    entry, each key block's start (before its K/V wait) and end (its dK and dV stored) and their exit in
    ``tile_clock`` (``gluon_clock.mark_tile``, one partition)."""
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1],
                                                        instr_shape=[16, HEAD_DIM, 16])
    num_key_blocks = gl.cdiv(seqlen_k, BLOCK_N)
    it = num_key_blocks * 0
    tile_iter = num_key_blocks * 0
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, 0, 0, 0, 1, CLOCK_TILES)
    if DYNAMIC:
        index = _read_key_block(ids, id_ready, id_empty, tile_iter, ID_SLOTS, WARPS)
        while index >= 0:
            key_block, kv_head, batch = claimed_block(schedule, index, num_key_blocks, num_kv_heads)
            it = _persistent_mma_whole_key_block(
                LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm, stride_dkb, stride_dkh, stride_dkn, stride_dvb,
                stride_dvh, stride_dvn, batch, kv_head, key_block, seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, kv_empty, ready, empty, dq_ready,
                dq_empty, it, tile_iter, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, WARPS, DQ_CHUNKS,
                DQ_BUFFERS, KV_IN_REGISTERS, lse_smem, delta_smem, STATS_IN_SMEM, DS_BUFFERS, LATE_KV_WAIT, SPREAD_DQ,
                EARLY_LSE, WIDE_STORES, kv_layout, tile_clock, CLOCK_TILES, KV_SLOTS)
            tile_iter += 1
            index = _read_key_block(ids, id_ready, id_empty, tile_iter, ID_SLOTS, WARPS)
        if CLOCK_TILES > 0:
            mark_tile(tile_clock, 0, 0, 1, 1, CLOCK_TILES)
        return
    if LISTED:
        for index in range(gl.load(schedule + gl.program_id(0)), gl.load(schedule + gl.program_id(0) + 1)):
            key_block, kv_head, batch = _listed_block(schedule, index, num_key_blocks, num_kv_heads)
            start_n = key_block * BLOCK_N
            lo, num_blocks = _query_blocks(start_n, seqlen_q, seqlen_k, BLOCK_M, IS_CAUSAL)
            slot = -1
            if SPLIT_TAIL:
                lo, num_blocks, slot = _listed_query_range(schedule, index, BLOCK_M)
            if CLOCK_TILES > 0:
                mark_tile(tile_clock, tile_iter + 1, 0, 0, 1, CLOCK_TILES)
            dk, dv, it = _persistent_mma_key_block(
                LSE, DELTA, stride_lb, stride_lh, stride_lm, batch, kv_head, start_n, lo, num_blocks, seqlen_q,
                seqlen_k, kv_group_size, softmax_scale, k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready,
                kv_empty, ready, empty, dq_ready, dq_empty, it, tile_iter, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL,
                NUM_STAGES, WARPS, DQ_CHUNKS, DQ_BUFFERS, KV_IN_REGISTERS, lse_smem, delta_smem, STATS_IN_SMEM,
                DS_BUFFERS, LATE_KV_WAIT, SPREAD_DQ, EARLY_LSE, KV_SLOTS)
            # Without SPLIT_TAIL the store is the earlier code as it was (the causal listed kernels' SASS unchanged).
            if SPLIT_TAIL:
                if slot >= 0:
                    _add_key_gradients(KEY_GRADIENT_PARTS, slot, softmax_scale, dk, dv, BLOCK_N, HEAD_DIM, kv_layout)
                else:
                    _store_key_gradients(DK, DV, stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh,
                                         stride_dvn, batch, kv_head, start_n, seqlen_k, softmax_scale, dk, dv,
                                         BLOCK_N, HEAD_DIM, kv_layout, WIDE_STORES)
            else:
                _store_key_gradients(DK, DV, stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
                                     batch, kv_head, start_n, seqlen_k, softmax_scale, dk, dv, BLOCK_N, HEAD_DIM,
                                     kv_layout, WIDE_STORES)
            if CLOCK_TILES > 0:
                mark_tile(tile_clock, tile_iter + 1, 0, 1, 1, CLOCK_TILES)
            tile_iter += 1
        if CLOCK_TILES > 0:
            mark_tile(tile_clock, 0, 0, 1, 1, CLOCK_TILES)
        return
    for unit in range(gl.program_id(0), num_units, gl.num_programs(0)):
        for half in range(_paired_halves(unit, num_key_blocks)):
            key_block, kv_head, batch = _paired_block(unit, half, num_key_blocks, num_kv_heads)
            it = _persistent_mma_whole_key_block(
                LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm, stride_dkb, stride_dkh, stride_dkn, stride_dvb,
                stride_dvh, stride_dvn, batch, kv_head, key_block, seqlen_q, seqlen_k, kv_group_size, softmax_scale,
                k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, kv_empty, ready, empty, dq_ready,
                dq_empty, it, tile_iter, BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, WARPS, DQ_CHUNKS,
                DQ_BUFFERS, KV_IN_REGISTERS, lse_smem, delta_smem, STATS_IN_SMEM, DS_BUFFERS, LATE_KV_WAIT, SPREAD_DQ,
                EARLY_LSE, WIDE_STORES, kv_layout, tile_clock, CLOCK_TILES, KV_SLOTS)
            tile_iter += 1
    if CLOCK_TILES > 0:
        mark_tile(tile_clock, 0, 0, 1, 1, CLOCK_TILES)


@gluon.jit
def attention_backward_fused_ws_persistent_kernel(
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
    NUM_STAGES: gl.constexpr, WARPS: gl.constexpr, DQ_CHUNKS: gl.constexpr, DQ_BUFFERS: gl.constexpr,
    LOADER_REGS: gl.constexpr, REDUCER_REGS: gl.constexpr, KV_IN_REGISTERS: gl.constexpr = False,
    STATS_IN_SMEM: gl.constexpr = False, LISTED: gl.constexpr = False, DS_BUFFERS: gl.constexpr = 1,
    LATE_KV_WAIT: gl.constexpr = False, SPLIT_TAIL: gl.constexpr = False, KEY_GRADIENT_PARTS=None,
    WIDE_STORES: gl.constexpr = False, SPREAD_DQ: gl.constexpr = False, EARLY_LSE: gl.constexpr = False,
    tile_clock=None, CLOCK_TILES: gl.constexpr = 0, claims=None, DYNAMIC: gl.constexpr = False,
    KV_SLOTS: gl.constexpr = 1, QUERIES_FIRST: gl.constexpr = False,
):
    """``attention_backward_fused_ws_kernel`` in a persistent grid: one program per multiprocessor takes the
    work units ``program_id(0)``, ``+ num_programs(0)``, ... (``num_units`` = pairs of key blocks per head x
    KV heads x batch; see ``_paired_block``), so that a key block's K/V loads and first Q/dO loads
    land while the previous block's dK and dV are stored, instead of once per program. H200, bf16, whole
    backward (v0.12 probe): d=128 -1% to +4.5% against the non-persistent kernel (causal 4k +4.5%), d=64
    0 to -8%. Same arguments as the non-persistent kernel plus ``num_kv_heads``, ``num_units`` and
    ``schedule``; grid (min(num_units, multiprocessors),). ``LISTED`` (causal): each program takes its
    entries of ``schedule`` instead, a host-made list (``flashio.schedules``) that keeps the pairs but
    evens out the last rounds; otherwise ``schedule`` is None. ``SPLIT_TAIL`` (non-causal, with LISTED): the
    list's entries carry query-block ranges (``schedules.split_tail_schedule``): the last round's key blocks
    are cut into pieces, one run per program, whose partial dK/dV are added into ``KEY_GRADIENT_PARTS``
    (float32, [slots, 2, BLOCK_N, HEAD_DIM], zeroed) for the launcher to convert. ``WIDE_STORES``: dK and dV
    stored 16 bytes per instruction (``gluon_stores.store_rows_wide``) instead of 4. ``SPREAD_DQ`` (dQ in one
    chunk): the dQ tile stored into shared memory without bank conflicts (``gluon_stores.store_float32_spread``).
    ``EARLY_LSE`` (STATS_IN_SMEM): each block's LSE row read before the wait for its S^T product. ``CLOCK_TILES``
    > 0 (probes only): the MMA warps' per-key-block timestamps in ``tile_clock`` (``gluon_clock.mark_tile``; off,
    nothing of it is compiled). ``DYNAMIC`` (LISTED; v0.37, non-causal v0.39): ``schedule``, one list for all programs
    (``flashio.schedules.claim_order``); program p takes entry p, then its loader claims entry num_programs + c for
    c from the int32 counters ``claims`` (``gluon_claims``) and publishes each entry to the MMA warps and the dQ warp
    in a ring of ID_SLOTS shared slots with their own barriers, so that a program that ran fast takes more key
    blocks. ``KV_SLOTS`` = 2 (v0.41): two K/V slots, so that the loader requests a key block's K_j, V_j as soon as it
    has issued the previous block's Q/dO loads, not once the MMA warps are done with the previous block's K/V. With
    one slot, ``QUERIES_FIRST`` (v0.42): the loader requests a key block's first query blocks and writes its K/V
    descriptors before it waits for the slot (``_fused_ws_load_tile_queries_first``)."""
    gl.static_assert(not SPLIT_TAIL or (LISTED and not IS_CAUSAL), "a split tail is a non-causal tile list")
    (k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, kv_empty, ready, empty, dq_ready, dq_empty,
     lse_smem, delta_smem) = _fused_ws_shared_buffers(Q, BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, DQ_BUFFERS, True,
                                                      STATS_IN_SMEM, DS_BUFFERS, KV_SLOTS)
    # Two id slots: the loader publishes entry e + 1 before it waits for the MMA warps to release entry e's K_j, V_j,
    # and e + 2 only once both readers have read entry e (the dQ warp reads it after its reduce-adds of entry e - 1,
    # which need nothing the loader has yet to issue, so the wait cannot close a cycle).
    ID_SLOTS: gl.constexpr = 2
    if DYNAMIC:
        gl.static_assert(LISTED and not SPLIT_TAIL, "a dynamic tile list is a listed form without a split tail")
        ids = gl.allocate_shared_memory(gl.int32, [ID_SLOTS, 1], gl.SwizzledSharedLayout(1, 1, 1, order=[0]))
        id_ready = gl.allocate_shared_memory(gl.int64, [ID_SLOTS, 1], mbarrier.MBarrierLayout())
        id_empty = gl.allocate_shared_memory(gl.int64, [ID_SLOTS, 1], mbarrier.MBarrierLayout())
        for slot in gl.static_range(ID_SLOTS):
            mbarrier.init(id_ready.index(slot), count=1)
            mbarrier.init(id_empty.index(slot), count=2)  # the MMA warps and the dQ warp
    else:  # unused: a partition argument cannot be None
        ids = kv_ready
        id_ready = kv_ready
        id_empty = kv_ready

    gl.warp_specialize([
        (_persistent_fused_ws_mma_partition, (
            LSE, DELTA, DK, DV, stride_lb, stride_lh, stride_lm,
            stride_dkb, stride_dkh, stride_dkn, stride_dvb, stride_dvh, stride_dvn,
            seqlen_q, seqlen_k, kv_group_size, softmax_scale, num_kv_heads, num_units,
            k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_ready, kv_empty, ready, empty, dq_ready, dq_empty,
            BLOCK_M, BLOCK_N, HEAD_DIM, IS_CAUSAL, NUM_STAGES, WARPS, DQ_CHUNKS, DQ_BUFFERS, KV_IN_REGISTERS,
            lse_smem, delta_smem, STATS_IN_SMEM, schedule, LISTED, DS_BUFFERS, LATE_KV_WAIT, SPLIT_TAIL,
            KEY_GRADIENT_PARTS, WIDE_STORES, SPREAD_DQ, EARLY_LSE, tile_clock, CLOCK_TILES, ids, id_ready, id_empty,
            DYNAMIC, ID_SLOTS, KV_SLOTS)),
        (_persistent_fused_ws_loader, (
            Q, K, V, DO, stride_qb, stride_qh, stride_qm, stride_kb, stride_kh, stride_kn,
            stride_vb, stride_vh, stride_vn, stride_dob, stride_doh, stride_dom,
            seqlen_q, seqlen_k, kv_group_size, num_kv_heads, num_units,
            k_smem, v_smem, q_smem, do_smem, kv_ready, kv_empty, ready, empty,
            BLOCK_M, BLOCK_N, HEAD_DIM, NUM_STAGES, IS_CAUSAL,
            LSE, DELTA, stride_lb, stride_lh, stride_lm, lse_smem, delta_smem, STATS_IN_SMEM, schedule, LISTED,
            SPLIT_TAIL, claims, ids, id_ready, id_empty, DYNAMIC, ID_SLOTS, KV_SLOTS, QUERIES_FIRST)),
        (_persistent_fused_ws_dq_reducer, (
            DQ_ACC, stride_dqb, stride_dqh, stride_dqm, seqlen_q, seqlen_k, kv_group_size, num_kv_heads, num_units,
            dq_smem, dq_ready, dq_empty, BLOCK_M, BLOCK_N, HEAD_DIM, DQ_BUFFERS, IS_CAUSAL, schedule, LISTED,
            SPLIT_TAIL, ids, id_ready, id_empty, DYNAMIC, ID_SLOTS)),
    ], [1, 1], [LOADER_REGS, REDUCER_REGS])
