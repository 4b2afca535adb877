#!/bin/bash
# v0.38, prepared for the next session (not run: this session had 154 of its 1800 device seconds left, too few to start
# a machine): PERFORMANCE.md "Next" item 1 -- the non-causal persistent forward's split tail. Its check path first
# (the 17 path cases and d=256's grid shape at 1k; nothing else runs if one fails or hangs), then the merge alone on
# the grid's shapes (merge_cost.py: the cost model behind the prediction). Probe run 45 is call 2.
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 300 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "forward: Gluon, persistent, split tail" 2>&1 | tail -25 > $OUT/check_split_tail.txt
grep -cE "^  PASS" $OUT/check_split_tail.txt
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_split_tail.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_split_tail.txt | cut -c1-300; exit 1; fi
TRITON_CACHE_DIR=$(mktemp -d) timeout 120 python3 benchmarks/experiments/forward_short/merge_cost.py > $OUT/merge_cost.txt 2>&1; cat $OUT/merge_cost.txt | tail -12
