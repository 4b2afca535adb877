#!/usr/bin/env bash
# v0.33 call 1: v0.32's call8_prepared.sh, run first this session; then the grid (call3.sh / call4.sh).
# 1. The GPU check's default cases on empty caches: the tuned backward now stores dK/dV 16 bytes at a time (d=64 three
#    slots, d=128), which only the forced path (17 cases) has run.
# 2. The forced paths of the two prepared forms: d=64's four-slot form and d=256's role-split tile with 16-byte dK/dV
#    stores. Any failure stops the call.
# 3. Backward probe runs 17 (d=64 four slots) and 16 (d=256), 3 rounds each.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing \
    --skip-paths --case-timeout 100 > "$OUT/check_default.txt" 2>&1
rc=$?
echo "default check rc $rc"; grep -c PASS "$OUT/check_default.txt"; grep -E "FAIL|HANG|Traceback" "$OUT/check_default.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing \
    --skip-default-cases --case-timeout 100 --paths "stores, four slots at d=64" "role split at d=256, 16-byte" \
    > "$OUT/check_prepared_paths.txt" 2>&1
rc=$?
echo "paths check rc $rc"; grep -c PASS "$OUT/check_prepared_paths.txt"; grep -E "FAIL|HANG|Traceback" "$OUT/check_prepared_paths.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
FLASHIO_TUNING_CACHE=off timeout 110 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 64 \
    --rounds 3 --seqlens 1024 2048 16384 --forms "tuned, split tail, 16-byte dK/dV stores" \
    "tuned four slots, split tail" "tuned four slots, split tail, 16-byte dK/dV stores" > "$OUT/probe_bwd_run17.txt" 2>&1
echo "rc $?" >> "$OUT/probe_bwd_run17.txt"; cut -c1-300 "$OUT/probe_bwd_run17.txt" | tail -9
FLASHIO_TUNING_CACHE=off timeout 110 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 256 \
    --rounds 3 --seqlens 1024 2048 16384 --forms tuned "tuned, 16-byte dK/dV stores" "tuned, two Q slots" \
    "tuned, two Q slots, 16-byte dK/dV stores" > "$OUT/probe_bwd_run16.txt" 2>&1
echo "rc $?" >> "$OUT/probe_bwd_run16.txt"; cut -c1-300 "$OUT/probe_bwd_run16.txt" | tail -9
