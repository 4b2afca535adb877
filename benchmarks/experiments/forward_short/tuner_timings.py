"""GPU probe: what the forward tuner measured for each candidate, and what the chosen form then runs at.

Why (benchmarks/PERFORMANCE.md, v0.14): at d=64 causal 4k / 8k the v0.13 grid's tuned forward ran at 356 /
415 TFLOP/s (bf16) and the forward probe's "flashio (tuned)" column at 359 / 362, while the persistent Gluon
forms, forced one at a time in the same probe, ran at 385-392 / 416-448. Either the tuner's one timing per
candidate misjudged them, or the chosen form runs slower after the choice than while it was timed. This
prints, per point, every candidate's tuner timings (ms; each candidate's in the order taken, candidates
fastest median first: ``bench.sweep.describe_timings``), the choice, and the chosen form's rate timed afterwards through ``launchers.attention_forward`` as the bench times
it. (Run 1 wrapped ``configs.choose_config`` to record the timings, before the tuner kept them itself, and
printed them in the order taken with TFLOP/s beside each.)

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/tuner_timings.py

Run 1 (v0.14, H200, with the 3% close-call margin of v0.13; results/2026-11-30_h200_v0.14_probes/
tuner_timings.txt): in this process the tuner chose the persistent Gluon form at d=64 causal 4k / 8k (406 /
441 TFLOP/s in its timing, 403 / 431 afterwards), ahead of the Triton 64x64 kernel (382 / 394); the d=64 grid
run minutes later on another machine chose the 64x64 kernel at bf16 non-causal 2k-4k and causal 4k (380 / 397
/ 377 TFLOP/s afterwards). The choice made is run at the rate it was timed at; the timings themselves move
between processes by more than the candidates differ. The v0.14 grid, which records every timing
(``BenchResult.tuning``), shows why: over the 259 candidates timed three times there (forward and backward
kernels), one candidate's three consecutive ~40 ms timings spread by a median of 3.1% and up to 16% (bf16
d=64 non-causal 4k forward, Gluon persistent 1.263 / 1.418 / 1.347 ms); no timing position is the slow one
more often than chance (the second is the slowest in 92 of 259).
"""

import torch
import triton

from flashio import configs, launch_plans, launchers
from flashio.bench.sweep import describe_choice, describe_timings

POINTS = ((64, True, 1024), (64, True, 4096), (64, True, 8192), (128, False, 1024), (128, False, 16384))


def main():
    torch.manual_seed(0)
    rows = []
    for d, causal, n in POINTS:
        batch, heads = 16384 // n, 2048 // d
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        flops = 4 * batch * heads * n * n * d / (2 if causal else 1)
        run = lambda: launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=d ** -0.5, causal=causal,
                                                  dropout_p=0.0, seed=0)[0]
        configs.clear_choices()
        launch_plans.clear()
        run()
        torch.cuda.synchronize()
        key, chosen = next((key, choice) for key, choice in configs.cached_choices().items() if key[0] == "forward")
        after = flops / triton.testing.do_bench(run, warmup=5, rep=40, return_mode="median") / 1e9
        print(f"\nd={d} causal={causal} N={n}: chosen {describe_choice(chosen, 'forward')}, "
              f"{after:.0f} TFLOP/s timed after the choice")
        print("    " + describe_timings(key).replace(", ", "\n    "))
        rows.append((d, causal, n, describe_choice(chosen, "forward"), after))
    print("\n| d | causal | N | chosen | TFLOP/s after |\n|---|---|---|---|---|")
    for d, causal, n, label, after in rows:
        print(f"| {d} | {causal} | {n} | {label} | {after:.0f} |")


if __name__ == "__main__":
    main()
