#!/usr/bin/env bash
# v0.33 device call 4 (v0.32's prepared call6.sh): v0.32 call 5 found the library call 4% below its own graphed kernel at d=128 causal 1k when interleaved
# (374 against 391 TFLOP/s), level in do_bench blocks. interleaved_forms.py --call-forms: the public API on detached
# inputs and the launcher beside them, and each callable's host time to enqueue a call.
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/forward_short/interleaved_forms.py --rounds 3 \
    --call-forms --points 128:causal:1024 128:noncausal:1024 \
    > "$OUT/interleaved_call_forms.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/interleaved_call_forms.txt"; cut -c1-300 "$OUT/interleaved_call_forms.txt" | tail -24
exit $rc
