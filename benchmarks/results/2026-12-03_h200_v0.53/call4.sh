#!/bin/bash
# v0.53 call 4: the row sums on the tensor cores (row_sum_mma): both forced check paths on the d=64 cases, then probe
# run 66 (bf16, median of 3 rounds): d=64's three-, four- and four-consumer mask-by-branch candidates without / with it.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --case-head-dims 64 \
    --paths "row sums on the tensor cores" --skip-default-cases --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
FLASHIO_TUNING_CACHE=off timeout $((560 - SECONDS)) python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 64 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 causal:1024 causal:2048 causal:4096 \
    --forms "d=64 three consumers (v0.53)" "d=64 three consumers, row sums by MMA" "d=64 four consumers (v0.53)" \
            "d=64 four consumers, row sums by MMA" "d=64 four consumers, masks by branch (v0.53)" \
            "d=64 four consumers, masks by branch, row sums by MMA" > $OUT/probe66.txt 2>&1
echo "probe rc $? at ${SECONDS}s"; grep "^|" $OUT/probe66.txt
