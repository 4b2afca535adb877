#!/bin/bash
# v0.45 call 1: d=256's persistent forward storing its output from registers. First the two check paths (16-byte
# stores; the same claiming its tiles), then forward probe run 49 (forward_short/probe.py; prediction in its
# docstring, written before the run: non-causal 1k +2-4%, 2k +1-2%, 16k level; causal 1k +3-5%, 2k +2-3%).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 260 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --paths "d=256 output from registers" > $OUT/call1_check.txt 2>&1
echo "check rc $?"; grep -c PASS $OUT/call1_check.txt; grep -E "FAIL|ERROR|HANG|Traceback" $OUT/call1_check.txt | head -5
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py --head-dims 256 \
    --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 causal:1024 causal:2048 \
    causal:16384 --forms "tuned persistent" "d=256 persistent, output from registers" \
    "d=256 persistent, output from registers, 16-byte stores" \
    "d=256 persistent, output from registers, 16-byte stores, Q handed back early" \
    "d=256 persistent, output from registers, 16-byte stores, claims" > $OUT/call1_probe_fwd_run49.txt 2>&1
echo "probe rc $?"; cat $OUT/call1_probe_fwd_run49.txt | tail -12
