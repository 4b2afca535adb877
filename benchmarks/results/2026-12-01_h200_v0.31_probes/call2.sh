#!/usr/bin/env bash
# v0.31 device call 2. Call 1's tuner_listed.py --cross-head timings (1.6-3.1 ms, slow at the second look too) were
# the probe context's doing: it built a new tile table, with a synchronous copy, on every launcher call, and the
# tuner's timings run the launcher (fixed: tables kept per problem). So: (a) the v0.30 library rule itself
# (cross_head_pairs.patch applied on this device copy only), tuner_listed.py in 4 fresh processes: are the listed
# candidates' first timings slow again, and does the second look (configs.SLOW_WINDOW) find them fast (a window) or
# slow (the process)? (b) tuner_listed.py --cross-head with the fixed context, 2 processes. The patch is reverted
# before (b).
set -u
export PYTHONPATH=src
tl() {  # label, tuner_listed args
  local label=$1; shift
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 \
      python3 benchmarks/experiments/forward_short/tuner_listed.py "$@" > /tmp/tl.txt 2>&1
  local rc=$?
  { echo "== $label: $*"; cut -c1-1200 /tmp/tl.txt; echo "rc $rc"; } | tee -a "$OUT/tuner_listed.txt"
  [ $rc -eq 0 ] || exit $rc
}
patch -p1 < benchmarks/results/2026-12-01_h200_v0.30_probes/cross_head_pairs.patch || exit 1
for i in 1 2 3 4; do tl "library rule (patch)" --dtype fp16; done
patch -R -p1 < benchmarks/results/2026-12-01_h200_v0.30_probes/cross_head_pairs.patch || exit 1
for i in 1 2; do tl "probe context, tables kept" --dtype fp16 --cross-head; done
