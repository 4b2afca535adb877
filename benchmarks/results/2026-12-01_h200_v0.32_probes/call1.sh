#!/usr/bin/env bash
# v0.32 call 1 (prepared in v0.31 as call7_prepared.sh): the 16-byte output stores (TileConfig.wide_stores).
# 1. The GPU check's forced path for them (the tuned d=64 and d=128 persistent forms with wide_stores, d=256's
#    tuned form), on empty caches; any failure stops the call.
# 2. Forward probe run 36: the tuned persistent forms against the same with wide_stores, 5 rounds, d=128 and d=64.
#    Prediction: +0.5-2% at 1k, level at 16k.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 250 python3 -m flashio.check --skip-timing \
    --skip-default-cases --case-timeout 100 --paths "16-byte output stores" > "$OUT/check_wide_stores.txt" 2>&1
rc=$?
echo "check rc $rc"; grep -c PASS "$OUT/check_wide_stores.txt"; grep -E "FAIL|HANG|Traceback" "$OUT/check_wide_stores.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 \
    --rounds 5 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
    --forms "tuned persistent" "tuned persistent, 16-byte output stores" > "$OUT/probe_fwd_run36.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/probe_fwd_run36.txt"; cut -c1-300 "$OUT/probe_fwd_run36.txt" | tail -14
exit $rc
