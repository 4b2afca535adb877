#!/usr/bin/env bash
# v0.22 device call 4: the fused-backward forced paths with the grid-shaped cases (call 3 ran out of time
# before the backward paths), then the sustained long-sequence backward's clock drift (Next item 5).
export PYTHONPATH=src
timeout 360 python3 -m flashio.check --skip-timing --skip-default-cases --paths "backward: fused five-product" \
  > "$OUT/check_run26_fused_backward.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run26_fused_backward.txt"
grep -c PASS "$OUT/check_run26_fused_backward.txt"; grep -v PASS "$OUT/check_run26_fused_backward.txt" | tail -25
timeout 170 python3 benchmarks/experiments/forward_short/drift.py --seconds 2 --rounds 2 --pass backward \
  --seqlen 16384 --head-dim 64 --dtype fp16 > "$OUT/drift_bwd_d64_fp16_16k.txt" 2>&1
echo "drift rc $?" >> "$OUT/drift_bwd_d64_fp16_16k.txt"
tail -25 "$OUT/drift_bwd_d64_fp16_16k.txt"
