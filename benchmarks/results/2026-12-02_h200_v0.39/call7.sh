#!/bin/bash
# v0.39 call 7: the split tail's check path again with the merge's new defaults (16 rows, 3 stages; call 1 ran 32 rows,
# 1 stage), then where the non-causal persistent forward's time goes at the goal's open non-causal points (d=128 1k and
# 2k, d=256 1k; round-robin): per-tile times and the programs' exits, warm and after FA2 / cuDNN (round_times.py).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "forward: Gluon, persistent, split tail" 2>&1 | tail -25 > $OUT/check_split_tail.txt
grep -cE "^  PASS" $OUT/check_split_tail.txt
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_split_tail.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_split_tail.txt | cut -c1-300; fi
export TRITON_CACHE_DIR=$(mktemp -d)
timeout 120 python3 benchmarks/experiments/forward_short/round_times.py --points 128:noncausal:1024 128:noncausal:2048 --forms 2 --turns 20 > $OUT/round_times_128nc.txt 2>&1; grep -E "^\| (warm|FA2|cuDNN|plain)|^- after|^132|programs;" $OUT/round_times_128nc.txt | cut -c1-400
timeout 120 python3 benchmarks/experiments/forward_short/round_times.py --points 256:noncausal:1024 --forms 1 --turns 20 > $OUT/round_times_256nc.txt 2>&1; grep -E "^\| (warm|FA2|cuDNN|plain)|^- after|programs;" $OUT/round_times_256nc.txt | cut -c1-400
