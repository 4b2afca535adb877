"""The Gluon forward (kernels/forward_gluon.py) is a Hopper-only kernel: Gluon has no interpreter, so on the
CPU its numerics cannot run. What is checked here: its tiles (two 64-row consumer warpgroups), that forcing
it (plain or persistent) where it cannot run falls back to the Triton kernels with the reference's output, and
(tests/bench/test_resources.py) that its tiles compile for sm_90a without spills. Its output and LSE are
checked on the H200 by ``python -m flashio.check`` (the default cases at d=64, 128 and 256, where it joins the
tuned choice, and the forced path ``forward: Gluon (d=64, 128, 256)``)."""

from dataclasses import replace

import pytest
import torch

import flashio
from flashio import configs, launchers, schedules
from flashio.kernels import forward_gluon
from helpers import check_against_reference, random_qkv, record_grids


def test_every_gluon_forward_tile_splits_its_rows_between_64_row_warpgroups():
    # One warpgroup MMA is 64 rows tall: two consumers of 64 rows (block_m 128), or (v0.48, d=64's seventh candidate,
    # persistent only) three (block_m 192), or (v0.52, d=64's eighth and ninth, 64-key blocks) four (block_m 256).
    for bucket, candidates in configs.FORWARD_GLUON_CANDIDATES.items():
        for config in candidates:
            assert config.path == "gluon" and config.num_warps == 4, config
            assert config.block_m == 128 or (config.block_m in (192, 256) and config.persistent and bucket == 64), config
            assert launchers.gluon_forward_constants(config, bucket)["ROWS"] == 64, config
            assert bucket in configs.FORWARD_TMA_CANDIDATES, bucket


def test_ping_pong_tiles_use_the_pipelined_loop():
    # The consumers take turns at issuing the pipelined step's products; the plain loop has no turns.
    from flashio import check

    lists = check.forced_paths()["forward: Gluon, pipelined, ping-pong"][1]["FORWARD_GLUON_CANDIDATES"]
    tiles = [config for candidates in lists.values() for config in candidates]
    assert tiles and all(config.pingpong and config.pipelined for config in tiles)


def test_pipelined_gluon_forward_tiles_keep_three_key_value_slots():
    # The pipelined loop holds two blocks' slots at once; with two slots the loader could not run ahead.
    for candidates in configs.FORWARD_GLUON_CANDIDATES.values():
        for config in candidates:
            assert not config.pipelined or config.num_stages >= 3 or config.split_kv, config


@pytest.mark.parametrize("head_dim", [128, 256])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_forcing_the_gluon_forward_without_hopper_falls_back_to_the_triton_kernels(monkeypatch, causal, head_dim):
    launched = record_grids(monkeypatch, forward_gluon, "attention_forward_gluon_kernel")
    launched_persistent = record_grids(monkeypatch, forward_gluon, "attention_forward_gluon_persistent_kernel")
    persistent = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True)
    candidates = dict(configs.FORWARD_GLUON_CANDIDATES)
    candidates[head_dim] = (persistent,) + candidates[head_dim]
    monkeypatch.setattr(configs, "FORWARD_GLUON_CANDIDATES", candidates)
    monkeypatch.setenv("FLASHIO_FORWARD_PATH", "gluon")
    torch.manual_seed(5)
    q, k, v = random_qkv(1, 2, 2, 45, 70, head_dim, torch.bfloat16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=causal), q, k, v, causal=causal)
    assert launched == [] and launched_persistent == []


@pytest.mark.parametrize("seqlen_q, units_per_head", [(1024, 4), (640, 3), (100, 1)])
def test_persistent_gluon_forward_runs_causal_query_blocks_in_pairs_up_to_the_multiprocessors(
        monkeypatch, seqlen_q, units_per_head):
    # A causal work unit pairs query blocks i and n-1-i of one head (the middle block of an odd count alone),
    # so every unit is the same work and the units of one head run side by side (v0.13).
    monkeypatch.setattr(launchers, "multiprocessor_count", lambda device: 132)
    q, k = torch.empty(3, 8, seqlen_q, 128), torch.empty(3, 2, 1024, 128)
    problem = launchers.describe(q, k, "bhnd", None)
    config = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True)
    units = units_per_head * 8 * 3
    kernel, grid, trailing, constants = launchers.gluon_forward_launch(config, problem, True, torch.device("cuda"))
    assert kernel is forward_gluon.attention_forward_gluon_persistent_kernel
    assert grid == (min(units, 132),) and trailing == (8, units, None) and constants == {}


