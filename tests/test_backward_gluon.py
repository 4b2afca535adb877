"""The fused five-product backward (kernels/backward_gluon.py) is a Gluon kernel for Hopper only: Gluon has
no interpreter, so on the CPU its numerics cannot run. What is checked here: which inputs it takes (the
launcher's eligibility rule), that forcing it where it cannot run falls back to the Triton kernels with the
reference's gradients, and (tests/bench/test_resources.py) that its tiles compile for sm_90a (d=64, 128,
and the role-split kernel of kernels/backward_gluon_split.py at d=256). Its gradients are checked on the H200 by ``python -m flashio.check`` (the default cases at d=64 and
the forced path ``backward: fused five-product (Gluon)``)."""

import inspect
from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch

import flashio
from flashio import configs, launchers, schedules
from flashio.kernels import backward_gluon, backward_gluon_rows, backward_gluon_split
from helpers import check_against_reference, random_qkv, record_grids


def _problem(head_dim: int, group_size: int = 1):
    q = torch.empty(2, 8, 256, head_dim)
    k = torch.empty(2, 8 // group_size, 256, head_dim)
    return launchers.describe(q, k, "bhnd", None)


ELIGIBLE = dict(descriptors_ok=True, varlen=False, deterministic=False, lse_row_stride=1)


@pytest.mark.parametrize("head_dim", [64, 128, 256])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_fused_backward_takes_16_bit_fixed_length_inputs_on_hopper(head_dim, dtype):
    assert launchers.fused_backward_eligible(_problem(head_dim), dtype, (9, 0), **ELIGIBLE)


def test_fused_backward_takes_grouped_query_heads():
    assert launchers.fused_backward_eligible(_problem(64, group_size=4), torch.bfloat16, (9, 0), **ELIGIBLE)


@pytest.mark.parametrize("capability", [(8, 0), (8, 9), (10, 0), (12, 0)])
def test_fused_backward_runs_only_on_hopper(capability):
    # Its warpgroup MMAs (wgmma) exist on sm_90 only.
    assert not launchers.fused_backward_eligible(_problem(64), torch.bfloat16, capability, **ELIGIBLE)


@pytest.mark.parametrize("head_dim", [16, 32])
def test_fused_backward_has_no_tiles_for_other_head_dims(head_dim):
    assert not launchers.fused_backward_eligible(_problem(head_dim), torch.bfloat16, (9, 0), **ELIGIBLE)


def test_fused_backward_does_not_take_float32():
    assert not launchers.fused_backward_eligible(_problem(64), torch.float32, (9, 0), **ELIGIBLE)


@pytest.mark.parametrize("change", [dict(descriptors_ok=False), dict(varlen=True), dict(deterministic=True),
                                    dict(lse_row_stride=2)],
                         ids=["no-descriptors", "varlen", "deterministic", "strided-lse"])
def test_fused_backward_refuses_what_it_cannot_do(change):
    # No descriptors: dropout, a block mask, an odd head dim or unaligned strides. Deterministic: its dQ is
    # summed by reduce-adds in arrival order, so it is not bitwise reproducible.
    assert not launchers.fused_backward_eligible(_problem(64), torch.bfloat16, (9, 0), **{**ELIGIBLE, **change})


def test_every_fused_candidate_is_a_gluon_tile_of_its_own_bucket():
    for bucket, candidates in configs.BACKWARD_FUSED_CANDIDATES.items():
        for config in candidates:
            assert config.path == "gluon" and config.block_n % (16 * config.num_warps) == 0, config
            assert bucket % config.dq_chunks == 0 and config.dq_buffers in (1, 2), config
    assert set(configs.FUSED_TUNED_BUCKETS) <= set(configs.BACKWARD_FUSED_CANDIDATES)


def test_the_role_split_fused_backward_is_the_d256_form_and_splits_dq_between_its_two_warpgroups():
    # kernels/backward_gluon_split.py: one warpgroup per role (4 warps), a loader and a dQ warp per
    # warpgroup; each warpgroup computes half of the dQ column chunks.
    for bucket, candidates in configs.BACKWARD_FUSED_CANDIDATES.items():
        for config in candidates:
            assert config.split_roles == (bucket == 256), config
            if config.split_roles:
                assert config.warp_specialised and config.num_warps == 4 and config.dq_chunks % 2 == 0, config
                kernel, constants = launchers.fused_backward_kernel(config, bucket)
                assert kernel is launchers.backward_gluon_split_kernels.attention_backward_fused_split_kernel
                assert constants["DQ_COLS"] * config.dq_chunks == bucket, constants


@pytest.mark.parametrize("head_dim", [64, 256])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_forcing_the_fused_backward_without_hopper_falls_back_to_the_triton_kernels(monkeypatch, causal, head_dim):
    launched = record_grids(monkeypatch, backward_gluon, "attention_backward_fused_kernel")
    launched_specialised = record_grids(monkeypatch, backward_gluon, "attention_backward_fused_ws_kernel")
    launched_split = record_grids(monkeypatch, backward_gluon_split, "attention_backward_fused_split_kernel")
    monkeypatch.setenv("FLASHIO_BACKWARD_PATH", "gluon")
    torch.manual_seed(3)
    q, k, v = random_qkv(2, 2, 2, 45, 70, head_dim, torch.bfloat16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=causal), q, k, v, causal=causal)
    assert launched == [] and launched_specialised == [] and launched_split == []


def test_fused_backward_needs_the_triton_release_its_gluon_was_written_for(monkeypatch):
    # Gluon's API changes between Triton releases; pyproject allows older Tritons, which keep the Triton kernels.
    monkeypatch.setattr(launchers, "GLUON_AVAILABLE", False)
    assert not launchers.fused_backward_eligible(_problem(64), torch.bfloat16, (9, 0), **ELIGIBLE)


def test_the_pinned_triton_has_the_gluon_the_fused_backward_was_written_for():
    import triton

    assert triton.__version__.startswith(launchers.GLUON_TRITON_RELEASE) and launchers.GLUON_AVAILABLE


