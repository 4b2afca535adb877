#!/usr/bin/env bash
# v0.24 device call 9: the Q hand-back after the last score product, from a peeled last step (forward probe run 23;
# prediction in the probe's docstring). The check path of the form first.
export PYTHONPATH=src
timeout 100 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 \
    --paths "forward: Gluon, persistent, half diagonal block, Q handed back early" > "$OUT/check_run37_early_q_peeled.txt" 2>&1
rc=$?
echo "check rc $rc" >> "$OUT/check_run37_early_q_peeled.txt"
grep -c PASS "$OUT/check_run37_early_q_peeled.txt"; grep -v PASS "$OUT/check_run37_early_q_peeled.txt" | tail -6
if grep -q FAIL "$OUT/check_run37_early_q_peeled.txt"; then echo "check failed; probe skipped"; exit 0; fi
FLASHIO_TUNING_CACHE=off timeout 110 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 --rounds 3 \
    --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
    --forms "tuned persistent" "Gluon persistent, Q handed back early, half diagonal, balanced" \
    > "$OUT/probe_fwd_run23_d128.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run23_d128.txt"; tail -9 "$OUT/probe_fwd_run23_d128.txt"
