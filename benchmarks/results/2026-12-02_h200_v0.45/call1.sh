#!/bin/bash
# v0.45 call 1: d=256's persistent forward storing its output from registers (forward probe run 49) and d=128's
# tuned persistent forward with separate K and V slots (run 50); predictions in forward_short/probe.py's docstring,
# written before the run. Then the check paths of the new forms (the grid's d=256 1k shape added to the d=256 ones).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 256 \
    --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 causal:1024 causal:2048 \
    causal:16384 --forms "tuned persistent" "d=256 persistent, output from registers" \
    "d=256 persistent, output from registers, 16-byte stores" \
    "d=256 persistent, output from registers, 16-byte stores, Q handed back early" \
    "d=256 persistent, output from registers, 16-byte stores, claims" > $OUT/call1_probe_fwd_run49.txt 2>&1
echo "probe 49 rc $?"; cat $OUT/call1_probe_fwd_run49.txt | tail -8
FLASHIO_TUNING_CACHE=off timeout 170 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 \
    --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 causal:1024 causal:2048 \
    causal:16384 --forms "tuned persistent" "tuned persistent, separate K/V slots" \
    "tuned persistent, separate K/V slots, ping-pong" "tuned persistent, Q in registers" \
    > $OUT/call1_probe_fwd_run50.txt 2>&1
echo "probe 50 rc $?"; cat $OUT/call1_probe_fwd_run50.txt | tail -8
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --paths "d=256 output from registers" "d=128 tuned options, separate K/V slots" \
    > $OUT/call1_check.txt 2>&1
echo "check rc $?"; grep -c PASS $OUT/call1_check.txt; grep -E "FAIL|ERROR|HANG|Traceback" $OUT/call1_check.txt | head -5
tail -3 $OUT/call1_check.txt
