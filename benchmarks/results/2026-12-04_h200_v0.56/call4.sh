#!/bin/bash
# v0.56 call 4: flashio.check's default cases (tuned choices, fresh tuning cache) at d=64, d=128 and d=256 on the
# closing commit, GPU numerics against the float32 reference.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 560 python3 -m flashio.check --skip-timing --skip-paths \
    --case-head-dims 64 128 256 --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8; tail -3 $OUT/check.txt