def test_the_persistent_specialised_fused_backward_is_its_own_kernel():
    config = configs.TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, persistent=True)
    kernel, constants = launchers.fused_backward_kernel(config, 128)
    assert kernel is backward_gluon.attention_backward_fused_ws_persistent_kernel
    plain, plain_constants = launchers.fused_backward_kernel(configs.TileConfig(64, 128, 8, 2, "gluon",
                                                                                warp_specialised=True), 128)
    assert plain is backward_gluon.attention_backward_fused_ws_kernel and constants == plain_constants


@pytest.mark.parametrize("seqlen_k, units_per_head", [(1024, 4), (640, 3), (100, 1)],
                         ids=["8-key-blocks", "5-key-blocks", "1-key-block"])
def test_persistent_fused_backward_runs_one_program_per_pair_of_key_blocks_up_to_the_multiprocessors(
        monkeypatch, seqlen_k, units_per_head):
    # A work unit pairs key blocks j and n-1-j of one KV head (the middle block of an odd count alone), so
    # causal units cost the same; the grid is capped at one program per multiprocessor.
    monkeypatch.setattr(launchers, "multiprocessor_count", lambda device: 132)
    q, k = torch.empty(3, 8, 256, 128), torch.empty(3, 2, seqlen_k, 128)
    problem = launchers.describe(q, k, "bhnd", None)
    config = configs.TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, persistent=True)
    units = units_per_head * 2 * 3
    grid, trailing, constants = launchers.fused_backward_launch(config, problem, torch.device("cuda"), causal=True)
    assert grid == (min(units, 132),) and trailing == (2, units, None) and constants == {}
    big = launchers.describe(torch.empty(16, 16, 1024, 128), torch.empty(16, 16, 1024, 128), "bhnd", None)
    assert launchers.fused_backward_launch(config, big, torch.device("cuda")) == ((132,), (16, 4 * 16 * 16, None), {})


def test_a_balanced_persistent_fused_backward_takes_its_key_blocks_from_the_schedule_table(monkeypatch):
    # Causal: the table of schedules.balanced_causal_schedule over key blocks (the backward's pairs, key
    # block j first), made on the launch's device (here the CPU: three programs).
    q, k = torch.empty(3, 8, 1000, 128), torch.empty(3, 2, 1500, 128)
    problem = launchers.describe(q, k, "bhnd", None)
    config = configs.TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, persistent=True,
                                balanced_schedule=True)
    grid, trailing, constants = launchers.fused_backward_launch(config, problem, torch.device("cpu"), causal=True)
    expected = schedules.balanced_causal_schedule(12, 2 * 3, launchers.INTERPRETER_PERSISTENT_PROGRAMS,
                                                  schedules.causal_backward_block_work(1000, 1500, 64, 128),
                                                  high_first=False)
    assert grid == (expected.programs,) and constants == {"LISTED": True}
    assert trailing[:2] == (2, 6 * 2 * 3) and trailing[2].tolist() == expected.table()
    # Without the causal mask every key block is the same work: no table.
    assert launchers.fused_backward_launch(config, problem, torch.device("cpu"))[1:] == ((2, 36, None), {})


def test_a_balanced_schedule_is_an_option_of_the_persistent_fused_backward_only():
    problem = launchers.describe(torch.empty(1, 2, 256, 128), torch.empty(1, 2, 256, 128), "bhnd", None)
    config = configs.TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, balanced_schedule=True)
    with pytest.raises(ValueError, match="balanced_schedule is an option of the persistent fused backward"):
        launchers.fused_backward_launch(config, problem, torch.device("cpu"), causal=True)


def test_non_persistent_fused_backward_runs_one_program_per_key_block_head_and_batch():
    q, k = torch.empty(3, 8, 256, 128), torch.empty(3, 2, 640, 128)
    problem = launchers.describe(q, k, "bhnd", None)
    config = configs.TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True)
    assert launchers.fused_backward_launch(config, problem, torch.device("cuda")) == ((5, 2, 3), (), {})


def test_lse_and_d_in_shared_memory_is_an_option_of_the_specialised_fused_kernels_only():
    plain = configs.TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True)
    for persistent in (False, True):
        _, constants = launchers.fused_backward_kernel(replace(plain, persistent=persistent, stats_in_shared=True),
                                                       128)
        assert constants["STATS_IN_SMEM"] is True
    _, constants = launchers.fused_backward_kernel(plain, 128)
    assert "STATS_IN_SMEM" not in constants  # the kernels' default: the tuned forms compile as before


def test_two_ds_tiles_reach_both_specialised_fused_kernels_and_leave_the_default_compile_alone():
    plain = configs.TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, stats_in_shared=True)
    for persistent in (False, True):
        kernel, constants = launchers.fused_backward_kernel(replace(plain, persistent=persistent, ds_buffers=2), 128)
        assert constants["DS_BUFFERS"] == 2
        assert "DS_BUFFERS" in inspect.signature(kernel.fn).parameters
    _, constants = launchers.fused_backward_kernel(plain, 128)
    assert "DS_BUFFERS" not in constants  # the kernels' default (one tile): the tuned forms compile as before


@pytest.mark.parametrize("config", [
    pytest.param(configs.TileConfig(64, 128, 8, 1, "gluon", warp_specialised=True, ds_buffers=2), id="one Q/dO slot"),
    pytest.param(configs.TileConfig(64, 128, 8, 2, "gluon", ds_buffers=2), id="not warp-specialised"),
    pytest.param(configs.TileConfig(64, 64, 4, 2, "gluon", warp_specialised=True, split_roles=True, ds_buffers=2),
                 id="role-split"),
    pytest.param(configs.TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, ds_buffers=3), id="three tiles"),
])
def test_two_ds_tiles_are_refused_where_the_kernel_cannot_take_them(config):
    # With one Q/dO slot the deferred release would deadlock: block i's slot frees only after block i+1 arrived.
    with pytest.raises(ValueError, match="ds_buffers is 1, or 2 in the warp-specialised fused backward"):
        launchers.fused_backward_kernel(config, 128)


