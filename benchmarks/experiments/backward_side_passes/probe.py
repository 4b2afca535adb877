"""The backward's side passes at the grid's shapes, timed alone on the GPU: the preprocess D_i = rowsum(dO_i o O_i)
(``kernels/backward.py``) at several row blocks and warp counts, against the float32 dQ accumulator's zero fill and
its conversion copy (PyTorch's ``zero_`` and ``copy_``, as the launcher runs them).

Why (v0.40 step trace, call 3): per backward step flashio's side passes take 115 µs at every point of the grid (the
bytes do not depend on N: batch x N = 16k tokens, hidden 2048), the preprocess 35.6 µs for 134 MB read (3.8 TB/s)
while the fill writes 134 MB at 4.3 TB/s and the copy moves 201 MB at 4.2 TB/s. At d=64 causal 2k and d=256
non-causal 1k the backward is 0.6-2% short of 1.8x FA2, i.e. 6-20 µs.

    PYTHONPATH=src python3 benchmarks/experiments/backward_side_passes/probe.py --rounds 30

Each round times every variant once (CUDA events around one launch, a 256 MB write between launches so that nothing
starts in L2); the table gives the median µs and the rate over the bytes each pass must move, and each preprocess
variant's largest difference to a float32 PyTorch rowsum.
"""

import argparse
import statistics

import torch
import triton
import triton.language as tl

from flashio.kernels import backward as backward_kernels


@triton.jit
def flat_preprocess_kernel(O, DO, DELTA, rows, ROWS_PER_PROGRAM: tl.constexpr, BLOCK_ROWS: tl.constexpr,
                           HEAD_DIM: tl.constexpr):
    """A probe's preprocess over contiguous (B, H, N, d) O and dO as one [rows, d] matrix (D contiguous (B, H, N):
    the same row order): program p takes rows [p ROWS_PER_PROGRAM, (p + 1) ROWS_PER_PROGRAM) in BLOCK_ROWS
    pieces, unmasked columns."""
    first = tl.program_id(0).to(tl.int64) * ROWS_PER_PROGRAM
    cols = tl.arange(0, HEAD_DIM)
    for start in range(0, ROWS_PER_PROGRAM, BLOCK_ROWS):
        offs = first + start + tl.arange(0, BLOCK_ROWS)
        row_in = offs < rows
        o = tl.load(O + offs[:, None] * HEAD_DIM + cols[None, :], mask=row_in[:, None], other=0.0)
        do = tl.load(DO + offs[:, None] * HEAD_DIM + cols[None, :], mask=row_in[:, None], other=0.0)
        tl.store(DELTA + offs, tl.sum(o.to(tl.float32) * do.to(tl.float32), 1), mask=row_in)

HEADS = {64: 32, 128: 16, 256: 8}  # head dim -> heads: hidden 2048
PREPROCESS_FORMS = [(rows, warps) for rows in (64, 128, 256) for warps in (4, 8)]  # (64, 4): the launcher's
# v0.41 (call 4): O and dO read as one [B H N, d] matrix, each program a run of rows (rows a program, rows a step,
# warps); one row block a program, or longer runs with fewer programs.
FLAT_FORMS = [(64, 64, 4), (128, 128, 4), (256, 128, 8), (1024, 128, 8), (2048, 256, 8), (4096, 256, 8)]


def _timed(run, flush, rounds_of):
    flush.zero_()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    run()
    end.record()
    end.synchronize()
    rounds_of.append(start.elapsed_time(end) * 1000.0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--head-dims", nargs="+", type=int, choices=sorted(HEADS), default=sorted(HEADS))
    parser.add_argument("--seqlen", type=int, default=1024)
    args = parser.parse_args(argv)
    flush = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda")
    print("| d | pass | µs (median) | TB/s | max diff |")
    print("|---|---|---|---|---|")
    for head_dim in args.head_dims:
        heads = HEADS[head_dim]
        n = args.seqlen
        batch = 16384 // n  # 16k tokens a batch, as in the grid
        torch.manual_seed(0)
        out = torch.randn(batch, heads, n, head_dim, device="cuda", dtype=torch.bfloat16)
        grad_out = torch.randn_like(out)
        delta = torch.empty(batch, heads, n, device="cuda", dtype=torch.float32)
        accumulator = torch.empty(out.shape, device="cuda", dtype=torch.float32)
        dq = torch.empty_like(out)
        reference = (out.float() * grad_out.float()).sum(-1)

        def preprocess(rows, warps):
            def run():
                backward_kernels.attention_backward_preprocess_kernel[(triton.cdiv(n, rows), heads, batch)](
                    out, grad_out, delta, *out.stride(), *grad_out.stride(), *delta.stride(), None, n, head_dim,
                    BLOCK_M=rows, BLOCK_D=head_dim, IS_VARLEN=False, num_warps=warps)
            return run

        passes = {f"preprocess {rows} rows, {warps} warps": preprocess(rows, warps) for rows, warps in PREPROCESS_FORMS}

        def flat(rows_per_program, block_rows, warps):
            total = out.numel() // head_dim

            def run():
                flat_preprocess_kernel[(triton.cdiv(total, rows_per_program),)](
                    out, grad_out, delta, total, ROWS_PER_PROGRAM=rows_per_program, BLOCK_ROWS=block_rows,
                    HEAD_DIM=head_dim, num_warps=warps)
            return run

        for rows_per_program, block_rows, warps in FLAT_FORMS:
            passes[f"flat preprocess {rows_per_program} rows a program, {block_rows} at a time, {warps} warps"] = \
                flat(rows_per_program, block_rows, warps)
        passes["dQ accumulator zero_"] = accumulator.zero_
        passes["dQ copy_ (float32 -> bf16)"] = lambda: dq.copy_(accumulator)
        moved = {name: 2 * out.numel() * out.element_size() + delta.numel() * 4 for name in passes}
        moved["dQ accumulator zero_"] = accumulator.numel() * 4
        moved["dQ copy_ (float32 -> bf16)"] = accumulator.numel() * 6
        errors = {}
        for name, run in passes.items():  # warm-up (compiles) and correctness
            delta.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            if "preprocess" in name:
                errors[name] = (delta - reference).abs().max().item()
        times = {name: [] for name in passes}
        for _ in range(args.rounds):
            for name, run in passes.items():
                _timed(run, flush, times[name])
        for name in passes:
            us = statistics.median(times[name])
            error = f"{errors[name]:.2e}" if name in errors else "-"
            print(f"| {head_dim} | {name} | {us:.1f} | {moved[name] / us / 1e6:.2f} | {error} |")


if __name__ == "__main__":
    main()
