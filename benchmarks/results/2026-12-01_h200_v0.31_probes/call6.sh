#!/usr/bin/env bash
# v0.31 device call 6: why v0.30's cross-head causal lists made some processes slow (PERFORMANCE.md "Next" item 3).
# v0.30's rule restored on the device copy (cross_head_pairs.patch); cross_head_slowness.py in 6 fresh processes,
# d=128 fp16 causal 1k: 3 with an empty Triton cache each (as v0.30-v0.31's tuner_listed runs), 3 sharing one (the 4th fills it).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
patch -p1 < benchmarks/results/2026-12-01_h200_v0.30_probes/cross_head_pairs.patch > /dev/null || exit 1
shared=$(mktemp -d)
for i in 1 2 3 4 5 6; do
  if [ $i -le 3 ]; then cache=$(mktemp -d); label="empty Triton cache"; else cache=$shared; label="shared cache"; fi
  TRITON_CACHE_DIR=$cache timeout 90 python3 benchmarks/experiments/forward_short/cross_head_slowness.py \
      > /tmp/chs.txt 2>&1
  rc=$?
  { echo "== process $i ($label)"; cut -c1-900 /tmp/chs.txt; echo "rc $rc"; } | tee -a "$OUT/cross_head_slowness.txt"
  [ $rc -eq 0 ] || exit $rc
done
