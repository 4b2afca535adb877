"""GPU probe for the role-split fused backward at d=256 (``attention_backward_fused_split_kernel`` in
src/flashio/kernels/backward_gluon_split.py): its gradients against flashio's two-kernel backward (analytic
default tiles, FLASHIO_AUTOTUNE=0, so nothing is tuned) and flash-attn's two-reference ratios (error to a
float32 reference over that of PyTorch's bf16 attention; the rule allows 3 for gradients) at query-head
groups, unequal and odd lengths and one query block per head; then TFLOP/s of cuDNN's backward (SDPA,
backward only: the graph of one forward kept), of the two-kernel backward with its default tiles and of the
fused kernel per tile, in one process, bf16, batch*N = 16k tokens, 8 heads of 256. A hang would mean a
barrier protocol error: run it under ``timeout``.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_d256/probe.py

Tiles: the d=256 fused candidates of flashio.configs (one Q slot and 64-column dQ chunks; two Q slots and
32-column chunks); in run 2 as tuples (q_stages, do_stages, dq_cols, dq_buffers, dq_overlap, P^T in float32).

History (H200, 2026-11-30). Run 1 (the kernel, then in this folder, first run): dV matched to 0.0000 but
dQ was off by 0.4-4.3 for every tile: the dQ reducers' descriptors spanned DQ_COLS columns, so every chunk
past the first was dropped; and dK was off by up to 0.03 in causal shapes, because B formed dS^T from the
bf16-rounded P^T that A handed over. Run 2, both fixed (P^T in float32, +8 KB): all tiles within 0.002 of
the two-kernel backward with the same two-reference ratios as it (bf16 P^T: up to 1.8 times larger);
overlapping a dQ chunk's write with the next chunk's product gained nothing (within 1-3%, either way), so
the kernel moved to the library without that option or the bf16 P^T (the commit before the move has this
folder's kernel.py). Rates in benchmarks/PERFORMANCE.md (v0.10).
"""

import os
import sys
from dataclasses import replace

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from fused_backward_probe import inputs  # noqa: E402  (benchmarks/fused_backward_probe.py)
from flashio import configs, launchers  # noqa: E402
from flashio.bench.sweep import describe_choice  # noqa: E402
from flashio.reference import attention_reference  # noqa: E402

# One Q slot and 64-column dQ chunks (tuned); two and 32 (a candidate until v0.33), both with the tuned 16-byte stores.
TILES = (configs.BACKWARD_FUSED_CANDIDATES[256][0],
         replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], num_stages=2, dq_chunks=8))


def fused_backward(q, k, v, do, lse, delta, scale, causal, config):
    """(dq, dk, dv) from the d=256 fused kernel with this tile configuration."""
    kernel, constants = launchers.fused_backward_kernel(config, 256)
    launchers._ensure_tma_allocator()
    dq_acc = torch.zeros(q.shape, device=q.device, dtype=torch.float32)
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    kernel[(triton.cdiv(k.shape[2], config.block_n), k.shape[1], q.shape[0])](
        q, k, v, do, lse, delta, dk, dv, dq_acc,
        *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *do.stride()[:3], *lse.stride(),
        *dk.stride()[:3], *dv.stride()[:3], *dq_acc.stride()[:3],
        q.shape[2], k.shape[2], q.shape[1] // k.shape[1], scale,
        IS_CAUSAL=causal, num_warps=config.num_warps, **constants)
    return dq_acc.to(q.dtype), dk, dv


def max_diffs(result, reference):
    return ", ".join(f"{name} {float((a.float() - r.float()).abs().max()):.4f}"
                     for name, a, r in zip(("dq", "dk", "dv"), result, reference))


def reference_gradients(q, k, v, do, causal, upcast):
    """(dq, dk, dv) of materialising attention, in float32 (upcast) or in the input precision."""
    if upcast:
        q, k, v, do = (t.float() for t in (q, k, v, do))
    q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
    out = attention_reference(q, k, v, causal=causal, upcast=upcast)
    return torch.autograd.grad(out, (q, k, v), do)


def rule_ratios(result, ref32, ref_lp):
    """max|x - ref32| / max|ref_lp - ref32| per gradient (flash-attn's rule: <= 3 plus a rounding floor)."""
    return ", ".join(f"{name} {float((a.float() - r).abs().max()) / float((l.float() - r).abs().max()):.2f}"
                     for name, a, r, l in zip(("dq", "dk", "dv"), result, ref32, ref_lp))


def cudnn_backward_ms(q, k, v, do, causal):
    q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return triton.testing.do_bench(lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True), warmup=5,
                                   rep=40, return_mode="median")


def main():
    torch.manual_seed(0)
    os.environ["FLASHIO_AUTOTUNE"] = "0"
    print("correctness: max |difference| to the two-kernel backward; then the two-reference ratios of the "
          "two-kernel backward and of each tile")
    for batch, heads, kv_heads, n_q, n_k, causal in ((2, 8, 2, 1000, 1500, True), (2, 8, 2, 1500, 1000, True),
                                                     (1, 4, 4, 777, 1029, False), (2, 8, 2, 60, 1000, True),
                                                     (1, 2, 1, 113, 203, True)):
        args, reference = inputs(batch, heads, kv_heads, n_q, n_k, 256, causal)
        ref32 = [g.float() for g in reference_gradients(*args[:4], causal, True)]
        ref_lp = reference_gradients(*args[:4], causal, False)
        print(f"- {heads}/{kv_heads} heads {n_q}x{n_k} causal={causal}: two-kernel rule {{"
              f"{rule_ratios(reference, ref32, ref_lp)}}}", flush=True)
        for tiles in TILES:
            result = fused_backward(*args, tiles)
            print(f"  - {describe_choice(tiles)}: {max_diffs(result, reference)}; rule {{{rule_ratios(result, ref32, ref_lp)}}}",
                  flush=True)
    print("| causal | N | cuDNN backward | two-kernel (default tiles) | " + " | ".join(describe_choice(t) for t in TILES) + " |")
    print("|---|---|---|---|" + "---|" * len(TILES))
    for causal, n in ((False, 1024), (False, 4096), (False, 16384), (True, 1024), (True, 4096), (True, 16384)):
        batch, heads = 16384 // n, 8
        args, reference = inputs(batch, heads, heads, n, n, 256, causal)
        flops = 2.5 * 4 * batch * heads * n * n * 256 / (2 if causal else 1)
        cells = [f"{flops / cudnn_backward_ms(*args[:4], causal) / 1e9:.0f}"]
        q, k, v, do, lse, delta, scale, _ = args
        out, _ = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal,
                                             dropout_p=0.0, seed=0)
        two_kernel = lambda: launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd", softmax_scale=scale,
                                                          causal=causal, dropout_p=0.0, seed=0)
        cells.append(f"{flops / triton.testing.do_bench(two_kernel, warmup=5, rep=40, return_mode='median') / 1e9:.0f}")
        for tiles in TILES:
            run = lambda: fused_backward(*args, tiles)
            ms = triton.testing.do_bench(run, warmup=5, rep=40, return_mode="median")
            cells.append(f"{flops / ms / 1e9:.0f} ({max_diffs(run(), reference)})")
        print(f"| {causal} | {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
