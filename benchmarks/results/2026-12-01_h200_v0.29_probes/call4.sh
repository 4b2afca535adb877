#!/usr/bin/env bash
# v0.29 device call 4: where a first call's time goes besides its compile batches (call 3: d=128 non-causal 4k
# backward 6.2 s with a 1.9 s batch, forward 8.6 s with a 6.5 s batch): first_call.py --profile (cProfile of the
# calling thread), empty caches, bf16 d=128 non-causal 4k and d=64 causal 1k.
export PYTHONPATH=src
for args in "--head-dim 128 --seqlen 4096" "--head-dim 64 --seqlen 1024 --causal"; do
  out="$OUT/first_call_profile_$(echo $args | tr -d ' -').txt"
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 benchmarks/first_call.py \
      $args --profile 60 > "$out" 2>&1
  echo "rc $?" >> "$out"
  grep -E "^d=|first call:|^rc" "$out" | cut -c1-300
  grep -E "cumtime|\{|\(" "$out" | head -62 | cut -c1-160
done
