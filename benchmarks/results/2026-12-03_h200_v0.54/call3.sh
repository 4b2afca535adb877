#!/bin/bash
# v0.54 call 3: probe run 70, d=128's mask-by-branch form with shorter tile boundaries (Q in registers; two Q sets with
# split K/V in two stages; both), beside itself (bf16, 5 rounds).
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 400 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 --rounds 5 --skip-tuned --points causal:1024 causal:2048 noncausal:1024 \
    --forms "d=128 masks by branch (v0.54)" "d=128 masks by branch, Q in registers" \
            "d=128 masks by branch, two Q sets, split K/V in two stages" \
            "d=128 masks by branch, two Q sets, split K/V in two stages, Q in registers" > $OUT/probe70.txt 2>&1
echo "probe 70 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe70.txt; grep -E "Error|Traceback" $OUT/probe70.txt | head -5
