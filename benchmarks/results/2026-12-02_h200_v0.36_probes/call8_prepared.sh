#!/bin/bash
# v0.36, prepared for the next session (not run): PERFORMANCE.md "Next" items 1-3 -- the GPU check's default cases
# and the dynamic list's path (d=64's fixed slots run for the first time), forward probe run 42 (static list, dynamic
# as tuned, first entry claimed, claims a tile ahead; d=128 causal 1k-16k, d=64 causal 8k-16k), the per-tile times of
# the dynamic forms at d=128 causal 1k. The interleaved d=128 grid is call9_prepared.sh.
set -x
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 --paths "forward: Gluon, persistent, dynamic tile list" 2>&1 | tail -25 | tee $OUT/check_dynamic.txt
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 300 python3 -m flashio.check --skip-timing --skip-paths --case-timeout 100 > $OUT/check_default.txt 2>&1; echo "default check rc $?"; grep -c PASS $OUT/check_default.txt; grep -E "FAIL|HANG|Traceback" $OUT/check_default.txt | cut -c1-200 | head
