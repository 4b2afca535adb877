"""GPU probe for the warp-specialised forms of the fused backward (``attention_backward_fused_ws_kernel`` in
src/flashio/kernels/backward_gluon.py; this folder's kernel.py moved there unchanged once it had run, and
its loader was fixed there later in v0.9): their
gradients against flashio's two-kernel backward (analytic default tiles, FLASHIO_AUTOTUNE=0: nothing is
tuned, so the probe spends its device time on the kernels compared), including query-head groups and
unequal lengths, then TFLOP/s of the library's non-specialised fused kernel and of each specialised form,
in one process, bf16, batch*N = 16k tokens, hidden 2048. A hang means a barrier protocol error: run it
under ``timeout``.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_ws/probe.py

Tile tuples: (block_m, block_n, warps, stages, dq_chunks, dq_buffers, warp-specialised[, K/V in registers]).
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from fused_backward_probe import fused_backward, inputs  # noqa: E402  (benchmarks/fused_backward_probe.py)
from flashio.kernels import backward_gluon  # noqa: E402

PLAIN = {64: (64, 64, 4, 2, 1, 1), 128: (64, 128, 8, 2, 2, 2)}
# v0.9 run 1: the third field of each tuple was a "pipelined" switch (next block's S^T/dP^T queued behind dK),
# since removed; run 2 (PROBE_D=64): 128-query tiles at d=64 (True = warp-specialised, False = not).
# Run 4 (v0.9, prepared, not run): the 8th field puts K and V in registers (KV_IN_REGISTERS) at d=64.
SPECIALISED = {64: [(64, 128, 8, 2, 1, 2, True, False), (64, 128, 8, 2, 1, 2, True, True),
                    (64, 64, 4, 2, 1, 1, False, True)],
               128: [(64, 128, 8, 2, 1, 2, True, False)]}
DIMS = [int(os.environ["PROBE_D"])] if "PROBE_D" in os.environ else [128, 64]


def specialised(q, k, v, do, lse, delta, scale, causal, tiles):
    kv_in_registers = tiles[7] if len(tiles) > 7 else False
    if not tiles[6]:
        return fused_backward(q, k, v, do, lse, delta, scale, causal, tiles[:6], KV_IN_REGISTERS=kv_in_registers)
    return fused_backward(q, k, v, do, lse, delta, scale, causal, tiles[:6],
                          backward_gluon.attention_backward_fused_ws_kernel, LOADER_REGS=24, REDUCER_REGS=24,
                          KV_IN_REGISTERS=kv_in_registers)


def max_diff(result, reference):
    return max(float((a.float() - r.float()).abs().max()) for a, r in zip(result, reference))


def main():
    torch.manual_seed(0)
    os.environ["FLASHIO_AUTOTUNE"] = "0"
    print("correctness (max |difference| to the two-kernel backward; its own rounding is ~1e-3..4e-3)")
    for d in DIMS:
        for batch, heads, kv_heads, n_q, n_k, causal in ((2, 8, 2, 1000, 1500, True), (2, 8, 2, 1500, 1000, True),
                                                         (1, 4, 4, 777, 1029, False)):
            args, reference = inputs(batch, heads, kv_heads, n_q, n_k, d, causal)
            cells = [f"{tiles}: {max_diff(specialised(*args, tiles), reference):.4f}" for tiles in SPECIALISED[d]]
            print(f"- d={d} {heads}/{kv_heads} heads {n_q}x{n_k} causal={causal}: " + "; ".join(cells), flush=True)
    print("| d | causal | N | plain fused | the tiles of SPECIALISED[d], in order |")
    print("|---|---|---|---|---|")
    for d in DIMS:
        for causal, n in ((False, 1024), (False, 4096), (False, 16384), (True, 1024), (True, 4096), (True, 16384)):
            batch, heads = 16384 // n, 2048 // d
            args, reference = inputs(batch, heads, heads, n, n, d, causal)
            flops = 2.5 * 4 * batch * heads * n * n * d / (2 if causal else 1)
            rate = lambda fn: flops / triton.testing.do_bench(fn, warmup=5, rep=40, return_mode="median") / 1e9
            cells = [f"{rate(lambda: fused_backward(*args, PLAIN[d])):.0f}"]
            for tiles in SPECIALISED[d]:
                run = lambda: specialised(*args, tiles)
                cells.append(f"{rate(run):.0f} ({max_diff(run(), reference):.4f})")
            print(f"| {d} | {causal} | {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
