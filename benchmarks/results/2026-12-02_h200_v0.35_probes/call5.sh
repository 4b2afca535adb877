#!/usr/bin/env bash
# Prepared in v0.34, not run (no device time left). Call 5 put the autograd call's forward kernel at 170-171 µs after
# itself, 177-181 after cuDNN's forward and 183-185 after FA2's (d=128 bf16 causal 1k, a 256 MB flush between calls).
# Which state survives the flush: the kernel's code or its data? "same code" = the autograd call on other inputs (the
# same kernel binary), "same data" = the autograd call with the other mask on the same inputs (another binary).
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/call_gap.py \
    --points 128:causal:1024 --only-autograd --also FA2 --same-code --same-data --shuffled --passes 150 \
    > "$OUT/call_gap_same_code_data.txt" 2>&1
rc=$?
echo "rc $rc" >> "$OUT/call_gap_same_code_data.txt"; grep "not profiled\|^rc\|Error\|by the call before" "$OUT/call_gap_same_code_data.txt" | cut -c1-600
exit $rc
