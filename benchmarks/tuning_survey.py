"""Which tuning candidates ever ranked near the fastest: a survey of the tuner's own timings recorded in
`flashio bench` result files (each flashio row's ``tuning`` field: per kernel pass, every candidate's
timings at that point).

    python3 benchmarks/tuning_survey.py benchmarks/results/2026-12-01_h200_v0.2*/*.json \\
        benchmarks/results/2026-12-01_h200_v0.2*/*/*.json

For each (pass, head dim) it prints how often each candidate won and, per candidate, its best ratio to the
point's fastest candidate (medians of each candidate's timings) over all points with where that was. The
candidates that never came within 10% of the fastest on the H200 are the ones `configs.HOPPER_UNTIMED` leaves
out of a first call on Hopper (v0.27).
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections import Counter, defaultdict

# "label 0.2584/0.2570/0.2647 ms" or "label 0.2927 ms", separated by ", "
_CANDIDATE = re.compile(r"(?:^|, )(?P<label>[a-z][^,]*?) (?P<times>[0-9.]+(?:/[0-9.]+)*) ms")


def parse_tuning_timings(text: str) -> dict[str, dict[str, list[float]]]:
    """A row's tuning field -> {pass: {candidate label: its timings in ms, in the order taken}}. A pass tuned twice
    at one point (the dK/dV tiles with and without dQ atomics) gets " #2" on its second name."""
    passes: dict[str, dict[str, list[float]]] = {}
    for part in text.split(" | "):
        name, _, rest = part.partition(": ")
        if name in passes:
            name += " #2"
        timings = {m["label"]: [float(t) for t in m["times"].split("/")] for m in _CANDIDATE.finditer(rest)}
        if timings:
            passes[name] = timings
    return passes


def parse_tuning(text: str) -> dict[str, dict[str, float]]:
    """A row's tuning field -> {pass: {candidate label: median time in ms}} (``parse_tuning_timings``' medians)."""
    return {name: {label: statistics.median(timed) for label, timed in timings.items()}
            for name, timings in parse_tuning_timings(text).items()}


def survey(paths) -> tuple[dict, dict]:
    """(wins[(pass, d)] = Counter of winning labels, ratios[(pass, d)][label] = [(ratio, point)...])."""
    wins: dict = defaultdict(Counter)
    ratios: dict = defaultdict(lambda: defaultdict(list))
    for path in paths:
        with open(path) as f:
            results = json.load(f).get("results", [])
        for row in results:
            # every mode's row carries the same tuning field: read it once per point
            if row.get("system") != "flashio" or row.get("mode") != "fwd" or not row.get("tuning"):
                continue
            point = (row["dtype"], "causal" if row["causal"] else "non-causal", row["seqlen"])
            for name, times in parse_tuning(row["tuning"]).items():
                fastest = min(times.values())
                key = (name, row["head_dim"])
                wins[key][min(times, key=times.get)] += 1
                for label, time in times.items():
                    ratios[key][label].append((time / fastest, point))
    return wins, ratios


def main(paths) -> int:
    if not paths or paths[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if paths else 2
    wins, ratios = survey(paths)
    for key in sorted(ratios):
        print(f"{key[0]}, d={key[1]}: wins {dict(wins[key])}")
        for label, seen in sorted(ratios[key].items(), key=lambda item: min(r for r, _ in item[1])):
            best, where = min(seen)
            print(f"    {best:.3f}x at best ({len(seen)} points; {', '.join(map(str, where))})  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