def test_persistent_gluon_forward_takes_one_unit_per_query_block_without_causal_masking(monkeypatch):
    monkeypatch.setattr(launchers, "multiprocessor_count", lambda device: 132)
    problem = launchers.describe(torch.empty(16, 16, 1024, 128), torch.empty(16, 16, 1024, 128), "bhnd", None)
    config = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True)
    assert launchers.gluon_forward_launch(config, problem, False, torch.device("cuda"))[1:] == \
        ((132,), (16, 8 * 16 * 16, None), {})


def test_non_persistent_gluon_forward_runs_one_program_per_query_block_head_and_batch():
    problem = launchers.describe(torch.empty(3, 8, 1000, 64), torch.empty(3, 2, 1500, 64), "bhnd", None)
    config = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True)
    kernel, grid, trailing, constants = launchers.gluon_forward_launch(config, problem, True, torch.device("cuda"))
    assert kernel is forward_gluon.attention_forward_gluon_kernel and grid == (8, 8, 3) and trailing == ()
    assert constants == {}


def test_output_from_registers_is_a_constexpr_of_either_gluon_forward_kernel():
    # The persistent kernel then hands its Q buffer back after the key loop; the non-persistent one (v0.15)
    # only skips staging its output through Q's buffer and the TMA store (no descriptor built for O).
    persistent = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True,
                                    output_from_registers=True)
    assert launchers.gluon_forward_constants(persistent, 128)["OUTPUT_FROM_REGISTERS"] is True
    assert "OUTPUT_FROM_REGISTERS" not in launchers.gluon_forward_constants(
        configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True), 128)  # tuned forms unchanged
    plain = configs.TileConfig(128, 64, 4, 3, "gluon", max_registers=80, output_from_registers=True)
    assert launchers.gluon_forward_constants(plain, 64)["OUTPUT_FROM_REGISTERS"] is True


def test_an_output_buffer_of_its_own_is_an_option_of_the_persistent_gluon_forward_only():
    persistent = configs.TileConfig(128, 128, 4, 2, "gluon", pipelined=True, split_kv=True, persistent=True,
                                    output_buffer=True)
    assert launchers.gluon_forward_constants(persistent, 128)["OUTPUT_BUFFER"] is True
    with pytest.raises(ValueError, match="output_buffer"):
        launchers.gluon_forward_constants(configs.TileConfig(128, 128, 4, 2, "gluon", output_buffer=True), 128)


def test_the_two_ways_of_handing_q_back_early_exclude_each_other():
    both = configs.TileConfig(128, 128, 4, 2, "gluon", persistent=True, output_from_registers=True,
                              output_buffer=True)
    with pytest.raises(ValueError, match="exclude each other"):
        launchers.gluon_forward_constants(both, 128)


def test_two_sets_of_q_buffers_are_an_option_of_the_persistent_gluon_forward_only():
    # The non-persistent kernel runs one tile per program: there is no next tile to fetch Q for.
    persistent = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True,
                                    output_from_registers=True, q_buffers=2)
    assert launchers.gluon_forward_constants(persistent, 64)["Q_BUFFERS"] == 2
    assert "Q_BUFFERS" not in launchers.gluon_forward_constants(replace(persistent, q_buffers=1), 64)
    with pytest.raises(ValueError, match="q_buffers"):
        launchers.gluon_forward_constants(replace(persistent, persistent=False, output_from_registers=False), 64)
    with pytest.raises(ValueError, match="q_buffers"):
        launchers.gluon_forward_constants(replace(persistent, q_buffers=3), 64)


def test_q_is_handed_back_early_only_by_the_pipelined_persistent_loop_whose_q_does_not_stage_the_output():
    # The early hand-back happens in the pipelined step that computes the tile's last scores; a form that
    # stages its output through Q's buffer still needs the buffer after the key loop.
    early = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True,
                               output_from_registers=True, early_q_release=True)
    assert launchers.gluon_forward_constants(early, 128)["EARLY_Q_RELEASE"] is True
    for wrong in (replace(early, output_from_registers=False), replace(early, pipelined=False),
                  replace(early, persistent=False, output_from_registers=False)):
        with pytest.raises(ValueError, match="early_q_release"):
            launchers.gluon_forward_constants(wrong, 128)


