"""The persistent kernels' tile schedules (flashio.schedules): every tile once, pairs of equal work kept
round-robin in the bulk, the last rounds evened out; and the launchers hand the table to the kernels."""

import pytest
import torch

import flashio
from flashio import configs, launch_plans, launchers, schedules


def _forward_schedule(seqlen, block, head_batches, programs, **options):
    blocks = -(-seqlen // block)
    work = schedules.causal_forward_block_work(seqlen, seqlen, block, block)
    return schedules.balanced_causal_schedule(blocks, head_batches, programs, work, **options), work


@pytest.mark.parametrize("seqlen, head_batches, programs", [(1024, 256, 132), (640, 16, 7), (2048, 3, 132),
                                                            (128, 5, 2)])
def test_a_balanced_schedule_lists_every_tile_exactly_once(seqlen, head_batches, programs):
    schedule, _ = _forward_schedule(seqlen, 128, head_batches, programs)
    blocks = -(-seqlen // 128)
    assert sorted(schedule.tiles) == list(range(blocks * head_batches))
    assert schedule.offsets[0] == 0 and schedule.offsets[-1] == len(schedule.tiles)
    assert list(schedule.offsets) == sorted(schedule.offsets)


def test_the_table_is_the_offsets_then_the_tiles():
    schedule, _ = _forward_schedule(512, 128, 3, 4)
    table = schedule.table()
    assert table[:schedule.programs + 1] == list(schedule.offsets)
    assert table[schedule.programs + 1:] == list(schedule.tiles)


def test_an_odd_block_count_lists_the_middle_block_once():
    # The round-robin kernels compute a head's middle block twice (paired with itself); the list does not.
    schedule, _ = _forward_schedule(640, 128, 2, 3)
    assert len(schedule.tiles) == 2 * 5
    assert schedules.pair_order(5, 1) == [(4, 0), (3, 1), (2,)]


def test_all_but_the_last_rounds_keep_the_round_robin_pairs():
    # d=128 N=16k on the issue's shapes: 128 blocks per head, one batch x 16 heads, 1024 pairs on 132 programs.
    schedule, _ = _forward_schedule(16384, 128, 16, 132)
    round_robin = schedules.round_robin_schedule(128, 16, 132)
    bulk_pairs = 1024 - schedules.TAIL_ROUNDS * 132
    for program in range(132):
        bulk_tiles = 2 * len(range(program, bulk_pairs, 132))
        assert schedule.program_tiles(program)[:bulk_tiles] == round_robin.program_tiles(program)[:bulk_tiles]


@pytest.mark.parametrize("seqlen, heads", [(1024, 16), (2048, 16), (8192, 16), (1024, 32), (4096, 8)])
def test_a_balanced_schedule_shortens_the_busiest_program_on_the_issue_shapes(seqlen, heads):
    # batch x N = 16k: 1024 or 2048 pairs on 132 programs, 7.76 or 15.5 rounds. Modelled with the same cost
    # the schedule uses (key blocks + a per-tile overhead); the round-robin's busiest program takes a whole
    # extra pair.
    blocks, head_batches = seqlen // 128, heads * 16384 // seqlen
    schedule, work = _forward_schedule(seqlen, 128, head_batches, 132)
    cost = [w + schedules.TILE_OVERHEAD_BLOCKS for w in work]
    balanced = schedule.busiest(cost, blocks)
    round_robin = schedules.round_robin_schedule(blocks, head_batches, 132).busiest(cost, blocks)
    ideal = sum(cost) * head_batches / 132
    assert balanced < round_robin
    assert balanced - ideal < max(cost)  # within one tile of a perfect split


def test_causal_forward_block_work_counts_the_key_blocks_each_query_block_sees():
    assert schedules.causal_forward_block_work(512, 512, 128, 128) == (1.0, 2.0, 3.0, 4.0)
    # Bottom-right alignment: 100 queries over 300 keys see keys up to 200 + row; 64-key blocks.
    assert schedules.causal_forward_block_work(100, 300, 64, 64) == (5.0, 5.0)
    # More queries than keys: the first query block sees no key.
    assert schedules.causal_forward_block_work(300, 100, 128, 128) == (0.0, 1.0, 1.0)


def test_a_balanced_schedule_rejects_work_of_the_wrong_length():
    with pytest.raises(ValueError, match="block_work: expected one entry per query block \\(4\\), got 3"):
        schedules.balanced_causal_schedule(4, 2, 3, (1.0, 2.0, 3.0))


def test_a_balanced_ws_persistent_forward_launches_with_the_schedule_table(monkeypatch):
    # Under the interpreter: 40 queries in 32-row tiles, 2 blocks x 2 heads x 2 sequences, 3 programs.
    persistent = configs.TileConfig(128, 128, 4, 2, "ws", persistent=True, balanced_schedule=True)
    monkeypatch.setattr(configs, "FORWARD_WS_CANDIDATES", {64: (persistent,), 128: (persistent,), 256: (persistent,)})
    monkeypatch.setenv("FLASHIO_FORWARD_PATH", "ws")
    launches = []
    launch = launch_plans.launch
    monkeypatch.setattr(launch_plans, "launch",
                        lambda kernel, grid, *args, **constants: (launches.append((grid, args, constants)),
                                                                  launch(kernel, grid, *args, **constants))[1])
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 2, 40, 32, dtype=torch.bfloat16) for _ in range(3))
    balanced = flashio.attention(q, k, v, is_causal=True)
    (grid, args, constants), = launches
    expected = schedules.balanced_causal_schedule(
        2, 4, launchers.INTERPRETER_PERSISTENT_PROGRAMS,
        schedules.causal_forward_block_work(40, 40, configs.INTERPRETER_FORWARD.block_m,
                                            configs.INTERPRETER_FORWARD.block_n))
    assert constants["LISTED"] is True and grid == (expected.programs,)
    assert args[-1].tolist() == expected.table()
    # Each tile is computed by the same code whichever program takes it: the same output, bit for bit.
    round_robin = configs.TileConfig(128, 128, 4, 2, "ws", persistent=True)
    monkeypatch.setattr(configs, "FORWARD_WS_CANDIDATES", {64: (round_robin,), 128: (round_robin,),
                                                           256: (round_robin,)})
    assert torch.equal(flashio.attention(q, k, v, is_causal=True), balanced)
    assert "LISTED" not in launches[-1][2]


