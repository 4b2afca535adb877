#!/bin/bash
# v0.36, prepared for the next session (not run): forward probe run 42 and the dynamic forms' per-tile times
# (PERFORMANCE.md "Next" item 2), then the d=128 grid (item 1) in call 10.
set -x
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off TRITON_CACHE_DIR=$(mktemp -d)
timeout 330 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 --points causal:1024 causal:2048 causal:8192 causal:16384 --rounds 3 --skip-tuned --forms "tuned persistent, static tile list" "tuned persistent" "tuned persistent, dynamic, first entry claimed" "tuned persistent, dynamic, claims a tile ahead" 2>&1 | tee $OUT/probe_fwd_run42.txt
for claim in "" CLAIM_AHEAD CLAIM_FIRST; do
  timeout 60 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 --forms 2 --turns 20 --dynamic --claim $claim 2>&1 | tee $OUT/round_times_128c1k_dynamic_${claim:-as_tuned}.txt
done
# PERFORMANCE.md "Next" item 4: the persistent fused backward's programs' ends at d=128 and d=64 causal 1k-2k.
FLASHIO_LAUNCH_PLANS=0 timeout 200 python3 benchmarks/experiments/fused_backward_persistent/program_ends.py --points 128:causal:1024 128:causal:2048 64:causal:1024 --launches 20 2>&1 | tee $OUT/program_ends_backward.txt
