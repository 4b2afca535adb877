#!/bin/bash
# v0.37, prepared for the next session (not run): PERFORMANCE.md "Next" item 3 -- d=256's tuned persistent forward
# with the dynamic tile list: its check path first (nothing else runs if it fails or hangs), then forward probe run 44
# (round-robin as tuned / balanced static list / dynamic list, d=256 causal 1k-8k and non-causal 1k, median of 3 rounds).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "forward: Gluon, persistent, dynamic tile list at d=256" 2>&1 | tail -25 > $OUT/check_dynamic_d256.txt
grep -cE "^  PASS" $OUT/check_dynamic_d256.txt
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_dynamic_d256.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_dynamic_d256.txt | cut -c1-300; exit 1; fi
TRITON_CACHE_DIR=$(mktemp -d) timeout 240 python3 benchmarks/experiments/forward_short/probe.py --head-dims 256 --rounds 3 --skip-tuned --forms "Gluon persistent split K/V (d=256)" "Gluon persistent split K/V, balanced (d=256)" "Gluon persistent split K/V, dynamic (d=256)" > $OUT/probe_fwd_run44.txt 2>&1; tail -8 $OUT/probe_fwd_run44.txt
