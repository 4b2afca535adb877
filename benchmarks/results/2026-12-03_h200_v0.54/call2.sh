#!/bin/bash
# v0.54 call 2: probe run 69, d=128 with 64-key blocks: three consumer warpgroups (192-row tiles) and the two-consumer
# forms, beside the tuned forms 6 and 8 (bf16, 3 rounds).
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 540 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 --rounds 3 --skip-tuned \
    --points causal:1024 causal:2048 causal:4096 noncausal:1024 \
    --forms "d=128 host form (v0.54)" "d=128 masks by branch (v0.54)" "d=128 three consumers, 64-key blocks" \
            "d=128 three consumers, 64-key blocks, masks by branch" \
            "d=128 three consumers, 64-key blocks, one Q set, four stages" "d=128 host form, 64-key blocks" \
            "d=128 masks by branch, 64-key blocks" > $OUT/probe69.txt 2>&1
echo "probe 69 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe69.txt; grep -E "Error|Traceback" $OUT/probe69.txt | head -5
