#!/usr/bin/env bash
# v0.23 device call 2: the sustained forward+backward step at d=64 fp16 16k non-causal (drift, both passes, and
# the step's kernel trace), then the forced paths not yet run at the grid's shape.
export PYTHONPATH=src
A="--seqlen 16384 --head-dim 64 --dtype fp16"
timeout 150 python3 benchmarks/experiments/forward_short/drift.py --seconds 2 --rounds 2 --pass forward+backward $A > "$OUT/drift_step_d64_fp16_16k.txt" 2>&1
echo "drift step rc $?" >> "$OUT/drift_step_d64_fp16_16k.txt"
timeout 100 python3 benchmarks/experiments/forward_short/drift.py --seconds 2 --rounds 2 --pass forward $A > "$OUT/drift_fwd_d64_fp16_16k.txt" 2>&1
echo "drift fwd rc $?" >> "$OUT/drift_fwd_d64_fp16_16k.txt"
timeout 90 python3 benchmarks/step_trace.py --head-dim 64 --seqlen 16384 --no-causal --dtype fp16 > "$OUT/step_trace_d64_fp16_16k.txt" 2>&1
echo "trace rc $?" >> "$OUT/step_trace_d64_fp16_16k.txt"
tail -8 "$OUT/drift_step_d64_fp16_16k.txt" "$OUT/drift_fwd_d64_fp16_16k.txt"; tail -30 "$OUT/step_trace_d64_fp16_16k.txt"
timeout 220 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 150 \
    --paths "half diagonal block" "backward: two-pass" > "$OUT/check_run30_rest.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run30_rest.txt"
grep -c PASS "$OUT/check_run30_rest.txt"; grep -v PASS "$OUT/check_run30_rest.txt" | tail -12
