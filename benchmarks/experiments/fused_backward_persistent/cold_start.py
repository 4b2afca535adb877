"""The backward's time after itself and after other kernels (v0.36; the forward's cold start, round_times.py, asked).

v0.35 found the persistent forwards ~4-12 µs slower after another kernel binary than after themselves (the kernel's
code state, ``forward_short/call_gap.py``), and v0.36's ``forward_short/round_times.py`` put that time in their first
tiles. The bench's backward (forward+backward minus forward, ``flashio.bench.sweep``) always runs right after
flashio's own forward, another binary; so does a training step's. How much does the backward lose to that?

Per point: flashio's backward alone (``torch.autograd.grad`` on a retained graph: its kernels only) timed with CUDA
events after a 256 MB flush, the kernel before the flush being, in turn: the same backward ("itself"), flashio's
forward at the point (the bench's and a training step's case), SDPA's FA2 backward, SDPA's cuDNN backward. The
median over passes, in µs, and each condition's difference to "itself"; also the forward+backward the bench times.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/cold_start.py \\
        --points 128:noncausal:1024 128:causal:1024 --passes 40
"""

import argparse
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashio

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "forward_short"))
from interleaved_forms import _point  # noqa: E402 - --points D:causal:N or D:noncausal:N

FLUSH_BYTES = 256 << 20  # as flashio.bench.sweep._CudaEventTimer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", nargs="+", type=_point, required=True)
    parser.add_argument("--passes", type=int, default=40)
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    print("| d | causal | N | backward after itself µs | after flashio's forward | after FA2's backward | "
          "after cuDNN's backward | forward+backward µs | backward FLOP rate after itself / after the forward |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d, causal, n in args.points:
        batch, heads = 16384 // n, 2048 // d
        torch.manual_seed(0)
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype).requires_grad_(True) for _ in range(3))
        dout = torch.randn(batch, heads, n, d, device="cuda", dtype=dtype)
        out = flashio.attention(q, k, v, is_causal=causal)
        sdpa_outs = {}
        for name, backend in (("FA2", SDPBackend.FLASH_ATTENTION), ("cuDNN", SDPBackend.CUDNN_ATTENTION)):
            with sdpa_kernel(backend):
                sdpa_outs[name] = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        calls = {
            "itself": lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True),
            "forward": lambda: flashio.attention(q, k, v, is_causal=causal),
            "FA2": lambda: torch.autograd.grad(sdpa_outs["FA2"], (q, k, v), dout, retain_graph=True),
            "cuDNN": lambda: torch.autograd.grad(sdpa_outs["cuDNN"], (q, k, v), dout, retain_graph=True),
        }

        def forward_backward():
            torch.autograd.grad(flashio.attention(q, k, v, is_causal=causal), (q, k, v), dout)

        for call in (*calls.values(), forward_backward):
            call()
        torch.cuda.synchronize()
        events = {name: [] for name in (*calls, "forward+backward")}
        for _ in range(args.passes):
            for name, before in (*calls.items(), ("forward+backward", calls["FA2"])):
                before()
                flush.zero_()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                forward_backward() if name == "forward+backward" else calls["itself"]()
                end.record()
                events[name].append((start, end))
        torch.cuda.synchronize()
        us = {name: statistics.median(s.elapsed_time(e) * 1e3 for s, e in pairs) for name, pairs in events.items()}
        flops = 2.5 * 4 * batch * heads * n * n * d / (2 if causal else 1)
        base = us["itself"]
        cells = [f"{base:.1f}"] + [f"{us[name]:.1f} ({us[name] - base:+.1f})" for name in ("forward", "FA2", "cuDNN")]
        print(f"| {d} | {causal} | {n} | " + " | ".join(cells) + f" | {us['forward+backward']:.1f} | "
              f"{flops / base / 1e6:.0f} / {flops / us['forward'] / 1e6:.0f} |", flush=True)


if __name__ == "__main__":
    main()