def test_key_rows_on_two_partitions_take_the_row_split_kernel_with_its_register_split():
    config = configs.TileConfig(64, 128, 4, 2, "gluon", warp_specialised=True, persistent=True, stats_in_shared=True,
                                balanced_schedule=True, split_rows=True)
    kernel, constants = launchers.fused_backward_kernel(config, 128)
    assert kernel is backward_gluon_rows.attention_backward_fused_rows_kernel
    assert constants == dict(BLOCK_M=64, BLOCK_N=128, HEAD_DIM=128, NUM_STAGES=2, DQ_BUFFERS=2,
                             MMA_REGS=launchers.FUSED_SPLIT_MMA_REGISTERS,
                             WORKER_REGS=launchers.FUSED_WORKER_REGISTERS)
    # Its grid and trailing arguments are the persistent specialised kernel's (the same launch site).
    persistent = replace(config, num_warps=8, split_rows=False)
    problem = launchers.describe(torch.empty(2, 4, 512, 128), torch.empty(2, 4, 512, 128), "bhnd", None)
    rows_launch = launchers.fused_backward_launch(config, problem, torch.device("cpu"), causal=True)
    persistent_launch = launchers.fused_backward_launch(persistent, problem, torch.device("cpu"), causal=True)
    assert rows_launch[0] == persistent_launch[0] and rows_launch[2] == persistent_launch[2]
    assert rows_launch[1][2] is persistent_launch[1][2]  # the same cached tile list
    _, constants = launchers.fused_backward_kernel(replace(config, kv_in_registers=True), 64)
    assert constants["KV_IN_REGISTERS"] is True and constants["HEAD_DIM"] == 64


@pytest.mark.parametrize("change", [
    pytest.param(dict(persistent=False, balanced_schedule=False), id="not persistent"),
    pytest.param(dict(stats_in_shared=False), id="LSE/D in registers"),
    pytest.param(dict(num_warps=8), id="eight-warp partition"),
    pytest.param(dict(block_n=64), id="64-key blocks"),
    pytest.param(dict(ds_buffers=2), id="dS tiles of the other kernel"),
    pytest.param(dict(dq_chunks=2), id="dQ in chunks"),
])
def test_key_rows_on_two_partitions_refuse_what_their_kernel_does_not_do(change):
    config = configs.TileConfig(64, 128, 4, 2, "gluon", warp_specialised=True, persistent=True, stats_in_shared=True,
                                split_rows=True)
    with pytest.raises(ValueError, match="split_rows is a form of the persistent warp-specialised fused backward"):
        launchers.fused_backward_kernel(replace(config, **change), 128)


def test_a_late_key_gradient_wait_reaches_both_specialised_kernels_and_leaves_the_default_compile_alone():
    # Without wide_stores: the non-persistent kernel stores 4 bytes at a time; with one K/V slot (two are a persistent
    # form).
    tuned = replace(configs.BACKWARD_FUSED_CANDIDATES[64][0], wide_stores=False, kv_slots=1)
    kernels = {False: backward_gluon.attention_backward_fused_ws_kernel,
               True: backward_gluon.attention_backward_fused_ws_persistent_kernel}
    for persistent in (False, True):
        config = replace(tuned, persistent=persistent, balanced_schedule=persistent, split_tail=persistent,
                         late_key_gradient_wait=True)
        kernel, constants = launchers.fused_backward_kernel(config, 64)
        assert kernel is kernels[persistent]
        assert constants["LATE_KV_WAIT"] is True and constants["DS_BUFFERS"] == 2
        assert "LATE_KV_WAIT" in inspect.signature(kernel.fn).parameters
    _, constants = launchers.fused_backward_kernel(tuned, 64)
    assert "LATE_KV_WAIT" not in constants  # the kernels' default: the tuned forms compile as before


@pytest.mark.parametrize("change", [
    pytest.param(dict(ds_buffers=1), id="one dS tile: the slot is handed back at the block's own end"),
    pytest.param(dict(dq_chunks=2), id="dQ in chunks: a chunk's wait would wait for dV and dK"),
    pytest.param(dict(split_rows=True, num_warps=4, ds_buffers=2), id="key rows split over two partitions"),
])
def test_a_late_key_gradient_wait_is_refused_where_the_kernel_cannot_take_it(change):
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[64][0], late_key_gradient_wait=True, split_tail=False)
    with pytest.raises(ValueError, match="late_key_gradient_wait is a form of the warp-specialised fused backward"):
        launchers.fused_backward_kernel(replace(config, **change), 64)


def test_a_late_key_gradient_wait_is_refused_above_head_dim_64():
    # Compiled for sm_90a at d=128 (v0.22): ptxas serialises every warpgroup MMA of the form.
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], ds_buffers=2, late_key_gradient_wait=True)
    with pytest.raises(ValueError, match=r"late_key_gradient_wait is compiled for head_dim <= 64 .*; got head_dim=128"):
        launchers.fused_backward_kernel(config, 128)


# --- the split tail (v0.23): the non-causal persistent backward's last round in pieces ---------------------

def test_a_split_tail_gives_a_non_causal_call_with_a_partial_last_round_the_pieces_table(monkeypatch):
    # 12 key blocks x 2 KV heads x 12 sequences = 288 on 132 programs: 24 left for a third round, each of the
    # 16 query blocks of 1000 rows; the kernel reads the pieces (LISTED, SPLIT_TAIL).
    monkeypatch.setattr(launchers, "multiprocessor_count", lambda device: 132)
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    problem = launchers.describe(torch.empty(12, 8, 1000, 128), torch.empty(12, 2, 1500, 128), "bhnd", None)
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], split_tail=True)
    grid, trailing, constants = launchers.fused_backward_launch(config, problem, torch.device("cpu"))
    expected = schedules.split_tail_schedule(12, 24, 132, 16)
    assert grid == (132,) and constants == {"LISTED": True, "SPLIT_TAIL": True}
    assert trailing[2].tolist() == expected.table()
    assert launchers.split_tail_extent(config, problem, 132) == (264, 24)


