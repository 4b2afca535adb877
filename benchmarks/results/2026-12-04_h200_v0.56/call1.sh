#!/bin/bash
# v0.56 call 1: d=64's 256-row tile on two 128-row consumer warpgroups (`consumer_rows=128`). (1) Its two forced check
# paths, d=64 cases; (2) probe run 75 (bf16, median of 3 rounds): the seventh, eighth and tenth d=64 candidates against
# the new form with three and five stages, row sums on the tensor cores, masks by branch with row sums.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
export TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --case-head-dims 64 \
    --paths "forward: Gluon, persistent, two 128-row consumers, 64-key blocks" \
            "forward: Gluon, persistent, two 128-row consumers, masks by branch, row sums on the tensor cores" \
    --skip-default-cases --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
FLASHIO_TUNING_CACHE=off timeout $((585 - SECONDS)) python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 64 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 causal:1024 causal:2048 causal:4096 \
             causal:16384 \
    --forms "d=64 seventh (three consumers)" "d=64 eighth (four consumers)" \
            "d=64 tenth (four consumers, branch, row sums)" "d=64 two 128-row consumers" \
            "d=64 two 128-row consumers, five stages" "d=64 two 128-row consumers, row sums" \
            "d=64 two 128-row consumers, branch, row sums" \
    > $OUT/probe75.txt 2>&1
echo "probe 75 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe75.txt; tail -3 $OUT/probe75.txt
