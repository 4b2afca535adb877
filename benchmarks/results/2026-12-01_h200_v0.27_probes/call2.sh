#!/usr/bin/env bash
# v0.27 device call 2: first-call latency at bf16 d=128 non-causal 4k, each run with an empty Triton cache and no tuning
# file. Variants: "all, serial" = FLASHIO_TUNE_ALL=1 FLASHIO_COMPILE_THREADS=1 (what a first call did before
# v0.27), "pruned, serial" = FLASHIO_COMPILE_THREADS=1, "pruned, concurrent" = the default, "all, concurrent"
# = FLASHIO_TUNE_ALL=1.
export PYTHONPATH=src
run() {  # label, timeout, env..., -- first_call args
  local label=$1 limit=$2; shift 2
  local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local cache; cache=$(mktemp -d); local tuning; tuning=$(mktemp -d)
  echo "== $label: $*" >> "$OUT/first_call.txt"
  env "${envs[@]}" TRITON_CACHE_DIR="$cache" FLASHIO_TUNING_CACHE="$tuning" timeout "$limit" \
      python3 benchmarks/first_call.py "$@" >> "$OUT/first_call.txt" 2>&1
  echo "rc $?" >> "$OUT/first_call.txt"
  echo "== $label: $*"; grep -E "^d=|^rc" "$OUT/first_call.txt" | tail -2 | cut -c1-330
}
nproc > "$OUT/host.txt"
run "pruned, concurrent" 100 X=1 -- --head-dim 128 --seqlen 4096
run "pruned, serial" 140 FLASHIO_COMPILE_THREADS=1 -- --head-dim 128 --seqlen 4096
run "all, concurrent" 120 FLASHIO_TUNE_ALL=1 -- --head-dim 128 --seqlen 4096
run "all, serial" 200 FLASHIO_TUNE_ALL=1 FLASHIO_COMPILE_THREADS=1 -- --head-dim 128 --seqlen 4096
