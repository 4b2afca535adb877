#!/usr/bin/env bash
# Prepared in v0.34, not run (no device time left): the float32 dQ tiles of every tuned fused-backward form stored
# without bank conflicts (TileConfig.spread_dq_stores; gluon_stores.store_float32_spread). (1) Its forced check path
# on empty caches. (2) Backward probe run 22 (prediction in the probe's docstring): bf16, median of 3 rounds.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 250 python3 -m flashio.check --skip-timing \
    --skip-default-cases --case-timeout 100 --paths "dQ stored without bank conflicts" > "$OUT/check_spread_dq.txt" 2>&1
rc=$?
echo "paths check rc $rc"; grep -c PASS "$OUT/check_spread_dq.txt"
grep -E "FAIL|HANG|Traceback" "$OUT/check_spread_dq.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
FLASHIO_TUNING_CACHE=off timeout 330 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 64 128 256 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned (last candidate)" \
    "tuned, 16-byte dK/dV stores" "tuned, dQ stored without bank conflicts" > "$OUT/probe_bwd_run22.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run22.txt"
cut -c1-300 "$OUT/probe_bwd_run22.txt"
