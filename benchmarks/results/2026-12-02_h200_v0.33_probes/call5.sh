#!/usr/bin/env bash
# v0.33 device call 5: call 4 put the autograd call 5% below the detached call at d=128 causal 1k under interleaved
# timing (372 / 392 TFLOP/s; the launcher 396, the graphed kernel 394). call_gap.py: the kernels' GPU time inside each
# call's events (torch.profiler), any extra kernels, and the same with a spin kernel keeping the GPU busy ahead.
# (Run with the script's first form, which had no unprofiled rows.)
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/call_gap.py \
    --points 128:causal:1024 128:noncausal:1024 > "$OUT/call_gap.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/call_gap.txt"; cut -c1-300 "$OUT/call_gap.txt" | tail -14
exit $rc
