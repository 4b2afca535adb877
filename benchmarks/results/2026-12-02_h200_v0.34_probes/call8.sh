#!/usr/bin/env bash
# v0.34 device call 8: the GPU check's 27 default cases on empty caches with this tree (the d=256 role-split backward
# with LSE/D rows one block ahead and P^T in a 32-byte swizzle; its forced paths passed in calls 2 and 6).
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 220 python3 -m flashio.check --skip-timing \
    --skip-paths --case-timeout 100 > "$OUT/check_default_final.txt" 2>&1
rc=$?
echo "default check rc $rc"; grep -c PASS "$OUT/check_default_final.txt"
grep -E "FAIL|HANG|Traceback" "$OUT/check_default_final.txt" | cut -c1-200 | head
exit $rc
