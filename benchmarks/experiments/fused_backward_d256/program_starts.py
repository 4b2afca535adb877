"""Where a program of d=256's role-split fused backward spends its time before its first product, and how long each
multiprocessor sits between two programs (v0.43, prepared; PERFORMANCE.md v0.43 "Next" item 2).

d=256's last backward miss, bf16 non-causal 1k (1.78-1.81x FA2 over five samples, 1.16x cuDNN), runs this kernel one
64-row key block per program: 2,048 programs, one resident per multiprocessor (217 KB of shared memory), 15.5 waves.
Each program starts cold: its K_j/V_j (64 KB) and first Q/dO loads have nothing to overlap, and its dK/dV stores and
the dQ reducers' last reduce-adds end it. How long those take has not been measured.

Per point: flashio's backward (``torch.autograd.grad`` on a retained graph, launch plans off so that every launch goes
through ``launch_plans.launch``) with the role-split kernel's launch given ``CLOCK_MARKS`` = 6 and an int64 buffer
(``kernels/gluon_clock.mark_program``; warpgroup A's marks: entry, K/V landed, first S^T product done, last block's
products done, dV stored; and the multiprocessor's index), after a 256 MB flush, the launch before the flush being the
same backward (warm). Over ``--launches`` launches, medians of: each phase's µs per program; the time from a
program's dV store to the next program's entry on the same multiprocessor (the later partitions' last work, the
program's exit and the next one's launch); the kernel's span and the share of the multiprocessors' time in each phase;
and the tail: the last multiprocessor's end after the median one's.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off FLASHIO_LAUNCH_PLANS=0 python3 \\
        benchmarks/experiments/fused_backward_d256/program_starts.py --points 256:noncausal:1024 256:noncausal:4096

Prediction (before any run): at non-causal 1k a program is ~60 µs (0.95 ms over 15.5 waves); entry to K/V landed
1.5-2.5 µs, K/V to the first S^T done 0.5-1 µs, dV stored to the next program's entry 1-2 µs: 5-8% of each
multiprocessor's time outside the products' loop, about what the point lacks (1%) several times over; the tail
(16 programs on some multiprocessors, 15 on the others) ~half a program, ~3% of the span. At 4k (4x the query
blocks per program) the same fixed costs are a quarter of the share.

Outcome (v0.43's call 5, run in v0.44's session; results/2026-12-02_h200_v0.43/call5_program_starts.txt): at
non-causal 1k 3.04 µs to K/V landed and 1.18 more to the first S^T (4.2 µs: above the prediction), 1.89 between
programs, a tail of 32.8 µs (4.0% of the span); 18% of the multiprocessors' time outside the block loop. With
``--host-descriptors 2`` (v0.44, K and V through descriptors made on the host) K/V land 1.57 µs after entry and the
first S^T is done at 3.07; with 4 the block loop runs 25% longer (PERFORMANCE.md v0.44).
"""

import argparse
import collections
import math
import os
import statistics
import sys
from dataclasses import replace

import torch

import flashio
from flashio import configs, launch_plans
from flashio.kernels import backward_gluon_split

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "forward_short"))
from interleaved_forms import _point  # noqa: E402 - --points D:causal:N or D:noncausal:N

FLUSH_BYTES = 256 << 20  # as flashio.bench.sweep._CudaEventTimer
MARKS = 6  # entry, K/V landed, first S^T done, last products done, dV stored (ns), multiprocessor index
PHASES = ("entry to K/V landed", "K/V to first S^T done", "first S^T to last products", "last products to dV stored")


