#!/usr/bin/env bash
# v0.35 device call 4: the tuned persistent backward forms of d=64 and d=128 reading each block's LSE row before the
# S^T wait (TileConfig.early_lse; ncu run 15, call 3). (1) Its forced check path on empty caches. (2) Backward probe
# run 23 (prediction in the probe's docstring): bf16, median of 3 rounds.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 250 python3 -m flashio.check --skip-timing \
    --skip-default-cases --case-timeout 100 --paths "LSE row read before the S^T wait" > "$OUT/check_early_lse.txt" 2>&1
rc=$?
echo "paths check rc $rc"; grep -c PASS "$OUT/check_early_lse.txt"
grep -E "FAIL|HANG|Traceback" "$OUT/check_early_lse.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 64 128 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned (v0.35)" \
    "tuned (v0.35), LSE read before the S^T wait" > "$OUT/probe_bwd_run23.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run23.txt"
cut -c1-300 "$OUT/probe_bwd_run23.txt"