@pytest.mark.parametrize("options, causal, partial, expected", [
    (dict(balanced_schedule=True), True, True, {"LISTED": True}),
    (dict(balanced_schedule=True, dynamic_schedule=True), True, True, {"LISTED": True, "DYNAMIC": True}),
    (dict(balanced_schedule=True, dynamic_schedule=True), False, True, {}),
    (dict(balanced_schedule=True, noncausal_claims=True), False, True, {"LISTED": True, "DYNAMIC": True}),
    (dict(balanced_schedule=True, split_tail=True), False, True, {"LISTED": True, "SPLIT_TAIL": True}),
    (dict(balanced_schedule=True, split_tail=True), False, False, {}),
    (dict(balanced_schedule=True, split_tail=True, dynamic_schedule=True), True, True,
     {"LISTED": True, "DYNAMIC": True}),
], ids=["static causal list", "claimed causal list", "dynamic off causal", "non-causal claims", "split tail",
        "split tail, whole rounds", "split tail off causal"])
def test_schedule_constexprs_name_the_list_each_persistent_form_takes(options, causal, partial, expected):
    config = configs.TileConfig(128, 128, 4, 3, "gluon", persistent=True, **options)
    assert launchers.schedule_constexprs(config, causal, partial) == expected


def test_without_causal_masking_the_persistent_forward_takes_no_table(monkeypatch):
    persistent = configs.TileConfig(128, 128, 4, 2, "ws", persistent=True, balanced_schedule=True)
    problem = launchers.describe(torch.empty(2, 2, 40, 32), torch.empty(2, 2, 40, 32), "bhnd", None)
    assert launchers.persistent_schedule(persistent, problem, False, 3, torch.device("cpu")) == (None, {})


