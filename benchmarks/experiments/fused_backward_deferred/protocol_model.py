"""A model of the synchronisation of the fused backward with deferred dV (and dK) products
(``_fused_ws_mma_tile_deferred`` in src/flashio/kernels/backward_gluon.py, option ``deferred_kv_products``,
whose two settings share this protocol: the deferred products read block i-1's slot until block i's dQ wait),
run under random interleavings on the CPU: no deadlock, and no shared tile rewritten while a reader still
needs it. Gluon has no interpreter, so before the kernel first runs on a GPU this is the check of its
barrier protocol; it models the protocol, not the kernel, and must be kept in step with it by hand.

Actors, as in the kernel: the loader warp (K/V per tile, then each block's Q/dO into a ring of ``stages``
slots), ``warps`` MMA warps of one partition and the dQ reducer warp. Each MMA warp, per query block at ring
position i: its score products read slot i; block i-1's dV/dK products, issued beside them, read slot i-1
until block i's dQ wait; it stores its rows of dS^T into tile i % 2; one barrier over the MMA warps (Gluon's
``thread_barrier``), after which the partition (its thread 0, behind Gluon's automatic barrier) hands on
block i-1's dQ tile and slot i-2; the dQ product reads every warp's rows of dS^T until its wait; the warp
writes its rows of the dQ tile once the reducer has emptied it. After the tile's last block: that block's
dV/dK, a barrier, and the hand-back of the last dQ tile and the last two slots; then K/V (after a barrier).
With one dS^T tile (``ds_tiles`` = 1) a second barrier ends each block, after which block i's dQ tile and
slot i-1 are handed on instead, and only the last slot after the loop.
Every read of a shared tile is checked when it starts and when the wait that completes it returns.

    python benchmarks/experiments/fused_backward_deferred/protocol_model.py            # 9600 interleavings
    python benchmarks/experiments/fused_backward_deferred/protocol_model.py --drop slot-one-block-early  # fails

v0.21 (written with the kernel, before its first GPU run): passes for two dS^T tiles with 3-4 Q/dO slots and
one with 2-3, 1-2 dQ tiles, 2-3 MMA warps and tiles of 0-8 query blocks. Handing slot i-1 back at block i's barrier (one block earlier than the
kernel does: its dV/dK products are then still reading it) is caught as a rewritten operand; dropping the
loader's wait for a free slot (a deadlock: the ring's phases run ahead of the MMA warps) or the barrier
(dS^T read before every warp stored its rows) fail it too.
"""

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from barrier_model import Barrier, interleave, loader, random_tiles, reducer  # noqa: E402  (experiments/barrier_model.py)


def run(tiles: list[int], stages: int, dq_tiles: int, warps: int, seed: int, drop: str = "", ds_tiles: int = 2) -> None:
    """One interleaving over ``tiles`` (query blocks per key-block tile), with one or two dS^T tiles; raises
    AssertionError on a tile rewritten under a reader, RuntimeError on a deadlock."""
    rng = random.Random(seed)
    kv_ready, kv_empty = Barrier(1), Barrier(1)
    ready, empty = [Barrier(1) for _ in range(stages)], [Barrier(1) for _ in range(stages)]
    dq_ready, dq_empty = [Barrier(1) for _ in range(dq_tiles)], [Barrier(1) for _ in range(dq_tiles)]
    cta = Barrier(warps)  # the MMA partition's thread barrier
    kv, qdo = [None], [None] * stages
    ds, dq = [[None] * warps for _ in range(ds_tiles)], [[None] * warps for _ in range(dq_tiles)]
    lag = 1 if drop == "slot-one-block-early" else 2  # the kernel hands slot i-2 back at block i's barrier

    def mma_warp(w: int):
        it, syncs = 0, 0

        def barrier():
            nonlocal syncs
            if drop != "barrier":
                cta.arrive()
                yield "wait", cta, syncs & 1
                syncs += 1

        for tile, blocks in enumerate(tiles):
            yield "wait", kv_ready, tile & 1
            assert kv[0] == tile, ("K/V not this tile's", w, tile)
            first = it
            for _ in range(blocks):
                slot, previous = it % stages, (it - 1) % stages
                yield "wait", ready[slot], (it // stages) & 1
                assert qdo[slot] == it, ("Q/dO not this block's", w, it)
                if it > first:
                    assert qdo[previous] == it - 1, ("deferred dV/dK operands rewritten", w, it - 1)
                yield "step"  # the score products (and block i-1's dV/dK) run; exponentials; dS^T
                assert qdo[slot] == it, ("Q/dO rewritten under the score products", w, it)
                ds_tile = ds[it % ds_tiles]
                ds_tile[w] = it
                yield from barrier()
                if w == 0 and ds_tiles == 2:  # the partition's arrivals, from its thread 0 after every warp
                    if it > first:
                        dq_ready[(it - 1) % dq_tiles].arrive()
                    if it - lag >= first:
                        empty[(it - lag) % stages].arrive()
                assert ds_tile == [it] * warps, ("dS^T not this block's", w, it)
                yield "step"  # the dQ product (and block i-1's dV/dK) until the wait
                assert ds_tile == [it] * warps, ("dS^T rewritten under the dQ product", w, it)
                if it > first:
                    assert qdo[previous] == it - 1, ("deferred dV/dK operands rewritten", w, it - 1)
                buf = it % dq_tiles
                yield "wait", dq_empty[buf], ((it // dq_tiles) & 1) ^ 1
                dq[buf][w] = it
                if ds_tiles == 1:  # a second barrier ends the block: block i's dQ tile, slot i-1 handed on
                    yield from barrier()
                    if w == 0:
                        dq_ready[buf].arrive()
                        if it - (lag - 1) >= first:
                            empty[(it - (lag - 1)) % stages].arrive()
                it += 1
            if blocks > 0:  # the last block's dV/dK, waited; then the hand-backs
                assert qdo[(it - 1) % stages] == it - 1, ("deferred dV/dK operands rewritten", w, it - 1)
                yield "step"
                assert qdo[(it - 1) % stages] == it - 1, ("deferred dV/dK operands rewritten", w, it - 1)
                yield from barrier()
                if w == 0:
                    if ds_tiles == 2:
                        dq_ready[(it - 1) % dq_tiles].arrive()
                        if lag == 2 and it - 2 >= first:
                            empty[(it - 2) % stages].arrive()
                    if ds_tiles == 2 or lag == 2:
                        empty[(it - 1) % stages].arrive()
            assert kv[0] == tile, ("K/V rewritten", w, tile)
            yield from barrier()
            if w == 0:
                kv_empty.arrive()

    actors = [loader(tiles, stages, kv_ready, kv_empty, ready, empty, kv, qdo, drop != "empty-wait"),
              *[mma_warp(w) for w in range(warps)],
              reducer(tiles, dq_ready, dq_empty, dq, lambda it: [it] * warps)]
    interleave(actors, rng)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=1200)
    parser.add_argument("--drop", choices=("", "empty-wait", "slot-one-block-early", "barrier"), default="",
                        help="leave one wait out, or hand a slot back too early (the model should then fail)")
    args = parser.parse_args(argv)
    runs = 0
    for seed in range(args.seeds):
        tiles = random_tiles(seed)
        for ds_tiles, stages in ((2, 3), (2, 4), (1, 2), (1, 3)):
            for dq_tiles in (1, 2):
                for warps in (2, 3):
                    run(tiles, stages, dq_tiles, warps, seed, args.drop, ds_tiles)
                    runs += 1
    print(f"ok: {runs} interleavings, no deadlock, no tile rewritten under a reader")


if __name__ == "__main__":
    main()