def program_phases(buffer: torch.Tensor) -> dict:
    """One launch's marks (programs, MARKS) -> {"phases": [per-phase µs lists], "gaps": µs from a program's dV store
    to the next program's entry on its multiprocessor, "span": µs from the first entry to the last store, "ends": each
    multiprocessor's last store, µs after the first entry, "busy": per-phase µs summed over programs}."""
    marks = buffer.cpu().tolist()
    t0 = min(m[0] for m in marks)
    phases = [[(m[i + 1] - m[i]) / 1e3 for m in marks] for i in range(4)]
    by_sm = collections.defaultdict(list)
    for m in marks:
        by_sm[m[5]].append(m)
    gaps, ends = [], []
    for programs in by_sm.values():
        programs.sort(key=lambda m: m[0])
        gaps += [(b[0] - a[4]) / 1e3 for a, b in zip(programs, programs[1:])]
        ends.append((programs[-1][4] - t0) / 1e3)
    return {"phases": phases, "gaps": gaps, "span": (max(m[4] for m in marks) - t0) / 1e3, "ends": ends,
            "busy": [sum(p) for p in phases], "multiprocessors": len(by_sm)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", nargs="+", type=_point, default=[(256, False, 1024)])
    parser.add_argument("--launches", type=int, default=20)
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    parser.add_argument("--host-descriptors", type=int, choices=(0, 2, 4), default=None,
                        help="the tuned tile with this many of K, V, Q, dO through descriptors made on the host (v0.44)")
    args = parser.parse_args()
    if args.host_descriptors is not None:
        tuned = configs.BACKWARD_FUSED_CANDIDATES[256]
        configs.BACKWARD_FUSED_CANDIDATES[256] = (replace(tuned[0], host_descriptors=args.host_descriptors),
                                                  *tuned[1:])
    if launch_plans.enabled(torch.empty(0, device="cuda")):
        raise SystemExit("set FLASHIO_LAUNCH_PLANS=0: a replayed plan would not pass through the clock's launch patch")
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    launch = launch_plans.launch
    for d, causal, n in args.points:
        batch, heads = 16384 // n, 2048 // d
        torch.manual_seed(0)
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype).requires_grad_(True) for _ in range(3))
        dout = torch.randn(batch, heads, n, d, device="cuda", dtype=dtype)
        out = flashio.attention(q, k, v, is_causal=causal)
        backward = lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)
        backward()  # the first call tunes
        buffers, seen = [], {}

        def clocked(kernel, grid, *arguments, **constants):
            if kernel is backward_gluon_split.attention_backward_fused_split_kernel and buffers:
                seen["grid"] = grid
                constants = dict(constants, program_clock=buffers[-1], CLOCK_MARKS=MARKS)
            return launch(kernel, grid, *arguments, **constants)

        launch_plans.launch = clocked
        try:
            programs = (n // 64) * heads * batch  # the tuned tile's 64 key rows a program
            buffers.append(torch.full((programs, MARKS), -1, dtype=torch.int64, device="cuda"))
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
        label = f"d={d} {'causal' if causal else 'non-causal'} N={n} {args.dtype}" + \
            (f", {args.host_descriptors} host descriptors" if args.host_descriptors is not None else "")
        if "grid" not in seen:
            print(f"{label}: the tuned backward is not the role-split kernel; nothing to measure")
            continue
        if math.prod(seen["grid"]) != programs:
            raise SystemExit(f"{label}: grid {seen['grid']} is not {programs} programs of 64 key rows")
        results = [program_phases(buffer) for buffer in runs]
        median = lambda values: statistics.median(values) if values else float("nan")
        span = median([r["span"] for r in results])
        sm_time = median([r["span"] * r["multiprocessors"] for r in results])
        print(f"\n## {label}: {programs} programs on {results[0]['multiprocessors']} multiprocessors, "
              f"span {span:.1f} µs (median of {len(results)} launches)")
        print("| phase | µs per program, median (p10 / p90) | share of the multiprocessors' time |")
        print("|---|---|---|")
        for i, name in enumerate(PHASES):
            values = [v for r in results for v in r["phases"][i]]
            values.sort()
            share = median([r["busy"][i] / (r["span"] * r["multiprocessors"]) for r in results])
            print(f"| {name} | {median(values):.2f} ({values[len(values) // 10]:.2f} / "
                  f"{values[len(values) * 9 // 10]:.2f}) | {100 * share:.1f}% |")
        gaps = sorted(v for r in results for v in r["gaps"])
        gap_share = median([sum(r["gaps"]) / (r["span"] * r["multiprocessors"]) for r in results])
        print(f"| dV stored to the next program's entry (same multiprocessor) | {median(gaps):.2f} "
              f"({gaps[len(gaps) // 10]:.2f} / {gaps[len(gaps) * 9 // 10]:.2f}) | {100 * gap_share:.1f}% |")
        tail = median([max(r["ends"]) - statistics.median(r["ends"]) for r in results])
        print(f"- the tail: the last multiprocessor's end {tail:.1f} µs after the median one's "
              f"({100 * tail / span:.1f}% of the span); multiprocessor time in all {sm_time / 1e3:.2f} ms")


if __name__ == "__main__":
    main()
