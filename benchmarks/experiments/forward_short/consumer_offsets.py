"""Do a tile's two consumers reach its boundaries together? From ``round_times.py --dump`` files (v0.50).

v0.50 call 1: storing each tile's output while the next tile's first score product runs (``overlap_tiles``) gained
nothing at d=128 causal 1k (the ninth candidate 429 -> 417-426 TFLOP/s, probe run 59). Its premise was that the two
consumer warpgroups of a tile, which read one K/V ring, end and start their tiles at the same moments, so that
neither one's tensor-core work fills the other's boundary. This reads the warm launches' tile marks
(``gluon_clock.mark_tile``: per program, tile and partition, the global timer at the tile's start and end) and
prints, per dump, over every (program, tile) both consumers recorded:

- the start and end offsets, consumer 1 minus consumer 0 (median, and the 10th / 90th percentiles), µs;
- the share of a tile's span (the earlier start to the later end) in which both consumers are inside the tile;
- each consumer's mean tile duration and the mean gap from its tile's end to its next tile's start, µs.

    python3 benchmarks/experiments/forward_short/consumer_offsets.py DUMP.pt [DUMP.pt ...]

v0.50 call 2 (H200; results/2026-12-03_h200_v0.50/call2/): they do not. At d=128 causal 1k the second consumer starts
and ends each tile a median 2.3 µs (form 6; 1.5-1.8 µs for the ninth candidate) after the first, both inside a tile
for ~60% of its span; at causal 16k 1.3-1.5 µs of ~94 µs tiles (97%).
"""

import argparse
import statistics

import torch


def offsets(buffer: torch.Tensor) -> dict:
    """The figures of the module note for one clocked launch's buffer (programs, tiles + 1, partitions, 4)."""
    b = buffer.double()
    starts, ends = b[:, 1:, :2, 0], b[:, 1:, :2, 1]
    have = (starts >= 0).all(dim=2) & (ends >= 0).all(dim=2)
    start_offset = (starts[..., 1] - starts[..., 0])[have] / 1e3
    end_offset = (ends[..., 1] - ends[..., 0])[have] / 1e3
    span = (ends.max(dim=2).values - starts.min(dim=2).values)[have]
    both = (ends.min(dim=2).values - starts.max(dim=2).values).clamp(min=0)[have]
    durations = ((ends - starts) / 1e3)[have]
    gaps = []
    for consumer in range(2):
        following = have[:, 1:] & have[:, :-1]
        gaps.append(((starts[:, 1:, consumer] - ends[:, :-1, consumer]) / 1e3)[following])
    quantiles = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
    return {"start": torch.quantile(start_offset, quantiles).tolist(),
            "end": torch.quantile(end_offset, quantiles).tolist(),
            "both": float(both.sum() / span.sum()), "duration": durations.mean(dim=0).tolist(),
            "gap": [float(g.mean()) for g in gaps], "pairs": int(have.sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dumps", nargs="+", help="round_times.py --dump files")
    parser.add_argument("--condition", default="warm", help="which launches (round_times' conditions)")
    args = parser.parse_args()
    print("| dump | pairs | start offset p10 / p50 / p90 µs | end offset p10 / p50 / p90 µs | both inside | "
          "tile µs c0 / c1 | gap to next tile µs c0 / c1 |")
    print("|---|---|---|---|---|---|---|")
    for path in args.dumps:
        dump = torch.load(path)
        runs = [offsets(buffer) for buffer in dump["buffers"][args.condition]]
        median = lambda pick: statistics.median(pick(r) for r in runs)  # noqa: E731 - over the dump's launches
        triple = lambda key: " / ".join(f"{median(lambda r: r[key][i]):.2f}" for i in range(3))  # noqa: E731
        print(f"| {path.rsplit('/', 1)[-1]} | {median(lambda r: r['pairs'])} | {triple('start')} | {triple('end')} | "
              f"{median(lambda r: r['both']):.3f} | {median(lambda r: r['duration'][0]):.2f} / "
              f"{median(lambda r: r['duration'][1]):.2f} | {median(lambda r: r['gap'][0]):.2f} / "
              f"{median(lambda r: r['gap'][1]):.2f} |")


if __name__ == "__main__":
    main()
