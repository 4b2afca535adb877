#!/bin/bash
# v0.37 call 3: same-session controls for the grid. d=128 bf16 with the static causal lists (v0.35's form; call 1 ran
# the dynamic one), d=64 bf16 and fp16 with the dynamic list (its library form is static), each on an empty tuning
# cache; then the persistent fused backward's program ends (v0.36 call9_prepared.sh, first run).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
R=benchmarks/results/2026-12-02_h200_v0.37
run() {  # name dynamic-flags dim dtype
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 $R/bench_with_lists.py --dynamic $2 -- --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $3 --dtypes $4 --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/$1" > $OUT/grid_$1.log 2>&1 || tail -5 $OUT/grid_$1.log
  python3 benchmarks/cudnn_table.py "$OUT/grid/$1/bench.json" | tail -14
}
run d128_bf16_static 128=0 128 bf16
run d64_bf16_dynamic 64=1 64 bf16
run d64_fp16_dynamic 64=1 64 fp16
FLASHIO_TUNING_CACHE=off FLASHIO_LAUNCH_PLANS=0 timeout 200 python3 benchmarks/experiments/fused_backward_persistent/program_ends.py --points 128:causal:1024 128:causal:2048 64:causal:1024 --launches 20 > $OUT/program_ends_backward.txt 2>&1; tail -60 $OUT/program_ends_backward.txt
