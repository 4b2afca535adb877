"""Tile orders for the probes (v0.29-v0.30): the persistent kernels' causal balanced lists
(``flashio.schedules.balanced_causal_schedule``) in other orders, patched into the launcher for the duration of a
``with`` block.

``alternating_pairs`` (forward probe run 32, measured: level or slower): odd programs take their pairs light tile
first.

``cross_head_pairs`` (forward probe run 33, backward probe run 14, both run in v0.30): pairs across two heads at
any length. Why: v0.29 measured that the programs working on one head's tiles at the same moment share one HBM
read of its data (runs of one head's tiles on a program, which spread the programs at work over more heads, were
slower in both passes). With pairs within a head (blocks i and n - 1 - i, equal work), n / 2 programs take a head
at once: 4 at N = 1k with 128-row (forward) or 128-key (backward) blocks. Pairing block i of head h with block
n - 1 - i of head h + 1 (still equal work) puts n programs on head h at once, and their second tiles, on head
h + 1, start at staggered times. Over three runs (33-35) the forward gained ~1-2% at causal 1k and was level at 2k
and 4k, so since v0.30 the library's forward pairs across heads at N <= 1k (``schedules.CROSS_HEAD_PAIRS_MAX_BLOCKS``);
the backward was level and keeps its pairs.

``within_head_pairs``: the forward's pairs within a head at any length (v0.29's lists), the control since v0.30.
"""

from __future__ import annotations

import contextlib

import torch

from flashio import launch_plans, launchers, schedules


def cross_head_schedule(config, problem, programs: int, backward: bool) -> schedules.TileSchedule:
    """The balanced list of a causal persistent forward (query blocks) or fused backward (``backward``: key
    blocks), its pairs across two heads (``schedules.pair_order``'s ``across_heads``, the library's forward
    order since v0.30 at up to ``schedules.CROSS_HEAD_PAIRS_MAX_BLOCKS`` blocks a head)."""
    head_batches = (problem.num_kv_heads if backward else problem.num_heads) * problem.batch
    block_work = schedules.causal_backward_block_work if backward else schedules.causal_forward_block_work
    work = block_work(problem.seqlen_q, problem.seqlen_k, config.block_m, config.block_n)
    schedule = schedules.balanced_causal_schedule(len(work), head_batches, programs, work, high_first=not backward,
                                                  across_heads=True)
    if schedule.programs != programs:  # fewer pairs than the launch's programs (small problems only)
        raise RuntimeError(f"cross-head pairs: {schedule.programs} programs' lists for a grid of {programs}")
    return schedule


def within_head_schedule(config, problem, programs: int, backward: bool) -> schedules.TileSchedule:
    """The balanced list with every pair within one head (the library's forward order up to v0.29)."""
    head_batches = (problem.num_kv_heads if backward else problem.num_heads) * problem.batch
    block_work = schedules.causal_backward_block_work if backward else schedules.causal_forward_block_work
    work = block_work(problem.seqlen_q, problem.seqlen_k, config.block_m, config.block_n)
    return schedules.balanced_causal_schedule(len(work), head_batches, programs, work, high_first=not backward)


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
    is_backward)``'s (a new table each time the launcher asks: launch plans replay the recorded one)."""
    balanced_table = launchers._balanced_table

    def listing(config, problem, programs, device, is_backward):
        if not (backward if is_backward else forward):
            return balanced_table(config, problem, programs, device, is_backward)
        table = make(config, problem, programs, is_backward).table()
        return launch_plans.persistent(torch.tensor(table, dtype=torch.int32).to(device))

    launchers._balanced_table = listing
    try:
        yield
    finally:
        launchers._balanced_table = balanced_table


def alternating_pairs():
    """The forward's lists from ``alternating_schedule`` inside the block."""
    return _balanced_lists(lambda config, problem, programs, _: alternating_schedule(config, problem, programs),
                           forward=True, backward=False)


def cross_head_pairs(forward: bool = True, backward: bool = False):
    """The chosen passes' lists from ``cross_head_schedule`` inside the block."""
    return _balanced_lists(cross_head_schedule, forward, backward)


def within_head_pairs():
    """The forward's lists from ``within_head_schedule`` inside the block (v0.29's order at any length)."""
    return _balanced_lists(within_head_schedule, forward=True, backward=False)
