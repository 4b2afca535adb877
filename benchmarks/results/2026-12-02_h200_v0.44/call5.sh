#!/bin/bash
# v0.44 call 5 (the session's last device time, ~6 minutes with the start): first probe run 34 (d=256 non-causal 1k
# and 16k, three rounds): the tuned tile (K/V host descriptors), all four through four-dimensional host descriptors
# (run 32: block loop 25% longer), and Q/dO through two-dimensional ones over their flattened rows. Prediction
# (written before the run): if the rank of the boxes is the cause, the flat form is level with the tuned tile; if
# loading through a host descriptor is, it is as slow as the four-dimensional form (-14% at 1k, -17% at 16k).
# Then the d=128 and d=64 grids on the final tuner (the second look timing every close candidate again), as far as
# the time allows.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 256 --rounds 3 --causal no --seqlens 1024 16384 --forms "tuned (v0.43), K/V host descriptors" \
    "tuned (v0.43), host descriptors" "tuned (v0.43), host descriptors, flat Q/dO" > $OUT/call5_probe_bwd_run34.txt 2>&1
echo "probe rc $?"; cat $OUT/call5_probe_bwd_run34.txt
for point in 128:bf16 128:fp16 64:bf16 64:fp16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
  [ -f "$OUT/grid/d${dim}_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/d${dim}_$dtype/bench.json" | tail -1
done
