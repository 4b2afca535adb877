#!/bin/bash
# v0.37 call 2: the GPU check's 27 default cases on empty caches (d=128's tuned forward now dynamic), then forward probe
# run 42 at d=128 (static list / dynamic as tuned / first entry claimed / claims a tile ahead, causal 1k-16k) and
# run 43 at d=64 (static as tuned / dynamic / claims a tile ahead, causal 8k-16k); median of 3 rounds.
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --skip-paths --case-timeout 100 > $OUT/check_default.txt 2>&1; echo "default check rc $?"
grep -cE "^  PASS" $OUT/check_default.txt; grep -E "FAIL|HANG|Traceback" $OUT/check_default.txt | cut -c1-200 | head
export TRITON_CACHE_DIR=$(mktemp -d)
timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 --points causal:1024 causal:2048 causal:8192 causal:16384 --rounds 3 --skip-tuned --forms "tuned persistent, static tile list" "tuned persistent" "tuned persistent, dynamic, first entry claimed" "tuned persistent, dynamic, claims a tile ahead" > $OUT/probe_fwd_run42.txt 2>&1; tail -22 $OUT/probe_fwd_run42.txt
timeout 120 python3 benchmarks/experiments/forward_short/probe.py --head-dims 64 --points causal:8192 causal:16384 --rounds 3 --skip-tuned --forms "tuned persistent" "tuned persistent, dynamic tile list" "tuned persistent, dynamic, claims a tile ahead" > $OUT/probe_fwd_run43.txt 2>&1; tail -12 $OUT/probe_fwd_run43.txt
