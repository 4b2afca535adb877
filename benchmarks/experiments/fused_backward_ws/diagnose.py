"""Which gradient and which rows the warp-specialised fused backward gets wrong with 128-query tiles at
(8/2 heads, 1000x1500, causal) — v0.9 probe: max difference 0.12 there, 0.001 with 64-query tiles — and
whether the library's tiles (64x128 specialised, 64x64 plain) stay right on more unequal causal shapes.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/fused_backward_ws/diagnose.py
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))

from probe import inputs, specialised  # noqa: E402

TILES = [(128, 128, 8, 2, 1, 2, True), (64, 128, 8, 2, 1, 2, True), (64, 64, 4, 2, 1, 1, False)]


def main():
    os.environ["FLASHIO_AUTOTUNE"] = "0"
    torch.manual_seed(0)
    shapes = [(2, 8, 2, 1000, 1500, True), (1, 2, 2, 1000, 1500, True), (1, 2, 2, 1000, 1128, True),
              (1, 2, 2, 999, 2049, True), (2, 8, 2, 257, 1500, True), (1, 4, 1, 1000, 3000, True),
              (1, 2, 2, 1024, 1536, True), (1, 2, 2, 1000, 1500, False)]
    for d in (64, 128):
        for batch, heads, kv_heads, n_q, n_k, causal in shapes:
            args, reference = inputs(batch, heads, kv_heads, n_q, n_k, d, causal)
            for tiles in TILES:
                if d == 128 and tiles[0] == 128 or d == 128 and tiles[1] == 64:
                    continue
                errs = []
                for _ in range(2):
                    result = specialised(*args, tiles)
                    cells = []
                    for name, a, r in zip(("dq", "dk", "dv"), result, reference):
                        diff = (a.float() - r.float()).abs()
                        worst = diff.amax(dim=(0, 1, 3))
                        bad = (worst > 0.02).nonzero().flatten()
                        where = f" rows {int(bad[0])}..{int(bad[-1])} ({bad.numel()})" if bad.numel() else ""
                        cells.append(f"{name} {float(diff.max()):.4f}{where}")
                    errs.append(", ".join(cells))
                print(f"d={d} {heads}/{kv_heads} {n_q}x{n_k} causal={causal} {tiles}: " + " | ".join(errs), flush=True)


if __name__ == "__main__":
    main()
