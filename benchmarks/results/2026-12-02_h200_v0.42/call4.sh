#!/bin/bash
# v0.42 call 4: a second sample of the d=128 grids (bf16, fp16) and of d=256 bf16 (its non-causal 1k backward at
# 1.78x FA2 in call 3), same code as call 3, each on an empty tuning cache. Call 3's grids stay the table.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 128:bf16 128:fp16 256:bf16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/repeat/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/repeat/d${dim}_$dtype/bench.csv"
  [ -f "$OUT/repeat/d${dim}_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/repeat/d${dim}_$dtype/bench.json" | tail -5
done
