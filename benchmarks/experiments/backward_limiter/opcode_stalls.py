"""Warp-stall samples per SASS opcode, with their reasons, from Nsight Compute's source page (CSV), for one or
more kernels side by side; and how many exponentials each issues beside a warpgroup MMA product.

v0.25 (ncu run 10) used it to find where the conditionally rescaling forward lost against the tuned one: its
exponentials stalled 58% more while the register-operand P V product ran. Run 11 reads cuDNN's forward the same
way. Exports come from ``ncu ... --section WarpStateStats --section SourceCounters --page source --print-source
sass --csv`` (``stall_sites.py``'s docstring has a full command):

    python3 benchmarks/experiments/backward_limiter/opcode_stalls.py A.csv.gz B.csv.gz --top 14

"Beside an MMA": a ``MUFU.EX2`` in address order after a ``WARPGROUP.DEPBAR.LE gsb0, 0x1`` (a wait that leaves
one warpgroup-MMA group in flight) and before the next such wait: the exponentials a pipelined softmax runs while
the previous block's P V product is on the tensor cores (FlashAttention-3 section 3.2). The count is of static
instructions (each partition's copy of the code counts) and of their executions.
"""

import argparse
import collections
import sys

from stall_sites import number, opcode, read

STALL_PREFIX = "stall_"


def summarise(path: str) -> dict:
    """Per opcode: stall samples, executions and stall reasons; totals; exponentials beside an MMA."""
    header, rows = read(path)
    source_column = header.index("Source")
    samples = header.index("Warp Stall Sampling (All Samples)")
    executed = header.index("Instructions Executed")
    reasons = [i for i, name in enumerate(header) if name.startswith(STALL_PREFIX) and "Not Issued" not in name]
    by_opcode = collections.defaultdict(lambda: {"samples": 0.0, "executed": 0.0, "reasons": collections.Counter()})
    beside = {"static": 0, "executed": 0.0}
    after_partial_wait = False
    for row in rows:
        source = row[source_column].strip()
        name = opcode(source)
        entry = by_opcode[name]
        entry["samples"] += number(row[samples])
        entry["executed"] += number(row[executed])
        for i in reasons:
            entry["reasons"][header[i][len(STALL_PREFIX):]] += number(row[i])
        if name == "WARPGROUP.DEPBAR.LE":
            after_partial_wait = source.rstrip(" ;").endswith("0x1")
        elif after_partial_wait and name.startswith("MUFU.EX2"):
            beside["static"] += 1
            beside["executed"] += number(row[executed])
    total = sum(entry["samples"] for entry in by_opcode.values())
    return {"opcodes": by_opcode, "total": total, "instructions": len(rows), "beside": beside}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", nargs="+", help="source pages exported by ncu --page source --print-source sass --csv")
    parser.add_argument("--top", type=int, default=12, help="opcodes listed per kernel, by stall samples")
    args = parser.parse_args(argv)
    for path in args.csv:
        summary = summarise(path)
        exp = summary["opcodes"].get("MUFU.EX2", {"executed": 0.0})["executed"]
        print(f"{path}: {summary['instructions']} instructions, {summary['total']:.0f} stall samples; "
              f"exponentials beside an MMA: {summary['beside']['static']} in the code, "
              f"{summary['beside']['executed']:.0f} of {exp:.0f} executed")
        ranked = sorted(summary["opcodes"].items(), key=lambda item: -item[1]["samples"])
        for name, entry in ranked[:args.top]:
            share = entry["samples"] / summary["total"] if summary["total"] else 0.0
            reasons = ", ".join(f"{reason} {count:.0f}" for reason, count in entry["reasons"].most_common(4)
                                if count)
            print(f"  {name:32s} {entry['samples']:7.0f} ({share:5.1%})  executed {entry['executed']:10.0f}  "
                  f"{reasons}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