def test_sixteen_byte_output_stores_are_an_option_of_the_forward_storing_from_registers():
    # The words are exchanged between the lanes of a 4-warp consumer's 64 rows (persistent kernel since v0.31, the
    # one-tile-per-program kernel since v0.32); a form that stages its output through shared memory stores it by
    # TMA anyway.
    wide = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                              wide_stores=True)
    assert launchers.gluon_forward_constants(wide, 128)["WIDE_STORES"] is True
    assert "WIDE_STORES" not in launchers.gluon_forward_constants(replace(wide, wide_stores=False), 128)
    assert launchers.gluon_forward_constants(replace(wide, block_m=192), 64)["WIDE_STORES"] is True  # 3 x 64 rows
    assert launchers.gluon_forward_constants(replace(wide, persistent=False), 128)["WIDE_STORES"] is True
    capped = configs.TileConfig(128, 64, 4, 3, "gluon", max_registers=80, output_from_registers=True, wide_stores=True)
    assert launchers.gluon_forward_constants(capped, 64)["WIDE_STORES"] is True
    for wrong in (replace(wide, output_from_registers=False), replace(capped, output_from_registers=False),
                  replace(wide, output_from_registers=False, output_buffer=True)):
        with pytest.raises(ValueError, match="wide_stores"):
            launchers.gluon_forward_constants(wrong, 128)


def test_a_register_capped_gluon_forward_gives_its_consumers_what_the_loader_gives_up():
    # 12 warps x 32 x 80 registers on entry; the loader's warpgroup keeps 24 per thread, the two consumer
    # warpgroups may grow to 104 (a multiple of 8, and 2 x 128 x 104 + 128 x 24 <= 12 x 32 x 80).
    capped = configs.TileConfig(128, 64, 4, 3, "gluon", pipelined=True, max_registers=80)
    assert launchers.gluon_forward_constants(capped, 64)["CONSUMER_REGS"] == 104
    assert 2 * 128 * 104 + 128 * launchers.FUSED_WORKER_REGISTERS <= 12 * 32 * 80
    assert launchers.gluon_forward_constants(replace(capped, max_registers=None), 64)["CONSUMER_REGS"] == 240
    with pytest.raises(ValueError, match="max_registers"):
        launchers.gluon_forward_constants(replace(capped, persistent=True), 64)


def test_a_192_row_tile_runs_three_64_row_consumer_warpgroups_with_fewer_registers_each():
    # 3 x 128 threads x 160 registers + the loader's 32 x 24 fit the 65536 of a multiprocessor; 240 would not.
    three = configs.TileConfig(192, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True)
    constants = launchers.gluon_forward_constants(three, 64)
    assert constants["CONSUMERS"] == 3 and constants["ROWS"] == 64
    assert 3 * 128 * constants["CONSUMER_REGS"] + 32 * constants["LOADER_REGS"] <= 65536
    two = launchers.gluon_forward_constants(replace(three, block_m=128), 64)
    assert "CONSUMERS" not in two and two["ROWS"] == 64  # the two-consumer forms are compiled as before


@pytest.mark.parametrize("option", [dict(persistent=False), dict(pingpong=True)], ids=["one-tile", "ping-pong"])
@pytest.mark.parametrize("block_m, block_n, consumers", [(192, 128, "three"), (256, 64, "four")])
def test_three_or_four_consumer_warpgroups_are_a_form_of_the_persistent_forward_without_ping_pong(
        option, block_m, block_n, consumers):
    config = replace(configs.TileConfig(block_m, block_n, 4, 3, "gluon", pipelined=True, persistent=True), **option)
    with pytest.raises(ValueError, match=f"{consumers} consumer warpgroups"):
        launchers.gluon_forward_constants(config, 64)


