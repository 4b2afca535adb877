#!/usr/bin/env bash
# v0.27 device call 1: the fp16 d=64 causal 1k sustained forward that gave 0.77x cuDNN in v0.26, traced (three
# repeats of the bench's sustained sweep at that point, each timed run's ms per call, SM clock and power beside),
# then the d=64 fp16 1k-2k sustained columns re-timed for a second sample.
export PYTHONPATH=src
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
timeout 240 python3 benchmarks/experiments/sustained_trace/trace_point.py --point 64:fp16:causal:1024 \
    > "$OUT/trace_d64_fp16_causal_1k.txt" 2>&1
echo "trace rc $?" >> "$OUT/trace_d64_fp16_causal_1k.txt"
cat "$OUT/trace_d64_fp16_causal_1k.txt" | cut -c1-400
timeout 200 python3 -m flashio.cli bench --seqlens 1024 2048 --head-dims 64 --dtypes fp16 \
    --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d64_fp16" > /tmp/b.log 2>&1
echo "bench rc $?" >> /tmp/b.log
rm -f "$OUT/d64_fp16/bench.csv"; cp /tmp/b.log "$OUT/sustained_d64_fp16_1k2k.log"
grep -E "^\| (flashio|sdpa_cudnn) " /tmp/b.log | cut -c1-110; tail -1 /tmp/b.log
