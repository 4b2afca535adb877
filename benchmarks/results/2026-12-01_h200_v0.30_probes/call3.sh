#!/usr/bin/env bash
# v0.30 device call 3: forward probe run 35, the library's causal lists (pairs across two heads at N <= 2k) against
# the within-head control, 9 rounds, the four points where they differ (run 34's same-list spread at 4k was 2-3%,
# as large as the effect); then first_call.py with the library's defaults (both first-call switches on), d=128
# non-causal 4k and d=64 causal 1k.
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 240 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 64 --rounds 9 --skip-tuned --points causal:1024 causal:2048 \
    --forms "tuned persistent" "tuned persistent, within-head pairs" > "$OUT/probe_fwd_run35.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/probe_fwd_run35.txt"; cut -c1-300 "$OUT/probe_fwd_run35.txt" | tail -7
[ $rc -eq 0 ] || exit $rc
for args in "--head-dim 128 --seqlen 4096" "--head-dim 64 --seqlen 1024 --causal"; do
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 90 python3 benchmarks/first_call.py $args \
      >> "$OUT/first_call_defaults.txt" 2>&1 || { tail -20 "$OUT/first_call_defaults.txt"; exit 1; }
done
grep -E "^d=|first call:" "$OUT/first_call_defaults.txt" | cut -c1-260
