#!/bin/bash
# v0.45 call 6: a second sample of the final table on the same code (a fresh machine, empty tuning caches): the d=128
# and d=256 grids, bf16 and fp16, as in call 3 (d=64 left out: the device time left). Prediction in PERFORMANCE.md
# v0.45, written before the run.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 128:bf16 128:fp16 256:bf16 256:fp16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 110 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
done
python3 benchmarks/cudnn_table.py $OUT/grid/*/bench.json | tail -7
