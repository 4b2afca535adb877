"""What the split-tail forward's merge costs on the GPU (v0.38, prepared): ``launchers.combine_split_tail`` alone, on
the grid's non-causal shapes (batch x N = 16k tokens, hidden 2048, bf16), with the slots of the split tail the tuned
persistent form would take there (``launchers.split_tail_partials``), filled with finite values. The model behind
PERFORMANCE.md's v0.38 prediction: ~2 µs plus the slots' bytes at ~5 TB/s (they are written by the forward just
before, so mostly still in the 50 MB L2). Timed after a 256 MB flush (from HBM), median of ``--repeats``, CUDA events
around one merge launch; the flush keeps the stream busy while Python launches the merge, so that the events time the
GPU. (v0.39's calls 1-2 also timed it warm, the slots in L2 from the previous merge: 8-51 µs, Python's launch time
whether or not a ``torch.cuda._sleep`` was queued ahead; that column is gone.) ``--variants`` times the merge's tile
rows and pipeline depth (``rows:stages``; the launcher's defaults first).

Outcome (v0.39 calls 1-2, H200, after a flush): 32 rows, one stage (v0.38's merge) d=128 12.0-12.7 µs, d=64 12.1 /
19.7 / 35.0 µs at 1k / 2k / 16k, d=256 17.1-17.7 µs: 2-4x the model, each program reading its pieces one after
another. Pipelined over the pieces, 16 rows and 3 stages (the defaults since): d=128 1k 10.0, d=64 16k 14.9, d=256
17.0.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/merge_cost.py

Without a GPU, ``--plan`` prints each shape's cut tiles, pieces and slot bytes (the same numbers the launcher uses).
"""

import argparse
import dataclasses
import statistics

import torch

from flashio import configs, launchers, schedules

TOKENS, HIDDEN = 16384, 2048
FLUSH_BYTES = 256 * 1024 * 1024


def tuned_split_form(head_dim: int) -> configs.TileConfig:
    """The tuned persistent Gluon forward of this head dim (d=256: its persistent form) with the split tail."""
    index = 2 if head_dim == 128 else 1
    return dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[head_dim][index], split_tail=True,
                               noncausal_claims=False)


def plan(head_dim: int, seqlen: int, programs: int) -> dict:
    """The split tail of the grid's non-causal shape at (head_dim, seqlen) on ``programs`` programs."""
    config = tuned_split_form(head_dim)
    batch, heads = TOKENS // seqlen, HIDDEN // head_dim
    query_blocks = -(-seqlen // config.block_m)
    key_blocks = -(-seqlen // config.block_n)
    merges = schedules.split_tail_combines(
        schedules.split_tail_forward_schedule(query_blocks, heads * batch, programs, key_blocks))
    pieces = sum(count for _, _, count in merges)
    return dict(head_dim=head_dim, seqlen=seqlen, batch=batch, heads=heads, cut_tiles=len(merges), pieces=pieces,
                slot_mb=pieces * config.block_m * (head_dim + 1) * 4 / 1e6)


def time_merge(head_dim: int, seqlen: int, repeats: int, flush: torch.Tensor, block_rows: int,
               num_stages: int) -> float:
    """Median µs, after a flush, of one merge launch of ``block_rows`` rows and ``num_stages`` stages."""
    config = tuned_split_form(head_dim)
    device = torch.device("cuda")
    batch, heads = TOKENS // seqlen, HIDDEN // head_dim
    q = torch.empty(batch, heads, seqlen, head_dim, device=device, dtype=torch.bfloat16)
    problem = launchers.describe(q, q, "bhnd", None)
    partials, combines = launchers.split_tail_partials(config, problem, launchers.persistent_programs(device), device)
    partials.copy_(torch.randn_like(partials))
    out, lse = torch.empty_like(q), torch.empty(batch, heads, seqlen, device=device)
    strides = launchers.strides_bhnd(out, "bhnd")

    def merge():
        launchers.combine_split_tail(partials, combines, out, lse, strides, lse.stride(), problem, config.block_m,
                                     block_rows=block_rows, num_stages=num_stages)

    merge()  # compile
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        merge()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000)
    return statistics.median(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-dims", nargs="+", type=int, default=(128, 64, 256), choices=(64, 128, 256))
    parser.add_argument("--seqlens", nargs="+", type=int, default=(1024, 2048, 16384))
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--variants", nargs="+", default=(f"{launchers.SPLIT_TAIL_COMBINE_ROWS}:"
                                                           f"{launchers.SPLIT_TAIL_COMBINE_STAGES}",),
                        help="the merge's rows per program and pipeline stages, rows:stages each")
    parser.add_argument("--plan", action="store_true", help="print the shapes' pieces and bytes only (no GPU)")
    parser.add_argument("--programs", type=int, default=132, help="with --plan: the persistent grid's programs")
    args = parser.parse_args(argv)
    flush = None if args.plan else torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    variants = [tuple(int(part) for part in variant.split(":")) for variant in args.variants]
    print("| d | N | cut tiles | pieces | slots MB | rows:stages | merge µs, after a flush |")
    print("|---|---|---|---|---|---|---|")
    for head_dim in args.head_dims:
        for seqlen in args.seqlens:
            programs = args.programs if args.plan else launchers.persistent_programs(torch.device("cuda"))
            shape = plan(head_dim, seqlen, programs)
            for block_rows, num_stages in variants:
                flushed = "-" if args.plan else \
                    f"{time_merge(head_dim, seqlen, args.repeats, flush, block_rows, num_stages):.1f}"
                print(f"| {head_dim} | {seqlen} | {shape['cut_tiles']} | {shape['pieces']} | {shape['slot_mb']:.1f} | "
                      f"{block_rows}:{num_stages} | {flushed} |", flush=True)


if __name__ == "__main__":
    main()
