"""Why v0.30's cross-head causal lists made some processes slow (v0.31, PERFORMANCE.md "Next" item 3): in 3 of 4
fresh processes the tuner timed both listed forward forms 1.7-2.2x slower than the round-robin persistent form at
d=128 fp16 causal 1k, at every timing, and in none with the within-head lists. Is the slowness tied to the inputs'
addresses (which heads' data the programs read together), to the process, or to the first calls?

Run with v0.30's rule restored (``patch -p1 < results/2026-12-01_h200_v0.30_probes/cross_head_pairs.patch``), each
time in a fresh process:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/cross_head_slowness.py

After the first call (its tuner timings printed), the forward's choice is set in turn to each listed (balanced)
candidate and to the round-robin persistent one, and each is timed (``do_bench``, median) on the first call's
inputs, on fresh copies (other addresses; the first inputs kept alive), and on the first inputs again.
"""

import argparse

import torch
import triton

import flashio
from flashio import configs, launch_plans
from flashio.bench.sweep import describe_choice, describe_timings


def _time(q, k, v) -> float:
    return triton.testing.do_bench(lambda: flashio.attention(q, k, v, is_causal=True), warmup=25, rep=100,
                                   return_mode="median")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="fp16")
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--seqlen", type=int, default=1024)
    args = parser.parse_args()
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    heads, batch = 2048 // args.head_dim, 16384 // args.seqlen
    shape = (batch, heads, args.seqlen, args.head_dim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=dtype) for _ in range(3))
    flashio.attention(q, k, v, is_causal=True)
    torch.cuda.synchronize()
    key = next(key for key in configs.cached_choices() if key[0] == "forward")
    print(f"tuner: {describe_timings(key)}")
    print("addresses (MiB offset of q, k, v): " + ", ".join(f"{t.data_ptr() / 2**20:.0f}" for t in (q, k, v)))
    fresh = [t.clone() for t in (q, k, v)]
    print("fresh copies: " + ", ".join(f"{t.data_ptr() / 2**20:.0f}" for t in fresh))
    candidates = [option for option, _ in configs.tuning_timings(key)
                  if getattr(option, "balanced_schedule", False) or
                  (getattr(option, "persistent", False) and getattr(option, "path", "") == "gluon")]
    for option in candidates:
        configs._CHOICES[key] = option  # the probe's override of the tuned choice
        launch_plans.clear()
        times = [_time(q, k, v), _time(*fresh), _time(q, k, v)]
        print(f"{describe_choice(option, 'forward')}: first inputs {times[0]:.4f} ms, fresh copies {times[1]:.4f}, "
              f"first inputs again {times[2]:.4f}", flush=True)


if __name__ == "__main__":
    main()
