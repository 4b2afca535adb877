"""Hashes of the Gluon forward's SASS, compiled for sm_90a on the CPU (no GPU): every form of
``configs.FORWARD_GLUON_CANDIDATES`` and of ``flashio.check``'s forced paths (less the split-tail forms, which differ
from their base forms only in non-causal calls with a split list), each compiled causal (with its tile list
constexprs) and non-causal. A change meant to leave the kernels that already ran alone is checked by hashing before
and after:

    env -u TRITON_INTERPRET PYTHONPATH=src python3 benchmarks/gluon_forward_sass_hashes.py before.json
    (edit)
    env -u TRITON_INTERPRET PYTHONPATH=src python3 benchmarks/gluon_forward_sass_hashes.py after.json \
        --compare before.json

Compiled as a launch compiles them, line info on: with it, ptxas's schedule can depend on the source's inlined-function
structure (v0.38: moving the epilogue's stores into helpers kept the PTX but reordered ~27 instructions of every
persistent form), so identical PTX is not enough. Took ~4 minutes on 2 CPU cores for v0.38's 116 compiles; v0.52's 176
took ~20 minutes, two runs (before and after) side by side on those 2 cores.
"""

import argparse
import hashlib
import json
import sys

from flashio import check, configs, launchers
from flashio.bench import resources


def forms() -> list[tuple[int, configs.TileConfig]]:
    tiles = [(d, config) for d, candidates in configs.FORWARD_GLUON_CANDIDATES.items() for config in candidates]
    for _, replacements in check.forced_paths().values():
        for d, candidates in replacements.get("FORWARD_GLUON_CANDIDATES", {}).items():
            tiles += [(d, config) for config in candidates if (d, config) not in tiles and not config.split_tail]
    return tiles


def sass_hash(head_dim: int, config: configs.TileConfig, causal: bool) -> str:
    kernel = launchers.forward_gluon_kernels.attention_forward_gluon_persistent_kernel if config.persistent else \
        launchers.forward_gluon_kernels.attention_forward_gluon_kernel
    constants = dict(launchers.gluon_forward_constants(config, head_dim), IS_CAUSAL=causal)
    if causal and config.balanced_schedule:
        constants["LISTED"] = True
        if config.dynamic_schedule:
            constants["DYNAMIC"] = True
    if not causal and config.noncausal_claims:  # v0.39: non-causal, the tiles claimed (the dynamic form)
        constants.update(LISTED=True, DYNAMIC=True)
    sass = resources.cuobjdump(resources.compile_for_hopper(kernel, constants, config), "-sass")
    return hashlib.sha256(sass.encode()).hexdigest()[:16]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="JSON file for {form: hash}")
    parser.add_argument("--compare", help="an earlier run's JSON: print the forms whose SASS differs, exit 1 if any")
    args = parser.parse_args(argv)
    hashes = {f"d={d} {config} causal={causal}": sass_hash(d, config, causal)
              for d, config in forms() for causal in (True, False)}
    with open(args.out, "w") as f:
        json.dump(hashes, f, indent=1)
    if not args.compare:
        print(f"{len(hashes)} compiles hashed")
        return 0
    with open(args.compare) as f:
        before = json.load(f)
    changed = sorted(key for key in hashes.keys() & before.keys() if hashes[key] != before[key])
    print(f"{len(hashes)} compiles, {len(hashes.keys() & before.keys())} in both runs, {len(changed)} differ")
    for key in changed:
        print("  differs:", key)
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
