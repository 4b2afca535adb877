#!/bin/bash
# v0.38, prepared for the next session (not run: this session had 154 of its 1800 device seconds left, too few to start
# a machine): PERFORMANCE.md "Next" item 1 -- the non-causal persistent forward's split tail. Its check path first
# (the 17 path cases and d=256's grid shape at 1k; nothing else runs if one fails or hangs), then forward probe run 45:
# the tuned persistent forms with and without the split tail at non-causal 1k / 2k / 4k / 16k, d=128, d=64 and d=256,
# median of 3 rounds.
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "forward: Gluon, persistent, split tail" 2>&1 | tail -25 > $OUT/check_split_tail.txt
grep -cE "^  PASS" $OUT/check_split_tail.txt
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_split_tail.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_split_tail.txt | cut -c1-300; exit 1; fi
TRITON_CACHE_DIR=$(mktemp -d) timeout 300 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 256 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 --forms "tuned persistent" "tuned persistent, split tail" > $OUT/probe_fwd_run45.txt 2>&1; tail -14 $OUT/probe_fwd_run45.txt
