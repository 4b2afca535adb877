#!/usr/bin/env bash
# Ran on commit 0f07ff8's tree (the library's causal forward pairing across heads at N <= 1k, reverted after call 7;
# cross_head_pairs.patch) with the script as it was then (call 6-7: tuner_listed.py's --within-head switch, since
# replaced by --cross-head).
# v0.30 device call 7: call 6 again with the forward's pairs within a head (--within-head), three fresh processes
# (fp16, bf16, fp16): do the listed candidates still time slow at a first call?
set -u
export PYTHONPATH=src
for args in "--dtype fp16" "--dtype bf16" "--dtype fp16"; do
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 60 \
      python3 benchmarks/experiments/forward_short/tuner_listed.py $args --within-head 2>&1 | grep -v retimed \
      | cut -c1-700 | tee -a "$OUT/tuner_listed_within.txt"
done
