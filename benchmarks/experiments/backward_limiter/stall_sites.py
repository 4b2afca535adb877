"""Where a kernel's warps stall, from Nsight Compute's per-instruction source page (CSV), by kind of site.

Run 5 (v0.18) exported the source page of the tuned d=128 Gluon forward at causal 1k on the H200:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off ncu --clock-control none --profile-from-start off \\
        -k regex:attention_forward_gluon --section WarpStateStats --section SourceCounters --page source \\
        --print-source sass --csv python3 benchmarks/experiments/backward_limiter/ncu_profile.py --child \\
        --pass forward --forward-form out-regs-half-balanced --point 128:causal:1024 > ncu_run5_source.csv
    python3 benchmarks/experiments/backward_limiter/stall_sites.py ncu_run5_source.csv.gz

This sums the warp-stall samples per kind of instruction site: warps parked at the kernel's final barriers
(idle padding warps and finished partitions), mbarrier waits (a TRYWAIT and the branch that retries it),
warpgroup-MMA waits, exponentials, MMA issue, the rest; then lists the costliest mbarrier-wait sites.
"""

import argparse
import collections
import csv
import gzip
import sys


def read(path: str) -> tuple[list[str], list[list[str]]]:
    """(header, instruction rows) of an ncu ``--page source --csv`` export (plain or gzipped)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as handle:
        rows = list(csv.reader(handle))
    start = next(i for i, row in enumerate(rows) if row and row[0] == "Address")
    header = rows[start]
    return header, [row for row in rows[start + 1:] if len(row) == len(header)]


def opcode(source: str) -> str:
    """The opcode of a SASS line, without its predicate (``@P0``, ``@!UP1``)."""
    words = source.split()
    return words[1] if words[0].startswith("@") else words[0]


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", help="the source page exported by ncu --page source --print-source sass --csv")
    parser.add_argument("--idle-threshold", type=float, default=1000.0,
                        help="a NOP with more samples than this is a parked warp's final barrier")
    parser.add_argument("--shared", action="store_true",
                        help="also list shared-memory wavefronts by opcode against their ideal (bank conflicts)")
    args = parser.parse_args(argv)
    header, rows = read(args.csv)
    source, samples = header.index("Source"), header.index("Warp Stall Sampling (All Samples)")
    kinds: collections.Counter = collections.Counter()
    waits = []
    for index, row in enumerate(rows):
        text = row[source].strip()
        name = opcode(text)
        count = number(row[samples])
        recent = " ".join(rows[k][source] for k in range(max(0, index - 24), index))
        if name == "NOP" and count > args.idle_threshold:
            kinds["parked at the final barriers"] += count
        elif name.startswith("SYNCS") or (name == "BRA" and "TRYWAIT" in recent):
            kinds["mbarrier waits"] += count
            waits.append((count, row[0], next((rows[k][source].strip() for k in range(index, max(0, index - 24), -1)
                                                if "TRYWAIT" in rows[k][source]), text)))
        elif name.startswith("WARPGROUP.DEPBAR"):
            kinds["warpgroup MMA waits"] += count
        elif name.startswith("MUFU"):
            kinds["exponentials (MUFU)"] += count
        elif name.startswith("HGMMA"):
            kinds["MMA issue (HGMMA)"] += count
        else:
            kinds["other instructions"] += count
    total = sum(kinds.values())
    working = total - kinds["parked at the final barriers"]
    print(f"{len(rows)} instructions, {total:.0f} stall samples, {working:.0f} outside the parked warps")
    for kind, count in kinds.most_common():
        share = "" if kind == "parked at the final barriers" else f", {100 * count / working:.1f}% of the rest"
        print(f"  {kind}: {count:.0f} ({100 * count / total:.1f}% of all{share})")
    print("costliest mbarrier-wait sites (samples, address, wait):")
    for count, address, wait in sorted(waits, reverse=True)[:6]:
        print(f"  {count:.0f}  {address}  {wait}")
    if args.shared:
        print_shared_wavefronts(header, rows, total)
    return 0


def print_shared_wavefronts(header: list[str], rows: list[list[str]], total_samples: float) -> None:
    """Shared-memory wavefronts per opcode against their ideal (the bank-conflict excess: ratio > 1), and the stall
    samples at those instructions (v0.35; columns of ncu's SourceCounters section)."""
    source, samples = header.index("Source"), header.index("Warp Stall Sampling (All Samples)")
    actual, ideal = header.index("L1 Wavefronts Shared"), header.index("L1 Wavefronts Shared Ideal")
    by_opcode: dict[str, list[float]] = {}
    for row in rows:
        if number(row[actual]) > 0:
            sums = by_opcode.setdefault(opcode(row[source].strip()), [0, 0.0, 0.0, 0.0])
            sums[0] += 1
            sums[1] += number(row[actual])
            sums[2] += number(row[ideal])
            sums[3] += number(row[samples])
    print("shared-memory wavefronts by opcode (sites, wavefronts, ideal, ratio, share of stall samples):")
    for name, (sites, waves, ideal_waves, stalls) in sorted(by_opcode.items(), key=lambda item: -item[1][1]):
        print(f"  {name:24s} {sites:4d} {waves:12.4g} {ideal_waves:12.4g} {waves / max(ideal_waves, 1):5.2f} "
              f"{100 * stalls / max(total_samples, 1):5.1f}%")


if __name__ == "__main__":
    sys.exit(main())
