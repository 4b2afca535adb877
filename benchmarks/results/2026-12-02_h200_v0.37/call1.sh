#!/bin/bash
# v0.37 call 1: the dynamic tile list's check path (d=64's fixed id slots, 2 x Q_BUFFERS, run for the first time), then
# the interleaved d=128 grid in both dtypes on empty tuning caches (v0.36 call10_prepared.sh).
set -u
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 --paths "forward: Gluon, persistent, dynamic tile list" 2>&1 | tail -25 > $OUT/check_dynamic.txt
grep -cE "^  PASS" $OUT/check_dynamic.txt; grep -E "FAIL|HANG|Traceback" $OUT/check_dynamic.txt | cut -c1-200
export TRITON_CACHE_DIR=$(mktemp -d)
for dtype in bf16 fp16; do
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 170 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims 128 --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d128_$dtype" > $OUT/grid_d128_$dtype.log 2>&1 || { tail -5 $OUT/grid_d128_$dtype.log; }
  python3 benchmarks/cudnn_table.py "$OUT/grid/d128_$dtype/bench.json" | tail -14
done
