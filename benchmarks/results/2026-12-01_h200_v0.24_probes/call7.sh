#!/usr/bin/env bash
# v0.24 device call 7: call 6 again with --trace (one form, three runs per length, each run's per-call times).
export PYTHONPATH=src
timeout 300 python3 benchmarks/experiments/fused_backward_persistent/sustained_forms.py --trace > "$OUT/sustained_trace.txt" 2>&1
echo "rc $?" >> "$OUT/sustained_trace.txt"; cut -c1-400 "$OUT/sustained_trace.txt" | tail -40
