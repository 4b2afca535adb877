#!/usr/bin/env bash
# v0.26 device call 6: a second sustained sample of the fp16 1k points of d=128 and d=64 (v0.25: forward 0.94 / 0.90
# at d=128 non-causal / causal, 0.96 / 0.89 at d=64), the session's last ~400 device seconds.
export PYTHONPATH=src
for d in 128 64; do
  timeout 150 python3 -m flashio.cli bench --seqlens 1024 --head-dims $d --dtypes fp16 \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d${d}_fp16" \
      > /tmp/d${d}.log 2>&1
  echo "bench rc $?" >> /tmp/d${d}.log
  rm -f "$OUT/d${d}_fp16/bench.csv"
  (echo "== d=$d fp16"; cat /tmp/d${d}.log) >> "$OUT/sustained_1k_fp16.log"
  grep -E "^\| (flashio|sdpa_cudnn) " /tmp/d${d}.log | cut -c1-100; tail -1 /tmp/d${d}.log
done
