#!/bin/bash
# v0.47 call 5: the plans' key with the stream's raw handle (after call 4): the d=128 default check cases (first call,
# plan replay, CUDA graph), then host_overhead/plan_key_cost.py (prediction in its docstring, before the run).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing --skip-paths \
    --case-head-dims 128 --case-timeout 60 > "$OUT/check_d128.txt" 2>&1
echo "check d128 rc $? PASS $(grep -c PASS $OUT/check_d128.txt) FAIL $(grep -c FAIL $OUT/check_d128.txt) graph $(grep -c 'CUDA graph' $OUT/check_d128.txt)"
grep -E "FAIL|ERROR|HANG|Traceback|Error" "$OUT/check_d128.txt" | head -5
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 120 python3 benchmarks/experiments/host_overhead/plan_key_cost.py \
    > $OUT/plan_key_cost.txt 2>&1
echo "plan_key_cost rc $?"
cat $OUT/plan_key_cost.txt | tail -22
