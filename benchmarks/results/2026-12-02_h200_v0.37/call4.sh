#!/bin/bash
# v0.37 call 4: the persistent fused backward with the dynamic tile list (first run): its check path, then backward
# probe run 25 (static against dynamic, d=128 and d=64 at causal 1k-16k, median of 3 rounds) and the programs' exits
# with the dynamic list (program_ends.py --dynamic). Nothing after the check runs if it fails or hangs.
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "backward: fused five-product (Gluon), persistent, dynamic tile list" 2>&1 | tail -25 > $OUT/check_dynamic_backward.txt
grep -cE "^  PASS" $OUT/check_dynamic_backward.txt; grep -E "FAIL|HANG|Traceback|Error" $OUT/check_dynamic_backward.txt | cut -c1-300 && exit 1
export TRITON_CACHE_DIR=$(mktemp -d)
timeout 260 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 128 64 --causal yes --seqlens 1024 2048 4096 16384 --rounds 3 --forms "tuned (v0.37)" "tuned (v0.37), dynamic tile list" "three slots (v0.37)" "three slots (v0.37), dynamic tile list" > $OUT/probe_bwd_run25.txt 2>&1; tail -10 $OUT/probe_bwd_run25.txt
FLASHIO_LAUNCH_PLANS=0 timeout 100 python3 benchmarks/experiments/fused_backward_persistent/program_ends.py --dynamic --points 128:causal:1024 64:causal:1024 --launches 20 > $OUT/program_ends_backward_dynamic.txt 2>&1; tail -12 $OUT/program_ends_backward_dynamic.txt
