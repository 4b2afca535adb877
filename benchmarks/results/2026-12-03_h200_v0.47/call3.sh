#!/bin/bash
# v0.47 call 3: the GPU check after the capture fixes, every case now also replayed from a CUDA graph: the 27
# default cases on empty caches (the tuner timing replays, now the default), then the forced path with Q, K and V
# through host descriptors (25 cases). Prediction in PERFORMANCE.md v0.47, written before the run.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --skip-paths \
    --case-timeout 60 > "$OUT/check_default.txt" 2>&1
echo "check default rc $? PASS $(grep -c PASS $OUT/check_default.txt) FAIL $(grep -c FAIL $OUT/check_default.txt)"
grep -E "FAIL|ERROR|HANG|Traceback|Error" "$OUT/check_default.txt" | head -5
path="tuned options, Q/K/V host descriptors"
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 170 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --paths "$path" > "$OUT/check_host3.txt" 2>&1
echo "check [$path] rc $? PASS $(grep -c PASS $OUT/check_host3.txt) FAIL $(grep -c FAIL $OUT/check_host3.txt)"
grep -E "FAIL|ERROR|HANG|Traceback|Error" "$OUT/check_host3.txt" | head -5
grep -c "CUDA graph" $OUT/check_default.txt $OUT/check_host3.txt