def test_four_consumer_warpgroups_split_256_rows_and_share_the_register_file():
    # v0.52: 17 warps launch as five warpgroups of 96 registers per thread (65,536 / 640, rounded down to 8); the first
    # consumer (Triton's default partition) keeps what the loader's warpgroup and the other three leave, 120 or more.
    constants = launchers.gluon_forward_constants(
        configs.TileConfig(256, 64, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True), 64)
    assert constants["CONSUMERS"] == 4 and constants["ROWS"] == 64 and constants["BLOCK_N"] == 64
    launch_registers = 65536 // (5 * 128) // 8 * 8
    first_consumer = 5 * launch_registers - 3 * constants["CONSUMER_REGS"] - constants["LOADER_REGS"]
    assert first_consumer >= constants["CONSUMER_REGS"] >= 112


def test_four_consumer_warpgroups_refuse_key_blocks_their_registers_do_not_hold():
    config = configs.TileConfig(256, 128, 4, 3, "gluon", pipelined=True, persistent=True)
    with pytest.raises(ValueError, match="block_n=128"):
        launchers.gluon_forward_constants(config, 64)


def test_row_sums_on_the_tensor_cores_are_a_constexpr_of_the_persistent_pipelined_forward():
    # v0.53: l as P times a block of ones, issued beside the P V product.
    config = replace(configs.FORWARD_GLUON_CANDIDATES[64][6], row_sum_mma=True)
    assert launchers.gluon_forward_constants(config, 64)["ROW_SUM_MMA"] is True
    assert "ROW_SUM_MMA" not in launchers.gluon_forward_constants(configs.FORWARD_GLUON_CANDIDATES[64][6], 64)


def test_row_sums_on_the_tensor_cores_take_the_half_diagonal_block_of_d128():
    # v0.54: d=128's host form keeps its half diagonal block (``_half_block_last`` sums its half products too).
    config = replace(configs.FORWARD_GLUON_CANDIDATES[128][6], row_sum_mma=True)
    assert config.half_diagonal
    constants = launchers.gluon_forward_constants(config, 128)
    assert constants["ROW_SUM_MMA"] is True and constants["HALF_DIAGONAL"] is True


@pytest.mark.parametrize("option", [dict(persistent=False, balanced_schedule=False, dynamic_schedule=False,
                                         noncausal_claims=False, host_descriptors=0, published_coordinates=False,
                                         q_buffers=1),
                                    dict(pipelined=False), dict(pingpong=True, block_m=128), dict(block_n=32)],
                         ids=["one-tile", "plain loop", "ping-pong", "32-key blocks"])
def test_row_sums_on_the_tensor_cores_refuse_the_loops_that_do_not_issue_them(option):
    # The turns sum rows on the CUDA cores only; P is summed in one or two pieces of the 64-key block of ones.
    config = replace(configs.FORWARD_GLUON_CANDIDATES[64][6], row_sum_mma=True, **option)
    with pytest.raises(ValueError, match="row_sum_mma"):
        launchers.gluon_forward_constants(config, 64)


@pytest.mark.parametrize("block_m, block_n, pairs, programs", [(192, 128, 3, 132), (256, 64, 2, 128)],
                         ids=["three consumers", "four consumers"])
def test_a_wide_persistent_tile_pairs_causal_query_blocks_of_its_rows(monkeypatch, block_m, block_n, pairs, programs):
    # 1000 query rows: 6 blocks of 192 (3 causal pairs per head) or 4 of 256 (2 pairs; v0.52), the last one partial;
    # 2 x 32 heads, so 3 x 64 or 2 x 64 units, at most one program per multiprocessor.
    monkeypatch.setattr(launchers, "multiprocessor_count", lambda device: 132)
    problem = launchers.describe(torch.empty(2, 32, 1000, 64), torch.empty(2, 32, 1000, 64), "bhnd", None)
    config = configs.TileConfig(block_m, block_n, 4, 3, "gluon", pipelined=True, persistent=True)
    assert launchers.gluon_forward_launch(config, problem, True, torch.device("cuda"))[1:] == \
        ((programs,), (32, pairs * 32 * 2, None), {})


