#!/usr/bin/env bash
# v0.29 device call 1: runs of a head (head_run). The two forward check paths with runs of two units, then
# forward probe run 31 at d=128: the tuned persistent form, the same reading the round-robin from a list
# (control), runs of 2 and 4, and the Triton persistent form (the tuned d=128 causal 1k choice) with and
# without runs of two pairs.
export PYTHONPATH=src
timeout 220 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 45 \
    --paths "forward: Gluon, persistent, tuned options, runs of two units of a head" \
    "forward: warp-specialised, persistent grid, balanced schedule, runs of two units of a head" \
    > "$OUT/check_runs_forward.txt" 2>&1
rc=$?; echo "rc $rc" >> "$OUT/check_runs_forward.txt"
grep -c PASS "$OUT/check_runs_forward.txt"; tail -3 "$OUT/check_runs_forward.txt" | cut -c1-200
[ $rc -ne 0 ] && exit 1
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 \
    causal:2048 noncausal:16384 --forms "tuned persistent" "tuned persistent, listed round-robin (control)" \
    "tuned persistent, runs of 2" "tuned persistent, runs of 4" "Triton ws persistent, balanced" \
    "Triton ws persistent, balanced, runs of 2" > "$OUT/probe_fwd_run31.txt" 2>&1
echo "rc $?" >> "$OUT/probe_fwd_run31.txt"
cut -c1-300 "$OUT/probe_fwd_run31.txt"