def test_a_split_tail_leaves_causal_calls_and_whole_rounds_as_they_were(monkeypatch):
    problem = launchers.describe(torch.empty(3, 8, 1000, 128), torch.empty(3, 2, 1500, 128), "bhnd", None)
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], split_tail=True, dynamic_schedule=False)
    # causal: the balanced list of the tuned form (static since v0.37), no pieces
    assert launchers.fused_backward_launch(config, problem, torch.device("cpu"), causal=True)[2] == {"LISTED": True}
    # 12 key blocks x 6 on the interpreter's 3 programs: whole rounds, the round-robin pairs (no table)
    assert launchers.fused_backward_launch(config, problem, torch.device("cpu"))[1:] == ((2, 36, None), {})


@pytest.mark.parametrize("change", [dict(persistent=False, balanced_schedule=False), dict(warp_specialised=False),
                                    dict(split_rows=True, num_warps=4)], ids=["not persistent", "not specialised",
                                                                              "key rows split"])
def test_a_split_tail_is_refused_outside_the_persistent_specialised_backward(change):
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], split_tail=True, **change)
    with pytest.raises(ValueError, match="split_tail is an option of the persistent warp-specialised fused backward"):
        launchers.fused_backward_kernel(config, 128)


def test_the_split_tail_reaches_all_three_partitions_of_the_persistent_kernel():
    kernel, constants = launchers.fused_backward_kernel(
        replace(configs.BACKWARD_FUSED_CANDIDATES[64][0], split_tail=True), 64)
    assert kernel is backward_gluon.attention_backward_fused_ws_persistent_kernel
    assert "SPLIT_TAIL" not in constants  # decided per call (non-causal, a tail): fused_backward_launch
    for partition in (backward_gluon._persistent_fused_ws_loader, backward_gluon._persistent_fused_ws_dq_reducer,
                      backward_gluon._persistent_fused_ws_mma_partition, kernel):
        assert "SPLIT_TAIL" in inspect.signature(partition.fn).parameters


# --- the dynamic tile list (v0.37): causal key blocks claimed one at a time from one list ---------------------

def test_a_dynamic_persistent_fused_backward_reads_one_claim_list_of_key_blocks_and_two_counters(monkeypatch):
    # Causal: the key blocks of every KV head in one list (its entry count, then schedules.claim_order over the
    # backward's pairs, heavy key block first), claimed through the same counters as the forward's.
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    problem = launchers.describe(torch.empty(12, 8, 1000, 128), torch.empty(12, 2, 1500, 128), "bhnd", None)
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], dynamic_schedule=True)
    grid, trailing, constants = launchers.fused_backward_launch(config, problem, torch.device("cpu"), causal=True)
    order = schedules.claim_order(12, 2 * 12, 132, schedules.causal_backward_block_work(1000, 1500, 64, 128),
                                  high_first=False)
    assert grid == (132,) and trailing[2].tolist() == [len(order), *order]
    assert sorted(order) == list(range(12 * 2 * 12))  # every key block of every KV head once
    assert constants["LISTED"] is True and constants["DYNAMIC"] is True
    assert constants["claims"].tolist() == [0, 0] and constants["claims"].dtype == torch.int32


def test_a_dynamic_persistent_fused_backward_runs_non_causal_calls_unchanged(monkeypatch):
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    problem = launchers.describe(torch.empty(12, 8, 1000, 128), torch.empty(12, 2, 1500, 128), "bhnd", None)
    dynamic = configs.BACKWARD_FUSED_CANDIDATES[128][1]  # d=128's tuned form since v0.37
    static = replace(dynamic, dynamic_schedule=False)
    assert dynamic.dynamic_schedule
    made = [launchers.fused_backward_launch(config, problem, torch.device("cpu")) for config in (static, dynamic)]
    assert made[0][0] == made[1][0] and made[0][2] == made[1][2] == {"LISTED": True, "SPLIT_TAIL": True}
    assert made[0][1][2] is made[1][1][2]  # the split tail's table, the same cached tensor


def test_non_causal_claims_give_the_fused_backward_every_key_block_in_order_as_one_claim_list(monkeypatch):
    # v0.39 (prepared): non-causal, key blocks of every KV head in order (its entry count first), claimed through the
    # same counters, in place of the split tail's list; causal calls keep their own lists.
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    problem = launchers.describe(torch.empty(12, 8, 1000, 128), torch.empty(12, 2, 1500, 128), "bhnd", None)
    config = configs.BACKWARD_FUSED_CANDIDATES[128][1].claims_form()
    grid, trailing, constants = launchers.fused_backward_launch(config, problem, torch.device("cpu"))
    assert grid == (132,) and trailing[2].tolist() == [12 * 2 * 12, *range(12 * 2 * 12)]
    assert constants["LISTED"] is True and constants["DYNAMIC"] is True and "SPLIT_TAIL" not in constants
    causal = launchers.fused_backward_launch(config, problem, torch.device("cpu"), causal=True)
    assert causal == launchers.fused_backward_launch(replace(config, noncausal_claims=False), problem,
                                                     torch.device("cpu"), causal=True)


@pytest.mark.parametrize("change", [dict(split_tail=True), dict(split_rows=True, num_warps=4, dynamic_schedule=False),
                                    dict(warp_specialised=False, dynamic_schedule=False)],
                         ids=["split tail", "key rows split", "not specialised"])
def test_non_causal_claims_are_refused_outside_the_persistent_specialised_backward_without_a_split_tail(change):
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], **{"split_tail": False, "wide_stores": False,
                     "spread_dq_stores": False, "noncausal_claims": True, **change})
    with pytest.raises(ValueError, match="noncausal_claims is an option of the persistent warp-specialised fused"):
        launchers.fused_backward_kernel(config, 128)


@pytest.mark.parametrize("change", [dict(balanced_schedule=False), dict(split_rows=True, num_warps=4),
                                    dict(warp_specialised=False)],
                         ids=["not balanced", "key rows split", "not specialised"])
