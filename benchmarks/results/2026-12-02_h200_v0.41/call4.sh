#!/bin/bash
# v0.41 call 4: call 2's side-pass probe with the flat preprocess forms (O and dO as one [B H N, d] matrix).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
timeout 200 python3 benchmarks/experiments/backward_side_passes/probe.py --rounds 30 > $OUT/side_passes_flat.txt 2>&1; cat $OUT/side_passes_flat.txt
