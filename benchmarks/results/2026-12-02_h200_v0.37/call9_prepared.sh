#!/bin/bash
# v0.37, prepared for the next session (not run): PERFORMANCE.md "Next" item 2 -- where the dynamic forward's time goes
# at d=128 causal 1k: per-tile times and the programs' exits of the static list (--static; the library's order) and of the dynamic
# list as tuned, warm and after FA2 / cuDNN (round_times.py, 20 turns each).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off TRITON_CACHE_DIR=$(mktemp -d)
timeout 120 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 --forms 2 --turns 20 --static > $OUT/round_times_128c1k_static.txt 2>&1; tail -20 $OUT/round_times_128c1k_static.txt
timeout 120 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 --forms 2 --turns 20 --dynamic > $OUT/round_times_128c1k_dynamic.txt 2>&1; tail -20 $OUT/round_times_128c1k_dynamic.txt