def test_a_dynamic_persistent_forward_reads_one_claim_list_and_two_counters(monkeypatch):
    # v0.36: causal, the tiles of one list (its entry count, then schedules.claim_order) claimed one at a time;
    # the counters (claimed, programs done) start at zero and are kept per device and stream.
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    config = configs.FORWARD_GLUON_CANDIDATES[128][2]
    assert config.dynamic_schedule and config.balanced_schedule
    problem = launchers.describe(torch.empty(16, 16, 1024, 128), torch.empty(16, 16, 1024, 128), "bhnd", None)
    _, grid, trailing, constants = launchers.gluon_forward_launch(config, problem, True, torch.device("cpu"))
    order = schedules.claim_order(8, 256, 132, schedules.causal_forward_block_work(1024, 1024, 128, 128))
    assert grid == (132,) and trailing[2].tolist() == [len(order), *order]
    assert constants["LISTED"] is True and constants["DYNAMIC"] is True
    assert constants["claims"].tolist() == [0, 0] and constants["claims"].dtype == torch.int32
    again = launchers.gluon_forward_launch(config, problem, True, torch.device("cpu"))[3]
    assert again["claims"] is constants["claims"]  # one pair of counters, left at zero by every launch


def test_a_dynamic_persistent_forward_runs_non_causal_calls_unchanged(monkeypatch):
    # dynamic_schedule is the causal list's; the non-causal one is noncausal_claims' (next tests).
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    problem = launchers.describe(torch.empty(16, 16, 1024, 128), torch.empty(16, 16, 1024, 128), "bhnd", None)
    dynamic = replace(configs.FORWARD_GLUON_CANDIDATES[128][2], noncausal_claims=False)
    static = replace(dynamic, dynamic_schedule=False)
    assert launchers.gluon_forward_launch(dynamic, problem, False, torch.device("cpu")) == \
        launchers.gluon_forward_launch(static, problem, False, torch.device("cpu"))


def test_non_causal_claims_take_the_round_robin_order_as_one_claim_list(monkeypatch):
    # v0.39: non-causal, every tile id in the round-robin's order (a head's query blocks one after another), its entry
    # count first, claimed one at a time through the causal dynamic list's counters.
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    config = configs.FORWARD_GLUON_CANDIDATES[128][2]
    assert config.noncausal_claims
    problem = launchers.describe(torch.empty(16, 16, 1024, 128), torch.empty(16, 16, 1024, 128), "bhnd", None)
    _, grid, trailing, constants = launchers.gluon_forward_launch(config, problem, False, torch.device("cpu"))
    assert grid == (132,) and trailing[2].tolist() == [2048, *range(2048)]
    assert constants["LISTED"] is True and constants["DYNAMIC"] is True and "SPLIT_TAIL" not in constants
    assert constants["claims"].tolist() == [0, 0]
    causal = launchers.gluon_forward_launch(config, problem, True, torch.device("cpu"))[3]
    assert causal["claims"] is constants["claims"]  # one pair per device and stream, whichever list claims


def test_the_three_consumer_forms_non_causal_claims_end_with_short_last_blocks(monkeypatch):
    # v0.55: at N = 1k a 192-row tile list's last query block of each head has 64 rows (two idle consumers); the last
    # 44 heads' ones are claimed last (``schedules.noncausal_claim_order``). At N = 1536 (8 x 192) none is short.
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    config = configs.FORWARD_GLUON_CANDIDATES[64][6]
    assert config.block_m == 192 and config.noncausal_claims
    problem = launchers.describe(torch.empty(16, 32, 1024, 64), torch.empty(16, 32, 1024, 64), "bhnd", None)
    table = launchers.gluon_forward_launch(config, problem, False, torch.device("cpu"))[2][2].tolist()
    assert table[0] == 3072 and table[1:] == schedules.noncausal_claim_order(6, 512, 132, last_block_short=True)
    assert table[-44:] == [head * 6 + 5 for head in range(468, 512)]
    whole = launchers.describe(torch.empty(2, 32, 1536, 64), torch.empty(2, 32, 1536, 64), "bhnd", None)
    table = launchers.gluon_forward_launch(config, whole, False, torch.device("cpu"))[2][2].tolist()
    assert table == [8 * 64, *range(8 * 64)]


def test_a_last_block_is_short_only_where_a_whole_consumer_has_no_rows():
    three, four = configs.FORWARD_GLUON_CANDIDATES[64][6], configs.FORWARD_GLUON_CANDIDATES[64][7]
    assert (three.block_m, four.block_m) == (192, 256)
    assert launchers._last_block_short(three, 1024) and launchers._last_block_short(three, 2048)
    assert launchers._last_block_short(three, 1000)  # 1000 = 5 x 192 + 40: two consumers without rows
    assert not launchers._last_block_short(three, 1100)  # 1100 = 5 x 192 + 140: every consumer has rows
    assert not launchers._last_block_short(three, 1536)
    assert launchers._last_block_short(four, 1000 - 64) and not launchers._last_block_short(four, 1000)
    assert not launchers._last_block_short(configs.FORWARD_GLUON_CANDIDATES[128][2], 1000)  # two consumers: never


