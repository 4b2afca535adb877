#!/bin/bash
# v0.52 call 2: probe run 63 (bf16, median of 3 rounds): d=64's four-consumer form with and without masks by branch,
# its two-consumer sixth candidate with and without 64-key blocks, at the causal points and non-causal 1k.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
P="benchmarks/experiments/forward_short/probe.py"
FLASHIO_TUNING_CACHE=off timeout 300 python3 $P --head-dims 64 --rounds 3 --skip-tuned \
    --points causal:1024 causal:2048 causal:4096 causal:8192 causal:16384 noncausal:1024 \
    --forms "d=64 four consumers" "d=64 four consumers, masks by branch" "d=64 sixth (two consumers) (v0.51)" \
            "d=64 sixth (two consumers), 64-key blocks" > $OUT/probe63.txt 2>&1
echo "probe rc $? at ${SECONDS}s"
grep "^|" $OUT/probe63.txt
