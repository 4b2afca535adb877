"""The issue-5 table from `flashio bench` result files: flashio against SDPA's cuDNN and FLASH backends
measured in the same run, and the share of the bf16 matmul rate measured in that run (forward and backward,
each at its counted FLOPs: the backward's are 2.5x the forward's).

    python3 benchmarks/cudnn_table.py benchmarks/results/2026-11-30_h200_v0.5_grid/*.json
    python3 benchmarks/cudnn_table.py results/2026-11-30_h200_v0.6_grid/*.json results/2026-11-30_h200_v0.6_grid/bf16_d64.csv

A CSV file is read with the run's console log beside it (for the matmul ceiling); v0.6's bf16 d=64 JSON did
not come back from the GPU machine (file-count limit), its CSV and log did. A ``.log`` file alone is read from
its console table (v0.11's bf16 d=256 grid came back as its log only).

Prints one Markdown row per (dtype, d, causal, N) and a summary of the ratios; a ratio below the
milestone (0.85x cuDNN) is marked with an asterisk.

With ``--samples``, files that time the same points again are samples of them (v0.26: a single sustained
sample at 1k moved by 0.1x): each sample's ratios are taken within its own file (the same run), and a point's
row gives their median with the lowest and highest and the count; the summary ranges are over the medians.
Without it, a point timed in several files takes the last file's numbers.

    python3 benchmarks/cudnn_table.py --samples run1/*.json run2/*.json run3/*.json
"""

from __future__ import annotations

import csv
import json
import os
import statistics
import sys
from collections import defaultdict

MILESTONE = 0.85
GOAL_CUDNN, GOAL_FA2 = 1.0, 1.8


def _read(path: str) -> tuple[float, list[dict]]:
    """(bf16 matmul TFLOP/s of the run, result rows) of a bench JSON file, or of a bench CSV file with the
    run's console log beside it (same name, .log: its "ceilings measured in this run" line)."""
    if path.endswith(".log"):
        return _read_console_log(path)
    if not path.endswith(".csv"):
        data = json.load(open(path))
        return data["ceilings"]["matmul_tflops"], data["results"]
    ceiling = [line for line in open(path[:-4] + ".log") if line.startswith("ceilings measured in this run")]
    matmul = float(ceiling[0].split("bf16 matmul")[1].split()[0])
    results = []
    for r in csv.DictReader(open(path)):
        results.append(dict(r, head_dim=int(r["head_dim"]), seqlen=int(r["seqlen"]), causal=r["causal"] == "True",
                            tflops=float(r["tflops"])))
    return matmul, results


def _read_console_log(path: str) -> tuple[float, list[dict]]:
    """The same from a bench run's console log alone (its Markdown table and ceilings line), for a run
    whose result files did not come back from the GPU machine (v0.11's bf16 d=256 grid)."""
    lines = open(path).read().splitlines()
    ceiling = [line for line in lines if line.startswith("ceilings measured in this run")]
    matmul = float(ceiling[0].split("bf16 matmul")[1].split()[0])
    header = next(line for line in lines if line.startswith("| system |"))
    names = [cell.strip() for cell in header.strip("|").split("|")]
    results = []
    for line in lines:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if not line.startswith("| ") or line == header or len(cells) != len(names) or cells[0].startswith("-"):
            continue
        row = dict(zip(names, cells))
        for mode in ("fwd", "bwd", "fwdbwd"):
            results.append(dict(system=row["system"], mode=mode, dtype=row["dtype"], head_dim=int(row["d"]),
                                causal=row["causal"] == "yes", seqlen=int(row["N"]),
                                tflops=float(row[f"{mode} TFLOP/s"])))
    return matmul, results


def load(paths):
    rows = defaultdict(dict)  # (dtype, d, causal, N) -> {(system, mode): tflops, "matmul": ...}
    for path in paths:
        matmul, results = _read(path)
        for r in results:
            key = (r["dtype"], r["head_dim"], r["causal"], r["seqlen"])
            rows[key][(r["system"], r["mode"])] = r["tflops"]
            rows[key]["matmul"] = matmul
    return rows


def load_samples(paths) -> dict:
    """(dtype, d, causal, N) -> one {(system, mode): tflops, "matmul": ...} per file that times the point."""
    samples = defaultdict(list)
    for path in paths:
        for key, row in load([path]).items():
            samples[key].append(row)
    return samples


def _ratios(row: dict) -> dict:
    """A sample's flashio ÷ cuDNN and ÷ FA2 ratios, forward and backward (NaN where a system is missing)."""
    get = lambda system, mode: row.get((system, mode), float("nan"))
    return {"fwd ÷ cuDNN": get("flashio", "fwd") / get("sdpa_cudnn", "fwd"),
            "bwd ÷ cuDNN": get("flashio", "bwd") / get("sdpa_cudnn", "bwd"),
            "fwd ÷ FA2": get("flashio", "fwd") / get("sdpa_flash", "fwd"),
            "bwd ÷ FA2": get("flashio", "bwd") / get("sdpa_flash", "bwd")}


