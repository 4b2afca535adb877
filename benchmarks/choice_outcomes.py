"""What the tuner's forward choices cost in the bench: at each point of several `flashio bench` grids, the forward
form the tuner took (persistent or one tile per program) and the bench's rate against cuDNN measured with it.

Why (PERFORMANCE.md v0.42): twice in one session the tuner took the one-tile-per-program forward at a d=128 / d=256
point where the bench then measured it 3-7% below the persistent form of other runs, on tuner timings that had put the
two within 1-3%. Across many grids, each point's rate with each kind of form says whether that is one run's noise or
what the tuner's choice costs wherever it happens.

    python3 benchmarks/choice_outcomes.py benchmarks/results/2026-12-02_h200_v0.4*/grid/*/bench.json [--min-head-dim 128]

For each (dtype, d, causal, N) where both kinds were taken in different files: how often each was taken and the mean
of flashio ÷ cuDNN with it; then a count of the points where the persistent kind's mean is the higher one.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict


def forward_kind(tiles: str) -> str:
    """'persistent' or 'one tile' from a row's ``tiles`` field ('forward=gluon 128x128 ... persistent ...; ...')."""
    forward = tiles.split(";")[0]
    return "persistent" if " persistent" in forward else "one tile"


def outcomes(paths: list[str], min_head_dim: int = 0) -> dict[tuple, dict[str, list[float]]]:
    """(dtype, d, causal, N) -> {kind: [flashio ÷ cuDNN forward, one per file that took that kind]}, over the
    files' flashio and sdpa_cudnn forward rows (status ok)."""
    found: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for path in paths:
        with open(path) as f:
            rows = [row for row in json.load(f)["results"] if row.get("status", "ok") == "ok" and row["mode"] == "fwd"]
        cudnn = {(r["dtype"], r["head_dim"], r["causal"], r["seqlen"]): r["tflops"] for r in rows
                 if r["system"] == "sdpa_cudnn"}
        for row in rows:
            point = (row["dtype"], row["head_dim"], row["causal"], row["seqlen"])
            if row["system"] != "flashio" or point not in cudnn or row["head_dim"] < min_head_dim:
                continue
            found[point][forward_kind(row["tiles"])].append(row["tflops"] / cudnn[point])
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="bench.json files (interleaved grids)")
    parser.add_argument("--min-head-dim", type=int, default=0, help="only points of this head dim and above")
    args = parser.parse_args(argv)
    print("| dtype | d | causal | N | persistent: taken, mean ÷ cuDNN | one tile: taken, mean ÷ cuDNN |")
    print("|---|---|---|---|---|---|")
    both = higher = 0
    for point, kinds in sorted(outcomes(args.paths, args.min_head_dim).items()):
        if len(kinds) < 2:
            continue
        both += 1
        means = {kind: statistics.mean(ratios) for kind, ratios in kinds.items()}
        higher += means["persistent"] > means["one tile"]
        cells = [f"{len(kinds[kind])}, {means[kind]:.3f}" for kind in ("persistent", "one tile")]
        print("| " + " | ".join(str(part) for part in point) + " | " + " | ".join(cells) + " |")
    print(f"{both} points took both kinds; the persistent kind's mean is the higher at {higher}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
