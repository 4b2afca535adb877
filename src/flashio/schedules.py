"""Tile schedules of the persistent kernels: which tiles each program takes, in which order (host side).

A persistent kernel runs one program per multiprocessor, each looping over a share of the tiles. With
causal attention the tiles differ in work (query block i of the forward sees about i + 1 key blocks, key
block j of the fused backward is seen by about n - j query blocks), so the kernels take them in pairs of
equal work, the heaviest block of a head with its lightest, and hand the
pairs out round-robin, head by head (kernels/forward_ws.py says why: the heads' K/V stay in L2). On the
issue's shapes that leaves a tail: batch x N is fixed, so there are 1024 pairs at d=128 (2048 at d=64, 512
at d=256) for the H200's 132 programs, 7.76 rounds -- 100 programs take 8 pairs, 32 take 7, and a quarter
of the machine idles through the last pair (up to 3% of the kernel's time; fewer blocks per head, more
programs per head pair and the same share).

``balanced_causal_schedule`` keeps the pairs, in the same order, for all but the last rounds, and hands the
tiles of those last rounds out one by one, heaviest first, each to the program that would finish first
(longest-processing-time list scheduling, Graham 1969), with a tile's cost modelled as its key blocks plus
a fixed per-tile overhead. Only the tail is reordered, so the programs at work at once still share a few
heads' K/V. The result is a table the kernels read: for program p the tile ids
``tiles[offsets[p]:offsets[p + 1]]``, a tile id being ``head_batch * blocks_per_head + block``.

``claim_order`` is the same order as one list for all programs, for the persistent forward and fused backward with
a dynamic tile list: each program claims its next entry from a counter when it starts a tile, so the programs that
ran fast take more, whatever made them fast (v0.36 measured the forward's programs of one static list ending up to
15 µs apart at d=128 causal 1k-2k on the H200, the median 10-14 µs before the last; v0.37 the backward's up to
16 µs after the median at d=128 causal 1k).

``noncausal_claim_order`` is the non-causal forward's dynamic list: every tile in the round-robin's order (a head's
query blocks one after another), except that where a sequence ends a whole consumer's rows before its last query
block's end (three or four 64-row consumers: N = 1k, 4k with 192-row tiles), the last blocks of the last third of a
round of heads, shorter than the others, are claimed at the end, so that the programs' final claims are short tiles.

``split_tail_schedule`` is for the non-causal fused backward, whose tiles (key blocks) are all equal: a
static round-robin leaves the same tail (2048 key blocks at d=128 on 132 programs, 15.5 rounds: 68 programs
take a 16th block while 64 idle). It keeps the whole rounds and splits the last, partial round's key blocks
along their query blocks into one contiguous run per program, so the tail takes ~0.5 of a tile's query blocks
instead of a whole tile. Those pieces' dK and dV are partial sums: the kernel adds them into a float32 buffer
(one slot per tail key block) that the launcher converts afterwards.

``split_tail_forward_schedule`` does the same for the non-causal persistent forward (tiles = query blocks, cut
along their key blocks), with the runs cut by cost (a piece pays a tile's fixed cost again) rather than by steps; a
forward piece's output is not a partial sum, so each piece gets a slot of its own and a second kernel merges a cut
tile's pieces (``split_tail_combines``).

Nothing here touches a GPU; ``launchers`` turns a schedule into a device tensor once per shape (and keeps
it: nothing here is cached).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace
from typing import Optional, Sequence

# A tile's fixed cost (its first score product and softmax, which nothing overlaps, its last P V product and
# epilogue) in key-block times: 1.5-1.9 measured for the d=128 persistent forward on the H200 (v0.15).
TILE_OVERHEAD_BLOCKS = 1.7
# Rounds of pairs at the end of the round-robin whose tiles are scheduled one by one. Two: enough tiles to
# even the programs out (a tile is at most ~10% of a program's work at N=1k), few enough heads (about 2 x 132
# pairs) that their K/V stay in the H200's 50 MB L2.
TAIL_ROUNDS = 2


@dataclass(frozen=True)
class TileSchedule:
    """Program p of a persistent grid of ``programs`` takes ``tiles[offsets[p]:offsets[p + 1]]`` in order.
    With ``pieces`` (``split_tail_schedule``), entry e covers query blocks [first, end) of its tile and adds
    its partial gradients into buffer slot ``slot`` (-1: the whole tile, stored directly), where
    ``pieces[e] = (first, end, slot)``."""

    programs: int
    offsets: tuple[int, ...]
    tiles: tuple[int, ...]
    pieces: Optional[tuple[tuple[int, int, int], ...]] = None

    def table(self) -> list[int]:
        """The kernels' int32 table: the ``programs + 1`` offsets, then the tile ids; with pieces then each
        entry's first query block, then each entry's end, then each entry's slot (E entries each, E being the
        last offset)."""
        table = list(self.offsets) + list(self.tiles)
        if self.pieces is not None:
            for field in range(3):
                table += [piece[field] for piece in self.pieces]
        return table

    def program_tiles(self, program: int) -> tuple[int, ...]:
        return self.tiles[self.offsets[program]:self.offsets[program + 1]]

    def busiest(self, tile_cost: Sequence[float], blocks_per_head: int) -> float:
        """The largest sum of ``tile_cost[block]`` over one program's tiles (the modelled makespan)."""
        return max(sum(tile_cost[tile % blocks_per_head] for tile in self.program_tiles(p))
                   for p in range(self.programs))


