"""Tile orders for the probes (v0.29): the persistent kernels' causal balanced lists
(``flashio.schedules.balanced_causal_schedule``) in other orders, patched into the launcher for the duration of a
``with`` block. Probe-only: the library's lists keep their pairs within one head, heavy block first (forward).

``alternating_pairs`` (forward probe run 32, measured: level or slower): odd programs take their pairs light tile
first. ``cross_head_pairs`` (forward probe runs 33-35, backward probe run 14, all run in v0.30): pairs across two
heads. The forward's medians were level to +2% (+1.9% at d=64 causal 1k in all three runs, level at 2k-4k), the
backward's level. v0.30 made them the library's forward lists at N <= 1k and reverted that the same session: at a
first call the tuner timed the listed candidates 1.4-2.5x slow in 3 of 4 fresh processes with these lists and in
none of 3 with the within-head ones (forward_short/tuner_listed.py), and chose a slower form (the grid's fp16 d=128
causal 1k forward, 0.80 of cuDNN). v0.31 found why (forward_short/cross_head_slowness.py): the rule's launcher built
its pair list on every call, and the tuner's timings, which run the launcher on every call, were (by inference) the
host's; through launch plans the listed forms ran at full speed in every process. The lists stay reverted, their
gain being within noise where the tuner uses them. results/2026-12-01_h200_v0.30_probes/cross_head_pairs.patch
restores the rule. ``rotated_pairs`` (v0.36, forward probe run 38, backward run 24): each head's pairs from another
first pair, so that program p does not take pair p mod 4 of every head at N = 1k (132 programs): 2% slower in the
forward at d=128 causal 1k-2k, level in the backward; not adopted. ``measured_tile_costs`` (v0.36, forward run 39): the
tail's assignment with measured tile times. Why pairs across heads were tried: v0.29 measured that the programs working on one head's tiles
at the same moment share one HBM read of its data (runs of one head's tiles on a program, which spread the programs
at work over more heads, were slower in both passes). With the library's pairs (blocks i and n - 1 - i of one head,
equal work), n / 2 programs take a head at once: 4 at N = 1k with 128-row (forward) or 128-key (backward) blocks.
Pairing block i of head h with block n - 1 - i of head h + 1 (still equal work: n + 1 blocks of the other side's
loop) puts n programs on head h at once, and their second tiles, on head h + 1, start at staggered times, so that
each block's first reader has fetched it into the L2 for the next.
"""

from __future__ import annotations

import contextlib

from flashio import launchers, schedules


def pairs_across_heads(blocks_per_head: int, head_batches: int, high_first: bool = True) -> list[tuple[int, ...]]:
    """Tile-id pairs (``head_batch * blocks_per_head + block``): block i of head h with block n - 1 - i of head
    h + 1 for even h; an odd last head keeps the library's pairs within itself (``schedules.pair_order``)."""
    pairs = []
    for head in range(0, head_batches - 1, 2):
        first, second = head * blocks_per_head, (head + 1) * blocks_per_head
        pairs += [(first + i, second + blocks_per_head - 1 - i) for i in range(blocks_per_head)]
    if head_batches % 2:
        base = (head_batches - 1) * blocks_per_head
        pairs += [tuple(base + tile for tile in pair) for pair in _WITHIN_HEAD(blocks_per_head, 1, high_first)]
    return pairs


_WITHIN_HEAD = schedules.pair_order


def _balanced_with_pairs(pairs, config, problem, programs: int, backward: bool) -> schedules.TileSchedule:
    """The balanced list of a causal persistent forward (query blocks) or fused backward (``backward``: key
    blocks), its pairs from ``pairs`` (patched in for ``schedules.pair_order`` while it is made)."""
    head_batches = (problem.num_kv_heads if backward else problem.num_heads) * problem.batch
    block_work = schedules.causal_backward_block_work if backward else schedules.causal_forward_block_work
    work = block_work(problem.seqlen_q, problem.seqlen_k, config.block_m, config.block_n)
    schedules.pair_order = pairs
    try:
        schedule = schedules.balanced_causal_schedule(len(work), head_batches, programs, work,
                                                      high_first=not backward)
    finally:
        schedules.pair_order = _WITHIN_HEAD
    if schedule.programs != programs:  # fewer pairs than the launch's programs (small problems only)
        raise RuntimeError(f"{pairs.__name__}: {schedule.programs} programs' lists for a grid of {programs}")
    return schedule


