#!/usr/bin/env bash
# v0.28 device call 2: the tuned forward with Q, K/V, or all three read from one head's memory (L2-resident),
# beside the ordinary inputs (experiments/forward_short/l2_resident.py).
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 400 python3 benchmarks/experiments/forward_short/l2_resident.py > "$OUT/l2_resident.txt" 2>&1
echo "rc $?" >> "$OUT/l2_resident.txt"
cat "$OUT/l2_resident.txt" | cut -c1-200