def test_a_dynamic_tile_list_is_refused_outside_the_balanced_persistent_specialised_backward(change):
    # The tuned form without its options of the same kernel (split tail, 16-byte and spread stores), whose own refusals
    # come first.
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], split_tail=False, wide_stores=False,
                     spread_dq_stores=False, dynamic_schedule=True, **change)
    with pytest.raises(ValueError, match="dynamic_schedule is an option of the persistent warp-specialised fused"):
        launchers.fused_backward_kernel(config, 128)


def test_the_dynamic_tile_list_reaches_all_three_partitions_of_the_persistent_kernel():
    kernel, constants = launchers.fused_backward_kernel(
        replace(configs.BACKWARD_FUSED_CANDIDATES[64][0], dynamic_schedule=True), 64)
    assert kernel is backward_gluon.attention_backward_fused_ws_persistent_kernel
    assert "DYNAMIC" not in constants  # decided per call (causal): fused_backward_launch
    for partition in (backward_gluon._persistent_fused_ws_loader, backward_gluon._persistent_fused_ws_dq_reducer,
                      backward_gluon._persistent_fused_ws_mma_partition, kernel):
        assert "DYNAMIC" in inspect.signature(partition.fn).parameters


@pytest.mark.parametrize("layout", ["bhnd", "bnhd"])
def test_the_tail_pieces_sums_become_dk_and_dv_in_the_output_precision(layout):
    # Under the interpreter: 2 sequences x 3 KV heads x 3 key blocks of 32 keys (seqlen_k 80: the last block
    # holds 16 keys); the last 4 key blocks (ids 14-17) have slots 0-3. Their rows take tau dk and dv from the
    # buffer, rows past seqlen_k and every other key block stay as they were.
    torch.manual_seed(0)
    batch, kv_heads, seqlen_k, head_dim, block_n = 2, 3, 80, 64, 32
    shape = (batch, kv_heads, seqlen_k, head_dim) if layout == "bhnd" else (batch, seqlen_k, kv_heads, head_dim)
    dk, dv = torch.zeros(shape, dtype=torch.bfloat16), torch.zeros(shape, dtype=torch.bfloat16)
    parts = torch.randn(4, 2, block_n, head_dim)
    problem = launchers.describe(torch.empty(shape), torch.empty(shape), layout, None)
    launchers.convert_key_gradient_parts(parts, dk, dv, launchers.strides_bhnd(dk, layout),
                                         launchers.strides_bhnd(dv, layout), 14, problem, block_n)
    as_bhnd = (lambda t: t) if layout == "bhnd" else (lambda t: t.transpose(1, 2))
    expected_dk, expected_dv = torch.zeros(batch, kv_heads, seqlen_k, head_dim), torch.zeros(batch, kv_heads,
                                                                                             seqlen_k, head_dim)
    for slot, tile in enumerate(range(14, 18)):
        head_batch, block = divmod(tile, 3)
        rows = slice(block * block_n, min((block + 1) * block_n, seqlen_k))
        keys = rows.stop - rows.start
        expected_dk[head_batch // kv_heads, head_batch % kv_heads, rows] = parts[slot, 0, :keys]
        expected_dv[head_batch // kv_heads, head_batch % kv_heads, rows] = parts[slot, 1, :keys]
    # One bfloat16 unit in the last place (2^-7 relative): the interpreter converts float32 by truncation, PyTorch
    # to the nearest value. Untouched rows stay exactly 0.
    torch.testing.assert_close(as_bhnd(dk).float(), expected_dk, rtol=2 ** -7, atol=0)
    torch.testing.assert_close(as_bhnd(dv).float(), expected_dv, rtol=2 ** -7, atol=0)
    assert torch.count_nonzero(as_bhnd(dk)) == torch.count_nonzero(expected_dk)


def test_the_persistent_role_split_backward_always_reads_a_tile_list(monkeypatch):
    # v0.23, prepared: d=256, one program per multiprocessor (at most one per key block); causal, the balanced
    # list; non-causal, split_tail_schedule's, with SPLIT_TAIL when the key blocks leave a partial last round.
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], persistent=True, balanced_schedule=True,
                     host_descriptors=0, split_tail=True, wide_stores=False)
    kernel, constants = launchers.fused_backward_kernel(config, 256)
    assert kernel is backward_gluon_split.attention_backward_fused_split_persistent_kernel
    grid_problem = launchers.describe(torch.empty(16, 8, 1024, 256), torch.empty(16, 8, 1024, 256), "bhnd", None)
    grid, trailing, listed = launchers.fused_backward_launch(config, grid_problem, torch.device("cpu"))
    assert grid == (132,) and listed == {"LISTED": True, "SPLIT_TAIL": True}  # 2048 key blocks: 68 left
    assert trailing[2].tolist() == schedules.split_tail_schedule(16, 128, 132, 16).table()
    grid, trailing, listed = launchers.fused_backward_launch(config, grid_problem, torch.device("cpu"), causal=True)
    work = schedules.causal_backward_block_work(1024, 1024, 64, 64)
    assert listed == {"LISTED": True}
    assert trailing[2].tolist() == schedules.balanced_causal_schedule(16, 128, 132, work, high_first=False).table()
    # 33 sequences x 4 KV heads x one key block: whole rounds, the list of whole key blocks without pieces
    whole = launchers.describe(torch.empty(33, 4, 64, 256), torch.empty(33, 4, 64, 256), "bhnd", None)
    grid, trailing, listed = launchers.fused_backward_launch(config, whole, torch.device("cpu"))
    assert grid == (132,) and listed == {"LISTED": True}
    assert trailing[2].tolist() == schedules.whole_tile_schedule(1, 132, 132).table()


