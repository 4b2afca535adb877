#!/bin/bash
# v0.39 call 2: the split tail's merge alone, its tile rows and pipeline depth (rows:stages), timed with the stream kept
# busy while it is launched (call 1's warm column timed Python's launch); then v0.37's call9_prepared.sh (d=128 causal
# 1k per-tile times, static against dynamic list).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) timeout 200 python3 benchmarks/experiments/forward_short/merge_cost.py --head-dims 128 64 256 --seqlens 1024 16384 --variants 32:1 32:2 32:3 16:2 16:3 64:2 > $OUT/merge_cost_variants.txt 2>&1; cat $OUT/merge_cost_variants.txt | tail -40
bash benchmarks/results/2026-12-02_h200_v0.37/call9_prepared.sh
