"""A model of the dynamic fused backward's id ring, run under random interleavings on the CPU (v0.37).

The persistent fused backward with a dynamic tile list (``kernels/backward_gluon.py``, ``DYNAMIC``) passes each key
block's list entry from its loader warp to its two readers, the MMA warps and the dQ warp, through ``ID_SLOTS`` shared
slots used in turn, each with two barriers: the loader waits until both readers handed back the slot's previous entry
(``id_empty``, two arrivals), writes entry e into slot e mod ID_SLOTS and arrives on ``id_ready``; a reader waits on
``id_ready``, reads the slot and arrives on ``id_empty``. After the last key block the loader publishes -1 the same way.

Around the ring the model keeps the kernel's other waits, one action per step, so that a deadlock shows too:
- the loader: publish entry e, wait for the MMA warps to release key block e - 1's K/V (``kv_empty``), then load each
  of the block's query blocks into a ring of NUM_STAGES Q/dO slots (each waiting for its slot's release), then claim;
- the MMA warps: read entry e, then per query block wait for its Q/dO slot, wait for a free dQ buffer, compute, hand
  the dQ buffer to the dQ warp and the Q/dO slot back to the loader; then release K/V;
- the dQ warp: read entry e, then per query block wait for the dQ buffer, reduce-add it and hand it back.

A violation is a reader reading another entry than its own (the kernel would compute, or reduce, the wrong key
block); a deadlock is no action enabled before every partition is done. ``--skip-empty-wait`` drops the loader's
``id_empty`` wait, to show that the model finds what that wait prevents.

    python3 benchmarks/experiments/fused_backward_persistent/claim_ring_model.py

Outcome (v0.37, 20,000 interleavings per case of 10 key blocks of 0-3 query blocks each, seed 0, on the CPU, 17 s):
one or two id slots, with two or three Q/dO slots and one or two dQ buffers, never read wrong and never deadlock.
Without the ``id_empty`` wait a reader reads another entry in 1,373-2,220 of 20,000 interleavings with two id slots
and in 18,019-18,783 with one. The kernel has two slots and the wait. (The model checks the protocol as written
down here, not the kernel's code: the GPU check's path "persistent, dynamic tile list" does that, 17/17 PASS.)
"""

import argparse
import random