@pytest.mark.parametrize("options, message", [
    (dict(persistent=False, half_diagonal=True, block_n=64), "half_diagonal"),
    (dict(pipelined=False, half_diagonal=True), "half_diagonal"),
    (dict(persistent=False, balanced_schedule=True), "balanced_schedule"),
    (dict(q_in_registers=True), "q_in_registers"),  # Q's buffer stages the output: it cannot go back early
    (dict(output_from_registers=True, early_q_release=True, q_in_registers=True), "q_in_registers"),
    (dict(output_from_registers=True, persistent=False, q_in_registers=True), "q_in_registers"),
])
def test_the_gluon_forward_rejects_options_its_form_does_not_have(options, message):
    config = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True)
    from dataclasses import replace

    with pytest.raises(ValueError, match=message):
        launchers.gluon_forward_constants(replace(config, **options), 128)


def test_causal_backward_block_work_counts_the_query_blocks_that_see_each_key_block():
    # Key block j (128 keys) is seen from query row 128 j on: 64-row query blocks from 2 j to the end.
    assert schedules.causal_backward_block_work(512, 512, 64, 128) == (8.0, 6.0, 4.0, 2.0)
    # Bottom-right alignment, 200 queries over 300 keys: key 128 j is seen from row 128 j - 100 on, so key
    # block 2 (keys 256..) from row 156, in query block 2 of 4.
    assert schedules.causal_backward_block_work(200, 300, 64, 128) == (4.0, 4.0, 2.0)


def test_the_backward_pairs_put_the_low_key_block_first():
    assert schedules.pair_order(5, 1, high_first=False) == [(0, 4), (1, 3), (2,)]
    assert schedules.pair_order(5, 1) == [(4, 0), (3, 1), (2,)]


# --- the non-causal fused backward's split tail (v0.23) ------------------------------------------------------

def _pieces(schedule):
    return [(tile, *piece) for tile, piece in zip(schedule.tiles, schedule.pieces)]


def _assert_every_step_of_every_tile_once(schedule, tiles: int, steps: int) -> None:
    """A split-tail schedule's pieces cover each of the ``steps`` steps of each of the ``tiles`` tiles exactly once,
    and none is empty."""
    covered = sorted((tile, step) for tile, first, end, _ in _pieces(schedule) for step in range(first, end))
    assert covered == [(tile, step) for tile in range(tiles) for step in range(steps)]
    assert all(first < end for _, first, end, _ in _pieces(schedule))


def _busiest(schedule, piece_cost: float = 0.0) -> float:
    """The largest cost of any program of a split-tail schedule: its pieces' steps plus ``piece_cost`` per piece."""
    entries = _pieces(schedule)
    return max(sum(end - first + piece_cost
                   for _, first, end, _ in entries[schedule.offsets[p]:schedule.offsets[p + 1]])
               for p in range(schedule.programs))


@pytest.mark.parametrize("blocks_per_head, head_batches, programs, query_blocks",
                         [(8, 256, 132, 16), (8, 512, 132, 16), (12, 24, 132, 16), (5, 3, 4, 7), (3, 1, 5, 2)])
def test_a_split_tail_covers_every_query_block_of_every_key_block_exactly_once(blocks_per_head, head_batches,
                                                                                programs, query_blocks):
    _assert_every_step_of_every_tile_once(schedules.split_tail_schedule(blocks_per_head, head_batches, programs,
                                                                        query_blocks), blocks_per_head * head_batches,
                                          query_blocks)


def test_a_split_tail_keeps_the_whole_rounds_round_robin_with_whole_key_blocks():
    # 2048 key blocks (the grid's d=128 1k) on 132 programs: 15 whole rounds, key block t on program t mod 132.
    schedule = schedules.split_tail_schedule(8, 256, 132, 16)
    for program in range(132):
        entries = _pieces(schedule)[schedule.offsets[program]:schedule.offsets[program + 1]]
        whole = [entry for entry in entries if entry[3] == -1]
        assert whole == [(program + 132 * r, 0, 16, -1) for r in range(15)]
        assert all(slot >= 0 for *_, slot in entries[15:])


