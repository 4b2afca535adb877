#!/usr/bin/env bash
# v0.24 device call 5: PERFORMANCE.md "Next" 2, second half -- the v0.21 sustained d=64 fp16 grid again, same
# command and sweep order (call 2 timed its 8k-16k non-causal points alone: backward 1.01-1.04x cuDNN, where
# v0.21's sweep gave 0.86-0.90x).
export PYTHONPATH=src
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv > "$OUT/gpu_call5.txt"
timeout 450 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 --head-dims 64 --dtypes fp16 \
    --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d64_fp16" \
    > "$OUT/d64_fp16_sustained.log" 2>&1
echo "bench rc $?" >> "$OUT/d64_fp16_sustained.log"
nvidia-smi --query-gpu=temperature.gpu,clocks.sm,power.draw --format=csv >> "$OUT/gpu_call5.txt"
rm -f "$OUT/d64_fp16/bench.csv"; tail -35 "$OUT/d64_fp16_sustained.log"
