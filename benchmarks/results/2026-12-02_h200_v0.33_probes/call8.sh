#!/usr/bin/env bash
# v0.33 device call 8: call 7 found the autograd call's kernel itself slower (180 against 172 µs of GPU time, the
# same launch) when FA2 takes turns with it. Where its output lands: cudaMalloc count and output addresses per
# call (call_gap.py prints them), with the caching allocator's default segments and with expandable segments.
set -u
export PYTHONPATH=src
for conf in "" "expandable_segments:True"; do
  PYTORCH_CUDA_ALLOC_CONF=$conf FLASHIO_TUNING_CACHE=off timeout 120 python3 \
      benchmarks/experiments/forward_short/call_gap.py --points 128:causal:1024 --also cuDNN FA2 --passes 100 \
      > "$OUT/call_gap_alloc${conf:+_expandable}.txt" 2>&1
  rc=$?
  echo "rc $rc" >> "$OUT/call_gap_alloc${conf:+_expandable}.txt"
  grep "not profiled\|^rc\|Error\|allocations" "$OUT/call_gap_alloc${conf:+_expandable}.txt" | cut -c1-400
  [ $rc -eq 0 ] || exit $rc
done
