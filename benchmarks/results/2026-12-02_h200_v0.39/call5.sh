#!/bin/bash
# v0.39 call 5: forward probe run 45, the lengths between (d=64 and d=256 at non-causal 4k and 8k), to set the length
# from which the split tail is taken.
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
for dim in 64 256; do
TRITON_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/experiments/forward_short/probe.py --head-dims $dim --rounds 3 --skip-tuned --points noncausal:4096 noncausal:8192 --forms "tuned persistent" "tuned persistent, split tail" > $OUT/probe_fwd_run45c_d$dim.txt 2>&1; tail -4 $OUT/probe_fwd_run45c_d$dim.txt
done
