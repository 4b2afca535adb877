#!/usr/bin/env bash
# v0.23 device call 3: forward probe run 19 at d=64, a share of the unmasked blocks' exponentials by a
# polynomial on the FMA units (TileConfig.polynomial_exp2 = k: one in k), on the two tuned d=64 Gluon forms,
# each form against itself without it, three rounds, medians.
export PYTHONPATH=src
P="tuned persistent, polynomial"; T="two programs per SM, plain loop, polynomial"
FLASHIO_TUNING_CACHE=off timeout 560 python3 benchmarks/experiments/forward_short/probe.py --head-dims 64 --rounds 3 \
    --points noncausal:1024 noncausal:4096 noncausal:16384 causal:1024 causal:4096 causal:16384 \
    --forms "$P 1/0" "$P 1/8" "$P 1/4" "$P 1/2" "$T 1/0" "$T 1/8" "$T 1/4" > "$OUT/probe_fwd_run19_d64.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run19_d64.txt"
cat "$OUT/probe_fwd_run19_d64.txt" | tail -12
