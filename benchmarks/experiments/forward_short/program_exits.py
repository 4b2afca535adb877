"""Read ``round_times.py --dump`` files: which programs end last, and what their tiles cost (v0.36, CPU only).

For each dump (one point and form; its tile list, or None for the kernels' round-robin pairs, rebuilt here with
``schedules.round_robin_schedule``): the programs' exits after the earliest entry (min / median / max) in each of
the condition's saved launches; the median exit of the programs grouped by their first pair of query blocks (a
round-robin over the pairs gives program p the same pair of each head when the programs are a multiple of the pairs
per head); and each consumer's median time in a tile by query block, with the median gap between its tiles.

    PYTHONPATH=src python3 benchmarks/experiments/forward_short/program_exits.py FILE.pt [FILE.pt ...] \\
        [--condition warm]

v0.36 call 3 (H200, bf16, warm; results/2026-12-02_h200_v0.36_probes/call3_programs_by_pair.txt): at d=128 causal 1k
the programs holding the (6, 1) and (7, 0) pairs ended at 164 µs (median), those holding (5, 2) and (4, 3) at 156.5;
at d=64 causal 1k (persistent form) 237.5 against 224.5; per consumer, a tile of query block 7 took 14.3 µs and one of
block 0 5.1 at d=128, so the pairs (7, 0) and (6, 1) cost 19.2-19.5 µs and (5, 2), (4, 3) 18.2-18.4.
"""

import argparse
import collections
import statistics

import torch

from flashio import schedules


def _program_lists(data: dict, blocks_per_head: int, head_batches: int) -> list[list[int]]:
    programs = data["programs"]
    if data["schedule"] is None:
        schedule = schedules.round_robin_schedule(blocks_per_head, head_batches, programs)
        return [list(schedule.program_tiles(p)) for p in range(programs)]
    table = data["schedule"].tolist()
    offsets, tiles = table[:programs + 1], table[programs + 1:]
    return [tiles[offsets[p]:offsets[p + 1]] for p in range(programs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--condition", default="warm", help="warm, FA2, cuDNN or plain (the kernel before the flush)")
    args = parser.parse_args()
    for path in args.files:
        data = torch.load(path)
        # File names: round_times_d{d}_{causal|noncausal}_{N}_form{I}[_{order}].pt; the shapes (16k tokens,
        # hidden 2048) and 128-row tiles give the blocks per head and the heads x sequences.
        _, _, dim, kind, n = path.rsplit("/", 1)[-1].split("_")[:5]
        d, n = int(dim[1:]), int(n)
        blocks_per_head, head_batches = n // 128, (2048 // d) * (16384 // n)
        consumers = data["consumers"]
        lists = _program_lists(data, blocks_per_head, head_batches)
        exits_by_pair = collections.defaultdict(list)
        tile_times = collections.defaultdict(lambda: collections.defaultdict(list))
        gaps = []
        print(f"## {path.rsplit('/', 1)[-1]} ({args.condition}; {'listed' if data['schedule'] is not None else 'round-robin'})")
        for buffer in data["buffers"][args.condition]:
            b = buffer.double()
            t0 = b[:, 0, :consumers, 0].min()
            exits = (b[:, 0, :consumers, 1].max(dim=1).values - t0) / 1e3
            print(f"- exits min / median / max µs: {float(exits.min()):.1f} / {float(exits.median()):.1f} / "
                  f"{float(exits.max()):.1f}")
            for program, tiles in enumerate(lists):
                exits_by_pair[tuple(tile % blocks_per_head for tile in tiles[:2])].append(float(exits[program]))
                for i, tile in enumerate(tiles[1:b.shape[1] - 1], start=1):  # tile 0 carries the start-up
                    for consumer in range(consumers):
                        tile_times[tile % blocks_per_head][consumer].append(
                            float(b[program, 1 + i, consumer, 1] - b[program, 1 + i, consumer, 0]) / 1e3)
                    gaps.append(float(b[program, 1 + i, 0, 0] - b[program, i, 0, 1]) / 1e3)
        print("- median exit by first pair: " + ", ".join(
            f"{pair}: {statistics.median(values):.1f}" for pair, values in sorted(exits_by_pair.items())))
        print(f"- per-consumer tile µs by query block (median; gap between tiles {statistics.median(gaps):.2f}): "
              + ", ".join(f"{block}: " + " / ".join(f"{statistics.median(tile_times[block][c]):.2f}"
                                                    for c in range(consumers))
                          for block in sorted(tile_times)))


if __name__ == "__main__":
    main()
