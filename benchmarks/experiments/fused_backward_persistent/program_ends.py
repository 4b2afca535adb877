"""When each program of the persistent fused backward ends, and what its key blocks cost (v0.36; first run v0.37).

v0.36 found the persistent forward's programs ending 10-16 µs apart at d=128 causal 1k-2k under the static causal
lists (``forward_short/round_times.py``, ``program_exits.py``): program p of 132 took pair p mod 4 of every head at
1k, and some pairs cost more. The fused backward's causal lists pair key blocks the same way (``schedules.pair_order``
with the low block first), and its d=128 1k points are 0.97-0.98x cuDNN. This measures its programs the same way.

Per point: flashio's backward (``torch.autograd.grad`` on a retained graph, launch plans off so that every launch goes
through ``launch_plans.launch``) with the persistent fused kernel's launches given ``CLOCK_TILES`` and an int64
buffer (``kernels/gluon_clock.py``: the MMA warps' entry, each key block's start and end, their exit), after a 256 MB
flush, the launch before the flush being the same backward (warm). Over ``--launches`` launches, medians of: the
programs' exits after the earliest entry (min / median / max), the programs' median exit by their first pair of key
blocks, and the MMA warps' time per key block by its index in the head (the block's first query block onwards, so the
low key blocks are the heavy ones in the causal backward). The clock's stores add a few instructions per key block.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off FLASHIO_LAUNCH_PLANS=0 python3 \\
        benchmarks/experiments/fused_backward_persistent/program_ends.py --points 128:causal:1024 128:causal:2048

Prediction (v0.36 "Next" item 4): a spread of the programs' ends like the forward's (4-8% of the kernel) at causal
1k-2k, programs holding some pairs ending later than the others.

Outcome (v0.37 call 3, H200, static lists; results/2026-12-02_h200_v0.37/call3_program_ends_backward.txt): the last
program ends 16.0 µs (4.0%) after the median at d=128 causal 1k, 14.7 (2.1%) at 2k, 22.3 (4.4%) at d=64 causal 1k:
the low end of the prediction, and without a pair effect (median exits by first pair within 4.6 / 5.1 µs). With the
dynamic list (``--dynamic``, call 5): 7.0 and 5.2 µs after the median. Since v0.37 d=128's tuned form has the dynamic
list; ``--static`` times it with its static one.

v0.39 (prepared): the non-causal points (``--points 128:noncausal:1024``) as tuned, with the split tail's list, and with
``--noncausal-claims`` (the key blocks claimed in order). v0.39's forward found the round-robin's programs with the same
work ending up to a tile apart at d=128 non-causal 1k (forward_short/round_times.py, call 7).
"""

import argparse
import collections
import dataclasses
import os
import statistics
import sys

import torch

import flashio
from flashio import configs, launch_plans, launchers
from flashio.kernels import backward_gluon

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "forward_short"))
from interleaved_forms import _point  # noqa: E402 - --points D:causal:N or D:noncausal:N

