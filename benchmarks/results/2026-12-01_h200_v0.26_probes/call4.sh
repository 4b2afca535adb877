#!/usr/bin/env bash
# v0.26 device call 4: the sustained 1k and 2k columns of the other (d, dtype) grids re-timed (call 3 re-timed
# d=256 bf16: non-causal 1k 0.90x cuDNN in v0.25, 1.02x now), for a second sample of every short-sequence point
# of the v0.25 sustained table, where its lowest ratios are. (Logs concatenated into one file: at most 8 files
# come back from a call.)
export PYTHONPATH=src
for combo in 64:bf16 64:fp16 128:bf16 128:fp16 256:fp16; do
  d=${combo%%:*}; dtype=${combo##*:}
  timeout 110 python3 -m flashio.cli bench --seqlens 1024 2048 --head-dims $d --dtypes $dtype \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d${d}_$dtype" \
      > /tmp/d${d}_${dtype}.log 2>&1
  echo "bench rc $?" >> /tmp/d${d}_${dtype}.log
  rm -f "$OUT/d${d}_$dtype/bench.csv"
  (echo "== d=$d $dtype"; cat /tmp/d${d}_${dtype}.log) >> "$OUT/sustained_1k2k.log"
  grep -E "^\| (flashio|sdpa_cudnn) " /tmp/d${d}_${dtype}.log | cut -c1-100; tail -1 /tmp/d${d}_${dtype}.log
done
