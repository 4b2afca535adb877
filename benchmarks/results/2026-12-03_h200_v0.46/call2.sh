#!/bin/bash
# v0.46 call 2: forward probe run 52 (prediction in forward_short/probe.py's docstring, written before the run): Q/K/V
# host descriptors at d=64 and d=256, d=128 again, and on d=128's form with Q in registers.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 450 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 64 256 128 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 \
    causal:2048 causal:16384 --forms "tuned persistent" "d=256 persistent, output from registers, 16-byte stores" \
    "tuned persistent, Q/K/V host descriptors" "tuned persistent, Q in registers" \
    "tuned persistent, Q in registers, Q/K/V host descriptors" > $OUT/call2_probe_fwd_run52.txt 2>&1
echo "probe 52 rc $?"
cat $OUT/call2_probe_fwd_run52.txt | tail -18
