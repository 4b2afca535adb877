"""How long the tuner's warm-up must be (v0.43, prepared; PERFORMANCE.md v0.43 "Next" item 0).

v0.43 found that a first call's earliest timings ran faster than the same candidates' later ones (the GPU comes to
them idle, after the compiles), added a 250 ms warm-up (``configs.TUNING_WARMUP_MS``), and then saw the first pass
after it run 10-20% slow at d=256 (a dip of the clock after ~250 ms of work), while the bench's sustained timing had
needed 1,000 ms before a first run measured what later ones did (v0.24). The grids' records mix many points and fresh
machines; this times one point's tuning many times in one process.

Per point and round: forget the tuned choices (``configs.clear_choices``, the compiled kernels stay), leave the GPU
idle for ``--idle`` seconds (a first call's compiles), set the warm-up (one of ``--warmups``, in turn, so that a drift
falls on all of them), call the forward once (it tunes) and read the tuner's timings of the forward's key: each
rematched candidate's first timing against the median of its rematch rounds (taken together, call by call), by the
candidate's position in the timing order, and the form chosen. A warm-up long enough puts every position's ratio
near 1.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/tuner/warmup_length.py \\
        --points 256:noncausal:2048 128:noncausal:4096 --warmups 0 250 1000 --rounds 4

Prediction (before any run): at d=256 non-causal 2k, positions 1-3 (the Gluon forms) 0.90-0.95 without a warm-up,
1.05-1.20 after 250 ms, 0.98-1.02 after 1,000 ms; d=128 non-causal 4k the same direction, half the size. The
persistent form chosen every time with 1,000 ms and the rematch, as call 4's records had it (1.02-1.07 ahead).
"""

import argparse
import collections
import os
import statistics
import sys
import time

import torch

import flashio
from flashio import configs, launch_plans
from flashio.bench import sweep

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "forward_short"))
from interleaved_forms import _point  # noqa: E402 - --points D:causal:N or D:noncausal:N


def first_against_rematch(timings, rounds: int) -> list[float]:
    """For the tuner's timings of one key (``configs.tuning_timings``: (option, times) in candidate order), each
    candidate's first timing over the median of its last ``rounds`` timings (the rematch's), in candidate order;
    None for candidates that were not rematched."""
    return [times[0] / statistics.median(times[-rounds:]) if len(times) > rounds else None for _, times in timings]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", nargs="+", type=_point, default=[(256, False, 2048)])
    parser.add_argument("--warmups", nargs="+", type=int, default=[0, 250, 1000], metavar="MS")
    parser.add_argument("--rounds", type=int, default=4, help="tunings per warm-up and point")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds of idle GPU before each tuning")
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    default_warmup = configs.TUNING_WARMUP_MS
    for d, causal, n in args.points:
        batch, heads = 16384 // n, 2048 // d
        torch.manual_seed(0)
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype) for _ in range(3))
        flashio.attention(q, k, v, is_causal=causal)  # compiles every candidate once
        ratios = collections.defaultdict(lambda: collections.defaultdict(list))  # warm-up -> position -> ratios
        chosen = collections.defaultdict(collections.Counter)
        labels = {}
        try:
            for _ in range(args.rounds):
                for warmup in args.warmups:
                    configs.clear_choices()
                    launch_plans.clear()
                    torch.cuda.synchronize()
                    time.sleep(args.idle)
                    configs.TUNING_WARMUP_MS = warmup
                    flashio.attention(q, k, v, is_causal=causal)
                    torch.cuda.synchronize()
                    key = next(key for key in configs.cached_choices() if key[0] == "forward")
                    timings = configs.tuning_timings(key)
                    for position, ratio in enumerate(first_against_rematch(timings, configs.REMATCH_ROUNDS)):
                        labels[position] = sweep.describe_choice(timings[position][0], "forward")
                        if ratio is not None:
                            ratios[warmup][position].append(ratio)
                    chosen[warmup][sweep.describe_choice(configs.cached_choices()[key], "forward")] += 1
        finally:
            configs.TUNING_WARMUP_MS = default_warmup
        print(f"\n## d={d} {'causal' if causal else 'non-causal'} N={n} {args.dtype}: {args.rounds} tunings per "
              f"warm-up, {args.idle:.0f} s idle before each")
        print("| warm-up ms | " + " | ".join(f"position {p}" for p in sorted(labels)) + " | chosen |")
        print("|---|" + "---|" * (len(labels) + 1))
        for warmup in args.warmups:
            cells = [f"{statistics.median(ratios[warmup][p]):.3f} ({len(ratios[warmup][p])})" if ratios[warmup][p]
                     else "-" for p in sorted(labels)]
            print(f"| {warmup} | " + " | ".join(cells) + " | " +
                  "; ".join(f"{label} x{count}" for label, count in chosen[warmup].most_common()) + " |")
        print("positions: " + "; ".join(f"{p}: {label}" for p, label in sorted(labels.items())))


if __name__ == "__main__":
    main()
