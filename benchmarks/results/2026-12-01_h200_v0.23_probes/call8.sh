#!/usr/bin/env bash
# v0.23 device call 8 (the session's last 293 s): the forward's split tail, first its forced check path (the
# grid-shaped cases), then a short probe run 20 at d=128 (one round: the time left).
export PYTHONPATH=src
timeout 125 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 \
    --paths "forward: Gluon, persistent, split tail" > "$OUT/check_run33_forward_split_tail.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run33_forward_split_tail.txt"
grep -c PASS "$OUT/check_run33_forward_split_tail.txt"; grep -v PASS "$OUT/check_run33_forward_split_tail.txt" | tail -8
FLASHIO_TUNING_CACHE=off timeout 90 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 --rounds 1 \
    --skip-tuned --points noncausal:1024 noncausal:2048 --forms "tuned persistent" "tuned persistent, split tail" \
    > "$OUT/probe_fwd_run20_short.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run20_short.txt"
tail -5 "$OUT/probe_fwd_run20_short.txt"