def test_non_causal_claims_leave_causal_calls_to_the_causal_list(monkeypatch):
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    problem = launchers.describe(torch.empty(16, 16, 1024, 128), torch.empty(16, 16, 1024, 128), "bhnd", None)
    claiming = configs.FORWARD_GLUON_CANDIDATES[128][2]
    round_robin = replace(claiming, noncausal_claims=False)
    assert launchers.gluon_forward_launch(claiming, problem, True, torch.device("cpu")) == \
        launchers.gluon_forward_launch(round_robin, problem, True, torch.device("cpu"))


def test_the_tuned_persistent_forms_of_d64_and_d128_claim_their_non_causal_tiles_and_d256s_does_not():
    # Probe run 47 (v0.39, bf16): non-causal 1k +7.4% at d=64, +4.4% at d=128; d=256's form lost 1-3% at 1k-2k.
    assert configs.FORWARD_GLUON_CANDIDATES[64][1].noncausal_claims
    assert configs.FORWARD_GLUON_CANDIDATES[128][2].noncausal_claims
    assert not any(config.noncausal_claims for config in configs.FORWARD_GLUON_CANDIDATES[256])


@pytest.mark.parametrize("options", [dict(persistent=False, balanced_schedule=False, dynamic_schedule=False),
                                     dict(split_tail=True)], ids=["one tile per program", "split tail"])
def test_non_causal_claims_are_an_option_of_the_persistent_forward_without_a_split_tail(options):
    config = replace(configs.FORWARD_GLUON_CANDIDATES[128][2], **options)
    with pytest.raises(ValueError, match="noncausal_claims is an option of the persistent Gluon forward"):
        launchers.gluon_forward_constants(config, 128)


def test_the_triton_forward_takes_no_non_causal_claims():
    config = replace(configs.FORWARD_GLUON_CANDIDATES[128][2], path="ws")
    problem = launchers.describe(torch.empty(2, 2, 256, 128), torch.empty(2, 2, 256, 128), "bhnd", None)
    with pytest.raises(ValueError, match="noncausal_claims is an option of the persistent Gluon forward"):
        launchers.persistent_schedule(config, problem, False, 4, torch.device("cpu"))


@pytest.mark.parametrize("options", [dict(balanced_schedule=False), dict(persistent=False, balanced_schedule=False)])
def test_a_dynamic_tile_list_is_an_option_of_the_listed_persistent_forward(options):
    config = replace(configs.FORWARD_GLUON_CANDIDATES[128][2], **options)
    with pytest.raises(ValueError, match="dynamic_schedule is an option of the persistent Gluon forward"):
        launchers.gluon_forward_constants(config, 128)


@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_only_the_gluon_kernels_take_a_dynamic_tile_list(backward):
    config = replace(configs.FORWARD_GLUON_CANDIDATES[128][2], path="ws", noncausal_claims=False)
    problem = launchers.describe(torch.empty(2, 2, 256, 128), torch.empty(2, 2, 256, 128), "bhnd", None)
    with pytest.raises(ValueError, match="dynamic_schedule is an option of the persistent Gluon forward"):
        launchers.persistent_schedule(config, problem, True, 4, torch.device("cpu"), backward=backward)


def test_a_split_tail_forward_reads_the_split_tail_list_when_the_round_robin_leaves_a_partial_round(monkeypatch):
    # v0.38: the grid's d=128 1k (2048 query blocks on 132 programs: 68 in a 16th round) takes
    # schedules.split_tail_forward_schedule's table, its pieces' buffer and merge table beside it.
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    config = replace(configs.FORWARD_GLUON_CANDIDATES[128][2], split_tail=True, noncausal_claims=False)
    problem = launchers.describe(torch.empty(16, 16, 1024, 128), torch.empty(16, 16, 1024, 128), "bhnd", None)
    _, grid, trailing, constants = launchers.gluon_forward_launch(config, problem, False, torch.device("cpu"))
    expected = schedules.split_tail_forward_schedule(8, 256, 132, 8)
    assert grid == (132,) and trailing[2].tolist() == expected.table()
    assert constants == {"LISTED": True, "SPLIT_TAIL": True}
    partials, combines = launchers.split_tail_partials(config, problem, 132, torch.device("cpu"))
    merges = schedules.split_tail_combines(expected)
    assert partials.shape == (sum(pieces for _, _, pieces in merges), 128 * (128 + 1))
    assert partials.dtype == torch.float32
    assert combines.tolist() == [merge[field] for field in range(3) for merge in merges]


