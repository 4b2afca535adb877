"""The tuner's timings of the forward's candidates at a first call, in a fresh process (v0.30). Why: the v0.30
interleaved grid's fp16 d=128 causal 1k first call timed both listed (balanced) candidates at ~0.475 ms while the
others took 0.19-0.24 ms (the same kernels run at ~0.19 ms in the probes), so the tuner chose the round-robin
persistent form (0.80 of cuDNN there). The library's forward then paired its causal blocks across two heads at
N <= 1k (results/2026-12-01_h200_v0.30_probes/cross_head_pairs.patch; calls 6 and 7 ran this script on that tree,
with a ``--within-head`` switch for the pairs within a head, the library's lists again since).

    PYTHONPATH=src python3 benchmarks/experiments/forward_short/tuner_listed.py --dtype fp16 [--cross-head] \
        [--no-switches]

``--cross-head``: the causal forward's lists from ``tile_orders.cross_head_pairs`` (pairs across two heads at any
length). ``--no-switches``: launch_plans.BUILD_LAUNCHERS_AHEAD and COMPILE_BACKWARD_WITH_FORWARD off (v0.29's
first call). Outcome (H200, d=128 causal 1k, each line a fresh process with empty caches): with cross-head lists
the listed candidates timed 1.4-2.5x slow in 3 of 4 processes (0.2484 of 0.1838 / 0.1843 in a rematch; 0.3563;
0.3346 and 0.3689; 0.2648 and 0.2849 ms), switches on or off; with within-head lists 0.1828-0.1906 ms in 3 of 3.

v0.31 (the tuner's second look at first timings past 1.3x the fastest, configs.SLOW_WINDOW): with the library rule
of v0.30 restored (cross_head_pairs.patch; the script without ``--cross-head``), 4 fresh processes: in 3 the listed
forms were slow at both timings (0.32-0.42 ms), in 1 a listed form's 0.253 ms first timing came back at 0.184 and
went to the rematch (results/2026-12-01_h200_v0.31_probes/call2_tuner_listed.txt). Why (call 6,
cross_head_slowness.py): the same forms run at 0.184-0.212 ms through launch plans in every process; the rule's
launcher built its pair list on every call (129 us of Python), and the tuner's timings run the launcher on every
call, so (by inference) those timings were the host's. ``--cross-head`` timed the
listed forms at 1.6-3.1 ms in v0.31 call 1: the probe context then built a new tile table on every launcher call,
which the tuner's timings pay (fixed in tile_orders._balanced_lists; with the tables kept, call 2: 0.185-0.19 ms
but one 0.349 ms rematch timing).
"""

import argparse
import contextlib
import os
import sys

import torch

import flashio
from flashio import configs, launch_plans
from flashio.bench.sweep import describe_timings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tile_orders import cross_head_pairs  # noqa: E402 - benchmarks/experiments/tile_orders.py


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="fp16")
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--seqlen", type=int, default=1024)
    parser.add_argument("--cross-head", action="store_true")
    parser.add_argument("--no-switches", action="store_true")
    args = parser.parse_args()
    if args.no_switches:
        launch_plans.BUILD_LAUNCHERS_AHEAD = launch_plans.COMPILE_BACKWARD_WITH_FORWARD = False
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    heads, batch = 2048 // args.head_dim, 16384 // args.seqlen
    q, k, v = (torch.randn(batch, heads, args.seqlen, args.head_dim, device="cuda", dtype=dtype,
                           requires_grad=True) for _ in range(3))
    with cross_head_pairs() if args.cross_head else contextlib.nullcontext():
        flashio.attention(q, k, v, is_causal=True).sum().backward()
    torch.cuda.synchronize()
    for key in configs.cached_choices():
        if key[0] == "forward":
            print(f"{args.dtype} d={args.head_dim} N={args.seqlen} switches={not args.no_switches} "
                  f"cross-head={args.cross_head} first call: {describe_timings(key)}", flush=True)


if __name__ == "__main__":
    main()
