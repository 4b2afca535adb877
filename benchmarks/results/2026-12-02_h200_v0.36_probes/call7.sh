#!/bin/bash
# v0.36 call 7: the dynamic tile list with its first round static (program p takes entry p; call 6 queued 132 programs
# on the counter for ~5 µs): its check path, forward probe run 41 (static lists against the dynamic one, median of 3
# rounds), and its per-tile times at d=128 causal 1k (round_times.py --dynamic).
set -x
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 --paths "forward: Gluon, persistent, dynamic tile list" 2>&1 | tail -25 | tee $OUT/check_dynamic.txt
export TRITON_CACHE_DIR=$(mktemp -d)
timeout 210 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 --points causal:1024 causal:2048 causal:4096 causal:8192 causal:16384 --rounds 3 --skip-tuned --forms "tuned persistent" "tuned persistent, dynamic tile list" 2>&1 | tee $OUT/probe_fwd_run41.txt
timeout 60 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 --forms 2 --turns 20 --dynamic 2>&1 | tee $OUT/round_times_128c1k_dynamic.txt
