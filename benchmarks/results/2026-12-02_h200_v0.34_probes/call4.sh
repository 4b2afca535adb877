#!/usr/bin/env bash
# v0.34 device call 4: the interleaved grid at d=256, bf16 and fp16, with this tree (f560095: LSE/D rows one block
# ahead in the role-split backward; the two-slot tile not a candidate since v0.33), flashio against SDPA's FA2 and
# cuDNN, N = 1k-16k, causal and not, forward and backward, each (d, dtype) on an empty tuning cache. The table:
# python3 benchmarks/cudnn_table.py grid/*/bench.json.
set -u
export PYTHONPATH=src
for point in "256 bf16" "256 fp16"; do
  set -- $point
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 230 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $1 --dtypes $2 --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d$1_$2" > /tmp/grid.txt 2>&1 || { tail -20 /tmp/grid.txt; exit 1; }
  python3 benchmarks/cudnn_table.py "$OUT/grid/d$1_$2/bench.json" | tail -6
done
