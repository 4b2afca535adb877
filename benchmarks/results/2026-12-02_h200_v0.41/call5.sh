#!/bin/bash
# v0.41 call 5: two K/V slots in d=64's fused backward (kv_slots=2). The two check paths (--paths takes a substring:
# one run runs both), then backward probe run 28 (d=64, tuned four- and three-slot forms with and without, causal and
# not, 1k / 2k / 16k, 3 rounds).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 250 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "two K/V slots at d=64" > $OUT/check_two_kv_slots.txt 2>&1
echo "check rc $?: $(grep -cE '^  PASS' $OUT/check_two_kv_slots.txt) PASS"
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_two_kv_slots.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_two_kv_slots.txt | cut -c1-300; exit 1; fi
FLASHIO_TUNING_CACHE=off timeout 280 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 64 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned (v0.40)" "tuned (v0.40), two K/V slots" "three slots (v0.40)" "three slots (v0.40), two K/V slots" > $OUT/probe_bwd_run28.txt 2>&1; tail -8 $OUT/probe_bwd_run28.txt
