#!/bin/bash
# v0.39 call 10 (the session's last device seconds): d=64's interleaved grid in fp16 on an empty tuning cache.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
    --head-dims 64 --dtypes fp16 --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
    --timing interleaved --out "$OUT/grid/d64_fp16" > /tmp/grid.log 2>&1 || { echo "stopped"; tail -3 /tmp/grid.log; }
rm -f "$OUT/grid/d64_fp16/bench.csv"
[ -f "$OUT/grid/d64_fp16/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/d64_fp16/bench.json" | tail -13
