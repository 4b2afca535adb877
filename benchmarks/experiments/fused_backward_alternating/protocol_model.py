"""A model of the alternating fused backward's synchronisation (src/flashio/kernels/backward_gluon_queries.py),
run under random interleavings on the CPU: no deadlock, and no shared tile rewritten while a reader still
needs it. Gluon has no interpreter, so before the kernel first runs on a GPU this is the check of its
barrier protocol; it models the protocol, not the kernel, and must be kept in step with it by hand.

Actors, as in the kernel: the loader warp (K/V per key block, then each query block's Q/dO into a ring of
``stages`` slots), two MMA warpgroups (warpgroup w takes the ring positions ``it`` with ``it % 2 == w``: its
scores, its own dS^T tile, its own dQ tile, then its hand-backs; after each key block warpgroup 1 passes its
dV and dK partial sums to warpgroup 0 through its dQ tile) and the dQ reducer warp (the dQ tiles in ring
order). An mbarrier is modelled by its arrival count and completed phases; ``wait(bar, parity)`` passes once
the barrier's phase bit differs from ``parity``, as ``mbarrier.try_wait.parity`` does. Every read of a
shared tile is checked when it starts and when the reader hands the tile back.

    python benchmarks/experiments/fused_backward_alternating/protocol_model.py      # 12000 interleavings
    python benchmarks/experiments/fused_backward_alternating/protocol_model.py --drop exchange-dq-wait  # fails

v0.20 (written with the kernel, before its first GPU run): passes for 2-4 Q/dO slots and key blocks of 0-8
query blocks; dropping the loader's wait for a free slot, warpgroup 1's wait for the reducer before it puts
its partial sums into its dQ tile, or its wait for warpgroup 0's last read before the tile takes dQ again
makes it fail.
"""

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from barrier_model import Barrier, interleave, loader, reducer  # noqa: E402  (experiments/barrier_model.py)


DROPS = ("", "empty-wait", "exchange-dq-wait", "exchange-read-wait")


def run(tiles: list[int], stages: int, seed: int, drop: str = "") -> None:
    """One interleaving of the four actors over ``tiles`` (query blocks per key block); raises AssertionError
    on a tile rewritten under a reader, RuntimeError on a deadlock."""
    rng = random.Random(seed)
    kv_ready, kv_empty = Barrier(1), Barrier(2)
    ready, empty = [Barrier(1) for _ in range(stages)], [Barrier(1) for _ in range(stages)]
    dq_ready, dq_empty = [Barrier(1) for _ in range(2)], [Barrier(1) for _ in range(2)]
    xchg_full, xchg_empty = Barrier(1), Barrier(1)
    kv, qdo, ds, dq = [None], [None] * stages, [None, None], [None, None]

    def warpgroup(w: int):
        it = 0
        for tile, blocks in enumerate(tiles):
            yield "wait", kv_ready, tile & 1
            for block in range((it + w) % 2, blocks, 2):
                position = it + block
                slot = position % stages
                yield "wait", ready[slot], (position // stages) & 1
                assert qdo[slot] == position, ("Q/dO not this block's", w, position)
                ds[w] = position
                yield "step"
                yield "wait", dq_empty[w], ((position // 2) & 1) ^ 1
                dq[w] = ("dq", position)
                assert ds[w] == position and qdo[slot] == position, ("read tile rewritten", w, position)
                dq_ready[w].arrive()
                empty[slot].arrive()
            it += blocks
            assert kv[0] == tile, ("K/V rewritten", w, tile)
            kv_empty.arrive()
            if w == 1:
                if drop != "exchange-dq-wait":
                    yield "wait", dq_empty[1], ((it // 2) & 1) ^ 1
                dq[1] = ("dv", tile)
                xchg_full.arrive()
                yield "wait", xchg_empty, 0
                dq[1] = ("dk", tile)
                xchg_full.arrive()
                if drop != "exchange-read-wait":
                    yield "wait", xchg_empty, 1
            else:
                for parity, part in ((0, "dv"), (1, "dk")):
                    yield "wait", xchg_full, parity
                    assert dq[1] == (part, tile), ("partial sums not this block's", part, tile)
                    yield "step"
                    assert dq[1] == (part, tile), ("partial sums rewritten during their read", part, tile)
                    xchg_empty.arrive()

    actors = [loader(tiles, stages, kv_ready, kv_empty, ready, empty, kv, qdo, drop != "empty-wait"),
              warpgroup(0), warpgroup(1), reducer(tiles, dq_ready, dq_empty, dq, lambda position: ("dq", position))]
    interleave(actors, rng)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=4000)
    parser.add_argument("--drop", choices=DROPS, default="", help="leave one wait out (the model should then fail)")
    args = parser.parse_args(argv)
    runs = 0
    for seed in range(args.seeds):
        rng = random.Random(seed)
        tiles = [rng.choice([0, 1, 2, 3, 5, 8]) for _ in range(rng.randint(1, 6))]
        for stages in (2, 3, 4):
            run(tiles, stages, seed, args.drop)
            runs += 1
    print(f"ok: {runs} interleavings, no deadlock, no tile rewritten under a reader")


if __name__ == "__main__":
    main()
