#!/bin/bash
# v0.36 call 3: the causal persistent forwards' per-program exits and busy times, raw timestamps kept (--dump) to set
# each program's end against its tile list (round_times.py).
set -x
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off TRITON_CACHE_DIR=$(mktemp -d)
timeout 150 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 128:causal:2048 --forms 2 --turns 20 --dump $OUT 2>&1 | tee $OUT/round_times_128c.txt
timeout 100 python3 benchmarks/experiments/forward_short/round_times.py --points 256:causal:1024 256:causal:2048 --forms 1 --turns 20 --dump $OUT 2>&1 | tee $OUT/round_times_256c.txt
timeout 100 python3 benchmarks/experiments/forward_short/round_times.py --points 64:causal:1024 64:causal:2048 --forms 1 --turns 20 --dump $OUT 2>&1 | tee $OUT/round_times_64c.txt
ls -la $OUT
