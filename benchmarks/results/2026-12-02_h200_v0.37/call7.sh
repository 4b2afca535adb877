#!/bin/bash
# v0.37 call 7: the interleaved d=64 and d=256 grids (bf16, fp16), each on an empty tuning cache, so that the issue's
# table comes from one session (d=128: call 6). No d=64 or d=256 kernel changed since v0.33 / v0.34.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in d64:64:bf16 d64:64:fp16 d256:256:bf16 d256:256:fp16; do
  IFS=: read name dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 95 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/${name}_$dtype" > /tmp/grid.log 2>&1 || { echo "$name $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/${name}_$dtype/bench.csv"
  [ -f "$OUT/grid/${name}_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/${name}_$dtype/bench.json" | tail -1
done
