#!/bin/bash
# v0.42 call 1: d=128's one-slot fused backward with the key-block boundary's waits reordered (queries_first,
# early_kv_release). The two check paths (--paths takes a substring: one run runs both), then backward probe run 30
# (d=128, causal and not, 1k / 2k / 16k, 3 rounds; the claims forms differ from the tuned ones at non-causal points
# only, a causal call runs the tuned form's causal kernel).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "queries first and early K/V release" > $OUT/call1_check_queries_first.txt 2>&1
echo "check rc $?: $(grep -cE '^  PASS' $OUT/call1_check_queries_first.txt) PASS"
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/call1_check_queries_first.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/call1_check_queries_first.txt | cut -c1-300; exit 1; fi
FLASHIO_TUNING_CACHE=off timeout 320 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 128 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned (v0.41)" "tuned (v0.41), queries first" "tuned (v0.41), early K/V release" "tuned (v0.41), both" "claims (v0.41)" "claims (v0.41), both" > $OUT/call1_probe_bwd_run30.txt 2>&1; tail -8 $OUT/call1_probe_bwd_run30.txt