def test_a_persistent_role_split_backward_without_split_tail_lists_whole_key_blocks(monkeypatch):
    # A list with pieces, read without SPLIT_TAIL, would make each piece a whole key block: the pieces of one
    # block would store their dK/dV over one another (v0.24's first GPU probe of this form, max diff 0.96).
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], persistent=True, balanced_schedule=True,
                     host_descriptors=0, wide_stores=False)
    problem = launchers.describe(torch.empty(16, 8, 1024, 256), torch.empty(16, 8, 1024, 256), "bhnd", None)
    grid, trailing, listed = launchers.fused_backward_launch(config, problem, torch.device("cpu"))
    assert grid == (132,) and listed == {"LISTED": True}
    table = trailing[2].tolist()
    assert table == schedules.whole_tile_schedule(16, 128, 132).table()
    offsets = table[:133]
    assert [offsets[p + 1] - offsets[p] for p in range(132)] == [16] * 68 + [15] * 64  # 2048 blocks, 68 left over
    assert sorted(table[133:]) == list(range(2048)) and len(table) == 133 + 2048  # whole blocks, no pieces


def test_a_causal_persistent_role_split_backward_runs_at_most_one_program_per_pair_of_key_blocks(monkeypatch):
    # The balanced list hands out pairs of key blocks: 8 KV heads x 16 key blocks are 64 pairs, so 64 programs
    # (v0.24's first GPU run asked the schedule for 128 and stopped on its check).
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], persistent=True, balanced_schedule=True,
                     host_descriptors=0, split_tail=True, wide_stores=False)
    problem = launchers.describe(torch.empty(1, 8, 1024, 256), torch.empty(1, 8, 1024, 256), "bhnd", None)
    grid, trailing, listed = launchers.fused_backward_launch(config, problem, torch.device("cpu"), causal=True)
    work = schedules.causal_backward_block_work(1024, 1024, 64, 64)
    assert grid == (64,) and listed == {"LISTED": True} and trailing[:2] == (8, 128)
    assert trailing[2].tolist() == schedules.balanced_causal_schedule(16, 8, 64, work, high_first=False).table()


def test_sixteen_byte_key_gradient_stores_are_an_option_of_the_persistent_specialised_backward():
    # v0.32: dK and dV exchanged between the four lanes of each key row (the MMA warps hold 16 key rows each) and
    # stored 16 bytes at a time (tuned at d=64 three slots and d=128 since v0.32, d=64 four slots since v0.33); off,
    # the kernel gets no WIDE_STORES constexpr (its SASS as before).
    for d, tuned in ((64, configs.BACKWARD_FUSED_CANDIDATES[64][0]), (64, configs.BACKWARD_FUSED_CANDIDATES[64][1]),
                     (128, configs.BACKWARD_FUSED_CANDIDATES[128][1])):
        kernel, constants = launchers.fused_backward_kernel(tuned, d)
        assert tuned.wide_stores and kernel is backward_gluon.attention_backward_fused_ws_persistent_kernel
        assert constants["WIDE_STORES"] is True
        assert "WIDE_STORES" not in launchers.fused_backward_kernel(replace(tuned, wide_stores=False), d)[1]


@pytest.mark.parametrize("change", [dict(persistent=False, balanced_schedule=False, split_tail=False),
                                    dict(split_rows=True, num_warps=4, split_tail=False),
                                    dict(num_warps=4, split_tail=False)],
                         ids=["not persistent", "key rows split", "32 key rows a warp"])
def test_sixteen_byte_key_gradient_stores_are_refused_elsewhere(change):
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], wide_stores=True, **change)
    with pytest.raises(ValueError, match="wide_stores is an option of the persistent warp-specialised fused backward"):
        launchers.fused_backward_kernel(config, 128)


def test_sixteen_byte_key_gradient_stores_reach_the_role_split_backward_at_d256():
    # v0.32 (prepared; tuned since v0.33): each MMA warpgroup of the role-split kernel stores its 64 key rows (dV in
    # one, dK in the other) 16 bytes at a time; its persistent form (not a candidate) does not take the option.
    for tuned in configs.BACKWARD_FUSED_CANDIDATES[256]:
        kernel, constants = launchers.fused_backward_kernel(tuned, 256)
        assert tuned.wide_stores and kernel is backward_gluon_split.attention_backward_fused_split_kernel
        assert constants["WIDE_STORES"] is True
        assert "WIDE_STORES" not in launchers.fused_backward_kernel(replace(tuned, wide_stores=False), 256)[1]
    persistent = replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], persistent=True, balanced_schedule=True,
                         host_descriptors=0, wide_stores=True)
    with pytest.raises(ValueError, match="wide_stores is an option of the persistent warp-specialised fused backward"):
        launchers.fused_backward_kernel(persistent, 256)


def test_a_second_do_slot_reaches_the_role_split_backward_as_its_do_ring():
    # v0.34 (probe run 18: correct, slower than the tuned tile; not a candidate): one dQ buffer per warpgroup frees the
    # 32 KB of a second dO slot at d=256.
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], dq_buffers=1, do_stages=2)
    kernel, constants = launchers.fused_backward_kernel(config, 256)
    assert kernel is backward_gluon_split.attention_backward_fused_split_kernel
    assert constants["DO_STAGES"] == 2 and constants["Q_STAGES"] == config.num_stages
    assert launchers.fused_backward_kernel(configs.BACKWARD_FUSED_CANDIDATES[256][0], 256)[1]["DO_STAGES"] == 1


@pytest.mark.parametrize("config", [
    pytest.param(replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], do_stages=2), id="one ring of Q/dO slots"),
    pytest.param(replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], do_stages=3), id="three dO slots"),
])
def test_do_slots_are_refused_where_the_kernel_has_no_do_ring_of_that_size(config):
    with pytest.raises(ValueError, match="do_stages is 1, or 2 in the role-split fused backward"):
        launchers.fused_backward_kernel(config, 256 if config.split_roles else 128)


def test_spread_dq_stores_reach_the_tuned_fused_backwards():
    # v0.34: each head dim's last candidate, the option passed to its kernel as SPREAD_DQ (and only with it).
    for d in (64, 128, 256):
        config = replace(configs.BACKWARD_FUSED_CANDIDATES[d][-1], spread_dq_stores=True)
        kernel, constants = launchers.fused_backward_kernel(config, d)
        assert constants["SPREAD_DQ"] is True and "SPREAD_DQ" in inspect.signature(kernel.fn).parameters
        plain = replace(config, spread_dq_stores=False)
        assert "SPREAD_DQ" not in launchers.fused_backward_kernel(plain, d)[1]


