"""How evenly a static tile order spreads causal work over a persistent grid (no GPU needed).

A persistent kernel's program p takes its tiles in a fixed order; in causal attention query block i of a
head sees i + 1 key blocks, so some orders give some programs far more work than others, and the
slowest program sets the time. This prints max/mean of the work per program for the orders v0.7 tried
(benchmarks/PERFORMANCE.md), on the issue-5 shapes (batch·N = 16k tokens, 16 heads at d=128, 128-row
tiles) and 132 programs (the H200's multiprocessors):

    python3 benchmarks/tile_order_balance.py

- ``global``: query blocks heaviest-first across all heads (order A): balanced, but every round of tiles
  touches every head's K/V;
- ``mirrored``: head by head, heaviest block first, every other full round mirrored (order B);
- ``paired``: head by head, a head's heaviest block paired with its lightest, pairs dealt round-robin and
  a program taking both tiles of its pair (order C, kernels/forward_ws.py's persistent forward).
"""

from __future__ import annotations

import argparse


def work_per_program(order: str, blocks: int, heads: int, programs: int) -> list[int]:
    """Key blocks processed by each program (the work of query block i is i + 1)."""
    work = [0] * programs
    if order == "paired":
        pairs_per_head = (blocks + 1) // 2
        pairs = pairs_per_head * heads
        programs = min(programs, pairs)
        for p in range(programs):
            for tile in range(2 * -(-(pairs - p) // programs)):
                pair = p + (tile // 2) * programs
                within = pair % pairs_per_head
                block = blocks - 1 - within if tile % 2 == 0 else within
                work[p] += block + 1
        return work[:programs]
    tiles = blocks * heads
    for p in range(programs):
        for tile in range(p, tiles, programs):
            if order == "global":
                block = blocks - 1 - tile // heads
            elif order == "mirrored":
                rnd, pos = divmod(tile, programs)
                mirrored = rnd % 2 == 1 and (rnd + 1) * programs <= tiles
                position = rnd * programs + (programs - 1 - pos if mirrored else pos)
                block = blocks - 1 - position % blocks
            else:
                raise ValueError(f"order must be global, mirrored or paired, got {order!r}")
            work[p] += block + 1
    return work


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=132)
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--block-m", type=int, default=128)
    args = parser.parse_args()
    print("| N | " + " | ".join(("global", "mirrored", "paired")) + " |")
    print("|---|---|---|---|")
    for n in (1024, 2048, 4096, 8192, 16384):
        blocks, heads = -(-n // args.block_m), args.tokens // n * args.heads
        cells = []
        for order in ("global", "mirrored", "paired"):
            work = work_per_program(order, blocks, heads, args.programs)
            cells.append(f"{max(work) / (sum(work) / len(work)):.3f}")
        print(f"| {n} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
