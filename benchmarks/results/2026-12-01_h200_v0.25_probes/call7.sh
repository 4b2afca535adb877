#!/usr/bin/env bash
# v0.25 device call 7: forward probe run 25, the tuned persistent forms with ping-pong turns (prediction in the
# probe's docstring). The session's last 257 device seconds: no check path first; the probe's O difference
# to the analytic-default forward (itself checked) is the only check of the form.
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 170 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 \
    --rounds 2 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
    --forms "tuned persistent" "tuned persistent, ping-pong" > "$OUT/probe_fwd_run25.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run25.txt"; tail -14 "$OUT/probe_fwd_run25.txt"
