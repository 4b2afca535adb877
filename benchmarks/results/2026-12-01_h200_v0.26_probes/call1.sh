#!/usr/bin/env bash
# v0.26 device call 1: forward probe run 25, the tuned persistent forms with ping-pong turns between their two
# consumers (prediction in the probe's docstring: -5% to +3%, a gain if any at N <= 2k), after the form's check path.
export PYTHONPATH=src
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.backends.cudnn.version())" >> "$OUT/gpu.txt" 2>&1
timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 \
    --paths "forward: Gluon, persistent, tuned options, ping-pong" > "$OUT/check_run39_pingpong.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run39_pingpong.txt"; tail -5 "$OUT/check_run39_pingpong.txt"
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 \
    --rounds 2 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
    --forms "tuned persistent" "tuned persistent, ping-pong" > "$OUT/probe_fwd_run25.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run25.txt"; tail -16 "$OUT/probe_fwd_run25.txt"