def run(id_slots: int, stages: int, dq_buffers: int, query_blocks: list[int], rng: random.Random,
        skip_empty_wait: bool = False) -> str:
    """One random interleaving: "ok", "wrong read" or "deadlock"."""
    entries = len(query_blocks)
    slot_value = [None] * id_slots
    reads = {"mma": [0] * id_slots, "dq": [0] * id_slots}  # per slot: entries read from it
    published = [0] * id_slots  # per slot: entries written to it
    # The loader: ("publish", e) -> ("kv wait", e) -> ("load", e, i) for each query block -> next entry.
    loader = ["publish", 0, 0]
    loads_issued = 0  # Q/dO ring fills
    ring_released = 0  # Q/dO ring slots handed back by the MMA warps
    kv_loaded, kv_released = -1, -1  # last key block whose K/V the loader issued / the MMA warps released
    mma = ["read", 0, 0]  # ("read", e) -> ("compute", e, i) per query block -> ("release", e)
    mma_consumed = 0  # Q/dO ring slots consumed
    dq_written, dq_reduced = 0, 0
    reducer = ["read", 0, 0]  # ("read", e) -> ("reduce", e, i) per query block
    mma_entry = reducer_entry = None

    def blocks(entry):
        return query_blocks[entry] if 0 <= entry < entries else 0

    while True:
        actions = []
        stage, e, i = loader
        if stage == "publish" and e <= entries:
            slot = e % id_slots
            previous_round = e // id_slots  # the slot's earlier entries, each read by both readers
            if skip_empty_wait or (reads["mma"][slot] >= previous_round and reads["dq"][slot] >= previous_round):
                actions.append("loader")
        elif stage == "kv wait" and kv_released >= e - 1:
            actions.append("loader")
        elif stage == "load" and loads_issued - ring_released < stages:
            actions.append("loader")
        stage, e, i = mma
        if stage == "read" and published[e % id_slots] > e // id_slots:
            actions.append("mma")
        elif stage == "compute" and kv_loaded >= e and mma_consumed < loads_issued \
                and dq_written - dq_reduced < dq_buffers:
            actions.append("mma")
        elif stage == "release":
            actions.append("mma")
        stage, e, i = reducer
        if stage == "read" and published[e % id_slots] > e // id_slots:
            actions.append("dq")
        elif stage == "reduce" and dq_reduced < dq_written:
            actions.append("dq")
        if not actions:
            done = loader[0] == "done" and mma[0] == "done" and reducer[0] == "done"
            return "ok" if done else "deadlock"
        actor = rng.choice(actions)
        if actor == "loader":
            stage, e, i = loader
            if stage == "publish":
                slot_value[e % id_slots] = e if e < entries else -1
                published[e % id_slots] += 1
                loader = ["kv wait", e, 0] if e < entries else ["done", e, 0]
            elif stage == "kv wait":
                kv_loaded = e
                loader = ["load", e, 0] if blocks(e) else ["publish", e + 1, 0]
            else:
                loads_issued += 1
                loader = ["load", e, i + 1] if i + 1 < blocks(e) else ["publish", e + 1, 0]
        elif actor == "mma":
            stage, e, i = mma
            if stage == "read":
                mma_entry = slot_value[e % id_slots]
                reads["mma"][e % id_slots] += 1
                if mma_entry != (e if e < entries else -1):
                    return "wrong read"
                mma = ["done", e, 0] if mma_entry == -1 else (["compute", e, 0] if blocks(e) else ["release", e, 0])
            elif stage == "compute":
                mma_consumed += 1
                dq_written += 1
                ring_released += 1
                mma = ["compute", e, i + 1] if i + 1 < blocks(e) else ["release", e, 0]
            else:
                kv_released = e
                mma = ["read", e + 1, 0]
        else:
            stage, e, i = reducer
            if stage == "read":
                reducer_entry = slot_value[e % id_slots]
                reads["dq"][e % id_slots] += 1
                if reducer_entry != (e if e < entries else -1):
                    return "wrong read"
                reducer = ["done", e, 0] if reducer_entry == -1 else \
                    (["reduce", e, 0] if blocks(e) else ["read", e + 1, 0])
            else:
                dq_reduced += 1
                reducer = ["reduce", e, i + 1] if i + 1 < blocks(e) else ["read", e + 1, 0]


def outcomes(id_slots: int, stages: int, dq_buffers: int, interleavings: int, entries: int = 10, seed: int = 0,
             skip_empty_wait: bool = False) -> dict:
    """Counts of "ok", "wrong read" and "deadlock" over ``interleavings`` random interleavings, each over ``entries``
    key blocks of 0-3 query blocks (random)."""
    rng = random.Random(seed)
    counts = {"ok": 0, "wrong read": 0, "deadlock": 0}
    for _ in range(interleavings):
        query_blocks = [rng.randint(0, 3) for _ in range(entries)]
        counts[run(id_slots, stages, dq_buffers, query_blocks, rng, skip_empty_wait)] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--interleavings", type=int, default=20000)
    parser.add_argument("--entries", type=int, default=10)
    args = parser.parse_args()
    print("| id slots | Q/dO slots | dQ buffers | id_empty wait | ok | wrong read | deadlock |")
    print("|---|---|---|---|---|---|---|")
    for skip in (False, True):
        for id_slots in (1, 2):
            for stages in (2, 3):
                for dq_buffers in (1, 2):
                    counts = outcomes(id_slots, stages, dq_buffers, args.interleavings, args.entries,
                                      skip_empty_wait=skip)
                    print(f"| {id_slots} | {stages} | {dq_buffers} | {'left out' if skip else 'kept'} | "
                          f"{counts['ok']} | {counts['wrong read']} | {counts['deadlock']} |", flush=True)


if __name__ == "__main__":
    main()