def test_a_split_tail_forward_runs_causal_calls_and_whole_rounds_unchanged(monkeypatch):
    monkeypatch.setattr(launchers, "persistent_programs", lambda device: 132)
    tuned = replace(configs.FORWARD_GLUON_CANDIDATES[128][2], noncausal_claims=False)
    split = replace(tuned, split_tail=True)
    grid_shape = launchers.describe(torch.empty(16, 16, 1024, 128), torch.empty(16, 16, 1024, 128), "bhnd", None)
    whole_rounds = launchers.describe(torch.empty(33, 4, 1024, 128), torch.empty(33, 4, 1024, 128), "bhnd", None)
    device = torch.device("cpu")
    assert launchers.gluon_forward_launch(split, grid_shape, True, device)[1:3] == \
        launchers.gluon_forward_launch(tuned, grid_shape, True, device)[1:3]
    assert launchers.gluon_forward_launch(split, whole_rounds, False, device)[1:] == \
        ((132,), (4, 8 * 4 * 33, None), {})  # 1056 query blocks: 8 whole rounds, round-robin


def test_a_split_tail_is_an_option_of_the_persistent_gluon_forward():
    config = replace(configs.FORWARD_GLUON_CANDIDATES[128][0], split_tail=True)
    with pytest.raises(ValueError, match="split_tail is an option of the persistent Gluon forward"):
        launchers.gluon_forward_constants(config, 128)
    problem = launchers.describe(torch.empty(2, 2, 1024, 128), torch.empty(2, 2, 1024, 128), "bhnd", None)
    ws = configs.TileConfig(128, 128, 4, 2, "ws", persistent=True, split_tail=True)
    with pytest.raises(ValueError, match="split_tail is an option of the persistent Gluon forward"):
        launchers.persistent_schedule(ws, problem, False, 3, torch.device("cpu"))


def test_the_sass_hash_script_covers_every_tuned_gluon_forward_form_and_no_split_tail_form():
    # benchmarks/gluon_forward_sass_hashes.py: the before/after check that a change leaves the kernels that ran alone.
    from bench.scripts import load_benchmark_script

    forms = load_benchmark_script("gluon_forward_sass_hashes").forms()
    assert all((d, config) in forms for d, candidates in configs.FORWARD_GLUON_CANDIDATES.items()
               for config in candidates)
    assert not any(config.split_tail for _, config in forms) and len(set(forms)) == len(forms)


@pytest.mark.parametrize("options", [dict(pipelined=False, persistent=True), dict(pipelined=True, persistent=False)],
                         ids=["plain loop", "one tile per program"])
def test_masks_by_branch_are_an_option_of_the_persistent_pipelined_forward(options):
    config = configs.TileConfig(128, 128, 4, 3, "gluon", mask_by_branch=True, **options)
    with pytest.raises(ValueError, match="mask_by_branch is an option of the persistent pipelined Gluon forward"):
        launchers.gluon_forward_constants(config, 128)


def test_merged_masks_reach_the_kernel_as_one_constexpr_only_when_set():
    # Off, the constant is left out, so the kernels that ran before keep their compile (and their SASS).
    tuned = configs.FORWARD_GLUON_CANDIDATES[128][6]
    assert "MERGED_MASK" not in launchers.gluon_forward_constants(tuned, 128)
    assert launchers.gluon_forward_constants(replace(tuned, mask_by_branch=True), 128)["MERGED_MASK"] == 1
    assert launchers.gluon_forward_constants(replace(tuned, mask_every_block=True), 128)["MERGED_MASK"] == 2


