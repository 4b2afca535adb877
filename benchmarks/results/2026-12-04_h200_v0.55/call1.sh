#!/bin/bash
# v0.55 call 1: each tile's first key block through the key loop's step (`first_block_in_step`). (1) The three forced
# check paths with the option at d=64 and d=128; (2) probe run 72: every tuned d=128 and d=64 persistent form with and
# without the option (bf16, median of 3 rounds), d=128 first.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
export TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 210 python3 -m flashio.check --skip-timing --case-head-dims 64 128 \
    --paths "first key block in the step" --skip-default-cases --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
FLASHIO_TUNING_CACHE=off timeout $((400 - SECONDS)) python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 --rounds 3 --skip-tuned \
    --points causal:1024 causal:2048 causal:4096 causal:16384 noncausal:1024 noncausal:16384 \
    --forms "d=128 masks by branch (v0.55)" "d=128 masks by branch, first block in the step" \
            "d=128 host form (v0.55)" "d=128 host form, first block in the step" \
            "d=128 host form, Q in registers (v0.55)" "d=128 host form, Q in registers, first block in the step" \
    > $OUT/probe72_d128.txt 2>&1
echo "probe 72 d=128 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe72_d128.txt
FLASHIO_TUNING_CACHE=off timeout $((585 - SECONDS)) python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 64 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 causal:1024 causal:2048 causal:4096 \
    --forms "d=64 three consumers (v0.55)" "d=64 three consumers, first block in the step" \
            "d=64 four consumers (v0.55)" "d=64 four consumers, first block in the step" \
            "d=64 tenth (row sums by MMA) (v0.55)" "d=64 tenth (row sums by MMA), first block in the step" \
    > $OUT/probe72_d64.txt 2>&1
echo "probe 72 d=64 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe72_d64.txt
