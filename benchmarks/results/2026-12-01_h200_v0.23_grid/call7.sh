#!/usr/bin/env bash
# v0.23 device call 7: the grid, non-causal half, d=64 and d=128, both dtypes, timed call by call (the
# split tail changes non-causal backward calls only; causal rows keep v0.20's, same kernels), then the check's
# default cases with the new candidates (tuned choices, no forced paths) while the time lasts.
export PYTHONPATH=src
for d in 64 128; do for t in bf16 fp16; do
  timeout 170 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 --head-dims $d --dtypes $t --causal no \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing interleaved --out "$OUT/g" >> "$OUT/grid.log" 2>&1
  echo "bench d=$d $t rc $?" >> "$OUT/grid.log"
  mv "$OUT/g/bench.json" "$OUT/d${d}_${t}_il.json"; rm -rf "$OUT/g"
done; done
grep "rc " "$OUT/grid.log"
timeout 150 python3 -m flashio.check --skip-timing --skip-paths --case-timeout 100 > "$OUT/check_run32_default.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run32_default.txt"
grep -c PASS "$OUT/check_run32_default.txt"; grep -v PASS "$OUT/check_run32_default.txt" | tail -8
