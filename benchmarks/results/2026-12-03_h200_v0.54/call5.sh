#!/bin/bash
# v0.54 call 5: probe run 71, d=128's mask-by-branch and host forms without their half diagonal block, beside
# themselves (bf16, 5 rounds, causal 1k / 2k / 4k).
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 --rounds 5 --skip-tuned --points causal:1024 causal:2048 causal:4096 \
    --forms "d=128 masks by branch (v0.54)" "d=128 masks by branch, no half diagonal" "d=128 host form (v0.54)" \
            "d=128 host form, no half diagonal" > $OUT/probe71.txt 2>&1
echo "probe 71 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe71.txt; grep -E "Error|Traceback" $OUT/probe71.txt | head -5
