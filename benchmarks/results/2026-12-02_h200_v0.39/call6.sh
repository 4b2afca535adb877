#!/bin/bash
# v0.39 call 6: forward probe run 46 -- the split tail with and without its merge (timing only) beside the round-robin:
# the kernel's own gain and the merge's cost in place, d=128 and d=256 at non-causal 1k / 2k (and d=128 4k).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
F=("tuned persistent" "tuned persistent, split tail" "tuned persistent, split tail, merge skipped")
TRITON_CACHE_DIR=$(mktemp -d) timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:4096 --forms "${F[@]}" > $OUT/probe_fwd_run46_d128.txt 2>&1; tail -5 $OUT/probe_fwd_run46_d128.txt
TRITON_CACHE_DIR=$(mktemp -d) timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 256 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 --forms "${F[@]}" > $OUT/probe_fwd_run46_d256.txt 2>&1; tail -4 $OUT/probe_fwd_run46_d256.txt
