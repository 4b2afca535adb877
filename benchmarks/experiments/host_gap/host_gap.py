"""Whether a forward+backward call in the bench waits for the host: the call timed as ``flashio bench`` times it (a
256 MB flush, then CUDA events around the call, calls queued), and the same with the GPU held ~1 ms by
``torch.cuda._sleep`` before the start event, so that the host has queued the whole call before the GPU reaches it
(the sleep is outside the events). A call that is faster held than not left the GPU idle waiting for its launches.

v0.40 (call 3, step traces): at d=128 non-causal 1k the grid's flashio backward takes ~776 µs against 759 µs of traced
kernel time, cuDNN's 769 against 765. This says whether the difference is the host.

    PYTHONPATH=src python3 benchmarks/experiments/host_gap/host_gap.py --points 128:nc:1024 64:c:1024

Prints, per point and system, median ms of the forward and of forward+backward, free and held, over --calls calls
taken in turn (free, held, free, held, ...).
"""

import argparse
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashio

HOLD_CYCLES = 2_000_000  # ~1 ms at the H200's clocks: longer than any host path here


def _call(system, q, k, v, dout, causal, backward):
    def attention():
        if system == "flashio":
            return flashio.attention(q, k, v, is_causal=causal)
        backend = {"cuDNN": SDPBackend.CUDNN_ATTENTION, "FA2": SDPBackend.FLASH_ATTENTION}[system]
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    def run():
        out = attention()
        if backward:
            torch.autograd.grad(out, (q, k, v), dout)
    return run


def _time(run, flush, held):
    flush.zero_()
    if held:
        torch.cuda._sleep(HOLD_CYCLES)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    run()
    end.record()
    return start, end


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", nargs="+", default=["128:nc:1024", "64:c:1024", "64:nc:1024"],
                        help="d:c|nc:N, the bench's shapes (batch*N = 16k, hidden 2048), bf16")
    parser.add_argument("--systems", nargs="+", default=["flashio", "cuDNN"], choices=("flashio", "cuDNN", "FA2"))
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("host_gap: needs a CUDA GPU", file=sys.stderr)
        return 2
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    print("| d | causal | N | system | fwd free / held ms | fwd+bwd free / held ms | bwd free / held ms |")
    print("|---|---|---|---|---|---|---|")
    for point in args.points:
        d, kind, n = point.split(":")
        d, n, causal = int(d), int(n), kind == "c"
        batch, heads = 16384 // n, 2048 // d
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                   for _ in range(3))
        dout = torch.randn_like(q)
        for system in args.systems:
            medians = {}
            for backward in (False, True):
                run = _call(system, q, k, v, dout, causal, backward)
                for _ in range(10):  # tuning, compiles, launch plans
                    run()
                torch.cuda.synchronize()
                handles = {False: [], True: []}
                for _ in range(args.calls):
                    for held in (False, True):
                        handles[held].append(_time(run, flush, held))
                torch.cuda.synchronize()
                for held in (False, True):
                    medians[backward, held] = statistics.median(s.elapsed_time(e) for s, e in handles[held])
            cells = [f"{medians[b, False]:.4f} / {medians[b, True]:.4f}" for b in (False, True)]
            bwd = [medians[True, h] - medians[False, h] for h in (False, True)]
            print(f"| {d} | {causal} | {n} | {system} | {cells[0]} | {cells[1]} | {bwd[0]:.4f} / {bwd[1]:.4f} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
