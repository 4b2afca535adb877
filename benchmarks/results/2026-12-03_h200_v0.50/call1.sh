#!/bin/bash
# v0.50 call 1: overlapped tile boundaries (overlap_tiles): two forced check paths, then probe run 59 (bf16, median of
# 3 rounds; each form without the option / with it / with it and Q handed back after the last score product).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --case-head-dims 64 128 \
    --paths "forward: Gluon, persistent, host-descriptor forms, overlapped tiles" --case-timeout 60 \
    > $OUT/check.txt 2>&1
echo "check 1 rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases \
    --paths "forward: Gluon, persistent, three consumers and masks by branch, overlapped tiles" --case-timeout 60 \
    >> $OUT/check.txt 2>&1
echo "check 2 rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
P="benchmarks/experiments/forward_short/probe.py"
S=", overlapped tiles"
FLASHIO_TUNING_CACHE=off timeout 170 python3 $P --head-dims 128 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:16384 causal:1024 causal:2048 causal:16384 \
    --forms "d=128 form 6" "d=128 form 6$S" "d=128 form 6$S, Q back early" \
            "d=128 ninth (mask by branch)" "d=128 ninth (mask by branch)$S" "d=128 ninth (mask by branch)$S, Q back early" \
    > $OUT/probe59.txt 2>&1
echo "probe d128 rc $? at ${SECONDS}s"
FLASHIO_TUNING_CACHE=off timeout 150 python3 $P --head-dims 64 --rounds 3 --skip-tuned \
    --points noncausal:1024 causal:1024 causal:2048 causal:4096 \
    --forms "d=64 host form, Q in shared memory, claimed" "d=64 host form, Q in shared memory, claimed$S, Q back early" \
            "d=64 three consumers" "d=64 three consumers$S" "d=64 three consumers$S, Q back early" \
    >> $OUT/probe59.txt 2>&1
echo "probe d64 rc $? at ${SECONDS}s"
grep "^|" $OUT/probe59.txt
