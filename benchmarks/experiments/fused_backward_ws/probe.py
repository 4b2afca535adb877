"""GPU probe for the warp-specialised fused backward (kernel.py here, not yet run on a GPU): its gradients
against flashio's two-kernel backward (analytic default tiles, FLASHIO_AUTOTUNE=0: nothing is timed, so the
probe spends its device time on the kernels compared), then TFLOP/s of the library's fused kernel and of
this one, in one process, bf16, batch*N = 16k tokens, hidden 2048 (the tuned backward's rates for the same
points are in benchmarks/PERFORMANCE.md). A hang means a barrier protocol error: run it under ``timeout``.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_ws/probe.py
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

import kernel  # noqa: E402
from fused_backward_probe import fused_backward  # noqa: E402  (benchmarks/fused_backward_probe.py)
from flashio import launchers  # noqa: E402

# (block_m, block_n, warps, stages, dq_chunks, dq_buffers): the MMA warps' tiles; the loader and the
# reducer are one warp each.
TILES = {64: [(64, 128, 8, 2, 1, 2)], 128: [(64, 128, 8, 2, 2, 2), (64, 128, 8, 2, 1, 2)]}


def fused_ws_backward(q, k, v, do, lse, delta, scale, causal, tiles):
    return fused_backward(q, k, v, do, lse, delta, scale, causal, tiles,
                          kernel.attention_backward_fused_ws_kernel, LOADER_REGS=24, REDUCER_REGS=24)


def main():
    torch.manual_seed(0)
    os.environ["FLASHIO_AUTOTUNE"] = "0"
    print("| d | causal | N | library fused | warp-specialised fused (max diff to the two-kernel backward) |")
    print("|---|---|---|---|---|---|")
    for d in (128, 64):
        for causal, n in ((False, 1024), (False, 16384), (True, 4096), (True, 16384)):
            batch, heads = 16384 // n, 2048 // d
            q, k, v, do = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
            scale = d ** -0.5
            out, lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal,
                                                   dropout_p=0.0, seed=0)
            delta = (do.float() * out.float()).sum(-1)
            flops = 2.5 * 4 * batch * heads * n * n * d / (2 if causal else 1)
            rate = lambda fn: flops / triton.testing.do_bench(fn, warmup=5, rep=40, return_mode="median") / 1e9
            reference = launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd", softmax_scale=scale,
                                                     causal=causal, dropout_p=0.0, seed=0, deterministic=True)
            library_tiles = (64, 64, 4, 2, 1, 1) if d == 64 else (64, 128, 8, 2, 2, 2)
            cells = [f"{rate(lambda: fused_backward(q, k, v, do, lse, delta, scale, causal, library_tiles)):.0f}"]
            for tiles in TILES[d]:
                run = lambda: fused_ws_backward(q, k, v, do, lse, delta, scale, causal, tiles)
                err = max(float((a.float() - r.float()).abs().max()) for a, r in zip(run(), reference))
                cells.append(f"{tiles}: {rate(run):.0f} ({err:.4f})")
            print(f"| {d} | {causal} | {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
