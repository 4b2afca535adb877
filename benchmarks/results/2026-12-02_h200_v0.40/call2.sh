#!/bin/bash
# v0.40 call 2: the interleaved grids d=128 bf16 / fp16 (the tuner's near-miss second look, configs.NEAR_MISS; the fused
# backward's non-causal claims as a third d=128 candidate) and d=64 fp16 (v0.39's call10.sh, refused there), each on an
# empty tuning cache.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in d128:128:bf16 d128:128:fp16 d64:64:fp16; do
  IFS=: read name dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 170 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/${name}_$dtype" > /tmp/grid.log 2>&1 || { echo "$name $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/${name}_$dtype/bench.csv"
  [ -f "$OUT/grid/${name}_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/${name}_$dtype/bench.json" | tail -13
done
