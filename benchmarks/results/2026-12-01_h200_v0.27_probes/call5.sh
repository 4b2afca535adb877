#!/usr/bin/env bash
# v0.27 device call 5: the lowest sustained point, the d=128 non-causal 1k forward (0.83x cuDNN in call 4's grid,
# 0.89 in v0.25 and v0.26), traced three times in bf16 and in fp16 (trace_point.py: the bench's sustained sweep at
# the point, each run's ms per call, SM clock and power), on the caches call 4 left.
export PYTHONPATH=src
for point in 128:bf16:noncausal:1024 128:fp16:noncausal:1024; do
  timeout 200 python3 benchmarks/experiments/sustained_trace/trace_point.py --point $point \
      > "$OUT/trace_${point//:/_}.txt" 2>&1
  echo "trace rc $?" >> "$OUT/trace_${point//:/_}.txt"
  grep -E "^\| [0-9]|rc" "$OUT/trace_${point//:/_}.txt"
done
