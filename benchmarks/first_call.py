"""First-call latency of flashio on a GPU: the forward and backward of one shape, timed from the first call
(Triton compiling and the tuner timing every candidate) to the steady state.

    FLASHIO_TUNING_CACHE=/tmp/tuning python3 benchmarks/first_call.py --head-dim 128 --seqlen 4096

Run it three times to separate the costs: with an empty Triton cache and no tuning file (compile + timing),
again (Triton's compiled kernels and flashio's tuning file both on disk: neither is repeated), and with
FLASHIO_TUNING_CACHE=off (compiled kernels on disk, the timing repeated). Not part of the test suite
(needs a CUDA GPU).
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

import flashio


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--seqlen", type=int, default=4096)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--hidden", type=int, default=2048)
    args = parser.parse_args()
    batch, heads = args.tokens // args.seqlen, args.hidden // args.head_dim

    def call(seqlen: int) -> float:
        q, k, v = (torch.randn(batch, heads, seqlen, args.head_dim, device="cuda", dtype=torch.bfloat16,
                               requires_grad=True) for _ in range(3))
        torch.cuda.synchronize()
        start = time.perf_counter()
        flashio.attention(q, k, v, is_causal=args.causal).backward(torch.randn_like(q))
        torch.cuda.synchronize()
        return time.perf_counter() - start

    first = call(args.seqlen)
    second = call(args.seqlen)
    # Another length in the same power-of-two bucket (and divisible by 16, as Triton specialises): the cached
    # choice is reused, nothing is timed or compiled.
    same_bucket = call(args.seqlen * 3 // 4)
    print(f"d={args.head_dim} N={args.seqlen} causal={args.causal}: first forward+backward {first:.2f} s, "
          f"second {second * 1e3:.1f} ms, N={args.seqlen * 3 // 4} (same bucket) {same_bucket * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