def test_early_lse_reaches_the_tuned_persistent_fused_backwards():
    # v0.35: d=64's and d=128's last candidates (LSE/D rows in shared memory), passed to the kernel as EARLY_LSE.
    for d in (64, 128):
        config = replace(configs.BACKWARD_FUSED_CANDIDATES[d][-1], early_lse=True)
        kernel, constants = launchers.fused_backward_kernel(config, d)
        assert constants["EARLY_LSE"] is True and "EARLY_LSE" in inspect.signature(kernel.fn).parameters
        assert "EARLY_LSE" not in launchers.fused_backward_kernel(replace(config, early_lse=False), d)[1]


@pytest.mark.parametrize("config, head_dim", [
    pytest.param(replace(configs.BACKWARD_FUSED_CANDIDATES[128][-1], early_lse=True, stats_in_shared=False), 128,
                 id="LSE rows in global memory"),
    pytest.param(replace(configs.BACKWARD_FUSED_CANDIDATES[128][0], early_lse=True), 128, id="not persistent"),
    pytest.param(replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], early_lse=True), 256, id="role split"),
])
def test_early_lse_is_refused_where_the_kernel_cannot_take_it(config, head_dim):
    with pytest.raises(ValueError, match="early_lse is an option of the persistent warp-specialised fused backward"):
        launchers.fused_backward_kernel(config, head_dim)


def test_only_d128s_tuned_fused_backward_stores_dq_spread():
    # v0.35 (probe run 22): d=128 +0.5-4.9% with the stores; d=64 -0.3-1.8% and d=256 -8-14% (not kept there).
    assert configs.BACKWARD_FUSED_CANDIDATES[128][-1].spread_dq_stores
    assert not any(config.spread_dq_stores for d in (64, 256) for config in configs.BACKWARD_FUSED_CANDIDATES[d])


@pytest.mark.parametrize("change", [dict(dq_chunks=2), dict(persistent=False, balanced_schedule=False, split_tail=False,
                                                               wide_stores=False)],
                         ids=["dQ in two chunks", "not persistent"])
def test_spread_dq_stores_are_refused_where_the_kernel_cannot_take_them(change):
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][-1], spread_dq_stores=True, **change)
    with pytest.raises(ValueError, match="spread_dq_stores is an option of the persistent warp-specialised"):
        launchers.fused_backward_kernel(config, 128)


def test_two_kv_slots_reach_the_persistent_specialised_kernel_and_one_slot_compiles_as_before():
    tuned = configs.BACKWARD_FUSED_CANDIDATES[64][-1]
    kernel, constants = launchers.fused_backward_kernel(replace(tuned, kv_slots=2), 64)
    assert kernel is backward_gluon.attention_backward_fused_ws_persistent_kernel
    assert constants["KV_SLOTS"] == 2
    assert "KV_SLOTS" in inspect.signature(kernel.fn).parameters
    _, constants = launchers.fused_backward_kernel(replace(tuned, kv_slots=1), 64)
    assert "KV_SLOTS" not in constants  # the kernel's default: one slot, the code as it was before v0.41


def test_every_d64_fused_backward_candidate_keeps_two_kv_slots():
    # v0.41 probe run 28: non-causal 1k +8%, causal 1k +15%, 16k level (PERFORMANCE.md).
    assert all(config.kv_slots == 2 for config in configs.BACKWARD_FUSED_CANDIDATES[64])


@pytest.mark.parametrize("change", [
    pytest.param(dict(persistent=False, balanced_schedule=False, split_tail=False, wide_stores=False),
                 id="one key block a program"),
    pytest.param(dict(split_rows=True, num_warps=4, ds_buffers=1, kv_in_registers=False, split_tail=False,
                      wide_stores=False), id="key rows split"),
    pytest.param(dict(kv_slots=3), id="three slots"),
])
def test_two_kv_slots_outside_the_persistent_specialised_kernel_and_other_counts_are_refused(change):
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[64][-1], **{"kv_slots": 2, **change})
    with pytest.raises(ValueError, match="kv_slots is 1, or 2 in the persistent warp-specialised fused backward"):
        launchers.fused_backward_kernel(config, 64)


def test_two_kv_slots_are_refused_where_the_shared_memory_has_no_room():
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], kv_slots=2)
    with pytest.raises(ValueError, match="kv_slots=2 fits the shared memory at head_dim <= 64; got head_dim=128"):
        launchers.fused_backward_kernel(config, 128)


def test_queries_first_reaches_the_persistent_specialised_kernel_and_its_absence_compiles_as_before():
    tuned = configs.BACKWARD_FUSED_CANDIDATES[128][1]
    kernel, constants = launchers.fused_backward_kernel(replace(tuned, queries_first=True), 128)
    assert kernel is backward_gluon.attention_backward_fused_ws_persistent_kernel
    assert constants["QUERIES_FIRST"] is True
    assert "QUERIES_FIRST" in inspect.signature(kernel.fn).parameters
    _, constants = launchers.fused_backward_kernel(replace(tuned, queries_first=False), 128)
    assert "QUERIES_FIRST" not in constants  # the kernel's default: the loader's order before v0.42


def test_the_persistent_d128_fused_backward_candidate_requests_its_queries_first():
    # v0.42 probe runs 30-31: the split-tail form non-causal 1k +4.0% (both runs), causal 1k +1.6-1.9%, 4k-16k level
    # (PERFORMANCE.md). Since v0.43 (the claims form dropped) it is d=128's one persistent candidate.
    persistent = [config for config in configs.BACKWARD_FUSED_CANDIDATES[128] if config.persistent]
    assert len(persistent) == 1 and persistent[0].queries_first and persistent[0].split_tail