def pair_order(blocks_per_head: int, head_batches: int, high_first: bool = True) -> list[tuple[int, ...]]:
    """The causal kernels' pairs, head by head: (head_batch * blocks_per_head + block) ids of blocks
    blocks_per_head - 1 - i and i (``high_first``: the forward's order, its heavy query block first; else
    i first, the fused backward's, whose key block i is the heavy one); the middle block of an odd count
    alone."""
    pairs = []
    for head_batch in range(head_batches):
        base = head_batch * blocks_per_head
        for low in range((blocks_per_head + 1) // 2):
            high = blocks_per_head - 1 - low
            first, second = (high, low) if high_first else (low, high)
            pairs.append((base + high,) if high == low else (base + first, base + second))
    return pairs


def round_robin_schedule(blocks_per_head: int, head_batches: int, programs: int,
                         high_first: bool = True) -> TileSchedule:
    """Pair u to program u mod ``programs``: the order the kernels follow without a table."""
    pairs = pair_order(blocks_per_head, head_batches, high_first)
    lists: list[list[int]] = [[] for _ in range(min(programs, len(pairs)))]
    for unit, pair in enumerate(pairs):
        lists[unit % len(lists)].extend(pair)
    return _schedule(lists)


def whole_tile_schedule(blocks_per_head: int, head_batches: int, programs: int) -> TileSchedule:
    """Tile t (id ``head_batch * blocks_per_head + block``) to program t mod ``programs``, every tile whole: the
    non-causal list of a listed kernel without a split tail (its last round partial when the tiles are not a
    multiple of the programs)."""
    if programs < 1 or head_batches < 1 or blocks_per_head < 1:
        raise ValueError(f"blocks_per_head, head_batches and programs must be positive; got {blocks_per_head}, "
                         f"{head_batches}, {programs}")
    tiles = blocks_per_head * head_batches
    programs = min(programs, tiles)
    return _schedule([list(range(program, tiles, programs)) for program in range(programs)])


def balanced_causal_schedule(blocks_per_head: int, head_batches: int, programs: int,
                             block_work: tuple[float, ...], tile_overhead: float = TILE_OVERHEAD_BLOCKS,
                             tail_rounds: int = TAIL_ROUNDS, high_first: bool = True) -> TileSchedule:
    """Pairs (``pair_order``) list-scheduled on ``programs`` programs -- each to the one that would finish it
    first, ties to the lowest program, which is the round-robin while pairs are equal -- except the last
    ``tail_rounds`` x ``programs`` pairs, whose tiles go one by one, the costliest first (LPT). A tile's cost
    is ``block_work[block] + tile_overhead`` (``block_work``: key blocks per query block, one entry per
    block of a head); ``high_first``: the order within a pair (``pair_order``)."""
    cost, bulk, tail_tiles, pair_count = _pairs_then_tail(blocks_per_head, head_batches, programs, block_work,
                                                          tile_overhead, tail_rounds, high_first)
    programs = min(programs, pair_count)
    lists: list[list[int]] = [[] for _ in range(programs)]
    finish = [(0, program) for program in range(programs)]  # a heap of (busy until, program)
    for unit in [list(pair) for pair in bulk] + [[tile] for tile in tail_tiles]:
        busy, program = heapq.heappop(finish)
        lists[program].extend(unit)
        heapq.heappush(finish, (busy + sum(cost[tile % blocks_per_head] for tile in unit), program))
    return _schedule(lists)


def claim_order(blocks_per_head: int, head_batches: int, programs: int, block_work: tuple[float, ...],
                tile_overhead: float = TILE_OVERHEAD_BLOCKS, tail_rounds: int = TAIL_ROUNDS,
                high_first: bool = True) -> list[int]:
    """One list of every tile, in the order the programs of a dynamic persistent kernel claim them one at a
    time (each program's loader takes the next entry when it starts a tile, so a program that ran fast takes
    more): the pairs (``pair_order``), heavy tile then light, head by head, except the last ``tail_rounds`` x
    ``programs`` pairs, whose tiles come costliest first (``block_work[block] + tile_overhead``), so that the
    last tiles claimed are the shortest. The kernels' table is the entry count, then this list."""
    _, bulk, tail_tiles, _ = _pairs_then_tail(blocks_per_head, head_batches, programs, block_work, tile_overhead,
                                              tail_rounds, high_first)
    return [tile for pair in bulk for tile in pair] + tail_tiles


def _pairs_then_tail(blocks_per_head: int, head_batches: int, programs: int, block_work: tuple[float, ...],
                     tile_overhead: float, tail_rounds: int, high_first: bool) -> tuple[list[int], list, list[int], int]:
    """(each block's cost in integer thousandths of a block, the bulk's pairs, the tail's tiles costliest first, the
    number of pairs) of ``balanced_causal_schedule`` and ``claim_order``, the arguments checked."""
    if len(block_work) != blocks_per_head:
        raise ValueError(f"block_work: expected one entry per query block ({blocks_per_head}), got "
                         f"{len(block_work)}")
    if programs < 1 or head_batches < 1 or blocks_per_head < 1:
        raise ValueError(f"blocks_per_head, head_batches and programs must be positive; got {blocks_per_head}, "
                         f"{head_batches}, {programs}")
    # Costs in integer thousandths of a block: sums of equal pairs must tie exactly (float sums of different
    # terms may not), so that ties go to the lowest program and the bulk is the round-robin.
    cost = [round(1000 * (work + tile_overhead)) for work in block_work]
    pairs = pair_order(blocks_per_head, head_batches, high_first)
    tail_pairs = min(len(pairs), tail_rounds * min(programs, len(pairs)))
    bulk, tail = pairs[:len(pairs) - tail_pairs], pairs[len(pairs) - tail_pairs:]
    tail_tiles = sorted((tile for pair in tail for tile in pair),
                        key=lambda tile: -cost[tile % blocks_per_head])  # stable: ties keep head order
    return cost, bulk, tail_tiles, len(pairs)


def short_last_blocks_moved(head_batches: int, programs: int, last_block_short: bool) -> int:
    """How many heads' last query blocks ``noncausal_claim_order`` claims at the end: a third of a round of programs
    (at most every head) when those blocks are shorter than the others (``last_block_short``), else none.

    Why a third: with equal tiles the programs' last round is partial (d=64's 192-row tiles at N = 4k: 2,816 tiles,
    21.33 rounds on 132 programs), and its idle share of a round is lost at the end (~3% of the kernel); short tiles
    claimed last fill it. A model of the claims (each program taking the next tile when it finishes one, tiles of 1
    and of 0.4-0.7 of a full one, 30 seeds of 2% jitter) puts the loss at 2.4-2.9% in head order and at 1.0-1.6%
    with 33 to 132 heads' short blocks at the end (N = 1k and 4k); fewer heads moved leave the most K/V in L2."""
    if not last_block_short or programs < 3:
        return 0
    return min(head_batches, programs // 3)


def noncausal_claim_order(blocks_per_head: int, head_batches: int, programs: int,
                          last_block_short: bool = False) -> list[int]:
    """Every tile id (``head_batch * blocks_per_head + block``) in the order a non-causal dynamic list's programs
    claim them: a head's query blocks one after another, so that the programs at work at once share its K/V in L2,
    except the last query blocks of the last ``short_last_blocks_moved`` heads, which come at the end in head order.
    ``last_block_short``: the last query block of every head runs shorter than the others (some of its consumers
    have no rows)."""
    if blocks_per_head < 1 or head_batches < 1 or programs < 1:
        raise ValueError(f"blocks_per_head, head_batches and programs must be positive; got {blocks_per_head}, "
                         f"{head_batches}, {programs}")
    moved = short_last_blocks_moved(head_batches, programs, last_block_short)
    if moved == 0 or blocks_per_head == 1:
        return list(range(blocks_per_head * head_batches))
    first_moved = head_batches - moved
    order = [head * blocks_per_head + block for head in range(head_batches) for block in range(blocks_per_head)
             if head < first_moved or block < blocks_per_head - 1]
    return order + [head * blocks_per_head + blocks_per_head - 1 for head in range(first_moved, head_batches)]


def split_tail_schedule(blocks_per_head: int, head_batches: int, programs: int,
                        query_blocks: int) -> TileSchedule:
    """Non-causal fused backward: tiles (ids ``head_batch * blocks_per_head + block``, every one with
    ``query_blocks`` query blocks) round-robin over ``programs`` for the whole rounds; the remaining ``tail``
    tiles, the last ids, laid end to end as ``tail x query_blocks`` query-block steps and cut into one run
    per program (the first ``steps mod programs`` runs one step longer), a run becoming one entry per tile it
    touches. Every tail entry adds into the buffer slot of its tile (``tile - first tail id``), also a run
    that covers a whole tile, so that the launcher converts every slot; whole-round entries have slot -1.
    Without a tail (tiles a multiple of ``programs``) the result is the plain round-robin with whole tiles."""
    if programs < 1 or head_batches < 1 or blocks_per_head < 1 or query_blocks < 1:
        raise ValueError(f"blocks_per_head, head_batches, programs and query_blocks must be positive; got "
                         f"{blocks_per_head}, {head_batches}, {programs}, {query_blocks}")
    tiles = blocks_per_head * head_batches
    programs = min(programs, tiles)
    bulk = tiles // programs * programs
    lists: list[list[tuple[int, int, int, int]]] = [[] for _ in range(programs)]  # (tile, first, end, slot)
    for tile in range(bulk):
        lists[tile % programs].append((tile, 0, query_blocks, -1))
    steps = (tiles - bulk) * query_blocks
    position = 0
    for program in range(programs):
        run = steps // programs + (1 if program < steps % programs else 0)
        while run > 0:
            tile, first = bulk + position // query_blocks, position % query_blocks
            end = min(query_blocks, first + run)
            lists[program].append((tile, first, end, tile - bulk))
            run -= end - first
            position += end - first
    schedule = _schedule([[entry[0] for entry in entries] for entries in lists])
    return replace(schedule, pieces=tuple(entry[1:] for entries in lists for entry in entries))


def split_tail_forward_schedule(query_blocks: int, head_batches: int, programs: int, key_blocks: int,
                                piece_cost: float = TILE_OVERHEAD_BLOCKS) -> TileSchedule:
    """Non-causal persistent forward: tiles (query blocks, ids ``head_batch * query_blocks + block``, each of
    ``key_blocks`` key-block steps) round-robin over ``programs`` for the whole rounds, as ``split_tail_schedule`` does
    for the backward's key blocks; the remaining tiles, the last ids, laid end to end and cut into one contiguous run
    per program. Each piece of a run costs its key blocks plus ``piece_cost`` (a tile's fixed cost in key-block times,
    which a piece pays again: its first score product and softmax, its last P V product and epilogue), so the runs are
    cut by cost, not by steps (``_cost_balanced_runs``): a run that crosses into a second tile is shorter. Unlike the
    backward's dK/dV, a forward piece's output cannot be added to another's: each piece of a cut tile gets a slot of
    its own (numbered in entry order, so a tile's pieces take consecutive slots, in key order), where the kernel leaves
    the piece's O (divided by its own softmax sum) and LSE for ``split_tail_combines``' merge. A tail entry that covers
    a whole tile, like every whole-round entry, has slot -1: stored directly."""
    if programs < 1 or head_batches < 1 or query_blocks < 1 or key_blocks < 1 or piece_cost < 0:
        raise ValueError(f"query_blocks, head_batches, programs and key_blocks must be positive and piece_cost at "
                         f"least 0; got {query_blocks}, {head_batches}, {programs}, {key_blocks}, {piece_cost}")
    tiles = query_blocks * head_batches
    programs = min(programs, tiles)
    bulk = tiles // programs * programs
    lists: list[list[tuple[int, int, int]]] = [[] for _ in range(programs)]  # (tile, first, end)
    for tile in range(bulk):
        lists[tile % programs].append((tile, 0, key_blocks))
    for program, run in enumerate(_cost_balanced_runs(tiles - bulk, key_blocks, programs, piece_cost)):
        lists[program] += [(bulk + tail_tile, first, end) for tail_tile, first, end in run]
    pieces, slots = [], 0
    for entries in lists:
        for _, first, end in entries:
            if (first, end) == (0, key_blocks):
                pieces.append((first, end, -1))
            else:
                pieces.append((first, end, slots))
                slots += 1
    schedule = _schedule([[entry[0] for entry in entries] for entries in lists])
    return replace(schedule, pieces=tuple(pieces))


def _cost_balanced_runs(tail: int, steps: int, programs: int,
                        piece_cost: float) -> list[list[tuple[int, int, int]]]:
    """``tail`` tiles of ``steps`` steps each, laid end to end and cut into ``programs`` contiguous runs (some
    possibly empty) whose largest cost is the least a greedy cut reaches: a run costs its steps plus ``piece_cost``
    per tile it touches. Greedy: each run takes as far as the target allows; the target is the smallest of the
    candidate costs (b steps plus j pieces) at which the runs reach the end. (Where the greedy run starts later its
    cost to any end point is no higher, so a larger target never reaches less: the first target that fits is the
    least.) Costs in integer thousandths of a step, so that equal costs compare equal. Returns, per program, its
    pieces (tail tile, first step, end step)."""
    if tail == 0:
        return [[] for _ in range(programs)]
    unit, overhead = 1000, round(1000 * piece_cost)

    def cut(target: int) -> Optional[list[list[tuple[int, int, int]]]]:
        runs, tile, first = [], 0, 0
        for _ in range(programs):
            run, cost = [], 0
            while tile < tail:
                room = (target - cost - overhead) // unit  # steps a new piece here may take
                if room <= 0:
                    break
                take = min(room, steps - first)
                run.append((tile, first, first + take))
                cost += overhead + take * unit
                first += take
                if first < steps:
                    break  # the target ends the run inside this tile
                tile, first = tile + 1, 0
            runs.append(run)
        return runs if tile == tail else None

    candidates = sorted({blocks * unit + pieces * overhead for blocks in range(1, steps + 1)
                         for pieces in range(1, min(tail, programs) + 2)})
    for target in candidates:
        runs = cut(target)
        if runs is not None:
            return runs
    raise AssertionError("a whole tile per program always fits")  # tail < programs: never reached


def split_tail_combines(schedule: TileSchedule) -> list[tuple[int, int, int]]:
    """The merges a ``split_tail_forward_schedule`` leaves after the kernel: (tile id, first slot, pieces) for each
    tile whose pieces went to slots, in slot order (O = sum_j exp(LSE_j - LSE) O_j with LSE = log sum_j exp(LSE_j),
    FlashAttention's split-KV combine)."""
    combines: list[list[int]] = []
    for tile, piece in zip(schedule.tiles, schedule.pieces or ()):
        slot = piece[2]
        if slot < 0:
            continue
        if combines and combines[-1][0] == tile:
            if slot != combines[-1][1] + combines[-1][2]:
                raise ValueError(f"tile {tile}'s pieces are not in consecutive slots: {schedule.pieces}")
            combines[-1][2] += 1
        else:
            combines.append([tile, slot, 1])
    return [tuple(combine) for combine in combines]


def causal_forward_block_work(seqlen_q: int, seqlen_k: int, block_m: int, block_n: int) -> tuple[float, ...]:
    """Key blocks each query block of a causal forward runs (bottom-right alignment: query block i sees the
    keys below min(max((i + 1) * block_m + seqlen_k - seqlen_q, 0), seqlen_k))."""
    blocks = -(-seqlen_q // block_m)
    ends = (min(max((i + 1) * block_m + seqlen_k - seqlen_q, 0), seqlen_k) for i in range(blocks))
    return tuple(float(-(-end // block_n)) for end in ends)


def causal_backward_block_work(seqlen_q: int, seqlen_k: int, block_m: int, block_n: int) -> tuple[float, ...]:
    """Query blocks each key block of the causal fused backward runs (kernels/backward_gluon.py
    ``_query_blocks``: from the block holding the first row that sees the key block's first key, to the end;
    bottom-right alignment)."""
    blocks = -(-seqlen_k // block_n)
    firsts = (max(j * block_n - (seqlen_k - seqlen_q), 0) // block_m * block_m for j in range(blocks))
    return tuple(float(max(-(-(seqlen_q - first) // block_m), 0)) for first in firsts)


def _schedule(lists: list[list[int]]) -> TileSchedule:
    offsets = [0]
    for tiles in lists:
        offsets.append(offsets[-1] + len(tiles))
    return TileSchedule(len(lists), tuple(offsets), tuple(tile for tiles in lists for tile in tiles))
