#!/usr/bin/env bash
# v0.35 device call 6: call 5 (v0.34's call9_prepared.sh) put the d=128 causal 1k forward kernel at 171 µs after the
# same binary (on other inputs too) and at 183-186 µs after another binary (FA2's, or flashio's own non-causal kernel
# on the same inputs): the state that survives the 256 MB flush is the code's. The same split at the other forward
# points below cuDNN in the v0.35 table (d=64 causal 1k, d=128 non-causal 1k and causal 2k, d=256 causal 1k).
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 280 python3 benchmarks/experiments/forward_short/call_gap.py \
    --points 64:causal:1024 128:noncausal:1024 128:causal:2048 256:causal:1024 --only-autograd --also FA2 \
    --same-code --same-data --shuffled --passes 100 > "$OUT/call_gap_same_code_data_points.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/call_gap_same_code_data_points.txt"
grep "not profiled\|^rc\|Error\|by the call before" "$OUT/call_gap_same_code_data_points.txt" | cut -c1-900
exit $rc
