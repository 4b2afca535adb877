"""GPU probe for the Gluon forward (src/flashio/kernels/forward_gluon.py; this folder's kernel.py until its
first run, H200 2026-11-30, v0.10, which found it correct at every shape below; rates in
benchmarks/PERFORMANCE.md): its output and LSE against flashio's forward (analytic default tiles) at query-head groups, unequal lengths
(rows that see no key), odd lengths and d in {64, 128, 256}; then TFLOP/s against cuDNN's forward and
flashio's tuned forward in the same process, bf16, batch*N = 16k tokens, hidden 2048. A hang means a barrier
protocol error: run it under ``timeout``.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_gluon/probe.py

Tile tuples: (rows per consumer, block_n, stages, pipelined, persistent, separate K/V slots, ping-pong). Run 1
(v0.10): the plain tiles (64, 128, 2|3) at d=64/128 and (64, 64, 2) at d=256; run 2 compared the pipelined
loop (next block's scores during this block's softmax) with the plain one
(results/2026-11-30_h200_v0.10_probes.md); run 3 (v0.11, results/2026-11-30_h200_v0.11_probes/) added the
persistent grid (one program per SM looping over the tiles), separate K and V barriers (the pipelined loop
with two slots per ring) and the consumers taking turns to issue their products (ping-pong), all correct on
their first run. Run 4 (prepared, not run) adds the rates at d=64, where the Gluon forms joined the tuning
in v0.11 without a kernel-alone measurement, with the plain and ping-pong forms beside them.
"""

import os

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashio
from flashio import configs, launchers
from flashio.kernels import forward_gluon as kernel

TILES = {64: [(64, 128, 3, True, False, False, False), (64, 128, 3, True, True, False, False),
              (64, 128, 2, True, False, True, False), (64, 128, 3, False, False, False, False),
              (64, 128, 3, True, False, False, True)],
         128: [(64, 128, 3, True, False, False, False), (64, 128, 3, True, True, False, False),
               (64, 128, 3, False, True, False, False), (64, 128, 2, True, False, True, False),
               (64, 128, 3, True, False, False, True)],
         256: [(64, 64, 2, False, False, False, False), (64, 64, 2, False, True, False, False),
               (64, 64, 2, True, False, True, False), (64, 64, 2, True, True, True, False),
               (64, 64, 2, True, False, True, True)]}


def gluon_forward(q, k, v, causal, tiles):
    """(O, LSE) of the Gluon forward with this tile, launched directly (no launcher time in the timing)."""
    rows, block_n, stages, pipelined, persistent, split_kv, pingpong = tiles
    config = configs.TileConfig(2 * rows, block_n, 4, stages, "gluon", persistent=persistent, pipelined=pipelined,
                                split_kv=split_kv, pingpong=pingpong)
    launchers._ensure_tma_allocator()
    out = torch.empty_like(q)
    lse = torch.empty(q.shape[:3], device=q.device, dtype=torch.float32)
    arguments = (q, k, v, out, lse, *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *out.stride()[:3],
                 *lse.stride(), q.shape[2], k.shape[2], q.shape[1] // k.shape[1], q.shape[3] ** -0.5)
    constants = dict(IS_CAUSAL=causal, num_warps=4, **launchers.gluon_forward_constants(config, q.shape[3]))
    grid = (triton.cdiv(q.shape[2], config.block_m), q.shape[1], q.shape[0])
    if persistent:
        num_units = (triton.cdiv(grid[0], 2) if causal else grid[0]) * grid[1] * grid[2]  # causal: pairs (v0.13)
        kernel.attention_forward_gluon_persistent_kernel[(min(num_units, launchers.multiprocessor_count(q.device)),)](
            *arguments, q.shape[1], num_units, None, **constants)  # no tile list (round-robin units)
    else:
        kernel.attention_forward_gluon_kernel[grid](*arguments, **constants)
    return out, lse


def main():
    torch.manual_seed(0)
    print("correctness: max |difference| of O and of LSE to flashio's forward (FLASHIO_AUTOTUNE=0)")
    os.environ["FLASHIO_AUTOTUNE"] = "0"
    for d in (128, 64, 256):
        for batch, heads, kv_heads, n_q, n_k, causal in ((2, 8, 2, 1000, 1500, True), (2, 8, 2, 1500, 1000, True),
                                                         (1, 4, 4, 777, 1029, False), (2, 4, 4, 1024, 1024, True)):
            q = torch.randn(batch, heads, n_q, d, device="cuda", dtype=torch.bfloat16)
            k, v = (torch.randn(batch, kv_heads, n_k, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
            ref_out, ref_lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=d ** -0.5,
                                                           causal=causal, dropout_p=0.0, seed=0)
            for tiles in TILES[d]:
                out, lse = gluon_forward(q, k, v, causal, tiles)
                finite = torch.isfinite(ref_lse)
                lse_ok = torch.equal(finite, torch.isfinite(lse))
                print(f"- d={d} {heads}/{kv_heads} {n_q}x{n_k} causal={causal} {tiles}: O "
                      f"{float((out.float() - ref_out.float()).abs().max()):.4f}, LSE "
                      f"{float((lse[finite] - ref_lse[finite]).abs().max()):.5f}, -inf rows agree: {lse_ok}",
                      flush=True)
    del os.environ["FLASHIO_AUTOTUNE"]
    for d in (64, 128, 256):
        print("| d | causal | N | cuDNN | flashio (tuned) | " + " | ".join(str(t) for t in TILES[d]) + " |")
        print("|---|---|---|---|---|" + "---|" * len(TILES[d]))
        for causal, n in ((False, 1024), (False, 4096), (False, 16384), (True, 1024), (True, 2048), (True, 4096),
                          (True, 16384)):
            batch, heads = 16384 // n, 2048 // d
            q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            flops = 4 * batch * heads * n * n * d / (2 if causal else 1)
            rate = lambda fn: flops / triton.testing.do_bench(fn, warmup=5, rep=40, return_mode="median") / 1e9

            def cudnn():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

            cells = [f"{rate(cudnn):.0f}", f"{rate(lambda: flashio.attention(q, k, v, is_causal=causal)):.0f}"]
            cells += [f"{rate(lambda: gluon_forward(q, k, v, causal, tiles)):.0f}" for tiles in TILES[d]]
            print(f"| {d} | {causal} | {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
