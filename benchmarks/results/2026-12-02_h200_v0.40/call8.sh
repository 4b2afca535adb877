#!/bin/bash
# v0.40 call 8: where the backward's GPU time outside its kernels goes (call 7): step_trace.py --hold, each step queued
# behind a ~2 ms GPU sleep, its operations in order with the GPU's gaps between them; bf16, flashio and cuDNN.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in "128 1024 --no-causal" "64 1024 --no-causal"; do
  set -- $point
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 benchmarks/step_trace.py --head-dim $1 --seqlen $2 ${3:-} \
      --hold --systems flashio cuDNN 2>&1 | grep -v -i "warn" | tee -a $OUT/step_trace_hold.txt
done
