"""table_final.md: the d=64 and d=128 rows of call 5's table (commit of call5.sh's run; its d=64 bench.json files did
not come back, the file-count limit, so the rows are taken from the table the call printed) and the d=256 rows of
v0.47 call 4's (commit 7a7f1ec; d=256's kernels and candidate lists have not changed since). Ratios are the tables'
(computed by cudnn_table.py from unrounded rates); the goal counts are the two calls' own (cudnn_table.py's, which
compare unrounded ratios with 1.0 and 1.8).

    python3 benchmarks/results/2026-12-03_h200_v0.48/merge_table.py > benchmarks/results/2026-12-03_h200_v0.48/table_final.md
"""

import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ((os.path.join(HERE, "call5", "table.md"), ("64", "128")),
           (os.path.join(HERE, "..", "2026-12-03_h200_v0.47", "table_final.md"), ("256",)))
# cudnn_table.py's goal lines of the two calls: (forward, backward) points at the goal among the rows taken.
GOALS = {"call 5 (d=64, d=128)": (26, 40), "v0.47 call 4 (d=256)": (20, 20)}


def rows():
    header, out = None, []
    for path, dims in SOURCES:
        for line in open(path):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| dtype"):
                header = line.rstrip("\n")
            elif len(cells) == 12 and cells[1] in dims:
                out.append(cells)
    return header, sorted(out, key=lambda c: (c[0], int(c[1]), c[2], int(c[3])))


def main():
    header, table = rows()
    print(header)
    print("|" + "---|" * 12)
    for cells in table:
        print("| " + " | ".join(cells) + " |")
    print()
    for name, column in (("fwd ÷ cuDNN", 7), ("bwd ÷ cuDNN", 8), ("fwd ÷ FA2", 9), ("bwd ÷ FA2", 10)):
        values = [float(c[column]) for c in table]
        below = sum(v < 0.85 for v in values) if "cuDNN" in name else None
        tail = f", {below} of {len(values)} below 0.85" if below is not None else ""
        print(f"{name}: {min(values):.2f}–{max(values):.2f} (median {statistics.median(values):.2f}{tail})")
    forward, backward = (sum(g[i] for g in GOALS.values()) for i in (0, 1))
    print(f"goal (>= 1.0x cuDNN and >= 1.8x FA2): forward {forward} of {len(table)}, backward {backward} of {len(table)}"
          f" ({'; '.join(f'{k}: {v[0]} / {v[1]}' for k, v in GOALS.items())})")


if __name__ == "__main__":
    main()
