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
