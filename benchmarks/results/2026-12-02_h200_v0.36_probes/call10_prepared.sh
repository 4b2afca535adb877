#!/bin/bash
# v0.36, prepared for the next session (not run): the interleaved d=128 grid, both dtypes, each on an empty tuning cache
# (PERFORMANCE.md "Next" item 1: d=128's causal forward with the dynamic list); v0.35 call 2's way.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for dtype in bf16 fp16; do
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 170 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims 128 --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d128_$dtype" > /tmp/grid.txt 2>&1 || { tail -5 /tmp/grid.txt; exit 1; }
  python3 benchmarks/cudnn_table.py "$OUT/grid/d128_$dtype/bench.json" | tail -6
done
