#!/bin/bash
# v0.46 call 1: the persistent forward with host-made descriptors. Its two check paths (Q; Q, K and V) on every path
# case and the (B, N, H, D) cases, then forward probe run 51 at d=128 (prediction in forward_short/probe.py's
# docstring, written before the run).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 \
    --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 causal:1024 causal:2048 \
    causal:16384 --forms "tuned persistent" "tuned persistent, Q host descriptor" \
    "tuned persistent, Q/K/V host descriptors" > $OUT/call1_probe_fwd_run51.txt 2>&1
echo "probe 51 rc $?"
for path in "tuned options, Q host descriptor" "tuned options, Q/K/V host descriptors"; do
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 170 python3 -m flashio.check --skip-timing --skip-default-cases \
      --case-timeout 60 --paths "$path" > "$OUT/call1_check_${path//[^a-zA-Z]/_}.txt" 2>&1
  echo "check [$path] rc $?"; grep -c PASS "$OUT/call1_check_${path//[^a-zA-Z]/_}.txt"
  grep -E "FAIL|ERROR|HANG|Traceback" "$OUT/call1_check_${path//[^a-zA-Z]/_}.txt" | head -5
done
cat $OUT/call1_probe_fwd_run51.txt | tail -8
