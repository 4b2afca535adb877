"""Where does an eager training step's host time go? (v0.47 call 6, ``step_sync.py``: at d=128 bf16 causal 1k a
forward + backward step took 720 µs of host time, its forward 98 and a backward on a saved forward 246; 375 µs of a
step belong to neither.)

With the GPU asleep (so that nothing waits for it), PyTorch's profiler records the host side of 10 steps, of 10
forwards and of 10 backwards on one saved forward (``retain_graph``): per operator and CUDA runtime call its self
host time (``key_averages``, sorted by self CPU time), and the caching allocator's counters before and after each
(segments made with cudaMalloc, frees). A call that the step makes and the two others do not, or a runtime call that
costs hundreds of µs (cudaMalloc / cudaFree, an event or stream synchronisation), shows in the step's table alone.

    PYTHONPATH=src python3 benchmarks/experiments/host_overhead/step_profile.py

Prediction (v0.47, written before any run): the step's table holds what the two others hold plus the autograd graph's
own costs (the function's context, saving and releasing tensors, zeros for LSE's unused gradient), tens of µs; if
375 µs show, they are in the caching allocator (a segment made and freed per step: the step's float32 dQ
accumulator and outputs, ~0.4 GB, are freed at its end, while a backward on a saved forward keeps the forward's).

Outcome (v0.48 call 1, H200, results/2026-12-03_h200_v0.48/call1/step_profile.txt): no segment made or freed in any of
the three (the allocator guess: wrong). The profiler slows everything (a step 1,314 µs under it); within a step the
forward's function costs 198 µs of self time against 105 alone, the backward's 408 against 370, launches 15.6 µs each
against 10.6, and a step makes 7 tensors (``empty_strided``, 7 µs each). The same call's ``step_sync.py`` put the step's
excess over its forward and backward at 118 µs (v0.47: 375), on another machine.
"""

import os
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(__file__))
from step_sync import step_calls  # noqa: E402 - this folder's three step calls

ALLOCATOR_COUNTERS = ("segment.all.allocated", "segment.all.freed", "num_alloc_retries", "num_device_alloc",
                      "num_device_free")


def allocator_counters() -> dict:
    stats = torch.cuda.memory_stats()
    return {name: stats.get(name, 0) for name in ALLOCATOR_COUNTERS}


def profile_calls(name: str, fn, calls: int = 10, sleep_cycles: int = 100_000_000) -> None:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    before = allocator_counters()
    torch.cuda._sleep(sleep_cycles)  # the GPU busy for ~50 ms: the host never waits for it below
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        host_us = (time.perf_counter() - start) / calls * 1e6
    torch.cuda.synchronize()
    after = allocator_counters()
    print(f"\n## {name}: {host_us:.1f} µs of host time a call under the profiler, {calls} calls")
    print("allocator counters, after - before:", {k: after[k] - before[k] for k in ALLOCATOR_COUNTERS})
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=22, max_name_column_width=60))


def main() -> None:
    q, k, v = (torch.randn(16, 16, 1024, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    dout = torch.randn_like(q)
    print("d=128 bf16 causal 1k, (B, H, N, D) = (16, 16, 1024, 128)")
    for name, fn in step_calls(q, k, v, dout).items():
        profile_calls(name, fn)


if __name__ == "__main__":
    main()
