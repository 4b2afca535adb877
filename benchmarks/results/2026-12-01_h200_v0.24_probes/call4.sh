#!/usr/bin/env bash
# v0.24 device call 4: the L2 prefetch of the next tile's Q (q_prefetch) as the TMA unit's bulk prefetch (call 3 measured per-line prefetch.global.L2: slower). Its forced check path (the grid-shaped
# cases included), then forward probe run 22 at d=128 (prediction in the probe's docstring), then d=256.
export PYTHONPATH=src
timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 120 \
    --paths "forward: Gluon, persistent, next Q prefetched into the L2" > "$OUT/check_run36_q_bulk_prefetch.txt" 2>&1
rc=$?
echo "check rc $rc" >> "$OUT/check_run36_q_bulk_prefetch.txt"
grep -c PASS "$OUT/check_run36_q_bulk_prefetch.txt"; grep -v PASS "$OUT/check_run36_q_bulk_prefetch.txt" | tail -8
if [ $rc -ne 0 ] || grep -q FAIL "$OUT/check_run36_q_bulk_prefetch.txt"; then echo "check did not pass; probe skipped"; exit 0; fi
P=benchmarks/experiments/forward_short/probe.py
FLASHIO_TUNING_CACHE=off timeout 200 python3 $P --head-dims 128 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
    --forms "tuned persistent" "tuned persistent, Q prefetched" > "$OUT/probe_fwd_run22_d128.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run22_d128.txt"; tail -9 "$OUT/probe_fwd_run22_d128.txt"
FLASHIO_TUNING_CACHE=off timeout 120 python3 $P --head-dims 256 --rounds 3 --skip-tuned \
    --points noncausal:1024 causal:1024 noncausal:2048 \
    --forms "tuned persistent" "tuned persistent, Q prefetched" > "$OUT/probe_fwd_run22_d256.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run22_d256.txt"; tail -6 "$OUT/probe_fwd_run22_d256.txt"