def cross_head_schedule(config, problem, programs: int, backward: bool) -> schedules.TileSchedule:
    """The balanced list with pairs from ``pairs_across_heads``."""
    return _balanced_with_pairs(pairs_across_heads, config, problem, programs, backward)


def alternating_schedule(config, problem, programs: int) -> schedules.TileSchedule:
    """The causal forward's balanced list with the pairs of odd programs turned round (light tile, then heavy),
    so that half the programs reach a tile boundary mid-pair while the other half are inside a tile: a test of
    whether tile starts that come all at once (the round-robin keeps equal pairs in step) queue for memory."""
    work = schedules.causal_forward_block_work(problem.seqlen_q, problem.seqlen_k, config.block_m, config.block_n)
    blocks = len(work)
    schedule = schedules.balanced_causal_schedule(blocks, problem.num_heads * problem.batch, programs, work)
    lists = []
    for program in range(programs):
        tiles = list(schedule.program_tiles(program))
        if program % 2:
            i = 0
            while i + 1 < len(tiles):
                a, b = tiles[i], tiles[i + 1]
                if a // blocks == b // blocks and a % blocks + b % blocks == blocks - 1 and a != b:
                    tiles[i], tiles[i + 1] = b, a
                    i += 2
                else:
                    i += 1
        lists.append(tiles)
    return schedules._schedule(lists)


@contextlib.contextmanager
def _balanced_lists(make, forward: bool, backward: bool):
    """Inside, the launchers' balanced causal lists of the chosen passes are ``make(config, problem, programs,
    is_backward)``'s, made once per block, problem and grid and kept by the library's own table cache
    (``launchers._schedule_table``, under keys of their own). Until v0.31 a new table was made each time the
    launcher asked: launch plans replay the recorded one, so the probes were not affected, but the tuner's
    timings run the launcher, and there the table's build and synchronous copy made each call 1.6-3.1 ms instead
    of 0.19 (v0.31 call 1, tuner_listed.py --cross-head)."""
    balanced_table = launchers._balanced_table

    def listing(config, problem, programs, device, is_backward):
        if not (backward if is_backward else forward):
            return balanced_table(config, problem, programs, device, is_backward)
        key = ("probe list", make, device, is_backward, problem.batch, problem.num_heads, problem.num_kv_heads,
               problem.seqlen_q, problem.seqlen_k, programs, config.block_m, config.block_n)
        return launchers._schedule_table(key, programs, device,
                                         lambda: make(config, problem, programs, is_backward))

    launchers._balanced_table = listing
    try:
        yield
    finally:
        launchers._balanced_table = balanced_table


def alternating_pairs():
    """The forward's lists from ``alternating_schedule`` inside the block."""
    return _balanced_lists(_alternating_lists, forward=True, backward=False)


def _alternating_lists(config, problem, programs: int, _backward: bool) -> schedules.TileSchedule:
    return alternating_schedule(config, problem, programs)


def cross_head_pairs(forward: bool = True, backward: bool = False):
    """The chosen passes' lists from ``cross_head_schedule`` inside the block."""
    return _balanced_lists(cross_head_schedule, forward, backward)


def rotated_pair_order(blocks_per_head: int, head_batches: int, high_first: bool = True) -> list[tuple[int, ...]]:
    """``schedules.pair_order`` with head_batch h's pairs listed from pair h mod (pairs per head) on, wrapping round:
    a round-robin over them no longer hands program p pair p mod (pairs per head) of every head it visits."""
    pairs = []
    per_head = (blocks_per_head + 1) // 2
    for head_batch in range(head_batches):
        own = _WITHIN_HEAD(blocks_per_head, 1, high_first)
        shift = head_batch % per_head
        pairs += [tuple(head_batch * blocks_per_head + tile for tile in pair) for pair in own[shift:] + own[:shift]]
    return pairs


