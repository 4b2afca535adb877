#!/usr/bin/env bash
# v0.34 device call 7: call 4's d=256 grid again with this tree (+ P^T in a 32-byte swizzle, probe run 21), bf16 then
# fp16 as the session's remaining device time allows; each on an empty tuning cache.
set -u
export PYTHONPATH=src
for point in "256 bf16 150" "256 fp16 120"; do
  set -- $point
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout $3 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $1 --dtypes $2 --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid_p_swizzle/d$1_$2" > /tmp/grid.txt 2>&1 || { tail -5 /tmp/grid.txt; exit 1; }
  python3 benchmarks/cudnn_table.py "$OUT/grid_p_swizzle/d$1_$2/bench.json" | tail -6
done
