#!/usr/bin/env bash
# Ran on commit 0f07ff8's tree (the library's causal forward pairing across heads at N <= 1k, reverted after call 7;
# cross_head_pairs.patch) with the script as it was then (call 6-7: tuner_listed.py's --within-head switch, since
# replaced by --cross-head).
# v0.30 device call 5: the rest of the interleaved grid (call 4 had d=128 and d=64 bf16): d=256 bf16, and fp16 at
# d=64, 128, 256. The table: python3 benchmarks/cudnn_table.py */bench.json.
set -u
export PYTHONPATH=src
for point in "256 bf16" "64 fp16" "128 fp16" "256 fp16"; do
  set -- $point
  timeout 130 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 --head-dims $1 --dtypes $2 \
      --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing interleaved \
      --out "$OUT/d$1_$2" > /tmp/grid.txt 2>&1 || { tail -20 /tmp/grid.txt; exit 1; }
  python3 benchmarks/cudnn_table.py "$OUT/d$1_$2/bench.json" | tail -6
done
