#!/usr/bin/env bash
# v0.32 call 5: why the grid's d=128 causal 1k forward (377 TFLOP/s) is not probe run 36's (397) for the same form:
# experiments/forward_short/interleaved_forms.py, the 16-byte and 4-byte forms graphed and timed the grid's way
# (interleaved, flushed) and in do_bench blocks, beside cuDNN and the library call, in one process.
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 400 python3 benchmarks/experiments/forward_short/interleaved_forms.py --rounds 3 \
    --points 128:causal:1024 128:noncausal:1024 128:causal:2048 64:causal:1024 > "$OUT/interleaved_forms.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/interleaved_forms.txt"; cut -c1-300 "$OUT/interleaved_forms.txt" | tail -24
exit $rc
