#!/usr/bin/env bash
# v0.21 device call 3: the check with the grid-shaped causal 1k cases on the alternating backward (which probe
# run 8 found wrong at d=64) and on the tuned kernels; then the forward+backward clock drift.
export PYTHONPATH=src
timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases --paths "query blocks alternating between" \
  > "$OUT/check_run22_alternating.txt" 2>&1; echo "check rc $?" >> "$OUT/check_run22_alternating.txt"
grep -c PASS "$OUT/check_run22_alternating.txt"; grep -v PASS "$OUT/check_run22_alternating.txt" | tail -8
timeout 200 python3 -m flashio.check --skip-timing --skip-paths > "$OUT/check_run23_default.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run23_default.txt"
grep -c PASS "$OUT/check_run23_default.txt"; grep -v PASS "$OUT/check_run23_default.txt" | tail -6
timeout 190 python3 benchmarks/experiments/forward_short/drift.py --seconds 2 --rounds 2 --pass forward+backward \
  --causal > "$OUT/drift_fwd_bwd_causal.txt" 2>&1; echo "drift rc $?" >> "$OUT/drift_fwd_bwd_causal.txt"
grep -v "^[0-9]" "$OUT/drift_fwd_bwd_causal.txt" | head -30
