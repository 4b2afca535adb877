#!/usr/bin/env bash
# v0.31 device call 5: the GPU check's default cases with this tree (empty caches: every first call tunes with the
# second look). Any failure stops the call.
set -u
export PYTHONPATH=src
# (Ran without --skip-paths: the default cases, then the forced paths until the 300 s limit, which ended it.)
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 300 python3 -m flashio.check --skip-timing \
    --case-timeout 100 > "$OUT/check.txt" 2>&1
rc=$?
echo "check rc $rc"; grep -c PASS "$OUT/check.txt"; grep -E "FAIL|HANG|Traceback" "$OUT/check.txt" | cut -c1-200 | head
tail -3 "$OUT/check.txt" | cut -c1-200
exit $rc
