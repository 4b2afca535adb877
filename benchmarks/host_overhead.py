"""Host (Python) time per call against GPU time per call, for the short-sequence points of the issue-5 grid.

When a call's GPU work is shorter than the Python that launches it, the GPU waits on the host and a timing
with CUDA events measures the host. This prints, per system and shape: the host time per call (launches
queued without synchronising) and the GPU time per call (triton.testing.do_bench).

    PYTHONPATH=src python3 benchmarks/host_overhead.py             # forward
    PYTHONPATH=src python3 benchmarks/host_overhead.py backward    # forward + backward, and a profile of
                                                                   # flashio's host time (cProfile, top 25)

Not part of the test suite (needs a CUDA GPU).
"""

from __future__ import annotations

import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

import flashio


def host_ms(fn, calls: int = 200) -> float:
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    queued = time.perf_counter() - start  # launches only; the GPU may still be busy
    torch.cuda.synchronize()
    return queued / calls * 1e3


def main() -> int:
    if sys.argv[1:] == ["backward"]:
        return main_backward()
    for dtype in (torch.bfloat16, torch.float16):
        for causal in (True, False):
            n, d = 1024, 128
            batch, heads = 16384 // n, 2048 // d
            q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype) for _ in range(3))
            flops = 4.0 * batch * heads * n * n * d / (2 if causal else 1)

            def cudnn():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

            for name, fn in (("flashio", lambda: flashio.attention(q, k, v, is_causal=causal)), ("cudnn", cudnn)):
                gpu = do_bench(fn, warmup=10, rep=100, return_mode="median")
                host = host_ms(fn)
                print(f"{str(dtype)[6:]} d={d} N={n} causal={causal} {name:8s} forward: host {host * 1e3:6.0f} us/call, "
                      f"timed {gpu * 1e3:6.0f} us/call = {flops / (gpu * 1e-3) / 1e12:4.0f} TFLOP/s", flush=True)
    return 0


def main_backward() -> int:
    import cProfile
    import pstats

    for dtype in (torch.bfloat16, torch.float16):
        for d in (64, 128):
            n, causal = 1024, True
            batch, heads = 16384 // n, 2048 // d
            q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype, requires_grad=True)
                       for _ in range(3))
            dout = torch.randn_like(q)
            flops = 2.5 * 4.0 * batch * heads * n * n * d / 2

            def cudnn():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

            for name, forward in (("flashio", lambda: flashio.attention(q, k, v, is_causal=causal)),
                                  ("cudnn", cudnn)):
                step = lambda: forward().backward(dout)
                gpu = do_bench(step, warmup=10, rep=100, return_mode="median")
                gpu_forward = do_bench(forward, warmup=10, rep=100, return_mode="median")
                host = host_ms(step)
                host_forward = host_ms(forward)
                print(f"{str(dtype)[6:]} d={d} N={n} causal {name:8s} forward+backward: host {host * 1e3:6.0f} "
                      f"us/call (forward {host_forward * 1e3:4.0f}), timed {gpu * 1e3:6.0f} us/call (forward "
                      f"{gpu_forward * 1e3:4.0f}): backward {flops / ((gpu - gpu_forward) * 1e-3) / 1e12:4.0f} "
                      "TFLOP/s", flush=True)
                if name == "flashio" and d == 128 and dtype == torch.float16:
                    profile = cProfile.Profile()
                    profile.enable()
                    for _ in range(50):
                        step()
                    profile.disable()
                    torch.cuda.synchronize()
                    pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
