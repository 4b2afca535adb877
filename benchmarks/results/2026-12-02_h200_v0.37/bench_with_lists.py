"""``flashio bench`` with the tuned persistent Gluon forward's tile list chosen per head dimension (v0.37, calls 3-4).

    python3 bench_with_lists.py --dynamic 64=1 128=0 -- --seqlens 1024 ... (the rest goes to ``flashio.cli bench``)

``--dynamic D=1`` gives d=D's tuned persistent candidate ``dynamic_schedule=True``, ``D=0`` the static list, before the
CLI runs; every other candidate, and the autotuner's choice among them, stay as in ``flashio.configs``. A same-session
control for a grid run with the library's own lists.
"""
import argparse
import dataclasses
import sys

from flashio import cli, configs

# The tuned persistent candidate of each head dimension in configs.FORWARD_GLUON_CANDIDATES.
TUNED_PERSISTENT = {64: 1, 128: 2}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dynamic", nargs="+", default=[], metavar="D=0|1")
    args, rest = parser.parse_known_args()
    if rest[:1] == ["--"]:
        rest = rest[1:]
    for item in args.dynamic:
        head_dim, flag = (int(part) for part in item.split("="))
        candidates = list(configs.FORWARD_GLUON_CANDIDATES[head_dim])
        index = TUNED_PERSISTENT[head_dim]
        candidates[index] = dataclasses.replace(candidates[index], dynamic_schedule=bool(flag))
        configs.FORWARD_GLUON_CANDIDATES[head_dim] = tuple(candidates)
        print(f"d={head_dim}: tuned persistent forward with dynamic_schedule={bool(flag)}", flush=True)
    return cli.main(["bench", *rest])


if __name__ == "__main__":
    sys.exit(main())
