#!/bin/bash
# v0.39 call 8: forward probe run 47 -- the non-causal persistent forward claiming its tiles one at a time (the causal
# dynamic form's kernel compiled non-causal, its table the round-robin's order) against the round-robin, d=128 and
# d=256 at non-causal 1k / 2k (d=128 also 4k and 16k), d=64 1k; median of 3 rounds. Each form's error against the
# reference is printed beside its rate.
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
F=("tuned persistent" "tuned persistent, non-causal claims")
TRITON_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 --forms "${F[@]}" > $OUT/probe_fwd_run47_d128.txt 2>&1; tail -6 $OUT/probe_fwd_run47_d128.txt
TRITON_CACHE_DIR=$(mktemp -d) timeout 120 python3 benchmarks/experiments/forward_short/probe.py --head-dims 256 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 --forms "${F[@]}" > $OUT/probe_fwd_run47_d256.txt 2>&1; tail -4 $OUT/probe_fwd_run47_d256.txt
TRITON_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/experiments/forward_short/probe.py --head-dims 64 --rounds 3 --skip-tuned --points noncausal:1024 --forms "${F[@]}" > $OUT/probe_fwd_run47_d64.txt 2>&1; tail -3 $OUT/probe_fwd_run47_d64.txt
