#!/usr/bin/env bash
# v0.26 device call 2: forward probe run 26, K's ring shallower than V's (k_stages=2, three V slots), at d=128 also
# with two Q sets; d=256 with the same ring. Prediction in the probe's docstring. Check path first.
export PYTHONPATH=src
timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 \
    --paths "forward: Gluon, persistent, two K slots, three V slots" > "$OUT/check_run40_k2v3.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run40_k2v3.txt"; grep -c PASS "$OUT/check_run40_k2v3.txt"; grep -v PASS "$OUT/check_run40_k2v3.txt" | tail -5
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 \
    --rounds 2 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
    --forms "tuned persistent" "tuned persistent, K2/V3" "tuned persistent, K2/V3, two Q sets" \
    > "$OUT/probe_fwd_run26_d128.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run26_d128.txt"; tail -8 "$OUT/probe_fwd_run26_d128.txt"
FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/forward_short/probe.py --head-dims 256 \
    --rounds 2 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
    --forms "tuned persistent" "tuned persistent, K2/V3" > "$OUT/probe_fwd_run26_d256.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run26_d256.txt"; tail -8 "$OUT/probe_fwd_run26_d256.txt"
