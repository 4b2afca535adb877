#!/bin/bash
# v0.42 call 3: the interleaved grids with queries_first in both d=128 persistent fused-backward candidates: d=128, then
# d=256 and d=64 (unchanged kernels), bf16 and fp16, each on an empty tuning cache, so that the table's 60 points come
# from one session.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 128:bf16 128:fp16 256:bf16 256:fp16 64:bf16 64:fp16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
  [ -f "$OUT/grid/d${dim}_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/d${dim}_$dtype/bench.json" | tail -5
done
