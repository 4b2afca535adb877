#!/bin/bash
# v0.55 call 4: where d=64's non-causal short-sequence time goes, measured inside the kernel: round_times.py on the
# three-consumer candidate (form 6, with its new claim list) at non-causal 1k, 2k and 4k (8, 16 and 32 key blocks a
# tile): per-tile durations, the boundary between tiles (--boundary: Q wait, entry read, decode) and the programs'
# exits, warm and after cuDNN's / FA2's forward.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=off
timeout 380 python3 benchmarks/experiments/forward_short/round_times.py \
    --points 64:noncausal:1024 64:noncausal:2048 64:noncausal:4096 --forms 6 --turns 10 --tiles-shown 4 --boundary \
    > $OUT/round_times.txt 2>&1
echo "round_times rc $? at ${SECONDS}s"
cat $OUT/round_times.txt | tail -80
