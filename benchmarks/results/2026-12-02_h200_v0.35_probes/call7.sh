#!/usr/bin/env bash
# v0.35 device call 7: the cold-code penalty per forward form. Calls 5-6 found the d=128 causal 1k forward's kernel 7.5%
# slower after another binary than after its own. Here each of d=128's four Gluon candidates is a call of its own (the
# tuned choice overridden, replayed from a CUDA graph), beside the autograd call and FA2's forward, shuffled: each
# form's kernel time after itself against after the others, to set beside its SASS size (compiled on the CPU).
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 280 python3 benchmarks/experiments/forward_short/call_gap.py \
    --points 128:causal:1024 --only-autograd --also FA2 --forward-forms 0 1 2 3 --shuffled --passes 150 \
    > "$OUT/call_gap_forms.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/call_gap_forms.txt"
grep "^form\|tuned choice\|not profiled\|^rc\|Error\|by the call before" "$OUT/call_gap_forms.txt" | cut -c1-1500
exit $rc
