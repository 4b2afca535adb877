#!/bin/bash
# v0.53 call 1: the consumer warpgroups grouped as one partition (grouped_consumers): both forced check paths at d=64
# and d=128, then probe run 64 (bf16, median of 3 rounds) against the forms they are made from.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --case-head-dims 64 128 \
    --paths "forward: Gluon, persistent, consumer warpgroups grouped in one partition" \
            "forward: Gluon, persistent, consumer warpgroups grouped in one partition, masks by branch" \
    --skip-default-cases --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
P="benchmarks/experiments/forward_short/probe.py"
FLASHIO_TUNING_CACHE=off timeout 200 python3 $P --head-dims 64 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:2048 noncausal:4096 causal:1024 causal:2048 causal:4096 \
    --forms "d=64 three consumers (v0.52)" "d=64 four consumers (v0.52)" "d=64 four consumers, grouped" \
            "d=64 four consumers, masks by branch, grouped" "d=64 two consumers, grouped" > $OUT/probe64_d64.txt 2>&1
echo "probe d64 rc $? at ${SECONDS}s"
FLASHIO_TUNING_CACHE=off timeout $((560 - SECONDS)) python3 $P --head-dims 128 --rounds 3 --skip-tuned \
    --points noncausal:1024 causal:1024 causal:2048 \
    --forms "d=128 form 6 (v0.52)" "d=128 ninth (v0.52)" "d=128 form 6, grouped" "d=128 ninth, grouped" \
    > $OUT/probe64_d128.txt 2>&1
echo "probe d128 rc $? at ${SECONDS}s"
grep "^|" $OUT/probe64_d64.txt $OUT/probe64_d128.txt
