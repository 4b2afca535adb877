#!/usr/bin/env bash
# v0.27 device call 3: first-call latency at bf16 d=64 causal 1k and d=256 causal 2k (new default against what a
# first call did before v0.27: FLASHIO_TUNE_ALL=1 FLASHIO_COMPILE_THREADS=1), each with an empty Triton cache and
# no tuning file; then the GPU check's default correctness cases (every tuned choice made with the pruned lists
# and concurrent compiles, empty caches again).
export PYTHONPATH=src
run() {  # label, timeout, env..., -- first_call args
  local label=$1 limit=$2; shift 2
  local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local cache; cache=$(mktemp -d); local tuning; tuning=$(mktemp -d)
  echo "== $label: $*" >> "$OUT/first_call.txt"
  env "${envs[@]}" TRITON_CACHE_DIR="$cache" FLASHIO_TUNING_CACHE="$tuning" timeout "$limit" \
      python3 benchmarks/first_call.py "$@" >> "$OUT/first_call.txt" 2>&1
  echo "rc $?" >> "$OUT/first_call.txt"
  echo "== $label: $*"; grep -E "^d=|^rc" "$OUT/first_call.txt" | tail -2 | cut -c1-360
}
run "pruned, concurrent" 60 X=1 -- --head-dim 64 --seqlen 1024 --causal
run "all, serial" 110 FLASHIO_TUNE_ALL=1 FLASHIO_COMPILE_THREADS=1 -- --head-dim 64 --seqlen 1024 --causal
run "pruned, concurrent" 60 X=1 -- --head-dim 256 --seqlen 2048 --causal
run "all, serial" 130 FLASHIO_TUNE_ALL=1 FLASHIO_COMPILE_THREADS=1 -- --head-dim 256 --seqlen 2048 --causal
start=$(date +%s)
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing \
    --skip-paths --case-timeout 100 > "$OUT/check_default.txt" 2>&1
echo "check rc $? in $(( $(date +%s) - start )) s" >> "$OUT/check_default.txt"
grep -E "PASS|FAIL|rc" "$OUT/check_default.txt" | cut -c1-150 | tail -40
