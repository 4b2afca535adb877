#!/usr/bin/env bash
# v0.25 device call 4: v0.17's sustained d=64 bf16 grid again, now with the 1 s warm-up
# (sweep.SUSTAINED_WARMUP_MS = 1000, the default since v0.24), so that README's sustained ranges come from one method.
export PYTHONPATH=src
for dtype in bf16; do
  timeout 400 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 --head-dims 64 --dtypes $dtype \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d64_$dtype" \
      > "$OUT/d64_${dtype}_sustained.log" 2>&1
  echo "bench rc $?" >> "$OUT/d64_${dtype}_sustained.log"
  rm -f "$OUT/d64_$dtype/bench.csv"
  grep -E "^\| (flashio|sdpa_cudnn) " "$OUT/d64_${dtype}_sustained.log" | cut -c1-120; tail -1 "$OUT/d64_${dtype}_sustained.log"
done
