#!/bin/bash
# v0.41 call 6: the interleaved grids of d=64 (bf16, fp16) with two K/V slots in both d=64 fused-backward candidates,
# each on an empty tuning cache.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for dtype in bf16 fp16; do
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 250 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims 64 --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d64_$dtype" > /tmp/grid.log 2>&1 || { echo "d64 $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d64_$dtype/bench.csv"
  [ -f "$OUT/grid/d64_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/d64_$dtype/bench.json" | tail -14
done