FLUSH_BYTES = 256 << 20  # as flashio.bench.sweep._CudaEventTimer
CLOCK_TILES = 40  # key blocks per program at most at the points above (d=128 1k: 2048 blocks on 132 programs, ~16)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", nargs="+", type=_point, required=True)
    parser.add_argument("--launches", type=int, default=20)
    lists = parser.add_mutually_exclusive_group()
    lists.add_argument("--dynamic", action="store_true",
                       help="the tuned forms with the dynamic tile list (v0.37; d=128's tuned form has it): only the "
                            "programs' exits are shown, since which key blocks a program claimed is not recorded")
    lists.add_argument("--static", action="store_true", help="the tuned forms with their static lists")
    lists.add_argument("--noncausal-claims", action="store_true",
                       help="the tuned forms claiming their non-causal key blocks in order instead of the split tail "
                            "(v0.39, prepared; only the exits are shown, as with --dynamic)")
    args = parser.parse_args()
    if args.noncausal_claims:
        for d in {point[0] for point in args.points}:
            configs.BACKWARD_FUSED_CANDIDATES[d] = tuple(
                config.claims_form() if config.persistent and config.split_tail else config
                for config in configs.BACKWARD_FUSED_CANDIDATES[d])
    if args.dynamic or args.static:
        for d in {point[0] for point in args.points}:
            configs.BACKWARD_FUSED_CANDIDATES[d] = tuple(
                dataclasses.replace(config, dynamic_schedule=args.dynamic)
                if config.persistent and config.balanced_schedule else config
                for config in configs.BACKWARD_FUSED_CANDIDATES[d])
    if launch_plans.enabled(torch.empty(0, device="cuda")):
        raise SystemExit("set FLASHIO_LAUNCH_PLANS=0: a replayed plan would not pass through the clock's launch patch")
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    launch = launch_plans.launch
    for d, causal, n in args.points:
        batch, heads = 16384 // n, 2048 // d
        torch.manual_seed(0)
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16).requires_grad_(True)
                   for _ in range(3))
        dout = torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16)
        out = flashio.attention(q, k, v, is_causal=causal)
        backward = lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)
        backward()  # the first call tunes
        buffers, seen = [], {}

        def clocked(kernel, grid, *arguments, **constants):
            if kernel is backward_gluon.attention_backward_fused_ws_persistent_kernel and buffers:
                seen["grid"], seen["schedule"], seen["dynamic"] = grid, arguments[-1], constants.get("DYNAMIC", False)
                constants = dict(constants, tile_clock=buffers[-1], CLOCK_TILES=CLOCK_TILES)
            return launch(kernel, grid, *arguments, **constants)

        launch_plans.launch = clocked
        try:
            buffers.append(torch.full((launchers.multiprocessor_count(q.device), CLOCK_TILES + 1, 1, 4), -1,
                                      dtype=torch.int64, device="cuda"))
            backward()  # compiles the clocked kernel
            runs = []
            for _ in range(args.launches):
                buffers.append(torch.full_like(buffers[0], -1))
                backward()  # warm: the launch before the flush is this backward
                flush.zero_()
                backward()
                runs.append(buffers[-1])
        finally:
            launch_plans.launch = launch
        torch.cuda.synchronize()
        if "grid" not in seen:
            print(f"d={d} {'causal' if causal else 'non-causal'} {n}: the tuned backward is not the persistent fused "
                  f"kernel; nothing to measure")
            continue
        programs = seen["grid"][0]
        schedule = seen["schedule"]
        lists = None
        dynamic = seen["dynamic"]
        if schedule is not None and not dynamic and causal:  # a split tail's entries carry ranges: exits only
            table = schedule.tolist()
            offsets, tiles = table[:programs + 1], table[programs + 1:]
            lists = [tiles[offsets[p]:offsets[p + 1]] for p in range(programs)]
        blocks_per_head = n // 128
        exits, by_pair, block_times = [], collections.defaultdict(list), collections.defaultdict(list)
        for buffer in runs:
            b = buffer[:programs].cpu().double()
            t0 = b[:, 0, 0, 0].min()
            program_exits = (b[:, 0, 0, 1] - t0) / 1e3
            exits.append((float(program_exits.min()), float(program_exits.median()), float(program_exits.max())))
            for p in range(programs):
                if lists is not None:
                    by_pair[tuple(t % blocks_per_head for t in lists[p][:2])].append(float(program_exits[p]))
                    for i, tile in enumerate(lists[p][:CLOCK_TILES]):
                        if i:  # the first block carries the start-up
                            block_times[tile % blocks_per_head].append(float(b[p, 1 + i, 0, 1] - b[p, 1 + i, 0, 0]) / 1e3)
        print(f"\n## d={d} {'causal' if causal else 'non-causal'} N={n}: {programs} programs, "
              f"{'dynamic list' if dynamic else 'listed' if schedule is not None else 'round-robin (no table)'}")
        print("- programs' exits min / median / max µs (median over launches): " + " / ".join(
            f"{statistics.median(e[i] for e in exits):.1f}" for i in range(3)))
        if by_pair:
            print("- median exit by first pair: " + ", ".join(f"{pair}: {statistics.median(values):.1f}"
                                                            for pair, values in sorted(by_pair.items())))
            print("- MMA warps' µs per key block, by its index in the head: " + ", ".join(
                f"{block}: {statistics.median(values):.2f}" for block, values in sorted(block_times.items())))


if __name__ == "__main__":
    main()