def _mark(ratio: float) -> str:
    return f"{ratio:.2f}" + ("*" if ratio < MILESTONE else "")


def goal_points(ratios: dict, direction: str) -> int:
    """Points of ``direction`` ("fwd" or "bwd") at the issue's goal: >= 1.0x cuDNN and >= 1.8x FA2 (the
    lists in ``ratios`` are in the same point order)."""
    pairs = zip(ratios[f"{direction} ÷ cuDNN"], ratios[f"{direction} ÷ FA2"])
    return sum(cudnn >= GOAL_CUDNN and fa2 >= GOAL_FA2 for cudnn, fa2 in pairs)


def _summary(ratios: dict) -> None:
    print()
    for name, values in ratios.items():
        below = sum(v < MILESTONE for v in values) if "cuDNN" in name else None
        extra = f", {below} of {len(values)} below {MILESTONE}" if below is not None else ""
        print(f"{name}: {min(values):.2f}–{max(values):.2f} (median {sorted(values)[len(values) // 2]:.2f}{extra})")
    points = len(ratios["fwd ÷ cuDNN"])
    print(f"goal (>= {GOAL_CUDNN}x cuDNN and >= {GOAL_FA2}x FA2): forward {goal_points(ratios, 'fwd')} of {points}, "
          f"backward {goal_points(ratios, 'bwd')} of {points}")


def main_samples(paths) -> int:
    """The ``--samples`` table: per point the median of its samples' ratios, with their range and count."""
    samples = load_samples(paths)
    names = ("fwd ÷ cuDNN", "bwd ÷ cuDNN", "fwd ÷ FA2", "bwd ÷ FA2")
    print("| dtype | d | causal | N | samples | " + " | ".join(f"{name} median (range)" for name in names) + " |")
    print("|---|---|---|---|---|" + "---|" * len(names))
    medians = defaultdict(list)
    for key in sorted(samples):
        dtype, d, causal, n = key
        per_sample = [_ratios(row) for row in samples[key]]
        cells = []
        for name in names:
            values = sorted(r[name] for r in per_sample)
            median = statistics.median(values)
            medians[name].append(median)
            cells.append(f"{_mark(median)} ({values[0]:.2f}–{values[-1]:.2f})" if len(values) > 1 else _mark(median))
        print(f"| {dtype} | {d} | {'yes' if causal else 'no'} | {n} | {len(per_sample)} | " + " | ".join(cells) + " |")
    _summary(medians)
    return 0


def main(paths) -> int:
    if not paths or paths[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if paths else 2
    missing = [path for path in paths[1 if paths[0] == "--samples" else 0:] if not os.path.exists(path)]
    if missing:
        print(f"cudnn_table.py: no such result file: {missing[0]}", file=sys.stderr)
        return 2
    if paths[0] == "--samples":
        return main_samples(paths[1:])
    rows = load(paths)
    print("| dtype | d | causal | N | flashio fwd / bwd | cuDNN fwd / bwd | FA2 fwd / bwd | fwd ÷ cuDNN | "
          "bwd ÷ cuDNN | fwd ÷ FA2 | bwd ÷ FA2 | fwd / bwd share of matmul |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = defaultdict(list)
    for key in sorted(rows):
        dtype, d, causal, n = key
        row = rows[key]
        get = lambda system, mode: row.get((system, mode), float("nan"))
        fio_f, fio_b = get("flashio", "fwd"), get("flashio", "bwd")
        cud_f, cud_b = get("sdpa_cudnn", "fwd"), get("sdpa_cudnn", "bwd")
        fa_f, fa_b = get("sdpa_flash", "fwd"), get("sdpa_flash", "bwd")
        rf, rb = fio_f / cud_f, fio_b / cud_b
        ratios["fwd ÷ cuDNN"].append(rf)
        ratios["bwd ÷ cuDNN"].append(rb)
        ratios["fwd ÷ FA2"].append(fio_f / fa_f)
        ratios["bwd ÷ FA2"].append(fio_b / fa_b)
        print(f"| {dtype} | {d} | {'yes' if causal else 'no'} | {n} | {fio_f:.0f} / {fio_b:.0f} | "
              f"{cud_f:.0f} / {cud_b:.0f} | {fa_f:.0f} / {fa_b:.0f} | {_mark(rf)} | {_mark(rb)} | "
              f"{fio_f / fa_f:.2f} | {fio_b / fa_b:.2f} | {fio_f / row['matmul']:.2f} / {fio_b / row['matmul']:.2f} |")
    _summary(ratios)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
