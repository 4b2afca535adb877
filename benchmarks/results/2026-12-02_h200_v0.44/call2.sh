#!/bin/bash
# v0.44 call 2. Call 1: with Q, K, V and dO through host descriptors a program's K/V landed 1.7 µs sooner, but its
# block loop ran 25% longer (44.9 -> 56.4 µs at non-causal 1k) and the backward lost 8-17% everywhere. Here K and V
# only through host descriptors (host_descriptors=2; Q/dO as before): its check path, its per-program timestamps and
# probe run 33 (the three forms and cuDNN alternating, five rounds). Prediction: entry to K/V landed ~1.4 µs, K/V to
# the first S^T ~1.5-2 µs, the block loop unchanged (~45 µs); non-causal 1k +2-3%, causal 1k +3-4%, 16k level.
# If the loop slows with K/V alone, the loss is not in the Q/dO loads.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --paths "role split at d=256, K/V host descriptors" > $OUT/call2_check.txt 2>&1
echo "check rc $?"; grep -c PASS $OUT/call2_check.txt; grep -E "FAIL|ERROR|Traceback" $OUT/call2_check.txt | head -5
FLASHIO_TUNING_CACHE=off FLASHIO_LAUNCH_PLANS=0 timeout 120 python3 \
    benchmarks/experiments/fused_backward_d256/program_starts.py --points 256:noncausal:1024 256:causal:1024 \
    --host-descriptors 2 > $OUT/call2_program_starts.txt 2>&1
echo "program_starts rc $?"; cat $OUT/call2_program_starts.txt
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 256 --rounds 5 --seqlens 1024 2048 16384 --forms "tuned (v0.43)" \
    "tuned (v0.43), K/V host descriptors" "tuned (v0.43), host descriptors" > $OUT/call2_probe_bwd_run33.txt 2>&1
echo "probe rc $?"; cat $OUT/call2_probe_bwd_run33.txt
