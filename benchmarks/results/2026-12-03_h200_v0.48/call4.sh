#!/bin/bash
# v0.48 call 4: probe run 55, d=64's three-consumer form with its causal tiles claimed one at a time (dynamic list)
# against it as tuned, at the d=64 points nearest the goal; a d=64 first call with the seventh candidate.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 64 --rounds 3 \
    --skip-tuned --points noncausal:2048 causal:2048 causal:4096 causal:8192 causal:16384 \
    --forms "d=64 host descriptors" "d=64 three consumers, host descriptors" \
    "d=64 three consumers, host descriptors, dynamic" > $OUT/probe_run55.txt 2>&1
echo "probe rc $?"; tail -7 $OUT/probe_run55.txt
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d)/tuning.json \
    timeout 90 python3 benchmarks/first_call.py --head-dim 64 --seqlen 4096 > $OUT/first_call_d64.txt 2>&1
echo "first_call rc $?"; grep -E "first call|first forward" $OUT/first_call_d64.txt | cut -c1-300
