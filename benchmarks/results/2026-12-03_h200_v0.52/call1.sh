#!/bin/bash
# v0.52 call 1: d=64's forward with four consumer warpgroups (256-row tiles, 64-key blocks): its forced check path,
# then probe run 62 (bf16, median of 3 rounds) against the three-consumer candidate, with and without 64-key blocks.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --case-head-dims 64 \
    --paths "forward: Gluon, persistent, four consumers, 64-key blocks" --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
P="benchmarks/experiments/forward_short/probe.py"
FLASHIO_TUNING_CACHE=off timeout 300 python3 $P --head-dims 64 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 causal:1024 causal:2048 causal:4096 \
             causal:16384 \
    --forms "d=64 three consumers (v0.51)" "d=64 three consumers, 64-key blocks" "d=64 four consumers" \
            "d=64 four consumers, four stages" > $OUT/probe62.txt 2>&1
echo "probe rc $? at ${SECONDS}s"
grep "^|" $OUT/probe62.txt
