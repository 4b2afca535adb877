#!/usr/bin/env bash
# Ran on commit 0f07ff8's tree (the library's causal forward pairing across heads at N <= 1k, reverted after call 7;
# cross_head_pairs.patch) with the script as it was then (call 6-7: tuner_listed.py's --within-head switch, since
# replaced by --cross-head).
# v0.30 device call 6: why the grid's fp16 d=128 causal 1k first call timed the listed forward candidates at 2.5x
# (benchmarks/experiments/forward_short/tuner_listed.py): fp16 and bf16, with and without the first-call switches,
# each a fresh process with empty caches, tuner timings at the first call (the "retimed" lines came out empty: the second call read its choices from the
# tuning file the first had written).
set -u
export PYTHONPATH=src
for args in "--dtype fp16" "--dtype fp16 --no-switches" "--dtype bf16" "--dtype fp16"; do
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 \
      python3 benchmarks/experiments/forward_short/tuner_listed.py $args 2>&1 | cut -c1-700 | tee -a "$OUT/tuner_listed.txt"
done
