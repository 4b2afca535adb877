#!/usr/bin/env bash
# v0.32 device call 4: the interleaved grid with this tree (the 16-byte output stores tuned: d=64 and d=128
# persistent forms, d=64's register-capped form storing from registers), flashio against SDPA's FA2 and cuDNN, N = 1k-16k, causal and not, forward and backward, one
# run per (d, dtype). The table: python3 benchmarks/cudnn_table.py grid/*.json.
set -u
export PYTHONPATH=src
for point in "64 fp16" "256 bf16" "256 fp16"; do
  set -- $point
  timeout 180 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 --head-dims $1 --dtypes $2 \
      --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing interleaved \
      --out "$OUT/d$1_$2" > /tmp/grid.txt 2>&1 || { tail -20 /tmp/grid.txt; exit 1; }
  python3 benchmarks/cudnn_table.py "$OUT/d$1_$2/bench.json" | tail -6
done
