#!/bin/bash
# v0.56 call 2: what limits the forward at the goal's misses, measured beside cuDNN (Nsight Compute, bf16): each point
# with the candidate v0.55 call 3's grid tuned there (choices.txt), and d=64 non-causal 16k as the steady state.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
export TRITON_CACHE_DIR=$(mktemp -d)
mkdir -p $OUT/ncu
timeout 560 python3 benchmarks/experiments/forward_short/limits.py --out $OUT/ncu \
    64:noncausal:1024:6 64:noncausal:2048:6 64:causal:1024:9 64:causal:2048:9 64:causal:4096:7 \
    128:causal:1024:8 64:noncausal:16384:6 > $OUT/limits.txt 2>&1
echo "limits rc $? at ${SECONDS}s"; cat $OUT/limits.txt
