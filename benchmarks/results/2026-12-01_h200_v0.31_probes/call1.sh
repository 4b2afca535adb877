#!/usr/bin/env bash
# v0.31 device call 1. (a) Does the first call's compile batch scale with workers on the 16-core host, and do
# processes beat threads (Python's interpreter lock)? compile_cost.py, sm_90a compiles of a first call's kernels,
# empty Triton cache each run. (b) The tuner's second look (configs.SLOW_WINDOW): tuner_listed.py with the
# cross-head lists that gave 1.4-2.5x slow first timings in 3 of 4 processes in v0.30 -- does the second timing
# come back fast (a window) or slow again (the process)? (c) first_call.py with the library's defaults.
set -u
export PYTHONPATH=src
cc() {  # compile_cost args
  TRITON_CACHE_DIR=$(mktemp -d) timeout 120 python3 benchmarks/compile_cost.py "$@" > /tmp/cc.txt 2>&1
  local rc=$?
  { echo "== compile_cost $*"; cat /tmp/cc.txt; echo "rc $rc"; } >> "$OUT/compile_cost.txt"
  echo "== $*: $(grep -E 'wall' /tmp/cc.txt | tr '\n' ' ')"
  [ $rc -eq 0 ] || exit $rc
}
cc 64 --causal --threads 1
for n in 4 8 16; do cc 64 --causal --threads $n; done
for n in 8 16; do cc 64 --causal --processes $n; done
cc 128 --threads 8
cc 128 --processes 8
for i in 1 2 3; do
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 \
      python3 benchmarks/experiments/forward_short/tuner_listed.py --dtype fp16 --cross-head 2>&1 \
      | cut -c1-900 | tee -a "$OUT/tuner_listed_second_look.txt"
  [ ${PIPESTATUS[0]} -eq 0 ] || exit 1
done
for args in "--head-dim 128 --seqlen 4096" "--head-dim 64 --seqlen 1024 --causal"; do
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 90 python3 benchmarks/first_call.py $args \
      >> "$OUT/first_call_defaults.txt" 2>&1 || { tail -20 "$OUT/first_call_defaults.txt"; exit 1; }
done
grep -E "^d=|first call:" "$OUT/first_call_defaults.txt" | cut -c1-260
