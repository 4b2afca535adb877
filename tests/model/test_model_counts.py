"""Analytic counts: the block rule, closed forms of Theorem 2 / Proposition 4, FLOP conventions."""

from __future__ import annotations

import numpy as np
import pytest

from flashio.model.counts import (
    AttentionProblem,
    Blocking,
    BlockSparsity,
    SRAMTooSmallError,
    analytic_io,
    block_activity,
    convention_flops,
    fa1_io,
    fa2_io,
    flash_flops,
    paper_blocking,
    STANDARD_NN_TENSORS,
    standard_flops,
    standard_io,
    standard_ops,
)


def test_paper_block_rule_uses_ceiling_and_caps_rows_at_d():
    # M = 98304 bytes = 49152 two-byte elements, d = 64: B_c = ⌈49152/256⌉ = 192, B_r = min(192, 64).
    assert paper_blocking(98304, 64) == Blocking(64, 192)


def test_block_rule_falls_back_to_floor_when_ceiling_overflows():
    # M = 1000 elements, d = 64: ⌈1000/256⌉ = 4 would need 4·4·64 = 1024 > 1000 elements.
    assert paper_blocking(2000, 64) == Blocking(3, 3)


def test_block_rule_rejects_sram_smaller_than_one_block():
    with pytest.raises(SRAMTooSmallError):
        paper_blocking(4 * 64 * 2 - 1, 64)


def test_standard_forward_reads_and_writes_match_algorithm_0():
    n, d = 1024, 64
    io = standard_io(AttentionProblem(n, d), "fwd")
    # reads: Q, K, V + S (scale) + S (softmax) + P (matmul); writes: S, S, P, O.
    assert io.total_reads == 3 * n * d + 3 * n * n
    assert io.total_writes == n * d + 3 * n * n


def test_standard_fwdbwd_moves_11_nn_reads_and_7_nn_writes():
    # Forward: scale, softmax, P·V read N×N; S, S, P written. Backward: dV, product (2), softmax_warp_backward
    # (2), scale, dQ, dK read N×N; dP, P∘dP, dS, dS written (the anchors' chain; docs/model.md).
    nn = 1024 * 1024
    io = standard_io(AttentionProblem(1024, 64), "fwdbwd")
    assert sum(v for k, v in io.reads.items() if k in STANDARD_NN_TENSORS) == 11 * nn
    assert sum(v for k, v in io.writes.items() if k in STANDARD_NN_TENSORS) == 7 * nn


def test_standard_softmax_backward_is_two_kernels_as_pytorch_runs_it():
    # PyTorch's softmax_warp_backward computes g − y·rowsum(g) and is handed g = dP∘P by a separate
    # element-wise kernel: 4 N×N reads and 2 writes in all (ncu, docs/model.md).
    ops = {op.name: op for op in standard_ops(AttentionProblem(256, 64), "bwd")}
    assert (ops["softmax_bwd_mul"].reads, ops["softmax_bwd_mul"].writes) == (("P", "dP"), ("dPxP",))
    assert (ops["softmax_bwd"].reads, ops["softmax_bwd"].writes) == (("dPxP", "P"), ("dS",))


def test_standard_counts_are_the_sum_of_the_op_list():
    problem = AttentionProblem(128, 32, causal=True, dropout_p=0.1)
    ops = standard_ops(problem, "fwdbwd")
    assert sum(op.io.total for op in ops) == standard_io(problem, "fwdbwd").total
    assert sum(op.flops.other_flops for op in ops) == standard_flops(problem, "fwdbwd").other_flops


def test_fa1_forward_closed_form_theorem_2():
    n, d = 1024, 64
    blocking = Blocking(64, 128)
    t_c = n // 128
    io = fa1_io(AttentionProblem(n, d), blocking, "fwd")
    # K, V once; Q, O read and O written T_c times; ℓ, m read/written T_c times; O, ℓ, m initialised.
    assert io.total_reads == 2 * n * d + t_c * (2 * n * d + 2 * n)
    assert io.total_writes == (n * d + 2 * n) + t_c * (n * d + 2 * n)


def test_fa2_forward_reads_kv_once_per_query_block():
    n, d = 1024, 64
    io = fa2_io(AttentionProblem(n, d), Blocking(128, 64), "fwd")
    assert io.reads["K"] == io.reads["V"] == (n // 128) * n * d
    assert io.reads["Q"] == n * d and io.writes["O"] == n * d


def test_flash_accesses_scale_as_n2_d2_over_m():
    # Theorem 2: quadrupling M (at fixed N, d) divides the dominant Q/O traffic by 4.
    n, d = 4096, 64
    small = analytic_io("fa1", AttentionProblem(n, d), 32 * 1024).total
    large = analytic_io("fa1", AttentionProblem(n, d), 128 * 1024).total
    compulsory = 4 * n * d
    assert (small - compulsory) / (large - compulsory) == pytest.approx(4.0, rel=0.02)  # ragged blocks


def test_causal_skips_blocks_above_the_diagonal():
    active = block_activity(AttentionProblem(256, 16, causal=True), Blocking(64, 64))
    assert np.array_equal(active, np.tril(np.ones((4, 4), dtype=bool)))


def test_block_sparse_forward_keeps_fraction_s_of_blocks():
    problem = AttentionProblem(1024, 64, sparsity=BlockSparsity(0.25, seed=0, pattern_rows=64, pattern_cols=64))
    assert block_activity(problem, Blocking(64, 64)).mean() == pytest.approx(0.25)


def test_key_padding_skips_fully_padded_key_blocks():
    problem = AttentionProblem(512, 16, key_valid=130)
    io = fa2_io(problem, Blocking(128, 64), "fwd")
    assert io.reads["K"] == 4 * 192 * 16  # three 64-key blocks (0..191) per query block


def test_convention_flops_halve_for_causal_and_scale_backward():
    fwd = convention_flops(1024, 64, False, "fwd")
    assert fwd == 4 * 1024 * 1024 * 64
    assert convention_flops(1024, 64, True, "fwd") == fwd / 2
    assert convention_flops(1024, 64, False, "fwdbwd") == 3.5 * fwd


def test_flash_backward_recomputes_one_extra_matmul():
    problem = AttentionProblem(512, 64)
    blocking = Blocking(128, 128)
    fwd = flash_flops(problem, blocking, "fwd").matmul_flops
    bwd = flash_flops(problem, blocking, "bwd").matmul_flops
    assert bwd == 2.5 * fwd
    assert standard_flops(problem, "bwd").matmul_flops == 2 * standard_flops(problem, "fwd").matmul_flops


def test_bytes_use_each_tensors_element_size():
    io = fa2_io(AttentionProblem(128, 16), Blocking(64, 64), "fwd")
    # LSE is fp32 (4 bytes), everything else 2 bytes.
    assert io.write_bytes(2) == 128 * 16 * 2 + 128 * 4
