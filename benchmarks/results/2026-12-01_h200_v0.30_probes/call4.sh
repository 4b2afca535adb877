#!/usr/bin/env bash
# Ran on commit 0f07ff8's tree (the library's causal forward pairing across heads at N <= 1k, reverted after call 7;
# cross_head_pairs.patch) with the script as it was then (call 6-7: tuner_listed.py's --within-head switch, since
# replaced by --cross-head).
# v0.30 device call 4: the interleaved grid at d=128 and d=64 (bf16, N = 1k-16k, causal and not, forward and
# backward), flashio against SDPA's FA2 and cuDNN, with this tree (the forward's cross-head pairs at causal
# N <= 1k). The table: python3 benchmarks/cudnn_table.py grid_d*/bench.json.
set -u
export PYTHONPATH=src
for d in 128 64; do
  timeout 270 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 --head-dims $d --modes fwd bwd \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing interleaved --out "$OUT/grid_d$d" \
      > /tmp/grid_d$d.txt 2>&1 || { tail -20 /tmp/grid_d$d.txt; exit 1; }
  python3 benchmarks/cudnn_table.py "$OUT/grid_d$d/bench.json" | tail -6
done
