#!/bin/bash
# v0.48 (prepared, not run: no device time left): Next item 1, where the ~0.95 µs between a consumer's tiles goes at
# d=128 causal 1k: round_times.py --boundary on form 6 (the grid's) and form 7 (Q in registers), the consumers' marks
# after each tile's Q-barrier wait and after its entry's read (BOUNDARY_MARKS, compiled for sm_90a on the CPU only).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/round_times.py \
    --points 128:causal:1024 --forms 6 7 --turns 30 --boundary > $OUT/round_times_boundary.txt 2>&1
echo "round_times rc $?"; grep -B2 -A20 "^between tiles" $OUT/round_times_boundary.txt | cut -c1-160
