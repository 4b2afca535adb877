#!/bin/bash
# v0.42 call 2: queries_first alone (early_kv_release removed after call 1). Its two check paths (one run), then
# backward probe run 31 (d=128, both tuned forms with and without, causal and not, 1k / 2k / 4k / 16k, 5 rounds).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "queries first at d=128" > $OUT/call2_check_queries_first.txt 2>&1
echo "check rc $?: $(grep -cE '^  PASS' $OUT/call2_check_queries_first.txt) PASS"
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/call2_check_queries_first.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/call2_check_queries_first.txt | cut -c1-300; exit 1; fi
FLASHIO_TUNING_CACHE=off timeout 320 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 128 --rounds 5 --seqlens 1024 2048 4096 16384 --forms "tuned (v0.41)" "tuned (v0.41), queries first" "claims (v0.41)" "claims (v0.41), queries first" > $OUT/call2_probe_bwd_run31.txt 2>&1; tail -10 $OUT/call2_probe_bwd_run31.txt