def test_a_split_tail_gives_each_program_a_run_within_one_query_block_of_the_others():
    schedule = schedules.split_tail_schedule(8, 256, 132, 16)
    runs = [sum(end - first for _, first, end, slot in _pieces(schedule)[schedule.offsets[p]:schedule.offsets[p + 1]]
                if slot >= 0) for p in range(132)]
    assert sum(runs) == 68 * 16 and max(runs) - min(runs) <= 1 and max(runs) == 9


def test_a_split_tail_adds_every_tail_piece_into_its_key_blocks_slot():
    # Slots are the tail's key blocks in order (tile id minus the first tail id), also for a piece that covers
    # a whole key block: the launcher converts every slot, so none may be left unwritten.
    schedule = schedules.split_tail_schedule(5, 3, 4, 7)  # 15 key blocks on 4 programs: 3 left
    pieces = _pieces(schedule)
    assert {(tile, slot) for tile, _, _, slot in pieces if slot >= 0} == {(12, 0), (13, 1), (14, 2)}
    assert all(slot == -1 for tile, _, _, slot in pieces if tile < 12)


def test_without_a_tail_the_split_schedule_is_the_round_robin_of_whole_key_blocks():
    schedule = schedules.split_tail_schedule(4, 6, 8, 16)  # 24 key blocks on 8 programs
    assert all(piece == (0, 16, -1) for piece in schedule.pieces)
    assert [schedule.program_tiles(p) for p in range(8)] == [(p, p + 8, p + 16) for p in range(8)]


def test_a_split_tail_takes_about_half_a_key_block_where_the_round_robin_takes_a_whole_one():
    # The busiest program in query blocks: 16 x 16 for the round-robin of 2048 key blocks on 132 programs, 15 x
    # 16 + 9 with the tail split.
    assert _busiest(schedules.split_tail_schedule(8, 256, 132, 16)) == 15 * 16 + 9


def test_the_split_table_appends_each_entrys_first_query_block_end_and_slot():
    schedule = schedules.split_tail_schedule(5, 3, 4, 7)
    table, entries = schedule.table(), len(schedule.tiles)
    start = schedule.programs + 1 + entries
    assert table[:start] == list(schedule.offsets) + list(schedule.tiles)
    assert table[start:start + entries] == [piece[0] for piece in schedule.pieces]
    assert table[start + entries:start + 2 * entries] == [piece[1] for piece in schedule.pieces]
    assert table[start + 2 * entries:] == [piece[2] for piece in schedule.pieces]


@pytest.mark.parametrize("arguments", [(0, 3, 4, 7), (5, 0, 4, 7), (5, 3, 0, 7), (5, 3, 4, 0)])
def test_a_split_tail_refuses_a_count_that_is_not_positive(arguments):
    with pytest.raises(ValueError, match="must be positive"):
        schedules.split_tail_schedule(*arguments)


def test_a_whole_tile_schedule_deals_the_tiles_round_robin_without_pieces():
    # 3 heads x 5 blocks on 4 programs: tile t to program t mod 4, the last round partial (3 of 4 programs).
    schedule = schedules.whole_tile_schedule(5, 3, 4)
    assert schedule.pieces is None and schedule.programs == 4
    assert schedule.table() == [0, 4, 8, 12, 15] + [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11]
    assert schedules.whole_tile_schedule(2, 1, 132).programs == 2  # at most one program per tile


def test_the_claim_order_lists_every_tile_once_pairs_first_then_the_tail_costliest_first():
    # d=128 causal 1k on the issue's shapes: 8 query blocks, 256 heads x sequences (1024 pairs), 132 programs.
    work = schedules.causal_forward_block_work(1024, 1024, 128, 128)
    order = schedules.claim_order(8, 256, 132, work)
    assert sorted(order) == list(range(8 * 256))
    pairs = schedules.pair_order(8, 256)
    bulk = 1024 - schedules.TAIL_ROUNDS * 132
    assert order[:2 * bulk] == [tile for pair in pairs[:bulk] for tile in pair]
    tail_work = [work[tile % 8] for tile in order[2 * bulk:]]
    assert tail_work == sorted(tail_work, reverse=True)


