"""Tile orders for the probes (v0.29, prepared, not yet run): the persistent kernels' causal balanced lists
(``flashio.schedules.balanced_causal_schedule``) built from pairs that join two heads, patched into the launcher
for the duration of a ``with`` block. Probe-only: the library's lists keep their pairs within one head.

Why: v0.29 measured that the programs working on one head's tiles at the same moment share one HBM read of its
data (runs of one head's tiles on a program, which spread the programs at work over more heads, were slower in
both passes). With the library's pairs (blocks i and n - 1 - i of one head, equal work), n / 2 programs take a
head at once: 4 at N = 1k with 128-row (forward) or 128-key (backward) blocks. Pairing block i of head h with
block n - 1 - i of head h + 1 (still equal work: n + 1 blocks of the other side's loop) puts n programs on head h
at once, and their second tiles, on head h + 1, start at staggered times, so that each block's first reader has
fetched it into the L2 for the next.
"""

from __future__ import annotations

import contextlib

import torch

from flashio import launch_plans, launchers, schedules


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


def cross_head_schedule(config, problem, programs: int, backward: bool) -> schedules.TileSchedule:
    """The balanced list of a causal persistent forward (query blocks) or fused backward (``backward``: key
    blocks), its pairs from ``pairs_across_heads``."""
    head_batches = (problem.num_kv_heads if backward else problem.num_heads) * problem.batch
    block_work = schedules.causal_backward_block_work if backward else schedules.causal_forward_block_work
    work = block_work(problem.seqlen_q, problem.seqlen_k, config.block_m, config.block_n)
    schedules.pair_order = pairs_across_heads
    try:
        schedule = schedules.balanced_causal_schedule(len(work), head_batches, programs, work,
                                                      high_first=not backward)
    finally:
        schedules.pair_order = _WITHIN_HEAD
    if schedule.programs != programs:  # fewer pairs than the launch's programs (small problems only)
        raise RuntimeError(f"cross-head pairs: {schedule.programs} programs' lists for a grid of {programs}")
    return schedule


@contextlib.contextmanager
def cross_head_pairs(forward: bool = True, backward: bool = False):
    """Inside, the launchers' balanced causal lists of the chosen passes come from ``cross_head_schedule``."""
    balanced_table = launchers._balanced_table

    def crossing(config, problem, programs, device, is_backward):
        if not (backward if is_backward else forward):
            return balanced_table(config, problem, programs, device, is_backward)
        table = cross_head_schedule(config, problem, programs, is_backward).table()
        return launch_plans.persistent(torch.tensor(table, dtype=torch.int32).to(device))

    launchers._balanced_table = crossing
    try:
        yield
    finally:
        launchers._balanced_table = balanced_table
