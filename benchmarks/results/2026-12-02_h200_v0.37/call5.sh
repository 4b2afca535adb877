#!/bin/bash
# v0.37 call 5: call 4's rest (call 4 stopped after its check, 17/17 PASS, on its own script error: the failure test
# read the exit status of `cut`): backward probe run 25 (static against dynamic tile list, d=128 and d=64 at causal
# 1k-16k, median of 3 rounds) and the programs' exits with the dynamic list (program_ends.py --dynamic).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off TRITON_CACHE_DIR=$(mktemp -d)
timeout 260 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 128 64 --causal yes --seqlens 1024 2048 4096 16384 --rounds 3 --forms "tuned (v0.37)" "tuned (v0.37), dynamic tile list" "three slots (v0.37)" "three slots (v0.37), dynamic tile list" > $OUT/probe_bwd_run25.txt 2>&1; tail -10 $OUT/probe_bwd_run25.txt
FLASHIO_LAUNCH_PLANS=0 timeout 100 python3 benchmarks/experiments/fused_backward_persistent/program_ends.py --dynamic --points 128:causal:1024 64:causal:1024 --launches 20 > $OUT/program_ends_backward_dynamic.txt 2>&1; tail -12 $OUT/program_ends_backward_dynamic.txt