def rotated_schedule(config, problem, programs: int, backward: bool) -> schedules.TileSchedule:
    """The balanced list with pairs from ``rotated_pair_order``."""
    return _balanced_with_pairs(rotated_pair_order, config, problem, programs, backward)


def rotated_pairs(forward: bool = True, backward: bool = False):
    """The chosen passes' lists from ``rotated_schedule`` inside the block (v0.36, run 38 / run 24)."""
    return _balanced_lists(rotated_schedule, forward, backward)


# Per-consumer tile times in µs by query block (0..7) of the tuned persistent forwards at causal N = 1k, bf16, H200,
# median over programs and five launches (v0.36 call 3, round_times.py --dump), and the mean gap between a
# consumer's tiles: the cost model of ``measured_cost_schedule``.
MEASURED_TILE_US = {128: (5.12, 5.89, 7.17, 8.45, 9.98, 11.01, 13.31, 14.34), 64: (4.61, 5.38, 5.38, 6.14, 7.17, 7.68,
                                                                                   8.96, 9.73)}
MEASURED_GAP_US = 0.26


def measured_cost_schedule(config, problem, programs: int, backward: bool) -> schedules.TileSchedule:
    """The forward's balanced list with each tile's cost the measured time of its query block (``MEASURED_TILE_US``)
    instead of key blocks + ``schedules.TILE_OVERHEAD_BLOCKS``. The pairs are then no longer equal, so the list
    scheduling reassigns the bulk too, each pair to the program that would finish first (``measured_tail_schedule``
    keeps the bulk). Only at N = 1k with 8 query blocks of d = 64 or 128; elsewhere the library's list."""
    head_batches = problem.num_heads * problem.batch
    work = schedules.causal_forward_block_work(problem.seqlen_q, problem.seqlen_k, config.block_m, config.block_n)
    measured = MEASURED_TILE_US.get(problem.head_dim)
    if backward or measured is None or len(work) != len(measured):
        return _balanced_with_pairs(_WITHIN_HEAD, config, problem, programs, backward)
    costs = tuple(us + MEASURED_GAP_US for us in measured)
    return schedules.balanced_causal_schedule(len(work), head_batches, programs, costs, tile_overhead=0.0)


def measured_tail_schedule(config, problem, programs: int, backward: bool) -> schedules.TileSchedule:
    """``measured_cost_schedule`` with the library's bulk kept as it is (pairs dealt round-robin, so that the
    programs at work at once share a head) and only the tail's tiles assigned with the measured times: each, the
    costliest first, to the program whose measured busy time is least."""
    work = schedules.causal_forward_block_work(problem.seqlen_q, problem.seqlen_k, config.block_m, config.block_n)
    measured = MEASURED_TILE_US.get(problem.head_dim)
    if backward or measured is None or len(work) != len(measured):
        return measured_cost_schedule(config, problem, programs, backward)
    blocks, head_batches = len(work), problem.num_heads * problem.batch
    cost = [us + MEASURED_GAP_US for us in measured]
    pairs = schedules.pair_order(blocks, head_batches)
    programs = min(programs, len(pairs))
    tail_pairs = min(len(pairs), schedules.TAIL_ROUNDS * programs)
    bulk, tail = pairs[:len(pairs) - tail_pairs], pairs[len(pairs) - tail_pairs:]
    lists = [[] for _ in range(programs)]
    busy = [0.0] * programs
    for unit, pair in enumerate(bulk):
        lists[unit % programs].extend(pair)
        busy[unit % programs] += sum(cost[tile % blocks] for tile in pair)
    for tile in sorted((tile for pair in tail for tile in pair), key=lambda tile: -cost[tile % blocks]):
        program = min(range(programs), key=lambda p: (busy[p], p))
        lists[program].append(tile)
        busy[program] += cost[tile % blocks]
    return schedules._schedule(lists)


def measured_tile_costs(tail_only: bool = False):
    """The forward's lists from ``measured_cost_schedule`` (or ``measured_tail_schedule``) inside the block (v0.36,
    run 39)."""
    return _balanced_lists(measured_tail_schedule if tail_only else measured_cost_schedule, forward=True,
                           backward=False)
