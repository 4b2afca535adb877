"""Where flashio's host (Python) time goes in one forward+backward at a short causal point (d=128, N=1k,
batch 16 x 16 heads), measured on the GPU machine: each piece is called alone in a loop of queued launches
(no synchronisation inside the loop; ``host_overhead.host_ms``), so the numbers are host microseconds per
call, not GPU time. The first two pieces are the floor under any launcher: Triton's own launch of one kernel
with its arguments prepared, and a forward's two output allocations (v0.11: 43 and 7 µs). The flashio pieces
are timed with launch plans (``flashio/launch_plans.py``: a repeated call replays the recorded launches) and
without (``FLASHIO_LAUNCH_PLANS=0``). Run it after a grid at the same shape (or with a tuning cache): the
first call of each tunes.

    PYTHONPATH=src python3 benchmarks/host_breakdown.py

Not part of the test suite (needs a CUDA GPU).
"""

from __future__ import annotations

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))

import triton  # noqa: E402

import flashio  # noqa: E402
from flashio import configs, launchers  # noqa: E402
from host_overhead import host_ms  # noqa: E402


def main() -> int:
    for dtype in (torch.bfloat16,):
        n, d, causal = 1024, 128, True
        batch, heads = 16384 // n, 2048 // d
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype, requires_grad=True)
                   for _ in range(3))
        dout = torch.randn_like(q)
        scale = d ** -0.5
        out, lse = launchers.attention_forward(q.detach(), k.detach(), v.detach(), layout="bhnd",
                                               softmax_scale=scale, causal=causal, dropout_p=0.0, seed=0)
        qd, kd, vd = q.detach(), k.detach(), v.detach()
        # The floor under any launcher: Triton's own launch of one kernel (the pipelined Gluon forward, 26
        # arguments, all prepared once), and the two allocations a forward makes.
        out_buf, lse_buf = torch.empty_like(qd), torch.empty(lse.shape, device="cuda", dtype=torch.float32)
        gluon_tile = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True)
        gluon_arguments = (qd, kd, vd, out_buf, lse_buf, *qd.stride()[:3], *kd.stride()[:3], *vd.stride()[:3],
                           *out_buf.stride()[:3], *lse_buf.stride(), n, n, 1, scale)
        gluon_constants = dict(IS_CAUSAL=causal, num_warps=4, **launchers.gluon_forward_constants(gluon_tile, d))
        launchers._ensure_tma_allocator()
        gluon_grid = (triton.cdiv(n, 128), heads, batch)
        pieces = {
            "Triton launch alone (Gluon forward, prepared arguments)": lambda: launchers.forward_gluon_kernels
            .attention_forward_gluon_kernel[gluon_grid](*gluon_arguments, **gluon_constants),
            "torch.empty_like + torch.empty (a forward's outputs)": lambda: (
                torch.empty_like(qd), torch.empty(lse.shape, device="cuda", dtype=torch.float32)),
            "forward+backward (autograd)": lambda: flashio.attention(q, k, v, is_causal=causal).backward(dout),
            "forward (autograd, no grad kept)": lambda: flashio.attention(q, k, v, is_causal=causal),
            "launchers.attention_forward": lambda: launchers.attention_forward(
                qd, kd, vd, layout="bhnd", softmax_scale=scale, causal=causal, dropout_p=0.0, seed=0),
            "launchers.attention_backward": lambda: launchers.attention_backward(
                dout, qd, kd, vd, out, lse, layout="bhnd", softmax_scale=scale, causal=causal, dropout_p=0.0,
                seed=0),
            "3 x empty_like + zeros(fp32) + copy_": lambda: (torch.empty_like(qd), torch.empty_like(kd),
                                                             torch.empty_like(vd),
                                                             torch.zeros(qd.shape, device="cuda",
                                                                         dtype=torch.float32).to(qd.dtype)),
            "q.grad accumulation (3 in-place adds)": lambda: (qd.add_(0.0), kd.add_(0.0), vd.add_(0.0)),
        }
        flashio_pieces = [name for name in pieces if "attention" in name or "autograd" in name]
        for name, fn in pieces.items():
            if name not in flashio_pieces:
                print(f"{str(dtype)[6:]:8s} {name:56s} host {host_ms(fn) * 1e3:6.0f} us/call", flush=True)
                continue
            for setting in (None, "0"):
                if setting is None:
                    os.environ.pop("FLASHIO_LAUNCH_PLANS", None)
                else:
                    os.environ["FLASHIO_LAUNCH_PLANS"] = setting
                label = f"{name} ({'plans' if setting is None else 'no plans'})"
                print(f"{str(dtype)[6:]:8s} {label:56s} host {host_ms(fn) * 1e3:6.0f} us/call", flush=True)
            os.environ.pop("FLASHIO_LAUNCH_PLANS", None)
        q.grad = k.grad = v.grad = None
    return 0


if __name__ == "__main__":
    sys.exit(main())
