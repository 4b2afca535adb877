#!/bin/bash
# v0.36 call 6: forward probe run 40 -- the tuned persistent forms claiming their causal tiles one at a time from one
# list (dynamic_schedule) against the static lists, median of 3 rounds, with each form's max |O - reference|; then the
# dynamic form's per-tile times and programs' exits (round_times.py --dynamic).
set -x
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off TRITON_CACHE_DIR=$(mktemp -d)
timeout 240 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 --points causal:1024 causal:2048 causal:4096 causal:8192 --rounds 3 --skip-tuned --forms "tuned persistent" "tuned persistent, dynamic tile list" 2>&1 | tee $OUT/probe_fwd_run40.txt
timeout 150 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 128:causal:2048 --forms 2 --turns 20 --dynamic 2>&1 | tee $OUT/round_times_128c_dynamic.txt
