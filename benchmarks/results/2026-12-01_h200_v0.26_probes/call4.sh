#!/usr/bin/env bash
# v0.26 device call 4: the sustained 1k and 2k columns of the other (d, dtype) grids re-timed (call 3 re-timed
# d=256 bf16: non-causal 1k 0.90x cuDNN in v0.25, 1.02x now), for a second sample of every short-sequence point
# of the v0.25 sustained table, where its lowest ratios are.
export PYTHONPATH=src
for combo in 64:bf16 64:fp16 128:bf16 128:fp16 256:fp16; do
  d=${combo%%:*}; dtype=${combo##*:}
  timeout 110 python3 -m flashio.cli bench --seqlens 1024 2048 --head-dims $d --dtypes $dtype \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d${d}_$dtype" \
      > "$OUT/d${d}_${dtype}_sustained.log" 2>&1
  echo "bench rc $?" >> "$OUT/d${d}_${dtype}_sustained.log"
  rm -f "$OUT/d${d}_$dtype/bench.csv"
  grep -E "^\| (flashio|sdpa_cudnn) " "$OUT/d${d}_${dtype}_sustained.log" | cut -c1-100; tail -1 "$OUT/d${d}_${dtype}_sustained.log"
done