@pytest.mark.parametrize("change", [dict(output_from_registers=False), dict(dynamic_schedule=False),
                                    dict(q_in_registers=True), dict(pingpong=True),
                                    dict(pipelined=False, half_diagonal=False)],
                         ids=["output through Q", "static tile list", "Q in registers", "ping-pong", "plain loop"])
def test_overlapped_tiles_need_claimed_tiles_and_the_output_stored_from_registers(change):
    # The overlapped consumer stores a tile's output from registers at the next tile's start and reads the claimed
    # entries; it takes no turns and keeps Q in shared memory (the first score product is issued from it).
    config = replace(configs.FORWARD_GLUON_CANDIDATES[128][6], overlap_tiles=True, **change)
    with pytest.raises(ValueError, match="overlap_tiles is an option of the persistent pipelined Gluon forward"):
        launchers.gluon_forward_constants(config, 128)


def test_overlapped_tiles_reach_the_kernel_as_a_constexpr_only_when_set():
    # Off, the constant is left out, so the kernels that ran before keep their compile (and their SASS).
    tuned = configs.FORWARD_GLUON_CANDIDATES[128][6]
    assert "OVERLAP_TILES" not in launchers.gluon_forward_constants(tuned, 128)
    assert launchers.gluon_forward_constants(replace(tuned, overlap_tiles=True), 128)["OVERLAP_TILES"] is True


def test_a_mask_in_every_block_excludes_the_mask_by_branch():
    config = replace(configs.FORWARD_GLUON_CANDIDATES[128][6], mask_by_branch=True, mask_every_block=True)
    with pytest.raises(ValueError, match="mask_every_block is an option of the persistent pipelined Gluon forward "
                                         "without mask_by_branch"):
        launchers.gluon_forward_constants(config, 128)


@pytest.mark.parametrize("config", [
    configs.FORWARD_GLUON_CANDIDATES[128][0],  # one tile per program
    replace(configs.FORWARD_GLUON_CANDIDATES[128][6], dynamic_schedule=False, noncausal_claims=False),
    replace(configs.FORWARD_GLUON_CANDIDATES[128][6], overlap_tiles=True)],
    ids=["one tile per program", "no claimed tiles", "overlapped tiles"])
def test_published_coordinates_need_a_persistent_forward_claiming_its_tiles(config):
    # Only a claimed tile's entry is published in shared memory; the overlapped consumer reads tile ids.
    config = replace(config, published_coordinates=True)
    with pytest.raises(ValueError, match="published_coordinates is an option of the persistent Gluon forward"):
        launchers.gluon_forward_constants(config, 128)


@pytest.mark.parametrize("causal", [True, False], ids=["causal", "non-causal"])
def test_published_coordinates_reach_the_kernel_only_with_a_dynamic_tile_list(causal):
    # Off, the constant is left out, so the kernels that ran before keep their compile (and their SASS); on, it
    # comes with the claimed list, which d=128's form 6 has in both cases.
    tuned = configs.FORWARD_GLUON_CANDIDATES[128][6]
    assert "PUBLISHED_COORDINATES" not in launchers.schedule_constexprs(tuned, causal)
    constants = launchers.schedule_constexprs(replace(tuned, published_coordinates=True), causal)
    assert constants == {"LISTED": True, "DYNAMIC": True, "PUBLISHED_COORDINATES": True}


def test_published_coordinates_follow_the_tile_list_that_a_call_runs():
    # d=64's sixth candidate claims its non-causal tiles only; its causal calls run a static list, without the option.
    form = replace(configs.FORWARD_GLUON_CANDIDATES[64][5], published_coordinates=True)
    assert launchers.schedule_constexprs(form, True) == {"LISTED": True}
    assert launchers.schedule_constexprs(form, False)["PUBLISHED_COORDINATES"] is True


def test_packed_coordinates_fit_20_bit_blocks_and_heads_and_23_bit_batches():
    # Bits 0-19 the query block, 20-39 the head, 40-62 the batch: the int64 stays positive, so -1 still means stop.
    assert launchers.coordinates_fit(1 << 20, 1 << 20, (1 << 23) - 1)
    assert not launchers.coordinates_fit((1 << 20) + 1, 16, 16)
    assert not launchers.coordinates_fit(8, (1 << 20) + 1, 16)
    assert not launchers.coordinates_fit(8, 16, 1 << 23)
