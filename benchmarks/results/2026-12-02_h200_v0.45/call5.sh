#!/bin/bash
# v0.45 call 5: what the two new forward candidates cost a first call (benchmarks/first_call.py, bf16, forward +
# backward, empty Triton cache and tuning file each run, twice per shape): d=128 non-causal 4k (v0.43 call 2: 9.67 s
# with five d=128 Gluon forward candidates, now six) and d=256 non-causal 4k (three d=256 candidates before, now four).
# Prediction in PERFORMANCE.md v0.45, written before the run.
set -u
export PYTHONPATH=src
for point in 128 256; do
  for run in 1 2; do
    echo "== d=$point non-causal 4k, run $run"
    TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d)/tuning.json timeout 120 \
        python3 benchmarks/first_call.py --head-dim $point --seqlen 4096 2>&1 | tail -25
  done
done > $OUT/call5_first_call.txt 2>&1
grep -E "^==|first call|compiled|timed" $OUT/call5_first_call.txt | head -40
