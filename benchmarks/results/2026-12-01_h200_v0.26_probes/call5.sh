#!/usr/bin/env bash
# v0.26 device call 5 (call 4's five runs each hit their 110 s limit while compiling on the fresh machine): the
# sustained 1k points of d=128 bf16 and d=64 bf16 only, on the machine call 4 warmed.
export PYTHONPATH=src
for combo in 128:200 64:170; do
  d=${combo%%:*}; limit=${combo##*:}
  timeout $limit python3 -m flashio.cli bench --seqlens 1024 --head-dims $d --dtypes bf16 \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d${d}_bf16" \
      > /tmp/d${d}.log 2>&1
  echo "bench rc $?" >> /tmp/d${d}.log
  rm -f "$OUT/d${d}_bf16/bench.csv"
  (echo "== d=$d bf16"; cat /tmp/d${d}.log) >> "$OUT/sustained_1k.log"
  grep -E "^\| (flashio|sdpa_cudnn) " /tmp/d${d}.log | cut -c1-100; tail -1 /tmp/d${d}.log
done
