#!/usr/bin/env bash
# v0.33 device call 3: the rest of call 2's interleaved grid (same command, each (d, dtype) on an empty tuning
# cache). The table: python3 benchmarks/cudnn_table.py grid/*.json.
set -u
export PYTHONPATH=src
for point in "64 fp16" "256 bf16" "256 fp16"; do
  set -- $point
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 180 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $1 --dtypes $2 --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/d$1_$2" > /tmp/grid.txt 2>&1 || { tail -20 /tmp/grid.txt; exit 1; }
  python3 benchmarks/cudnn_table.py "$OUT/d$1_$2/bench.json" | tail -6
done
