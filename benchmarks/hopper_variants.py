"""Kernel-variant experiment for the Hopper work (issue 5): time chosen tile configurations and kernel
paths of flashio against SDPA's cuDNN backend, in the same run, on a few anchor shapes.

Each variant is forced by intercepting ``flashio.configs.choose_config`` (the tuner's entry point), so
the launchers run exactly the configuration named; ``tuned`` lets the tuner choose as users get it.
Every variant's output and gradients are compared with cuDNN's (max abs difference) so that a fast but
wrong variant shows.

    PYTHONPATH=src python3 benchmarks/hopper_variants.py --out results.json

Not part of the test suite (needs a CUDA GPU).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

os.environ.setdefault("FLASHIO_TUNING_CACHE", "off")  # time every variant afresh, never reuse old choices

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

import flashio
from flashio import configs
from flashio.bench.sweep import describe_choice
from flashio.configs import TileConfig

_FORCED: dict = {}
_original_choose = configs.choose_config


def _forcing_choose(key, candidates, time_config):
    kind = key[0]
    if kind in _FORCED:
        return _FORCED[kind]
    return _original_choose(key, candidates, time_config)


def _forcing_cached(key):
    return _FORCED.get(key[0]) or _original_cached(key)


_original_cached = configs.cached_choice
configs.choose_config = _forcing_choose
configs.cached_choice = _forcing_cached


def tma(bm, bn, w, s, regs=None):
    return TileConfig(bm, bn, w, s, "tma", regs)


def ptr(bm, bn, w, s, regs=None):
    return TileConfig(bm, bn, w, s, "pointer", regs)


# v0.5 run A (results/2026-11-30_h200_v0.5_variants_a.json) measured a look-ahead loop (Q K^T of the next
# block before the current softmax; since removed: slower) and register caps; run B the register-capped tiles
# that let two programs share a multiprocessor, and the tensor-descriptor backward; v0.6 the warp-specialised
# forward and dK/dV kernel against the v0.5 kernels (each version's lists are in git history).
def ws(bm, bn, w, s):
    return TileConfig(bm, bn, w, s, "ws")


def wsp(bm, bn, w, s):
    return TileConfig(bm, bn, w, s, "ws", persistent=True)


# v0.7: the persistent warp-specialised forward and dK/dV kernel, and the warp-specialised dQ kernel (LSE/D
# rows through one-dimensional descriptors), against v0.6's choices. (Run 1 of v0.7 also timed the WS dQ
# kernel at d=64 and a first causal tile order of the persistent forward: results/2026-11-30_h200_v0.7_variants_1.json.)
FORWARD_VARIANTS = {
    64: [None, tma(128, 64, 4, 3), wsp(128, 128, 4, 2)],
    128: [None, ws(128, 128, 4, 2), wsp(128, 128, 4, 2)],
    256: [None, ws(128, 64, 4, 1), wsp(128, 64, 4, 1)],
}
# (strategy, dkdv config, dq config)
BACKWARD_VARIANTS = {
    64: [None, ("separate", ptr(32, 128, 4, 3), ptr(128, 64, 8, 3))],
    128: [None, ("separate", ws(64, 128, 4, 2), ptr(128, 128, 8, 2)), ("separate", ws(64, 128, 4, 2), ws(128, 64, 4, 2)),
          ("separate", wsp(64, 128, 4, 2), ws(128, 64, 4, 2)), ("separate", ptr(64, 128, 8, 3), ws(128, 64, 4, 2))],
    256: [None, ("separate", TileConfig(32, 64, 4, 2, passes=2), ptr(128, 32, 8, 2)),
          ("separate", TileConfig(32, 128, 4, 1, "ws", passes=2), ptr(128, 32, 8, 2)),
          ("separate", TileConfig(32, 128, 4, 1, "ws", passes=2, persistent=True), ptr(128, 32, 8, 2))],
}


def _label(variant) -> str:
    if variant is None:
        return "tuned"
    if isinstance(variant, TileConfig):  # "tma 128x64 w8 s2 r128" (the v0.5/v0.6 files: "tma+r128 128x64 w8 s2")
        return describe_choice(variant)
    strategy, dkdv, dq = variant
    return f"{strategy} dkdv[{_label(dkdv)}]" + (f" dq[{_label(dq)}]" if dq else "")


def _bench(fn, **kw) -> float:
    return do_bench(fn, warmup=10, rep=60, return_mode="median", **kw)


def run_point(dtype, d, n, causal, tokens=16384, hidden=2048, quick=False, forward_only=False):
    batch, heads = tokens // n, hidden // d
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype, generator=gen).requires_grad_()
               for _ in range(3))
    dout = torch.randn(batch, heads, n, d, device="cuda", dtype=dtype, generator=gen)
    flops_fwd = 4.0 * batch * heads * n * n * d / (2 if causal else 1)
    tf = lambda ms, mult=1.0: mult * flops_fwd / (ms * 1e-3) / 1e12
    rows = []

    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    ref = cudnn()
    ref_grads = torch.autograd.grad(ref, (q, k, v), dout)
    t_f = _bench(cudnn)
    t_fb = _bench(lambda: cudnn().backward(dout), grad_to_none=[q, k, v])
    cudnn_fwd, cudnn_bwd = tf(t_f), tf(t_fb - t_f, 2.5)
    rows.append(dict(system="cudnn", variant="", fwd=cudnn_fwd, bwd=cudnn_bwd))

    flash = lambda: flashio.attention(q, k, v, is_causal=causal)
    fwd_times = {}
    for variant in FORWARD_VARIANTS[d][: 1 if quick else None]:
        _FORCED.clear()
        if variant is not None:
            _FORCED["forward"] = variant
        try:
            out = flash()
            err = (out.float() - ref.float()).abs().max().item()
            t = _bench(flash)
        except Exception as exc:  # a variant that does not compile or fit: report, go on
            rows.append(dict(system="flashio-fwd", variant=_label(variant), error=repr(exc)[:160]))
            continue
        fwd_times[_label(variant)] = t
        rows.append(dict(system="flashio-fwd", variant=_label(variant), fwd=tf(t), fwd_vs_cudnn=tf(t) / cudnn_fwd,
                         max_diff=err, chosen=repr(configs.cached_choices().get(
                             next((key for key in configs.cached_choices() if key[0] == "forward"), None)))
                         if variant is None else ""))
    # backward variants run after the tuned forward
    _FORCED.clear()
    t_fwd = fwd_times.get("tuned") or _bench(flash)
    for variant in ([] if forward_only else BACKWARD_VARIANTS[d][: 1 if quick else None]):
        _FORCED.clear()
        if variant is not None:
            strategy, dkdv, dq = variant
            _FORCED["backward_dq_strategy"] = strategy
            _FORCED["backward_dkdv"] = dkdv
            if dq is not None:
                _FORCED["backward_dq"] = dq
        try:
            out = flash()
            grads = torch.autograd.grad(out, (q, k, v), dout)
            err = max((g.float() - r.float()).abs().max().item() for g, r in zip(grads, ref_grads))
            t_fb = _bench(lambda: flash().backward(dout), grad_to_none=[q, k, v])
        except Exception as exc:
            rows.append(dict(system="flashio-bwd", variant=_label(variant), error=repr(exc)[:160]))
            continue
        bwd = tf(t_fb - t_fwd, 2.5)
        chosen = ""
        if variant is None:
            chosen = "; ".join(f"{key[0]}={value}" for key, value in configs.cached_choices().items()
                               if key[0].startswith("backward"))
        rows.append(dict(system="flashio-bwd", variant=_label(variant), bwd=bwd, bwd_vs_cudnn=bwd / cudnn_bwd,
                         max_diff=err, chosen=chosen))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    parser.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--seqlens", type=int, nargs="+", default=[1024, 16384])
    parser.add_argument("--dtypes", nargs="+", default=["bf16"])
    parser.add_argument("--quick", action="store_true", help="tuned only")
    parser.add_argument("--forward-only", action="store_true", help="skip the backward variants")
    args = parser.parse_args()
    dtypes = {"bf16": torch.bfloat16, "fp16": torch.float16}
    matmul = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    ms = do_bench(lambda: matmul @ matmul, warmup=25, rep=100, return_mode="median")
    print(f"bf16 matmul 8192^3: {2 * 8192**3 / (ms * 1e-3) / 1e12:.0f} TFLOP/s", flush=True)
    results = []
    for dtype_name in args.dtypes:
        for d in args.head_dims:
            for n in args.seqlens:
                for causal in (False, True):
                    configs.clear_choices()
                    rows = run_point(dtypes[dtype_name], d, n, causal, quick=args.quick, forward_only=args.forward_only)
                    for row in rows:
                        row.update(dtype=dtype_name, d=d, n=n, causal=causal)
                        results.append(row)
                        cells = [f"{dtype_name} d={d} N={n} causal={int(causal)}", row["system"], row["variant"]]
                        for key in ("fwd", "bwd", "fwd_vs_cudnn", "bwd_vs_cudnn", "max_diff"):
                            if key in row:
                                cells.append(f"{key}={row[key]:.3g}")
                        if row.get("error"):
                            cells.append("ERROR " + row["error"])
                        if row.get("chosen"):
                            cells.append("chosen: " + row["chosen"])
                        print(" | ".join(cells), flush=True)
                    if args.out:
                        with open(args.out, "w") as f:
                            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
