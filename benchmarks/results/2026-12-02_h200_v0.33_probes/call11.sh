#!/usr/bin/env bash
# v0.33 device call 11: the GPU check's 27 default cases on empty caches with the final tuned lists (call 1 ran them
# before d=64's four-slot form and d=256's two role-split tiles took 16-byte dK/dV stores; each of those passed its
# forced path in calls 1-2).
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing \
    --skip-paths --case-timeout 100 > "$OUT/check_default_final.txt" 2>&1
rc=$?
echo "default check rc $rc"; grep -c PASS "$OUT/check_default_final.txt"
grep -E "FAIL|HANG|Traceback" "$OUT/check_default_final.txt" | cut -c1-200 | head
exit $rc
