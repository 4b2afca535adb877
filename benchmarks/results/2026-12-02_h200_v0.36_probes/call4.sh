#!/bin/bash
# v0.36 call 4: the causal lists with each head's pairs rotated (the library's since this commit) against v0.35's
# (tile_orders.unrotated_pairs): forward probe run 38, backward probe run 24 (median of 3 rounds each), then the
# forward's per-program exits with the rotated lists (round_times.py --dump).
set -x
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off TRITON_CACHE_DIR=$(mktemp -d)
timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 --points causal:1024 causal:2048 causal:4096 --rounds 3 --skip-tuned --forms "tuned persistent" "tuned persistent, unrotated pairs (v0.35 lists)" 2>&1 | tee $OUT/probe_fwd_run38.txt
timeout 220 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 128 64 --causal yes --seqlens 1024 2048 4096 --rounds 3 --forms "tuned (v0.36)" "tuned (v0.36), unrotated pairs (v0.35 lists)" 2>&1 | tee $OUT/probe_bwd_run24.txt
timeout 120 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 --forms 2 --turns 20 --dump $OUT 2>&1 | tee $OUT/round_times_128c1k_rotated.txt
timeout 60 python3 benchmarks/experiments/forward_short/round_times.py --points 64:causal:1024 --forms 1 --turns 20 --dump $OUT 2>&1 | tee $OUT/round_times_64c1k_rotated.txt
