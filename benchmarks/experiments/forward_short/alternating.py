"""flashio's tuned forward and cuDNN's, timed alternately (rounds of 40 ms each) at the points where the
v0.15 d=128 grid measured them below 0.85x: how much of the ratio is run-to-run variation of either side.

    PYTHONPATH=src timeout 150 python3 benchmarks/experiments/forward_short/alternating.py
"""
import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

from flashio import launchers

POINTS = ((torch.bfloat16, True, 1024), (torch.float16, False, 1024), (torch.bfloat16, False, 1024))
ROUNDS = 6
print("| dtype | causal | N | flashio TFLOP/s per round | cuDNN TFLOP/s per round | ratio per round |")
print("|---|---|---|---|---|---|")
for dtype, causal, n in POINTS:
    d = 128
    batch, heads = 16384 // n, 2048 // d
    torch.manual_seed(0)
    q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype) for _ in range(3))
    flops = 4 * batch * heads * n * n * d / (2 if causal else 1)
    ours = lambda: launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=d ** -0.5, causal=causal,
                                               dropout_p=0.0, seed=0)[0]

    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    ours(), cudnn()
    a, b = [], []
    for _ in range(ROUNDS):
        a.append(flops / triton.testing.do_bench(ours, warmup=5, rep=40, return_mode="median") / 1e9)
        b.append(flops / triton.testing.do_bench(cudnn, warmup=5, rep=40, return_mode="median") / 1e9)
    print(f"| {str(dtype)[6:]} | {causal} | {n} | {' '.join(f'{x:.0f}' for x in a)} | {' '.join(f'{x:.0f}' for x in b)} | "
          f"{' '.join(f'{x / y:.2f}' for x, y in zip(a, b))} |", flush=True)
