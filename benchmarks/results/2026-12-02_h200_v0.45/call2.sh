#!/bin/bash
# v0.45 call 2: d=128's tuned persistent forward with separate K and V slots (its check path on d=128's cases, then
# forward probe run 50; prediction in forward_short/probe.py's docstring, written before the run), then the
# host-descriptor check paths of d=256's backward with (B, N, H, D) inputs (d=256 cases only).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --case-head-dims 128 --paths "d=128 tuned options, separate K/V slots" > $OUT/call2_check_d128.txt 2>&1
echo "check d128 rc $?"; grep -c PASS $OUT/call2_check_d128.txt; grep -E "FAIL|ERROR|HANG|Traceback" $OUT/call2_check_d128.txt | head -5
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 \
    --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 causal:1024 causal:2048 \
    causal:16384 --forms "tuned persistent" "tuned persistent, separate K/V slots" \
    "tuned persistent, separate K/V slots, ping-pong" "tuned persistent, Q in registers" \
    > $OUT/call2_probe_fwd_run50.txt 2>&1
echo "probe 50 rc $?"; cat $OUT/call2_probe_fwd_run50.txt | tail -8
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --case-head-dims 256 \
    --paths "role split at d=256, host descriptors" "role split at d=256, K/V host descriptors" \
    > $OUT/call2_check_host.txt 2>&1
echo "check host rc $?"; grep -c PASS $OUT/call2_check_host.txt; grep -E "FAIL|ERROR|HANG|Traceback" $OUT/call2_check_host.txt | head -5
grep -E "forced path|B, N, H, D" $OUT/call2_check_host.txt | cut -c1-150
