#!/usr/bin/env bash
# v0.29 device call 2: the fused backward's check path with runs of two units, backward probe run 13 at d=128
# (the tuned split-tail form against runs of 2 and 4), then forward probe run 32 at d=128 causal: the balanced
# lists with odd programs' pairs turned round (light, then heavy), a test of whether simultaneous tile starts cost.
export PYTHONPATH=src
timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 45 \
    --paths "backward: fused five-product (Gluon), split tail, runs of two units of a head" \
    > "$OUT/check_runs_backward.txt" 2>&1
rc=$?; echo "rc $rc" >> "$OUT/check_runs_backward.txt"
grep -c PASS "$OUT/check_runs_backward.txt"; tail -2 "$OUT/check_runs_backward.txt" | cut -c1-200
[ $rc -ne 0 ] && exit 1
FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 --rounds 3 --skip-tuned --points causal:1024 causal:2048 --forms "tuned persistent" \
    "tuned persistent, alternating pairs" "Triton ws persistent, balanced" \
    "Triton ws persistent, balanced, alternating pairs" > "$OUT/probe_fwd_run32.txt" 2>&1
echo "rc $?" >> "$OUT/probe_fwd_run32.txt"
cut -c1-300 "$OUT/probe_fwd_run32.txt"
FLASHIO_TUNING_CACHE=off timeout 220 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 128 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned, split tail" \
    "tuned, split tail, runs of 2" "tuned, split tail, runs of 4" > "$OUT/probe_bwd_run13.txt" 2>&1
echo "rc $?" >> "$OUT/probe_bwd_run13.txt"
cut -c1-300 "$OUT/probe_bwd_run13.txt"
