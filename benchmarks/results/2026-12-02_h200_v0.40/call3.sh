#!/bin/bash
# v0.40 call 3: where a training step's GPU time goes outside the main backward kernel, flashio against cuDNN and FA2
# (benchmarks/step_trace.py, bf16, 20 steps traced after 30 warm-up steps, empty tuning cache per point): the points
# the goal misses in the backward (d=64 non-causal 1k, causal 1k / 2k against 1.8x FA2; d=128 non-causal 1k against
# cuDNN; d=256 non-causal 1k against 1.8x FA2).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in "64 1024 --no-causal" "64 1024" "64 2048" "128 1024 --no-causal" "256 1024 --no-causal"; do
  set -- $point
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 benchmarks/step_trace.py --head-dim $1 --seqlen $2 ${3:-} \
      --systems flashio cuDNN FA2 2>&1 | grep -v -i "warn" | tee -a $OUT/step_trace.txt | grep -E "^(bf16|flashio|cuDNN|FA2):"
done
