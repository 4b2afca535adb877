#!/usr/bin/env bash
# v0.33 device call 9: calls 7-8 found the autograd call's kernel slower only with FA2 in the turn, with no device
# allocation and one output address per call. In the turn (autograd, no grad, cuDNN, FA2, rotated by one each pass)
# the autograd call follows FA2 in three passes of four. The same with the detached call first (it then follows FA2),
# and again in the first order; the output addresses printed.
set -u
export PYTHONPATH=src
for first in "--no-grad-first" ""; do
  FLASHIO_TUNING_CACHE=off timeout 120 python3 benchmarks/experiments/forward_short/call_gap.py \
      --points 128:causal:1024 --also cuDNN FA2 --passes 100 $first > "$OUT/call_gap_order${first:+_no_grad_first}.txt" 2>&1
  rc=$?
  echo "rc $rc" >> "$OUT/call_gap_order${first:+_no_grad_first}.txt"
  grep "not profiled\|^rc\|Error\|allocations" "$OUT/call_gap_order${first:+_no_grad_first}.txt" | cut -c1-400
  [ $rc -eq 0 ] || exit $rc
done
