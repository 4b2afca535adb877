#!/bin/bash
# v0.44 call 1: d=256's role-split backward with Q, K, V and dO through descriptors made on the host
# (TileConfig.host_descriptors). First its check path, then per-program timestamps of both forms
# (fused_backward_d256/program_starts.py), then the whole backward of both forms and cuDNN, alternating, five rounds
# (fused_backward_persistent/probe.py run 32). Prediction (PERFORMANCE.md v0.44, written before the run): entry to
# K/V landed 3.0 -> 1.5-2.0 µs, K/V to the first S^T 1.2 -> ~0.8 µs; non-causal 1k +3-4% (359 -> 370-373 TFLOP/s),
# causal 1k +2-3%, 2k ~+1%, 16k level.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --paths "role split at d=256, host descriptors" > $OUT/call1_check.txt 2>&1
echo "check rc $?"; grep -c PASS $OUT/call1_check.txt; grep -E "FAIL|ERROR|Traceback" $OUT/call1_check.txt | head -5
for form in "" "--host-descriptors"; do
  FLASHIO_TUNING_CACHE=off FLASHIO_LAUNCH_PLANS=0 timeout 150 python3 \
      benchmarks/experiments/fused_backward_d256/program_starts.py --points 256:noncausal:1024 256:causal:1024 $form
  echo "program_starts $form rc $?"
done > $OUT/call1_program_starts.txt 2>&1
cat $OUT/call1_program_starts.txt
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 256 --rounds 5 --seqlens 1024 2048 16384 \
    --forms "tuned (v0.43)" "tuned (v0.43), host descriptors" > $OUT/call1_probe_bwd_run32.txt 2>&1
echo "probe rc $?"; cat $OUT/call1_probe_bwd_run32.txt | tail -12
