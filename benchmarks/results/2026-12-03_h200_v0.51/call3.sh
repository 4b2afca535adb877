#!/bin/bash
# v0.51 call 3: probe run 61, forms 6 and 7 of d=128 without / with published_coordinates again (run 60 had them 2-4%
# slower with it where each is tuned), bf16, median of 3 rounds.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
S=", published coordinates"
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 --rounds 3 \
    --skip-tuned --points noncausal:1024 noncausal:16384 causal:2048 causal:16384 \
    --forms "d=128 form 6" "d=128 form 6$S" "d=128 form 7 (Q in registers)" "d=128 form 7 (Q in registers)$S" \
    > $OUT/probe61.txt 2>&1
echo "probe rc $? at ${SECONDS}s"
grep "^|" $OUT/probe61.txt
