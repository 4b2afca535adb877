#!/usr/bin/env bash
# v0.27 device call 6: the bf16 d=64 and d=256 sustained grids (1k-16k, causal and not), each on an empty Triton
# cache for its head dim (pruned lists, concurrent compiles): a fresh bench's wall time, and second samples of
# v0.25's rows.
export PYTHONPATH=src
for d in 64 256; do
  start=$(date +%s)
  timeout 270 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 --head-dims $d --dtypes bf16 \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d${d}_bf16" > /tmp/b.log 2>&1
  echo "bench rc $? in $(( $(date +%s) - start )) s" >> /tmp/b.log
  rm -f "$OUT/d${d}_bf16/bench.csv"; cp /tmp/b.log "$OUT/sustained_d${d}_bf16.log"
  grep -E "^\| (flashio|sdpa_cudnn) " /tmp/b.log | cut -c1-25,60-118; tail -1 /tmp/b.log
done
