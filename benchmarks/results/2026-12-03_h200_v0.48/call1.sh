#!/bin/bash
# v0.48 call 1: the host-side changes made after v0.47's last call (claim counters keyed by the raw stream handle, the
# replay's stream lookup, the dQ strategies' pending list) under the d=128 default check cases; where an eager step's
# host time goes (host_overhead/step_profile.py, step_sync.py again on the shared code); d=128 causal 1k per-tile times
# of the host-descriptor form (6), the same with Q in registers (7) and the in-kernel-descriptor form (2)
# (forward_short/round_times.py).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 170 python3 -m flashio.check --skip-timing --skip-paths \
    --case-head-dims 128 --case-timeout 60 > "$OUT/check_d128.txt" 2>&1
echo "check d128 rc $? PASS $(grep -c PASS $OUT/check_d128.txt) FAIL $(grep -c FAIL $OUT/check_d128.txt) graph $(grep -c 'CUDA graph' $OUT/check_d128.txt)"
grep -E "FAIL|ERROR|HANG|Traceback|Error" "$OUT/check_d128.txt" | head -5
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 benchmarks/experiments/host_overhead/step_sync.py \
    > $OUT/step_sync.txt 2>&1
echo "step_sync rc $?"; tail -8 $OUT/step_sync.txt
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 120 python3 benchmarks/experiments/host_overhead/step_profile.py \
    > $OUT/step_profile.txt 2>&1
echo "step_profile rc $?"; grep -E "^## |allocator" $OUT/step_profile.txt
FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/forward_short/round_times.py \
    --points 128:causal:1024 --forms 6 7 2 --turns 30 > $OUT/round_times.txt 2>&1
echo "round_times rc $?"; tail -40 $OUT/round_times.txt
FLASHIO_TUNING_CACHE=off timeout 100 python3 benchmarks/experiments/forward_short/round_times.py \
    --points 128:causal:1024 --forms 6 --early-q-release --turns 30 > $OUT/round_times_early.txt 2>&1
echo "round_times early rc $?"; grep -A6 "^## " $OUT/round_times_early.txt