def test_the_claim_order_rejects_work_of_the_wrong_length():
    with pytest.raises(ValueError, match="block_work: expected one entry per query block \\(4\\), got 3"):
        schedules.claim_order(4, 2, 3, (1.0, 2.0, 3.0))


# --- the non-causal persistent forward's split tail (v0.38) ------------------------------------------------

@pytest.mark.parametrize("query_blocks, head_batches, programs, key_blocks",
                         [(8, 256, 132, 8), (8, 512, 132, 8), (8, 96, 132, 12), (8, 128, 132, 16), (5, 3, 4, 7)])
def test_a_forward_split_tail_covers_every_key_block_of_every_query_block_exactly_once(query_blocks, head_batches,
                                                                                        programs, key_blocks):
    _assert_every_step_of_every_tile_once(schedules.split_tail_forward_schedule(query_blocks, head_batches, programs,
                                                                                key_blocks),
                                          query_blocks * head_batches, key_blocks)


def test_a_forward_split_tail_stores_whole_tiles_directly_and_gives_each_piece_a_slot_of_its_own():
    # The grid's d=128 1k: 2048 query blocks of 8 key blocks on 132 programs; the 68 tail tiles' 544 key blocks
    # in runs of 4-5, so every tail tile is cut (no run covers one whole).
    schedule = schedules.split_tail_forward_schedule(8, 256, 132, 8)
    pieces = _pieces(schedule)
    assert all(slot == -1 and (first, end) == (0, 8) for tile, first, end, slot in pieces if tile < 1980)
    tail = [piece for piece in pieces if piece[0] >= 1980]
    assert sorted(slot for *_, slot in tail) == list(range(len(tail)))
    assert sum(end - first for _, first, end, _ in tail) == 68 * 8


def test_a_forward_split_tail_leaves_a_tile_whole_where_cutting_it_costs_more():
    # 15 tiles of 3 key blocks on 4 programs: 12 in whole rounds; the 3 tail tiles cost 4.7 each whole, and any cut
    # that spreads them over 4 programs has a run of 2 pieces costing at least 1 + 1 + 3.4 > 4.7 or a tile needing
    # two runs of its own: each tail tile goes whole to one program, stored directly, nothing to merge.
    schedule = schedules.split_tail_forward_schedule(5, 3, 4, 3)
    assert [piece for piece in _pieces(schedule) if piece[0] >= 12] == [(12, 0, 3, -1), (13, 0, 3, -1),
                                                                         (14, 0, 3, -1)]
    assert schedules.split_tail_combines(schedule) == []


def test_a_forward_split_tails_merges_name_each_cut_tile_once_with_its_pieces_consecutive_slots_in_key_order():
    schedule = schedules.split_tail_forward_schedule(8, 96, 132, 12)
    merges = schedules.split_tail_combines(schedule)
    pieces = _pieces(schedule)
    by_slot = {slot: (tile, first, end) for tile, first, end, slot in pieces if slot >= 0}
    assert len({tile for tile, _, _ in merges}) == len(merges)
    assert sum(count for _, _, count in merges) == len(by_slot)
    for tile, first_slot, count in merges:
        ranges = [by_slot[slot] for slot in range(first_slot, first_slot + count)]
        assert all(piece_tile == tile for piece_tile, _, _ in ranges)
        assert [(first, end) for _, first, end in ranges] == \
            list(zip([0] + [end for _, _, end in ranges[:-1]], [end for _, _, end in ranges]))
        assert ranges[-1][2] == 12 and count >= 2


