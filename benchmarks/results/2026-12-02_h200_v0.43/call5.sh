#!/bin/bash
# v0.43 call 5 (prepared; no device time was left): first the d=256 grids (bf16, fp16) on the tuner that times the
# fastest again beside any second look (configs._second_look), then d=256's role-split backward per program
# (fused_backward_d256/program_starts.py: warpgroup A's timestamps and multiprocessor) at non-causal 1k and 4k.
# Last, how long the tuner's warm-up must be (experiments/tuner/warmup_length.py).
# Predictions: the grids' d=256 non-causal 2k-8k forwards take the persistent form in both dtypes (fp16 2k 0.99 ->
# 1.03-1.05x cuDNN), the rest within the calls' spread; program_starts.py's docstring has its own.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 256:bf16 256:fp16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
  [ -f "$OUT/grid/d${dim}_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/d${dim}_$dtype/bench.json" | tail -5
done
python3 benchmarks/tuner_warmup.py $OUT/grid/*/bench.json | grep "| 256 |"
FLASHIO_TUNING_CACHE=off FLASHIO_LAUNCH_PLANS=0 timeout 150 python3 benchmarks/experiments/fused_backward_d256/program_starts.py \
    --points 256:noncausal:1024 256:noncausal:4096 > $OUT/call5_program_starts.txt 2>&1
echo "program_starts rc $?"; cat $OUT/call5_program_starts.txt | tail -20
# The tuner's warm-up length (experiments/tuner/warmup_length.py; prediction in its docstring): one point's forward
# tuned 4 times per warm-up (0, 250, 1000 ms), 3 s of idle GPU before each.
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/tuner/warmup_length.py \
    --points 256:noncausal:2048 128:noncausal:4096 --warmups 0 250 1000 --rounds 4 > $OUT/call5_warmup_length.txt 2>&1
echo "warmup_length rc $?"; cat $OUT/call5_warmup_length.txt | tail -12
