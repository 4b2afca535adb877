"""What the CPU models of the Gluon kernels' barrier protocols share (experiments/*/protocol_model.py): an
mbarrier as an arrival count and a number of completed phases, and a scheduler that runs the actors (Python
generators) in a random interleaving until all are done or none can move.

An actor yields ``("wait", barrier, parity)`` to wait, as ``mbarrier.try_wait.parity`` does, until the
barrier's phase bit differs from ``parity``; ``"step"`` to let the others run (a read in progress); anything
else is not expected.
"""

import random


class Barrier:
    def __init__(self, count: int):
        self.count, self.pending, self.phases = count, count, 0

    def arrive(self) -> None:
        assert self.pending > 0
        self.pending -= 1
        if self.pending == 0:
            self.phases, self.pending = self.phases + 1, self.count

    def passes(self, parity: int) -> bool:
        return (self.phases & 1) != parity


def loader(tiles: list[int], stages: int, kv_ready: Barrier, kv_empty: Barrier, ready: list, empty: list,
           kv: list, qdo: list, wait_for_free_slots: bool = True):
    """The fused backwards' TMA loader warp as an actor: per key-block tile (``tiles`` = query blocks per
    tile) K/V into ``kv[0]`` once the last tile's are released, then each block's Q/dO into ring slot
    ``it % stages`` (``qdo[slot] = it``) once that slot is free (``wait_for_free_slots=False`` drops that wait:
    the models must then fail)."""
    it = 0
    for tile, blocks in enumerate(tiles):
        yield "wait", kv_empty, (tile & 1) ^ 1
        kv[0] = tile
        kv_ready.arrive()
        for _ in range(blocks):
            slot = it % stages
            if wait_for_free_slots:
                yield "wait", empty[slot], ((it // stages) & 1) ^ 1
            qdo[slot] = it
            ready[slot].arrive()
            it += 1


def reducer(tiles: list[int], dq_ready: list, dq_empty: list, dq: list, complete):
    """The dQ reducer warp as an actor: the dQ tiles in ring order (position p in tile ``p % len(dq)``), each
    checked to hold position p's values (``complete(p)``) when its reduce-add starts and when it ends."""
    position = 0
    for blocks in tiles:
        for _ in range(blocks):
            buf = position % len(dq)
            yield "wait", dq_ready[buf], (position // len(dq)) & 1
            assert dq[buf] == complete(position), ("dQ tile not this block's", position)
            yield "step"
            assert dq[buf] == complete(position), ("dQ tile rewritten during its reduce", position)
            dq_empty[buf].arrive()
            position += 1


def interleave(actors: list, rng: random.Random) -> None:
    """Run ``actors`` to the end, one random runnable actor at a time; RuntimeError("deadlock") when every
    live actor waits on a barrier that does not pass."""
    waiting = [None] * len(actors)
    alive = [True] * len(actors)
    while any(alive):
        runnable = [i for i, action in enumerate(waiting) if alive[i] and (
            action is None or action == "step" or action[1].passes(action[2]))]
        if not runnable:
            raise RuntimeError("deadlock")
        i = rng.choice(runnable)
        try:
            waiting[i] = next(actors[i])
        except StopIteration:
            alive[i], waiting[i] = False, None


def random_tiles(seed: int) -> list[int]:
    """A persistent program's tiles for one interleaving: 1-6 key-block tiles of 0-8 query blocks each (0: a
    causal tile that no query block sees; 1: a tile whose only block is also its first and last)."""
    rng = random.Random(seed)
    return [rng.choice([0, 1, 2, 3, 5, 8]) for _ in range(rng.randint(1, 6))]
