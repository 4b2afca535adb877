#!/usr/bin/env bash
# v0.28 device call 1. (a) First-call latency with empty caches, then a same-bucket length, a length that is not
# a multiple of 16 (and another such length), first_call.py at bf16 d=128 non-causal 4k and d=64 causal 1k.
# (b) A bench's first point after a fresh cache: the sustained bf16 d=128 non-causal grid at 1k, 1k, 2k (the 1k
# point timed twice in one run), twice, each on an empty Triton cache and no tuning file.
export PYTHONPATH=src
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader > "$OUT/gpu.txt"
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.backends.cudnn.version())" >> "$OUT/gpu.txt"
for args in "--head-dim 128 --seqlen 4096" "--head-dim 64 --seqlen 1024 --causal"; do
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 120 python3 benchmarks/first_call.py $args \
      >> "$OUT/first_call.txt" 2>&1
  echo "rc $?" >> "$OUT/first_call.txt"
done
grep -E "^d=|compiled for|^rc" "$OUT/first_call.txt" | cut -c1-600
for run in 1 2; do
  start=$(date +%s)
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.cli bench \
      --seqlens 1024 1024 2048 --head-dims 128 --dtypes bf16 --causal no \
      --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out /tmp/bench$run > /tmp/b$run.log 2>&1
  echo "bench rc $? in $(( $(date +%s) - start )) s" >> /tmp/b$run.log
  cp /tmp/b$run.log "$OUT/sustained_first_point_run$run.log"; cp /tmp/bench$run/*.json "$OUT/sustained_first_point_run$run.json"
  grep -E "^\| (flashio|sdpa_cudnn) " /tmp/b$run.log | cut -c1-140; tail -1 /tmp/b$run.log
done
