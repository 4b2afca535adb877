#!/usr/bin/env bash
# v0.32 call 7 (the session's last device seconds; call 6 was refused, no machine lent): the fused backward's dK/dV
# in 16-byte stores (prepared this session, wide_stores on the persistent specialised backward).
# 1. The GPU check's forced path for them, empty caches; any failure stops the call.
# 2. Backward probe run 15: the tuned forms against the same with 16-byte dK/dV stores, 3 rounds.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 -m flashio.check --skip-timing \
    --skip-default-cases --case-timeout 60 --paths "16-byte dK/dV stores" > "$OUT/check_wide_key_gradients.txt" 2>&1
rc=$?
echo "check rc $rc"; grep -c PASS "$OUT/check_wide_key_gradients.txt"; grep -E "FAIL|HANG|Traceback" "$OUT/check_wide_key_gradients.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
FLASHIO_TUNING_CACHE=off timeout 110 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 128 64 --rounds 3 --seqlens 1024 2048 16384 \
    --forms "tuned, split tail" "tuned, split tail, 16-byte dK/dV stores" > "$OUT/probe_bwd_run15.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/probe_bwd_run15.txt"; cut -c1-300 "$OUT/probe_bwd_run15.txt" | tail -16
exit $rc
