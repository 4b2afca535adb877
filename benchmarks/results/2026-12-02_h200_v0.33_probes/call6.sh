#!/usr/bin/env bash
# v0.33 device call 6: call 5 (call_gap.py) found the two calls level when they alone take turns; again with cuDNN as a
# third call in turn (as in call 4), each also timed without the profiler. Run with the script as it was then, its
# option --with-cudnn since replaced by --also cuDNN (the command below).
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/call_gap.py \
    --points 128:causal:1024 --also cuDNN > "$OUT/call_gap.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/call_gap.txt"; cut -c1-300 "$OUT/call_gap.txt" | tail -14
exit $rc
