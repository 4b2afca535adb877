"""Warp-stall samples by reason (ncu's ``stall_*`` columns summed over a kernel's instructions), side by side for
several source pages exported as stall_sites.py describes.

    python3 benchmarks/experiments/backward_limiter/stall_reasons.py A.csv.gz B.csv.gz [...]

Each column is one page; the last column is the first page's count less the second's. Samples are taken at a fixed
rate per warp, so for kernels of the same warp count (flashio's tuned Gluon forward and cuDNN's forward: 12 warps,
one program per multiprocessor) the counts compare as time.

v0.31, on the pages ncu runs 11 and 12 exported (H200, d=128 non-causal 1k, bf16; v0.25 and v0.26 results): the
"no instruction" reason, the instruction-cache misses that a large kernel would pay, is 1.6% of the samples of
flashio's tuned forward (5,512 SASS instructions) and 1.6% of cuDNN's (1,272): code size is not what costs time.
Of flashio's 3,323 extra samples (26,656 against 23,333): barrier +2,199 (6,542 of flashio's 9,232 are warps
parked at the final barriers for the kernel's life, stall_sites.py; cuDNN's 7,033 are its consumers' named-barrier
turns), the LG throttle +1,495 (cuDNN: 0; flashio's output stores from registers), long scoreboard +965, fixed-latency
waits ("wait") +709; cuDNN issues more (selected 4,430 against 2,826).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from stall_sites import number, read  # noqa: E402 - the same export reader


def reasons(path: str) -> dict[str, float]:
    """Samples per stall reason (all samples, not only not-issued ones) of one exported source page."""
    header, rows = read(path)
    columns = [(name[len("stall_"):], index) for index, name in enumerate(header)
               if name.startswith("stall_") and "Not Issued" not in name]
    return {name: sum(number(row[index]) for row in rows) for name, index in columns}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", nargs="+", help="source pages (ncu --page source --csv), plain or gzipped")
    args = parser.parse_args(argv)
    pages = [reasons(path) for path in args.csv]
    names = sorted(set().union(*pages), key=lambda name: -pages[0].get(name, 0.0))
    print("reason".ljust(18) + "".join(os.path.basename(path)[:24].rjust(26) for path in args.csv)
          + ("   first - second" if len(pages) > 1 else ""))
    for name in names + ["total"]:
        counts = [sum(page.values()) if name == "total" else page.get(name, 0.0) for page in pages]
        shares = [count / max(sum(page.values()), 1.0) for count, page in zip(counts, pages)]
        line = name.ljust(18) + "".join(f"{count:12.0f} ({100 * share:5.1f}%)".rjust(26)
                                        for count, share in zip(counts, shares))
        if len(pages) > 1:
            line += f"   {counts[0] - counts[1]:+.0f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
