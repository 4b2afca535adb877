"""Is a short flashio call bound by its host-side cost? Time N back-to-back calls of one forward two ways: the
host's time to enqueue them (perf_counter around the loop, no synchronisation inside) and the GPU's time for
them (CUDA events around the same loop). When the host's time per call reaches the GPU's, the queue runs dry
and a back-to-back timing (``flashio bench --timing sustained``) measures the host, not the kernel.

    PYTHONPATH=src python3 benchmarks/experiments/host_overhead/enqueue_rate.py --head-dim 64 --dtype fp16 --causal

Why (v0.26): a sustained sample of the d=64 fp16 causal 1k forward gave flashio 0.296 ms per call, 30% above what
its tuner had timed for the same kernel in that run, and 0.77x cuDNN. The shortest calls of the grid are where a
Python-side cost would show first.
Outcome (v0.26 call 7, H200, results/2026-12-01_h200_v0.26_probes/enqueue_rate_d64_fp16.txt), µs per call, host
/ GPU: causal flashio 78.8 / 235.8, cuDNN 58.9 / 200.0, FA2 54.3 / 331.3; non-causal flashio 69.3 / 347.7, cuDNN
85.3 / 320.1, FA2 77.8 / 502.1. Every system enqueues in a third of its GPU time or less: the host does not
bound these calls, and the 0.296 ms is not explained by it.
"""

import argparse
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashio


def measure(fn, calls: int) -> tuple[float, float]:
    """(host µs per call to enqueue, GPU µs per call) over ``calls`` back-to-back calls, after a warm-up."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    host_start = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - host_start) / calls * 1e6
    end.record()
    torch.cuda.synchronize()
    return host, start.elapsed_time(end) / calls * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--seqlen", type=int, default=1024)
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="fp16")
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    batch, heads = 16384 // args.seqlen, 2048 // args.head_dim  # the grid
    q, k, v = (torch.randn(batch, args.seqlen, heads, args.head_dim, device="cuda", dtype=dtype) for _ in range(3))
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    systems = {"flashio": lambda: flashio.flash_attn_func(q, k, v, causal=args.causal)}
    for name, backend in (("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION), ("sdpa_flash", SDPBackend.FLASH_ATTENTION)):
        def call(backend=backend):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=args.causal)
        systems[name] = call
    print(f"d={args.head_dim} {args.dtype} N={args.seqlen} causal={args.causal}, {args.calls} calls back to back")
    print("| system | host µs per call (enqueue) | GPU µs per call | host ÷ GPU |")
    print("|---|---|---|---|")
    for name, fn in systems.items():
        host, gpu = measure(fn, args.calls)
        print(f"| {name} | {host:.1f} | {gpu:.1f} | {host / gpu:.2f} |", flush=True)


if __name__ == "__main__":
    main()
