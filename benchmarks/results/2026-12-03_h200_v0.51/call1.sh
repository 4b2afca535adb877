#!/bin/bash
# v0.51 call 1: each claimed tile's (block, head, batch) published packed by the loader (published_coordinates): two
# forced check paths, then probe run 60 (bf16, median of 3 rounds; each form without the option / with it).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --case-head-dims 64 128 \
    --paths "forward: Gluon, persistent, host-descriptor forms, published coordinates" --case-timeout 60 \
    > $OUT/check.txt 2>&1
echo "check 1 rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases \
    --paths "forward: Gluon, persistent, three consumers and masks by branch, published coordinates" \
    --case-timeout 60 >> $OUT/check.txt 2>&1
echo "check 2 rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
P="benchmarks/experiments/forward_short/probe.py"
S=", published coordinates"
FLASHIO_TUNING_CACHE=off timeout 200 python3 $P --head-dims 128 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:16384 causal:1024 causal:2048 causal:16384 \
    --forms "d=128 form 6" "d=128 form 6$S" "d=128 form 7 (Q in registers)" "d=128 form 7 (Q in registers)$S" \
            "d=128 ninth (mask by branch)" "d=128 ninth (mask by branch)$S" \
    > $OUT/probe60.txt 2>&1
echo "probe d128 rc $? at ${SECONDS}s"
FLASHIO_TUNING_CACHE=off timeout 150 python3 $P --head-dims 64 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:2048 noncausal:4096 causal:1024 causal:2048 causal:4096 \
    --forms "d=64 sixth (two consumers)" "d=64 sixth (two consumers)$S" "d=64 three consumers" "d=64 three consumers$S" \
    >> $OUT/probe60.txt 2>&1
echo "probe d64 rc $? at ${SECONDS}s"
grep "^|" $OUT/probe60.txt
