#!/bin/bash
# v0.55 call 5: probe run 73's forms with every head's short last block claimed at the end beside them (probe run 74,
# d=64's three-consumer candidate, bf16, median of 5 rounds, non-causal 1k, 2k, 4k).
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 64 --rounds 5 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:4096 \
    --forms "d=64 three consumers, short last blocks claimed last" "d=64 three consumers, claims in head order (v0.54)" \
            "d=64 three consumers, every short last block claimed last" > $OUT/probe74.txt 2>&1
echo "probe 74 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe74.txt
