#!/bin/bash
# v0.40 call 1 (v0.39's call11_prepared.sh, unchanged): the fused backward's non-causal programs. Their exits as tuned
# (the split tail's list) and with the key blocks claimed in order (noncausal_claims), d=128 and d=64 at non-causal 1k
# (program_ends.py, 20 launches); then the check path "backward: fused five-product (Gluon), non-causal claims"; then
# backward probe run 26 (tuned against non-causal claims, non-causal 1k / 2k / 16k, median of 3 rounds).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off FLASHIO_LAUNCH_PLANS=0 TRITON_CACHE_DIR=$(mktemp -d)
P=benchmarks/experiments/fused_backward_persistent
timeout 100 python3 $P/program_ends.py --points 128:noncausal:1024 64:noncausal:1024 > $OUT/program_ends_noncausal.txt 2>&1; grep -E "^##|exits" $OUT/program_ends_noncausal.txt
timeout 100 python3 $P/program_ends.py --points 128:noncausal:1024 64:noncausal:1024 --noncausal-claims > $OUT/program_ends_noncausal_claims.txt 2>&1; grep -E "^##|exits" $OUT/program_ends_noncausal_claims.txt
unset FLASHIO_LAUNCH_PLANS
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "backward: fused five-product (Gluon), non-causal claims" 2>&1 | tail -25 > $OUT/check_backward_noncausal_claims.txt
grep -cE "^  PASS" $OUT/check_backward_noncausal_claims.txt
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_backward_noncausal_claims.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_backward_noncausal_claims.txt | cut -c1-300; exit 1; fi
timeout 150 python3 $P/probe.py --head-dims 128 64 --rounds 3 --causal no --seqlens 1024 2048 16384 --forms "tuned (v0.39)" "tuned (v0.39), non-causal claims" > $OUT/probe_bwd_run26.txt 2>&1; tail -8 $OUT/probe_bwd_run26.txt
