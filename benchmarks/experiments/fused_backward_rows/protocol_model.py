"""A model of the row-split fused backward's synchronisation (src/flashio/kernels/backward_gluon_rows.py),
run under random interleavings on the CPU: no deadlock, and no shared tile rewritten while a reader still
needs it. Gluon has no interpreter, so before the kernel first runs on a GPU this is the check of its
barrier protocol; it models the protocol, not the kernel, and must be kept in step with it by hand.

Actors, as in the kernel: the loader warp (K/V per tile, then each block's Q/dO into a ring of ``stages``
slots), two MMA warpgroups (each: its scores, its half of dS^T into tile i % 2, the exchange, its half of
the dQ tile, then its hand-backs) and the dQ reducer warp. An mbarrier is modelled by its arrival count and
completed phases; ``wait(bar, parity)`` passes once the barrier's phase bit differs from ``parity``, as
``mbarrier.try_wait.parity`` does. Every read of a shared tile is checked twice: when it starts and when the
reader hands the tile back (the tensor-core products and TMA reads that use it are complete there).

    python benchmarks/experiments/fused_backward_rows/protocol_model.py            # 16000 interleavings
    python benchmarks/experiments/fused_backward_rows/protocol_model.py --drop empty-wait   # must fail

v0.19 (written with the kernel): passes for 2-3 Q/dO slots, 1-2 dQ tiles and tiles of 0-8 query blocks; a
separate barrier for the dS^T tiles (``ds_free``, in the first version of the kernel) was found redundant
here and removed — a warpgroup rewrites dS^T tile i % 2 at block i + 2 only after the exchange of block
i + 1, for which the other warpgroup stored its half after finishing block i. Dropping the loader's wait
for a free slot, or the exchange's wait, makes the model fail.
"""

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from barrier_model import Barrier, interleave, loader, random_tiles, reducer  # noqa: E402  (experiments/barrier_model.py)


def run(tiles: list[int], stages: int, dq_tiles: int, seed: int, drop: str = "") -> None:
    """One interleaving of the four actors over ``tiles`` (query blocks per key-block tile); raises
    AssertionError on a tile rewritten under a reader, RuntimeError on a deadlock."""
    rng = random.Random(seed)
    kv_ready, kv_empty = Barrier(1), Barrier(2)
    ready, empty = [Barrier(1) for _ in range(stages)], [Barrier(2) for _ in range(stages)]
    ds_ready = [Barrier(2) for _ in range(2)]
    dq_ready, dq_empty = [Barrier(2) for _ in range(dq_tiles)], [Barrier(1) for _ in range(dq_tiles)]
    kv, qdo = [None], [None] * stages
    ds, dq = [[None, None] for _ in range(2)], [[None, None] for _ in range(dq_tiles)]

    def warpgroup(w: int):
        it = 0
        for tile, blocks in enumerate(tiles):
            yield "wait", kv_ready, tile & 1
            for _ in range(blocks):
                slot = it % stages
                yield "wait", ready[slot], (it // stages) & 1
                assert qdo[slot] == it, ("Q/dO not this block's", w, it)
                ds_tile = it % 2
                ds[ds_tile][w] = it
                ds_ready[ds_tile].arrive()
                if drop != "exchange-wait":
                    yield "wait", ds_ready[ds_tile], (it // 2) & 1
                assert ds[ds_tile] == [it, it], ("dS^T not this block's", w, it)
                yield "step"
                buf = it % dq_tiles
                yield "wait", dq_empty[buf], ((it // dq_tiles) & 1) ^ 1
                dq[buf][w] = it
                assert ds[ds_tile] == [it, it] and qdo[slot] == it, ("read tile rewritten", w, it)
                dq_ready[buf].arrive()
                empty[slot].arrive()
                it += 1
            assert kv[0] == tile, ("K/V rewritten", w, tile)
            kv_empty.arrive()

    actors = [loader(tiles, stages, kv_ready, kv_empty, ready, empty, kv, qdo, drop != "empty-wait"),
              warpgroup(0), warpgroup(1), reducer(tiles, dq_ready, dq_empty, dq, lambda it: [it, it])]
    interleave(actors, rng)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=4000)
    parser.add_argument("--drop", choices=("", "empty-wait", "exchange-wait"), default="",
                        help="leave one wait out (the model should then fail)")
    args = parser.parse_args(argv)
    runs = 0
    for seed in range(args.seeds):
        tiles = random_tiles(seed)
        for stages in (2, 3):
            for dq_tiles in (1, 2):
                run(tiles, stages, dq_tiles, seed, args.drop)
                runs += 1
    print(f"ok: {runs} interleavings, no deadlock, no tile rewritten under a reader")


if __name__ == "__main__":
    main()
