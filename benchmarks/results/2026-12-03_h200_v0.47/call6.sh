#!/bin/bash
# v0.47 call 6: does a training step synchronise? host_overhead/step_sync.py (prediction in its docstring).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 benchmarks/experiments/host_overhead/step_sync.py \
    > $OUT/step_sync.txt 2>&1
echo "step_sync rc $?"; tail -8 $OUT/step_sync.txt