@pytest.mark.parametrize("change", [
    pytest.param(dict(persistent=False, balanced_schedule=False, split_tail=False, wide_stores=False,
                      spread_dq_stores=False, dynamic_schedule=False), id="one key block a program"),
    pytest.param(dict(warp_specialised=False, persistent=False, balanced_schedule=False, split_tail=False,
                      wide_stores=False, spread_dq_stores=False, dynamic_schedule=False, stats_in_shared=False),
                 id="not warp-specialised"),
])
def test_queries_first_outside_the_persistent_specialised_kernel_is_refused(change):
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], **change)
    with pytest.raises(ValueError, match="queries_first is an option of the persistent warp-specialised fused "
                                         "backward with one K/V slot"):
        launchers.fused_backward_kernel(config, 128)


def test_queries_first_is_refused_beside_two_kv_slots():
    # With two slots the loader already requests a key block's K/V a block ahead, before its query blocks.
    config = replace(configs.BACKWARD_FUSED_CANDIDATES[64][-1], queries_first=True)
    assert config.kv_slots == 2
    with pytest.raises(ValueError, match="queries_first is an option of the persistent warp-specialised fused "
                                         "backward with one K/V slot"):
        launchers.fused_backward_kernel(config, 64)


@pytest.mark.parametrize("count", [2, 4])
def test_host_descriptors_reach_the_role_split_backward_and_their_absence_compiles_as_before(count):
    # v0.44: K and V (2), or Q, K, V and dO (4), as descriptors made by the launcher (launchers.host_descriptor)
    # instead of in each program.
    tuned = configs.BACKWARD_FUSED_CANDIDATES[256][0]
    kernel, constants = launchers.fused_backward_kernel(replace(tuned, host_descriptors=count), 256)
    assert kernel is backward_gluon_split.attention_backward_fused_split_kernel
    assert constants["HOST_DESCRIPTORS"] == count
    assert "HOST_DESCRIPTORS" in inspect.signature(kernel.fn).parameters
    _, constants = launchers.fused_backward_kernel(replace(tuned, host_descriptors=0), 256)
    assert "HOST_DESCRIPTORS" not in constants  # the kernel's default: descriptors written in the kernel


@pytest.mark.parametrize("config, head_dim", [
    pytest.param(replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], persistent=True, balanced_schedule=True,
                         wide_stores=False, host_descriptors=4), 256, id="persistent role split"),
    pytest.param(replace(configs.BACKWARD_FUSED_CANDIDATES[128][-1], host_descriptors=4), 128, id="d=128 tuned"),
    pytest.param(replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], host_descriptors=3), 256, id="three of four"),
])
def test_host_descriptors_are_refused_outside_the_one_key_block_role_split_backward(config, head_dim):
    with pytest.raises(ValueError, match=r"host_descriptors is 0, or 2 \(K, V\) or 4 \(Q, K, V, dO\) in the "
                                         "role-split fused backward"):
        launchers.fused_backward_kernel(config, head_dim)


@pytest.mark.parametrize("layout", ["bhnd", "bnhd"])
def test_a_host_descriptor_spans_batch_head_row_and_column_with_one_head_rows_a_box(layout):
    torch.manual_seed(0)
    shape = (2, 3, 40, 256) if layout == "bhnd" else (2, 40, 3, 256)
    tensor = torch.randn(shape, dtype=torch.bfloat16)
    strides = launchers.strides_bhnd(tensor, layout)
    descriptor = launchers.host_descriptor(tensor, strides, 2, 3, 40, 64, 256)
    assert descriptor.base is tensor and descriptor.shape == [2, 3, 40, 256]
    assert descriptor.block_shape == [1, 1, 64, 256]
    assert (descriptor.layout.swizzle_byte_width, descriptor.layout.rank) == (128, 4)
    # The descriptor's (batch, head, row, column) element is the tensor's element of that head and row.
    viewed = torch.as_strided(tensor, descriptor.shape, descriptor.strides)
    heads_second = tensor if layout == "bhnd" else tensor.transpose(1, 2)
    assert torch.equal(viewed, heads_second)


@pytest.mark.parametrize("count, described", [(0, []), (1, ["q"]), (3, ["q", "k", "v"])])
def test_a_form_takes_as_host_descriptors_the_inputs_its_count_reaches(count, described):
    # The Gluon forward's counts (1: Q; 3: Q, K and V); the fused backward's (2, 4) go through the same helper.
    problem = SimpleNamespace(batch=2, head_dim=128)
    tensors = {name: torch.randn(2, 4, 256, 128, dtype=torch.bfloat16) for name in ("q", "k", "v")}
    strides = launchers.strides_bhnd(tensors["q"], "bhnd")
    loaded = launchers.host_descriptor_inputs(count, problem, [
        (tensors["q"], strides, 4, 256, 64, 1), (tensors["k"], strides, 4, 256, 128, 3),
        (tensors["v"], strides, 4, 256, 128, 3)])
    for name, argument in zip(("q", "k", "v"), loaded):
        if name in described:
            assert argument.base is tensors[name] and argument.block_shape[2] == (64 if name == "q" else 128)
        else:
            assert argument is tensors[name]


@pytest.mark.parametrize("shape, layout, expand, host", [
    ((2, 8, 128, 256), "bhnd", False, 2),
    ((2, 128, 8, 256), "bnhd", False, 2),
    ((2, 1, 128, 256), "bhnd", True, 0),
], ids=["(B, H, N, D)", "(B, N, H, D)", "heads broadcast"])
def test_host_descriptors_apply_to_inputs_without_broadcast_dimensions(shape, layout, expand, host):
    # The four-dimensional host descriptors take (B, H, N, D) and (B, N, H, D) inputs (v0.44, v0.45 check paths); a
    # head dimension broadcast with stride 0 runs the in-kernel descriptors' form.
    tensor = torch.empty(shape)
    if expand:
        tensor = tensor.expand(2, 8, 128, 256)
    strides = [launchers.strides_bhnd(tensor, layout)] * 4
    tuned = configs.BACKWARD_FUSED_CANDIDATES[256][0]
    assert tuned.host_descriptors == 2
    assert launchers.host_descriptor_form(tuned, strides) == replace(tuned, host_descriptors=host)
