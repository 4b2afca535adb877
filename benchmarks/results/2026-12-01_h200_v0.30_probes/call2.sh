#!/usr/bin/env bash
# v0.30 device call 2: the forward's causal pairs across two heads at N <= 2k (schedules.CROSS_HEAD_PAIRS_MAX_BLOCKS).
# 1. The GPU check's default cases (among them the new "d128 causal 1k, 3x5 heads": 15 head batches, the last one's
#    pairs within itself) and the forced paths whose forward takes a balanced list. Any failure stops the call.
# 2. Forward probe run 34: the library's lists ("tuned persistent": across heads up to 16 blocks a head) against
#    the within-head control and cross-head pairs at any length, d=128 and d=64, causal 1k/2k/4k, 5 rounds.
# 3. The interleaved grid's causal points at 1k-4k, d=64 and d=128, flashio against SDPA's FA2 and cuDNN.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 330 python3 -m flashio.check --skip-timing \
    --case-timeout 100 --paths "forward: Gluon, persistent, half diagonal block, balanced" \
    "forward: warp-specialised, persistent grid, balanced" \
    > "$OUT/check.txt" 2>&1
rc=$?
echo "check rc $rc"; grep -c PASS "$OUT/check.txt"; grep -E "FAIL|HANG|Traceback" "$OUT/check.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 64 --rounds 5 --skip-tuned --points causal:1024 causal:2048 causal:4096 \
    --forms "tuned persistent" "tuned persistent, within-head pairs" "tuned persistent, cross-head pairs" \
    > "$OUT/probe_fwd_run34.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/probe_fwd_run34.txt"; cut -c1-300 "$OUT/probe_fwd_run34.txt" | tail -9
[ $rc -eq 0 ] || exit $rc
for d in 128 64; do
  timeout 200 python3 -m flashio.cli bench --seqlens 1024 2048 4096 --head-dims $d --causal yes --modes fwd \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing interleaved --out "$OUT/grid_d$d" \
      > /tmp/grid_d$d.txt 2>&1 || { tail -20 /tmp/grid_d$d.txt; exit 1; }
  tail -12 /tmp/grid_d$d.txt
done
