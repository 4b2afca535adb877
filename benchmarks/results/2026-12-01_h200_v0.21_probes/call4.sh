#!/usr/bin/env bash
# v0.21 device call 4: host (Python) time per call, before any change (v0.21 "API-layer overhead").
export PYTHONPATH=src
timeout 200 python3 benchmarks/host_breakdown.py > "$OUT/host_breakdown_before.txt" 2>&1
echo "rc $?" >> "$OUT/host_breakdown_before.txt"; cat "$OUT/host_breakdown_before.txt" | tail -30
timeout 200 python3 benchmarks/host_overhead.py backward > "$OUT/host_overhead_backward_before.txt" 2>&1
echo "rc $?" >> "$OUT/host_overhead_backward_before.txt"; head -30 "$OUT/host_overhead_backward_before.txt"
