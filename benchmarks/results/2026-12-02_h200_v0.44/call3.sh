#!/bin/bash
# v0.44 call 3: the six grids (empty tuning caches) with d=256's backward taking K and V through host descriptors
# (configs.BACKWARD_FUSED_CANDIDATES[256]: host_descriptors=2). Prediction (written before the run): d=256's backward
# +1-3% (probe run 33), so bf16 non-causal 1k 1.79 -> ~1.82x FA2 and the backward goal 60 of 60 if the d=128 points
# hold; the forward unchanged (31-33 of 60).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 256:bf16 256:fp16 128:bf16 128:fp16 64:bf16 64:fp16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
  [ -f "$OUT/grid/d${dim}_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/d${dim}_$dtype/bench.json" | tail -5
done
python3 benchmarks/cudnn_table.py $OUT/grid/*/bench.json
