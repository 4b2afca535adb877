"""The fused five-product backward (kernels/backward_gluon.py) against flashio's tuned backward, in one
process on a Hopper GPU: for each (d, causal, N) point, TFLOP/s of the tuned backward (whatever strategy the
tuner picks), then of the fused kernel forced to each tile configuration, with its max difference to the
tuned backward's gradients.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/fused_backward_probe.py          # d=64 and 128
    PROBE_D=128 PYTHONPATH=src python3 benchmarks/fused_backward_probe.py                        # one d, 2 points

The fused kernel is timed with D (= rowsum(dO o O)) computed once outside the timing, the tuned backward
with its preprocess kernel inside; both include the float32 dQ accumulator's zeroing and conversion. Tile
tuples: (block_m, block_n, warps, stages, dq_chunks, dq_buffers).
"""

import os

import torch
import triton

from flashio import launchers
from flashio.kernels import backward_gluon

CONFIGS = {64: [(64, 128, 8, 2, 1, 2), (64, 64, 4, 2, 1, 2), (64, 64, 4, 2, 1, 1), (64, 64, 4, 3, 1, 1)],
           128: [(64, 128, 8, 2, 2, 2), (64, 64, 4, 1, 2, 1)]}


def fused_backward(q, k, v, do, lse, delta, scale, causal, tiles, kernel=None, **constants):
    """(dq, dk, dv) from a fused kernel with these tiles: the library's, or ``kernel`` (same arguments, grid
    and constexprs, plus ``constants``) — benchmarks/experiments/fused_backward_ws uses it for its variant."""
    block_m, block_n, warps, stages, dq_chunks, dq_buffers = tiles
    kernel = kernel or backward_gluon.attention_backward_fused_kernel
    launchers._ensure_tma_allocator()
    dq_acc = torch.zeros(q.shape, device=q.device, dtype=torch.float32)
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    kernel[(triton.cdiv(k.shape[2], block_n), k.shape[1], q.shape[0])](
        q, k, v, do, lse, delta, dk, dv, dq_acc,
        *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *do.stride()[:3], *lse.stride(),
        *dk.stride()[:3], *dv.stride()[:3], *dq_acc.stride()[:3],
        q.shape[2], k.shape[2], q.shape[1] // k.shape[1], scale,
        BLOCK_M=block_m, BLOCK_N=block_n, HEAD_DIM=q.shape[3], IS_CAUSAL=causal, NUM_STAGES=stages, WARPS=warps,
        DQ_CHUNKS=dq_chunks, DQ_BUFFERS=dq_buffers, num_warps=warps, **constants)
    return dq_acc.to(q.dtype), dk, dv


def inputs(batch, heads, kv_heads, n_q, n_k, d, causal):
    """Random bf16 (q, k, v, dO), flashio's forward (analytic default tiles unless tuning is on), D, and the
    deterministic two-kernel backward's gradients: ((q, k, v, do, lse, delta, scale, causal), reference)."""
    q, do = (torch.randn(batch, heads, n_q, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    k, v = (torch.randn(batch, kv_heads, n_k, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    scale = d ** -0.5
    out, lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal,
                                           dropout_p=0.0, seed=0)
    delta = (do.float() * out.float()).sum(-1)
    reference = launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd", softmax_scale=scale,
                                             causal=causal, dropout_p=0.0, seed=0, deterministic=True)
    return (q, k, v, do, lse, delta, scale, causal), reference


def main():
    torch.manual_seed(0)
    one_dim = "PROBE_D" in os.environ
    print("| d | causal | N | tuned backward | fused, per tile configuration |")
    print("|---|---|---|---|---|")
    for d in [int(os.environ["PROBE_D"])] if one_dim else (64, 128):
        points = ((False, 16384), (True, 4096)) if one_dim else ((False, 16384), (False, 1024), (True, 4096),
                                                                (True, 16384))
        for causal, n in points:
            batch, heads = 16384 // n, 2048 // d  # batch*N = 16k tokens, hidden 2048 (the grid)
            q, k, v, do = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
            scale = d ** -0.5
            out, lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal,
                                                   dropout_p=0.0, seed=0)
            delta = (do.float() * out.float()).sum(-1)
            flops = 2.5 * 4 * batch * heads * n * n * d / (2 if causal else 1)
            tuned = lambda: launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd", softmax_scale=scale,
                                                         causal=causal, dropout_p=0.0, seed=0)
            reference = tuned()
            cells = [f"{flops / triton.testing.do_bench(tuned, warmup=5, rep=40, return_mode='median') / 1e9:.0f}"]
            for tiles in CONFIGS[d]:
                run = lambda: fused_backward(q, k, v, do, lse, delta, scale, causal, tiles)
                try:
                    err = max(float((a.float() - r.float()).abs().max()) for a, r in zip(run(), reference))
                    ms = triton.testing.do_bench(run, warmup=5, rep=40, return_mode="median")
                    cells.append(f"{tiles}: {flops / ms / 1e9:.0f} (max diff {err:.4f})")
                except Exception as exc:  # a tile that does not fit this GPU
                    cells.append(f"{tiles}: {type(exc).__name__}")
            print(f"| {d} | {causal} | {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
