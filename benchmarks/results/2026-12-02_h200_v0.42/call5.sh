#!/bin/bash
# v0.42 call 5: d=128's tuned persistent forward with Q in registers (q_in_registers). Its check path, then forward
# probe run 48 (d=128, 1k / 2k / 16k, causal and not, 3 rounds).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "tuned options, Q in registers at d=128" > $OUT/call5_check_q_in_registers.txt 2>&1
echo "check rc $?: $(grep -cE '^  PASS' $OUT/call5_check_q_in_registers.txt) PASS"
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/call5_check_q_in_registers.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/call5_check_q_in_registers.txt | cut -c1-300; exit 1; fi
FLASHIO_TUNING_CACHE=off timeout 250 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 causal:16384 --forms "tuned persistent" "tuned persistent, Q in registers" > $OUT/call5_probe_fwd_run48.txt 2>&1; tail -8 $OUT/call5_probe_fwd_run48.txt
