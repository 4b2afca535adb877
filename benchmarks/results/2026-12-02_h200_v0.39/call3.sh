#!/bin/bash
# v0.39 call 3: forward probe run 45, trimmed to d=128 (the merge measured at 10-17 µs in calls 1-2, not ~4.5-8: at
# d=256 and d=64 it outweighs the modelled tail at N <= 2k), the merge at its new default (16 rows, 3 stages).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) timeout 420 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 --forms "tuned persistent" "tuned persistent, split tail" > $OUT/probe_fwd_run45.txt 2>&1; tail -14 $OUT/probe_fwd_run45.txt
