#!/usr/bin/env bash
# v0.24 device call 6: the sustained d=64 fp16 non-causal 8k/16k backward with each fused-backward candidate
# forced (call 5's sweep: 0.86 / 0.92x cuDNN; call 2 alone: 1.04 / 1.01x, the tuner choosing the other form).
export PYTHONPATH=src
timeout 400 python3 benchmarks/experiments/fused_backward_persistent/sustained_forms.py > "$OUT/sustained_forms.txt" 2>&1
echo "rc $?" >> "$OUT/sustained_forms.txt"; tail -14 "$OUT/sustained_forms.txt"
