#!/bin/bash
# v0.39 call 4: forward probe run 45's other points (d=128 4k and 8k; d=64 1k and 16k; d=256 1k, 2k and 16k), then
# v0.37's call8_prepared.sh (d=256's dynamic forward: its check path, then probe run 44).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 --rounds 3 --skip-tuned --points noncausal:4096 noncausal:8192 --forms "tuned persistent" "tuned persistent, split tail" > $OUT/probe_fwd_run45b_d128.txt 2>&1; tail -4 $OUT/probe_fwd_run45b_d128.txt
TRITON_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/experiments/forward_short/probe.py --head-dims 64 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:16384 --forms "tuned persistent" "tuned persistent, split tail" > $OUT/probe_fwd_run45b_d64.txt 2>&1; tail -4 $OUT/probe_fwd_run45b_d64.txt
TRITON_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/experiments/forward_short/probe.py --head-dims 256 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 --forms "tuned persistent" "tuned persistent, split tail" > $OUT/probe_fwd_run45b_d256.txt 2>&1; tail -5 $OUT/probe_fwd_run45b_d256.txt
bash benchmarks/results/2026-12-02_h200_v0.37/call8_prepared.sh
