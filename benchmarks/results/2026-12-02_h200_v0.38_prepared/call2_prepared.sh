#!/bin/bash
# v0.38, prepared (not run; after call1_prepared.sh has passed its check path): forward probe run 45, the tuned
# persistent forms with and without the split tail at non-causal 1k / 2k / 4k / 16k, d=128, d=64 and d=256, bf16,
# median of 3 rounds. Prediction: PERFORMANCE.md v0.38 and the probe's docstring (run 45).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) timeout 560 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 256 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 --forms "tuned persistent" "tuned persistent, split tail" > $OUT/probe_fwd_run45.txt 2>&1; tail -14 $OUT/probe_fwd_run45.txt
