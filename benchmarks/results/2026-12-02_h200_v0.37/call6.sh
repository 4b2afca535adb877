#!/bin/bash
# v0.37 call 6: d=128's tuned fused backward with the dynamic tile list (configs.BACKWARD_FUSED_CANDIDATES[128][1]):
# the GPU check's 27 default cases on empty caches, then the interleaved d=128 grid in both dtypes, each on an empty
# tuning cache (forward as in call 1).
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-paths --case-timeout 100 > $OUT/check_default.txt 2>&1; echo "default check rc $?"
grep -cE "^  PASS" $OUT/check_default.txt; grep -E "FAIL|HANG|Traceback" $OUT/check_default.txt | cut -c1-200 | head
export TRITON_CACHE_DIR=$(mktemp -d)
for dtype in bf16 fp16; do
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims 128 --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d128_${dtype}_bwd_dynamic" > /tmp/grid_$dtype.log 2>&1 || tail -5 /tmp/grid_$dtype.log
  rm -f "$OUT/grid/d128_${dtype}_bwd_dynamic/bench.csv"
  python3 benchmarks/cudnn_table.py "$OUT/grid/d128_${dtype}_bwd_dynamic/bench.json" | tail -16
done