def test_a_forward_split_tail_cuts_its_runs_by_cost_so_a_run_across_two_tiles_is_shorter():
    # The grid's d=128 1k, 2048 tiles of 8 key blocks on 132 programs, a piece costing its blocks + 1.7: the
    # round-robin's busiest program 16 x 9.7 = 155.2; runs cut by steps (4-5 blocks, up to two pieces: 8.4) 153.9; cut
    # by cost, runs of 5 blocks in one tile (6.7) or 4 across two (7.4): 15 x 9.7 + 7.4 = 152.9.
    schedule = schedules.split_tail_forward_schedule(8, 256, 132, 8)
    assert _busiest(schedule, 1.7) == pytest.approx(15 * 9.7 + 7.4)
    tail = [piece for piece in _pieces(schedule) if piece[0] >= 1980]
    runs = [[piece for piece in _pieces(schedule)[schedule.offsets[p]:schedule.offsets[p + 1]] if piece[0] >= 1980]
            for p in range(132)]
    assert sum(end - first for _, first, end, _ in tail) == 68 * 8
    assert {sum(end - first for _, first, end, _ in run) for run in runs if len(run) == 2} == {4}
    assert max(sum(end - first for _, first, end, _ in run) for run in runs if len(run) == 1) == 5


@pytest.mark.parametrize("query_blocks, head_batches, programs, key_blocks",
                         [(8, 256, 132, 8), (16, 128, 132, 16), (8, 512, 132, 8), (8, 128, 132, 16),
                          (128, 16, 132, 128), (5, 3, 4, 7), (4, 6, 9, 5)])
def test_a_forward_split_tail_run_never_costs_more_than_the_whole_tile_it_replaces(query_blocks, head_batches,
                                                                                   programs, key_blocks):
    # The grid's shapes (d=128 1k / 2k, d=64 1k, d=256 1k, d=128 16k) and two small ones: the busiest program's cost
    # is at most the round-robin's (its whole rounds and one more tile).
    schedule = schedules.split_tail_forward_schedule(query_blocks, head_batches, programs, key_blocks)
    whole_rounds = query_blocks * head_batches // programs
    assert _busiest(schedule, 1.7) <= (whole_rounds + 1) * (key_blocks + 1.7) + 1e-9


def test_without_a_tail_the_forward_split_schedule_has_no_merges():
    schedule = schedules.split_tail_forward_schedule(4, 6, 8, 16)  # 24 tiles on 8 programs
    assert all(piece == (0, 16, -1) for piece in schedule.pieces)
    assert schedules.split_tail_combines(schedule) == []


@pytest.mark.parametrize("blocks_per_head, head_batches, programs, short", [(6, 512, 132, True), (22, 128, 132, True),
                                                                             (11, 10, 132, True), (6, 512, 132, False),
                                                                             (1, 40, 132, True), (6, 7, 2, True)])
def test_the_non_causal_claim_order_lists_every_tile_once(blocks_per_head, head_batches, programs, short):
    order = schedules.noncausal_claim_order(blocks_per_head, head_batches, programs, short)
    assert sorted(order) == list(range(blocks_per_head * head_batches))


def test_the_non_causal_claim_order_is_head_by_head_without_short_last_blocks():
    assert schedules.noncausal_claim_order(6, 512, 132) == list(range(6 * 512))
    assert schedules.short_last_blocks_moved(512, 132, last_block_short=False) == 0


def test_short_last_blocks_of_the_last_third_of_a_round_of_heads_come_last_in_head_order():
    # d=64's 192-row tiles at N = 1k: six query blocks a head, the sixth with 64 rows (its other two consumers idle).
    order = schedules.noncausal_claim_order(6, 512, 132, last_block_short=True)
    moved = schedules.short_last_blocks_moved(512, 132, last_block_short=True)
    assert moved == 44
    assert order[-moved:] == [head * 6 + 5 for head in range(512 - moved, 512)]
    rest = order[:-moved]
    assert rest == sorted(rest)  # every other tile keeps the round-robin's order
    assert [tile for tile in rest if tile >= (512 - moved) * 6] == \
        [head * 6 + block for head in range(512 - moved, 512) for block in range(5)]


def test_no_more_heads_are_moved_than_there_are():
    assert schedules.short_last_blocks_moved(10, 132, last_block_short=True) == 10
    assert schedules.noncausal_claim_order(3, 10, 132, last_block_short=True)[-10:] == [h * 3 + 2 for h in range(10)]


def test_the_non_causal_claim_order_refuses_a_count_that_is_not_positive():
    with pytest.raises(ValueError, match="must be positive"):
        schedules.noncausal_claim_order(0, 4, 132)
