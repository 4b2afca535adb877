"""How the first Gluon five-product backward (gluon_bwd.py here, an exploratory copy of
src/flashio/kernels/backward_gluon.py with a DQ_MODE switch) spent its time on the H200, v0.8:

    PYTHONPATH=src python3 benchmarks/experiments/fused_backward_dq_modes/probe.py 64,128 1024,4096,16384
        # correctness and TFLOP/s against flashio's tuned backward (mode 1 in the first run, 6 in the second)
    PROBE=variants PYTHONPATH=src python3 benchmarks/experiments/fused_backward_dq_modes/probe.py
        # DQ_MODE 0: no dQ product (dK/dV only), 1: per-element float32 atomics, 2: plain stores (wrong
        # result, timing only), 6: a TMA bulk reduce-add (the mode kept in the library)

Its numbers are in benchmarks/PERFORMANCE.md (v0.8). Not a test: the library's kernel is the tested one.
"""
import sys, os, time, json
sys.path.insert(0, os.path.dirname(__file__))
import torch, triton
from flashio import launchers
import gluon_bwd

def gluon_backward(q, k, v, out, do, lse, scale, causal, bm=64, bn=128, stages=2, warps=8, mode=6):
    B, H, N, D = q.shape
    Hk = k.shape[1]
    launchers._ensure_tma_allocator()
    delta = (do.float() * out.float()).sum(-1)
    dq_acc = torch.zeros(q.shape, device=q.device, dtype=torch.float32)
    dk = torch.empty_like(k); dv = torch.empty_like(v)
    grid = (triton.cdiv(N, bn), Hk, B)
    gluon_bwd.attention_backward_fused_kernel[grid](
        q, k, v, do, lse, delta, dk, dv, dq_acc,
        *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *do.stride()[:3], *lse.stride(),
        *dk.stride()[:3], *dv.stride()[:3], *dq_acc.stride()[:3],
        N, k.shape[2], H // Hk, scale,
        BLOCK_M=bm, BLOCK_N=bn, HEAD_DIM=D, IS_CAUSAL=causal, NUM_STAGES=stages, WARPS=warps, DQ_MODE=mode, num_warps=warps)
    return dq_acc.to(q.dtype), dk, dv

def main():
    torch.manual_seed(0)
    rows = []
    dims = [int(x) for x in sys.argv[1].split(",")] if len(sys.argv) > 1 else [64, 128]
    seqs = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1024, 4096, 16384]
    for d in dims:
        for causal in (False, True):
            for n in seqs:
                b, h = 16384 // n, 2048 // d
                q, k, v, do = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
                scale = d ** -0.5
                out, lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal, dropout_p=0.0, seed=0)
                ref = launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd", softmax_scale=scale, causal=causal, dropout_p=0.0, seed=0)
                row = dict(d=d, causal=causal, n=n)
                try:
                    got = gluon_backward(q, k, v, out, do, lse, scale, causal)
                    torch.cuda.synchronize()
                    row["maxdiff"] = [float((a.float() - r.float()).abs().max()) for a, r in zip(got, ref)]
                    flops = 2.5 * 4 * b * h * n * n * d / (2 if causal else 1)
                    t_g = triton.testing.do_bench(lambda: gluon_backward(q, k, v, out, do, lse, scale, causal), warmup=10, rep=60, return_mode="median")
                    t_f = triton.testing.do_bench(lambda: launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd", softmax_scale=scale, causal=causal, dropout_p=0.0, seed=0), warmup=10, rep=60, return_mode="median")
                    row["gluon_tflops"] = flops / t_g / 1e9
                    row["flashio_tflops"] = flops / t_f / 1e9
                except Exception as e:
                    row["error"] = repr(e)[-800:]
                print(json.dumps(row), flush=True)
                rows.append(row)
    print("| d | causal | N | gluon | flashio | max diff dq/dk/dv vs flashio |")
    for r in rows:
        print(f"| {r['d']} | {r['causal']} | {r['n']} | {r.get('gluon_tflops', float('nan')):.0f} | {r.get('flashio_tflops', float('nan')):.0f} | {r.get('maxdiff', r.get('error'))} |")

MODES = {0: 'none (4 products)', 1: 'atomic', 2: 'store (timing only)', 6: 'TMA reduce-add'}


def variants():
    torch.manual_seed(0)
    print("| d | causal | N | tiles m x n, warps, stages | dQ | TFLOP/s | regs | spill B |")
    for d, causal, n in ((64, False, 16384), (128, False, 16384), (128, True, 4096)):
        b, h = 16384 // n, 2048 // d
        q, k, v, do = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
        scale = d ** -0.5
        out, lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal, dropout_p=0.0, seed=0)
        flops = 2.5 * 4 * b * h * n * n * d / (2 if causal else 1)
        combos = [(64, 128, 8, 2, 1), (64, 128, 8, 2, 0), (64, 128, 8, 2, 2), (64, 128, 8, 3, 1),
                  (64, 128, 8, 2, 6), (64, 128, 8, 3, 6)]
        if d == 64:
            combos += [(64, 64, 4, 2, 1), (64, 64, 4, 2, 0), (128, 128, 8, 2, 1), (64, 64, 4, 2, 6),
                       (128, 128, 8, 2, 6)]
        for bm, bn, w, st, mode in combos:
            try:
                t = triton.testing.do_bench(lambda: gluon_backward(q, k, v, out, do, lse, scale, causal, bm, bn, st, w, mode), warmup=5, rep=40, return_mode="median")
                print(f"| {d} | {causal} | {n} | {bm}x{bn}, {w}, {st} | {MODES[mode]} | {flops / t / 1e9:.0f} | | |", flush=True)
            except Exception as e:
                print(f"| {d} | {causal} | {n} | {bm}x{bn}, {w}, {st} | {mode} | error {repr(e)[-300:]} |", flush=True)

if __name__ == "__main__":
    if os.environ.get("PROBE") == "variants":
        variants()
    elif os.environ.get("PROBE") == "both":
        main(); variants()
    else:
        main()
