#!/bin/bash
# v0.36 call 2: the backward after itself / after flashio's forward / after FA2's and cuDNN's backward
# (cold_start.py); the tuned forward's per-tile times with exits and busy time at the N <= 2k points short of the
# goal (round_times.py).
set -x
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off TRITON_CACHE_DIR=$(mktemp -d)
timeout 330 python3 benchmarks/experiments/fused_backward_persistent/cold_start.py --points 128:noncausal:1024 128:causal:1024 128:causal:2048 64:causal:1024 256:noncausal:1024 --passes 40 2>&1 | tee $OUT/cold_start.txt
timeout 110 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 128:noncausal:2048 --forms 2 --turns 30 2>&1 | tee $OUT/round_times_128.txt
timeout 100 python3 benchmarks/experiments/forward_short/round_times.py --points 256:noncausal:1024 256:noncausal:2048 --forms 1 --turns 30 2>&1 | tee $OUT/round_times_256nc.txt
