#!/usr/bin/env bash
# v0.28 device call 4: the same with the K/V prefetch issued by one program per head and the Q prefetch from one lane (run 28): the tuned
# persistent forms against the same with the next work unit's first K/V blocks (and Q rows) prefetched into the L2.
export PYTHONPATH=src
timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases \
    --paths "forward: Gluon, persistent, next Q, K/V prefetched into the L2" > "$OUT/check_run42_prefetch.txt" 2>&1
echo "rc $?" >> "$OUT/check_run42_prefetch.txt"
tail -4 "$OUT/check_run42_prefetch.txt"
FLASHIO_TUNING_CACHE=off timeout 380 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 256 64 --rounds 2 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 \
    causal:2048 noncausal:16384 --forms "tuned persistent" "tuned persistent, Q prefetched (one issue)" "tuned persistent, K/V prefetched" \
    "tuned persistent, Q, K/V prefetched" > "$OUT/probe_fwd_run28.txt" 2>&1
echo "rc $?" >> "$OUT/probe_fwd_run28.txt"
cat "$OUT/probe_fwd_run28.txt" | cut -c1-250
