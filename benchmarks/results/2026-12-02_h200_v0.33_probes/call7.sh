#!/usr/bin/env bash
# v0.33 device call 7: call 6 (call_gap.py --also cuDNN) measured the autograd call at 393 TFLOP/s beside cuDNN's 441
# at d=128 causal 1k bf16, 1% behind the detached call, but the grid (flashio, FA2 and cuDNN in turn) 378 beside 439.
# The same with FA2 in the turn as well, and with FA2 alone beside the two calls.
set -u
export PYTHONPATH=src
for also in "cuDNN FA2" "FA2"; do
  FLASHIO_TUNING_CACHE=off timeout 120 python3 benchmarks/experiments/forward_short/call_gap.py \
      --points 128:causal:1024 --also $also > "$OUT/call_gap_${also// /_}.txt" 2>&1
  rc=$?
  echo "rc $rc" >> "$OUT/call_gap_${also// /_}.txt"; grep "not profiled\|^rc\|Error" "$OUT/call_gap_${also// /_}.txt" | cut -c1-200
  [ $rc -eq 0 ] || exit $rc
done
