#!/usr/bin/env bash
# v0.25 device call 1: conditional rescaling in the persistent Gluon forward (lazy_rescale). The forced check path
# first (numerics on the kernel itself, including the key_spikes cases), then forward probe run 24 (prediction in
# the probe's docstring and PERFORMANCE.md v0.24 "Next" item 1).
export PYTHONPATH=src
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt" 2>&1
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.backends.cudnn.version())" >> "$OUT/gpu.txt" 2>&1
timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 \
    --paths "forward: Gluon, persistent, conditional rescaling" > "$OUT/check_run38_conditional_rescaling.txt" 2>&1
rc=$?
echo "check rc $rc" >> "$OUT/check_run38_conditional_rescaling.txt"
grep -c PASS "$OUT/check_run38_conditional_rescaling.txt"; grep -v PASS "$OUT/check_run38_conditional_rescaling.txt" | tail -8
if grep -q FAIL "$OUT/check_run38_conditional_rescaling.txt"; then echo "check failed; probe skipped"; exit 0; fi
FLASHIO_TUNING_CACHE=off timeout 330 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 --rounds 3 \
    --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
    --forms "tuned persistent" "tuned persistent, conditional rescaling" \
    > "$OUT/probe_fwd_run24.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run24.txt"; tail -16 "$OUT/probe_fwd_run24.txt"
