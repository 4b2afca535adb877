#!/bin/bash
# v0.41 call 8: d=128's fused backward asking the L2 for each key block's K/V (kv_prefetch). The two check paths
# (--paths "K/V prefetch at d=128" runs both), then backward probe run 29 (d=128, causal and not, 1k / 2k / 16k,
# 3 rounds; the claims forms run at non-causal points only, causal calls run the tuned form's causal kernel).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "K/V prefetch at d=128" > $OUT/check_kv_prefetch.txt 2>&1
echo "check rc $?: $(grep -cE '^  PASS' $OUT/check_kv_prefetch.txt) PASS"
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_kv_prefetch.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_kv_prefetch.txt | cut -c1-300; exit 1; fi
FLASHIO_TUNING_CACHE=off timeout 260 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 128 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned (v0.41)" "tuned (v0.41), K/V prefetch" "claims (v0.41)" "claims (v0.41), K/V prefetch" > $OUT/probe_bwd_run29.txt 2>&1; tail -8 $OUT/probe_bwd_run29.txt
