#!/usr/bin/env bash
# v0.27 device call 7: second sustained samples of the fp16 grids that had one (v0.25): d=128 and d=256 1k-16k, and
# d=64 4k-16k (its 1k-2k have three), each on an empty Triton cache for its head dim (the session's last ~450 s).
export PYTHONPATH=src
bench() {  # d, limit, seqlens...
  local d=$1 limit=$2; shift 2
  local start; start=$(date +%s)
  timeout "$limit" python3 -m flashio.cli bench --seqlens "$@" --head-dims $d --dtypes fp16 \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d${d}_fp16" > /tmp/b.log 2>&1
  echo "bench rc $? in $(( $(date +%s) - start )) s" >> /tmp/b.log
  rm -f "$OUT/d${d}_fp16/bench.csv"; cp /tmp/b.log "$OUT/sustained_d${d}_fp16.log"
  grep -E "^\| (flashio|sdpa_cudnn) " /tmp/b.log | cut -c1-25,60-118; tail -1 /tmp/b.log
}
bench 128 160 1024 2048 4096 8192 16384
bench 256 140 1024 2048 4096 8192 16384
bench 64 90 4096 8192 16384
