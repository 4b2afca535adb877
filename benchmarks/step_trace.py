"""What bounds a short training step: a GPU trace of flashio's and cuDNN's forward+backward loop.

v0.11 left a question open (benchmarks/PERFORMANCE.md, v0.11): at bf16 d=128 causal N=1k, launch plans
halved flashio's host time per step (1221 -> 584 µs of queued launches) but the bench's backward rate did not
move. This runs the bench's step (forward, backward with a fixed dO, gradients set to None) under
torch.profiler after warm-up (tuning, launch plans recorded) and prints, per system: wall time per step, GPU
busy time per step (the union of kernel intervals), the GPU span from the first kernel to the last, the gaps
between kernels, and each kernel's mean duration per step -- so the memset and conversion of flashio's dQ
accumulator and the idle time the host leaves are read off directly.

    PYTHONPATH=src python3 benchmarks/step_trace.py                       # bf16, d=128, N=1k, causal
    PYTHONPATH=src python3 benchmarks/step_trace.py --head-dim 64 --seqlen 2048 --no-causal --dtype fp16
    PYTHONPATH=src python3 benchmarks/step_trace.py --head-dim 64 --systems flashio cuDNN FA2
    PYTHONPATH=src python3 benchmarks/step_trace.py --no-causal --hold    # the GPU's own gaps between operations

Not part of the test suite (needs a CUDA GPU). Wall times under the profiler include its own overhead.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict

import torch
import torch.nn.functional as F
from torch.autograd import DeviceType
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

import flashio


def kernel_intervals(prof) -> list[tuple[str, float, float]]:
    """(name, start µs, end µs) of every GPU kernel and memory operation in the trace, in start order."""
    spans = [(event.name, event.time_range.start, event.time_range.end) for event in prof.events()
             if event.device_type == DeviceType.CUDA]
    return sorted(spans, key=lambda span: span[1])


def busy_time(spans) -> float:
    """Length of the union of the intervals (overlapping kernels counted once)."""
    total, current_start, current_end = 0.0, None, None
    for _, start, end in spans:
        if current_end is None or start > current_end:
            if current_end is not None:
                total += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    if current_end is not None:
        total += current_end - current_start
    return total


HOLD_CYCLES = 4_000_000  # ~2 ms of torch.cuda._sleep: longer than a step's host path under the profiler


def step_timeline(spans, steps: int) -> list[tuple[str, float, float]]:
    """With ``--hold`` (each step queued behind a ``torch.cuda._sleep``): per position in a step, (operation, median
    µs from the end of the operation before it -- the sleep for the first -- to its start, median µs it ran). The
    sleep's kernel name contains "sleep" or "spin"."""
    holds = [i for i, (kernel, _, _) in enumerate(spans) if "sleep" in kernel.lower() or "spin" in kernel.lower()]
    if len(holds) != steps:
        return []
    per_step = [spans[first:last] for first, last in zip(holds, holds[1:] + [len(spans)])]
    if len({len(ops) for ops in per_step}) != 1:
        return []
    timeline = []
    for position in range(1, len(per_step[0])):
        gaps = [ops[position][1] - ops[position - 1][2] for ops in per_step]
        durations = [ops[position][2] - ops[position][1] for ops in per_step]
        timeline.append((per_step[0][position][0], statistics.median(gaps), statistics.median(durations)))
    return timeline


def trace(name: str, step, leaves, steps: int, hold: bool = False) -> None:
    for _ in range(30):  # tuning, compilation, launch plans: all before the trace
        step()
        for leaf in leaves:
            leaf.grad = None
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        start = time.perf_counter()
        for _ in range(steps):
            if hold:  # the GPU waits here while the host queues the step: the gaps left are the GPU's own
                torch.cuda._sleep(HOLD_CYCLES)
            step()
            for leaf in leaves:
                leaf.grad = None
        torch.cuda.synchronize()
        wall = time.perf_counter() - start
    spans = kernel_intervals(prof)
    if not spans:
        print(f"{name}: no GPU activity in the trace (profiler without CUPTI?)")
        return
    if hold:
        timeline = step_timeline(spans, steps)
        if not timeline:
            print(f"{name}: the steps' operations differ from step to step; no timeline")
            return
        print(f"{name}: one step queued behind a hold, median over {steps} steps: gap before (µs), duration (µs)")
        for kernel, gap, duration in timeline:
            print(f"    {gap:7.1f} {duration:8.1f}  {kernel[:100]}")
        print(f"    {sum(gap for _, gap, _ in timeline):7.1f} {sum(d for _, _, d in timeline):8.1f}  (sums)")
        return
    busy = busy_time(spans)
    span = spans[-1][2] - spans[0][1]
    per_kernel = defaultdict(float)
    for kernel, start, end in spans:
        per_kernel[kernel] += end - start
    print(f"{name}: wall {wall / steps * 1e6:7.1f} µs/step (profiled), GPU busy {busy / steps:7.1f} µs/step, "
          f"GPU span {span / steps:7.1f} µs/step, idle within the span {(span - busy) / steps:6.1f} µs/step, "
          f"{len(spans) / steps:.1f} GPU operations/step")
    for kernel, total in sorted(per_kernel.items(), key=lambda item: -item[1]):
        print(f"    {total / steps:8.1f} µs/step  {kernel[:110]}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--seqlen", type=int, default=1024)
    parser.add_argument("--no-causal", action="store_true")
    parser.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--hold", action="store_true",
                        help="queue each step behind a ~2 ms GPU sleep and print the step's operations in order with "
                             "the GPU's gaps between them (v0.40)")
    parser.add_argument("--systems", nargs="+", choices=("flashio", "cuDNN", "FA2"), default=("flashio", "cuDNN"),
                        help="whose steps to trace (FA2: SDPA's FLASH_ATTENTION backend; v0.40)")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("step_trace: needs a CUDA GPU", file=sys.stderr)
        return 2
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    d, n, causal = args.head_dim, args.seqlen, not args.no_causal
    batch, heads = 16384 // n, 2048 // d  # the bench's shapes: 16k tokens, hidden 2048
    q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype, requires_grad=True) for _ in range(3))
    dout = torch.randn_like(q)
    print(f"{args.dtype} d={d} N={n} causal={causal} batch={batch} heads={heads}, {args.steps} steps traced")

    def flashio_step():
        flashio.attention(q, k, v, is_causal=causal).backward(dout)

    def sdpa_step(backend):
        def step():
            with sdpa_kernel(backend):
                F.scaled_dot_product_attention(q, k, v, is_causal=causal).backward(dout)
        return step

    steps = {"flashio": flashio_step, "cuDNN": sdpa_step(SDPBackend.CUDNN_ATTENTION),
             "FA2": sdpa_step(SDPBackend.FLASH_ATTENTION)}
    for name in args.systems:
        trace(name, steps[name], (q, k, v), args.steps, hold=args.hold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
