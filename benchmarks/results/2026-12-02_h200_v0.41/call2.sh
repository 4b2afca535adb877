#!/bin/bash
# v0.41 call 2: the backward's side passes timed alone at the grid's 1k shapes (preprocess row blocks and warps, the
# dQ accumulator's zero fill and conversion copy), 30 rounds.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
timeout 200 python3 benchmarks/experiments/backward_side_passes/probe.py --rounds 30 > $OUT/side_passes.txt 2>&1; cat $OUT/side_passes.txt
