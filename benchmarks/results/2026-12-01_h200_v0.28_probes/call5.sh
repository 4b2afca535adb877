#!/usr/bin/env bash
# v0.28 device call 5: the backward with Q and dO, K/V, or all four read from one head's memory (L2-resident),
# beside the ordinary inputs (experiments/forward_short/l2_resident.py --backward).
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 400 python3 benchmarks/experiments/forward_short/l2_resident.py --backward \
    --points 128:nc:1024 128:c:1024 128:nc:16384 64:nc:1024 64:c:1024 > "$OUT/l2_resident_backward.txt" 2>&1
echo "rc $?" >> "$OUT/l2_resident_backward.txt"
cut -c1-200 "$OUT/l2_resident_backward.txt"
