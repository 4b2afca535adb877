"""Whether the tuner's first timings favour the candidates it times first: per position in the tuner's timing order,
each candidate's first timing against the median of its later timings (its second look and rematch), over the
``tuning`` fields of `flashio bench` result files (no GPU).

Why (v0.43): at close forward points the tuner took the one-tile-per-program form on a low first timing and the bench
then measured it below the persistent form (PERFORMANCE.md v0.42, ``choice_outcomes.py``). A first call compiles
its candidates before it times them, so the GPU comes to the first timing idle, and the H200 runs faster for its
first ~100 ms of work (v0.16's drift.py). If that reaches the choices, the first candidates' first timings are low
against their own later ones, and the later candidates' are not.

The order is the one the current ``configs`` gives a Hopper call in the grids' regime (``timed_candidates``; causal
calls time one candidate per ``causal_form``): read files from versions whose candidate lists match it. Only
candidates timed three times or more (rematched) count. Those entered the rematch on a first timing close to the
fastest, so a lucky first timing lowers the ratio at any position; the late positions are the control for that.

    python3 benchmarks/tuner_warmup.py benchmarks/results/2026-12-02_h200_v0.4[0-2]/grid/*/bench.json

v0.43 over the v0.40-v0.42 grids and v0.42's repeat (21 files): forward, median first / later by position 0.90
(12 candidates), 0.93 (89), 0.96 (93), 0.97 (65), 0.99 (112), 1.00 (10), 0.99 (71), 1.01 (55); the fused backward at
d=128 0.96 (38), 0.99 (24), 0.99 (20; the claims form, a candidate until v0.43, so no longer in the order), at
d=64 0.975 (19), 0.99 (19).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(__file__))
from compile_cost import first_call_kernels  # noqa: E402 - benchmarks/compile_cost.py
from tuning_survey import parse_tuning_timings  # noqa: E402 - benchmarks/tuning_survey.py

from flashio.bench import sweep  # noqa: E402


def timing_order(tuned_pass: str, head_dim: int, causal: bool) -> list[str]:
    """The labels of the candidates a Hopper call in the grids' regime times for ``tuned_pass`` ("forward" or
    "backward_fused"), in the order it times them (launchers._pick's list, as ``compile_cost.first_call_kernels``
    builds it)."""
    label = {"forward": "forward, ", "backward_fused": "backward, fused"}[tuned_pass]
    return [sweep.describe_choice(config, tuned_pass)
            for job_label, _, _, config in first_call_kernels(head_dim, causal, everything=False)
            if job_label.startswith(label)]


def first_against_later(paths: list[str], tuned_pass: str) -> dict[tuple[int, int], list[float]]:
    """{(head_dim, position): [first timing / median of the later ones, ...]} over the files' flashio rows."""
    ratios: dict[tuple[int, int], list[float]] = defaultdict(list)
    for path in paths:
        with open(path) as f:
            rows = json.load(f)["results"]
        for row in rows:
            # every mode's row carries the same tuning field: read it once per point
            if row.get("system") != "flashio" or row.get("mode") != "fwd" or not row.get("tuning"):
                continue
            timings = parse_tuning_timings(row["tuning"]).get(tuned_pass)
            if not timings:
                continue
            order = timing_order(tuned_pass, row["head_dim"], row["causal"])
            for label, times in timings.items():
                if len(times) >= 3 and label in order:
                    ratios[(row["head_dim"], order.index(label))].append(times[0] / statistics.median(times[1:]))
    return dict(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--passes", nargs="+", default=["forward", "backward_fused"])
    args = parser.parse_args()
    print("| pass | head dim | position | candidates | median first / later | share below 0.97 |")
    print("|---|---|---|---|---|---|")
    for tuned_pass in args.passes:
        ratios = first_against_later(args.files, tuned_pass)
        by_position: dict[int, list[float]] = defaultdict(list)
        for (head_dim, position), values in sorted(ratios.items()):
            by_position[position] += values
            print(f"| {tuned_pass} | {head_dim} | {position} | {len(values)} | {statistics.median(values):.3f} | "
                  f"{sum(v < 0.97 for v in values) / len(values):.2f} |")
        for position, values in sorted(by_position.items()):
            print(f"| {tuned_pass} | all | {position} | {len(values)} | {statistics.median(values):.3f} | "
                  f"{sum(v < 0.97 for v in values) / len(values):.2f} |")


if __name__ == "__main__":
    main()
