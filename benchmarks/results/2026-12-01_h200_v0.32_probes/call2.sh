#!/usr/bin/env bash
# v0.32 call 2: the tuned persistent forms now store 16 bytes at a time (configs.FORWARD_GLUON_CANDIDATES).
# 1. The GPU check's default cases on empty caches (the tuner picks among the new candidates).
# 2. Its forced paths "4-byte output stores" (the tuned forms as they were) and "one tile per program, 16-byte
#    output stores" (prepared in v0.32: the d=64 register-capped and d=128 pipelined one-tile forms).
# 3. Forward probe run 37: those one-tile forms against the same with 4-byte stores, 3 rounds, d=64 and d=128.
# Any check failure stops the call.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing \
    --skip-paths --case-timeout 100 > "$OUT/check_default.txt" 2>&1
rc=$?
echo "default check rc $rc"; grep -c PASS "$OUT/check_default.txt"; grep -E "FAIL|HANG|Traceback" "$OUT/check_default.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing \
    --skip-default-cases --case-timeout 100 --paths "output stores" > "$OUT/check_output_stores.txt" 2>&1
rc=$?
echo "paths check rc $rc"; grep -c PASS "$OUT/check_output_stores.txt"; grep -E "FAIL|HANG|Traceback" "$OUT/check_output_stores.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
FLASHIO_TUNING_CACHE=off timeout 230 python3 benchmarks/experiments/forward_short/probe.py --head-dims 64 128 \
    --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 causal:2048 \
    --forms "Gluon, two programs per SM, plain loop" "Gluon, two programs per SM, output from registers" \
    "Gluon, two programs per SM, output from registers, 16-byte stores" "Gluon pipelined" "tuned persistent" \
    > "$OUT/probe_fwd_run37.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/probe_fwd_run37.txt"; cut -c1-300 "$OUT/probe_fwd_run37.txt" | tail -14
exit $rc
