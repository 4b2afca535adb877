"""table_final.md: the d=64 and d=128 rows of call 5's table (commit 7bbcbc0; its two d=64 bench.json files did not
come back, the file-count limit, so every row is taken from the table the call printed on the device) and the d=256
rows of v0.47 call 4's (commit 7a7f1ec; d=256's kernels and candidate lists have not changed since). The ranges are
over the tables' ratio columns; the goal counts compare unrounded ratios with 1.0 and 1.8 (``cudnn_table.goal_points``):
d=128's and d=256's from their bench.json files, d=64's as call 5's printed count less its d=128 files' count.

    python3 benchmarks/results/2026-12-03_h200_v0.48/merge_table.py > benchmarks/results/2026-12-03_h200_v0.48/table_final.md
"""

import glob
import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import cudnn_table  # noqa: E402 - benchmarks/cudnn_table.py

CALL5_TABLE = os.path.join(HERE, "call5", "table.md")
V047_TABLE = os.path.join(HERE, "..", "2026-12-03_h200_v0.47", "table_final.md")
SOURCES = ((CALL5_TABLE, ("64", "128")), (V047_TABLE, ("256",)))
RATIO_COLUMNS = {"fwd ÷ cuDNN": 7, "bwd ÷ cuDNN": 8, "fwd ÷ FA2": 9, "bwd ÷ FA2": 10}


def table_rows() -> tuple[str, list]:
    """The Markdown header and the rows of SOURCES' head dims, sorted as cudnn_table.py sorts them."""
    header, out = None, []
    for path, dims in SOURCES:
        for line in open(path):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| dtype"):
                header = line.rstrip("\n")
            elif len(cells) == 12 and cells[1] in dims:
                out.append(cells)
    return header, sorted(out, key=lambda c: (c[0], int(c[1]), c[2], int(c[3])))


def json_goal_points(paths: list) -> tuple[int, int]:
    """(forward, backward) goal points of bench.json files, on unrounded ratios."""
    ratios = defaultdict(list)
    for row in cudnn_table.load(paths).values():
        for name, value in cudnn_table._ratios(row).items():
            ratios[name].append(value)
    return cudnn_table.goal_points(ratios, "fwd"), cudnn_table.goal_points(ratios, "bwd")


def printed_goal_points(path: str) -> tuple[int, int]:
    """(forward, backward) of the goal line cudnn_table.py printed into ``path``."""
    match = re.search(r"goal .*: forward (\d+) of \d+, backward (\d+) of \d+", open(path).read())
    return int(match.group(1)), int(match.group(2))


def main() -> None:
    header, rows = table_rows()
    print(header)
    print("|" + "---|" * 12)
    for cells in rows:
        print("| " + " | ".join(cells) + " |")
    print()
    for name, column in RATIO_COLUMNS.items():
        values = sorted(float(c[column]) for c in rows)
        below = f", {sum(v < cudnn_table.MILESTONE for v in values)} of {len(values)} below 0.85" if "cuDNN" in name else ""
        print(f"{name}: {values[0]:.2f}–{values[-1]:.2f} (median {values[len(values) // 2]:.2f}{below})")
    d128 = json_goal_points(sorted(glob.glob(os.path.join(HERE, "call5", "grid", "d128_*", "bench.json"))))
    call5 = printed_goal_points(CALL5_TABLE)
    d64 = (call5[0] - d128[0], call5[1] - d128[1])
    d256 = json_goal_points(sorted(glob.glob(os.path.join(HERE, "..", "2026-12-03_h200_v0.47", "call4", "grid",
                                                          "d256_*", "bench.json"))))
    forward, backward = (d64[i] + d128[i] + d256[i] for i in (0, 1))
    print(f"goal (>= 1.0x cuDNN and >= 1.8x FA2): forward {forward} of {len(rows)}, backward {backward} of {len(rows)} "
          f"(forward / backward: d=64 {d64[0]} / {d64[1]}, d=128 {d128[0]} / {d128[1]}, d=256 {d256[0]} / {d256[1]})")


if __name__ == "__main__":
    main()
