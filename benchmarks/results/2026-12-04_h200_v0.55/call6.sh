#!/bin/bash
# v0.55 call 6: do the three consumers of d=64's non-causal tiles start and end them together? round_times.py --dump
# (warm launches, 10 turns) on the three-consumer candidate at non-causal 1k and 2k, then consumer_offsets.py over the
# dumps (consumers 0 and 1; the dumps themselves are not kept).
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=off
R=benchmarks/experiments/forward_short
mkdir -p /tmp/dumps
timeout 150 python3 $R/round_times.py --points 64:noncausal:1024 64:noncausal:2048 --forms 6 --turns 10 \
    --tiles-shown 2 --dump /tmp/dumps > $OUT/round_times_dump.txt 2>&1
echo "round_times rc $? at ${SECONDS}s"
python3 $R/consumer_offsets.py /tmp/dumps/*.pt | tee $OUT/consumer_offsets.txt
