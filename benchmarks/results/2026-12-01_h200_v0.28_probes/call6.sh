#!/usr/bin/env bash
# v0.28 device call 6: the forced check path of the prefetching warp, then forward probe run 29: the tuned persistent
# forms against the same with a warp of their own prefetching the next tile's Q and first K/V blocks into the L2.
export PYTHONPATH=src
timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 \
    --paths "forward: Gluon, persistent, prefetching warp" > "$OUT/check_run43_prefetching_warp.txt" 2>&1
echo "rc $?" >> "$OUT/check_run43_prefetching_warp.txt"
tail -3 "$OUT/check_run43_prefetching_warp.txt" | cut -c1-200
grep -q "FAIL\|Timeout\|timed out" "$OUT/check_run43_prefetching_warp.txt" && exit 1
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 256 64 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 \
    causal:2048 noncausal:16384 --forms "tuned persistent" "tuned persistent, prefetching warp" \
    > "$OUT/probe_fwd_run29.txt" 2>&1
echo "rc $?" >> "$OUT/probe_fwd_run29.txt"
cut -c1-250 "$OUT/probe_fwd_run29.txt"
