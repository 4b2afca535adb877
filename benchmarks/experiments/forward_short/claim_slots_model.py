"""A model of the dynamic forward's entry slots, run under random interleavings on the CPU (v0.36).

The persistent Gluon forward with a dynamic tile list (``kernels/forward_gluon.py``, ``DYNAMIC``) passes each tile's
entry from its loader to its two consumers through shared slots used in turn: the loader writes tile t's entry into
slot t mod S, then (inside ``_load_tile``) waits until each consumer has handed back the Q buffer tile t - Q_BUFFERS
used, and arrives on tile t's Q barrier; a consumer waits on that barrier, then reads the slot. It hands its Q buffer
back after its key loop, or at once with Q in registers (d=64's tuned form). After the last tile the loader publishes
-1 the same way.

v0.36 call 7 ran S = 2 with Q_BUFFERS = 2 (d=64) and hung at the check's d=64 causal 1k case; the slots are 2 x
Q_BUFFERS since. This model checks the rule: a reader must always find its own tile's entry. Each step of the loader
and of each consumer is an action; a random scheduler runs any enabled one. A violation is a consumer reading another
tile's entry (the kernel would then compute the wrong tile and its K/V ring would fall out of step with the loader's).

    python3 benchmarks/experiments/forward_short/claim_slots_model.py

The loader here waits for nothing else, so the model lets it run further ahead than the kernel's (which also waits
for the previous tile's loads and for free K/V slots): what is safe here is safe there.

Outcome (v0.36, 20,000 interleavings of 12 tiles per case, seed 0, on the CPU): with Q_BUFFERS = 1, 2 slots never
read wrong, 1 slot nearly always; with Q_BUFFERS = 2 (d=64's form, which hung), 2 slots read wrong in 18,870 (Q handed
back after the key loop) and 19,673 (handed back early) of 20,000, 3 and 4 slots never. So the kernel's 2 x
Q_BUFFERS slots hold, and Q_BUFFERS + 1 would be the least.
"""

import argparse
import random


def run(q_buffers: int, slots: int, early_release: bool, tiles: int, rng: random.Random,
        consumers: int = 2) -> bool:
    """One random interleaving; True if every consumer read its own tile's entry (and the -1 at the end)."""
    slot_values = [None] * slots
    released = [[-1] * consumers for _ in range(q_buffers)]  # per Q set and consumer: the last tile handed back
    arrived = -1  # the last tile whose Q barrier the loader arrived on
    loader_tile, loader_stage = 0, "publish"
    consumer_tile = [0] * consumers
    consumer_stage = ["wait"] * consumers
    while True:
        actions = []
        if loader_tile <= tiles:
            if loader_stage == "publish":
                actions.append("loader")
            else:  # "arrive": once every consumer handed back tile loader_tile - q_buffers's Q set
                previous = loader_tile - q_buffers
                if previous < 0 or all(released[previous % q_buffers][c] >= previous for c in range(consumers)):
                    actions.append("loader")
        for c in range(consumers):
            t, stage = consumer_tile[c], consumer_stage[c]
            if stage == "done":
                continue
            if stage == "wait" and arrived < t:
                continue
            actions.append(c)
        if not actions:
            return all(stage == "done" for stage in consumer_stage)
        actor = rng.choice(actions)
        if actor == "loader":
            if loader_stage == "publish":
                slot_values[loader_tile % slots] = loader_tile if loader_tile < tiles else -1
                loader_stage = "arrive"
            else:
                arrived = loader_tile
                loader_tile, loader_stage = loader_tile + 1, "publish"
            continue
        c = actor
        t, stage = consumer_tile[c], consumer_stage[c]
        if stage == "wait":
            expected = t if t < tiles else -1
            if slot_values[t % slots] != expected:
                return False
            if expected == -1:
                consumer_stage[c] = "done"
            elif early_release:
                released[t % q_buffers][c] = t
                consumer_stage[c] = "work"
            else:
                consumer_stage[c] = "work"
        else:  # "work": the key loop and epilogue, then (late release) Q handed back; the next tile
            if not early_release:
                released[t % q_buffers][c] = t
            consumer_tile[c], consumer_stage[c] = t + 1, "wait"


def wrong_reads(q_buffers: int, slots: int, early_release: bool, interleavings: int, tiles: int = 12,
                seed: int = 0) -> int:
    """How many of ``interleavings`` random interleavings had a consumer read another tile's entry."""
    rng = random.Random(seed)
    return sum(not run(q_buffers, slots, early_release, tiles, rng) for _ in range(interleavings))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--interleavings", type=int, default=20000)
    parser.add_argument("--tiles", type=int, default=12)
    args = parser.parse_args()
    rng = random.Random(0)
    print("| Q_BUFFERS | slots | Q handed back | interleavings that read another tile's entry |")
    print("|---|---|---|---|")
    for q_buffers in (1, 2):
        for slots in sorted({q_buffers, q_buffers + 1, 2, 2 * q_buffers}):
            for early in (False, True):
                bad = sum(not run(q_buffers, slots, early, args.tiles, rng) for _ in range(args.interleavings))
                print(f"| {q_buffers} | {slots} | {'early' if early else 'after the key loop'} | {bad} of "
                      f"{args.interleavings} |", flush=True)


if __name__ == "__main__":
    main()
