#!/usr/bin/env bash
# v0.29 device call 3: first-call latency with empty caches, the tree before this change (.scratch/base/src, carried:
# one compile batch per tuned kernel) against the tree with the backward's compiles in one batch, alternating, at
# bf16 d=64 causal 1k (twice) and d=128 non-causal 4k; then the GPU check's default correctness cases on the new
# tree (every tuned choice made on empty caches, so every first backward takes the new path).
run() {  # label, source tree, first_call args
  local label=$1 tree=$2; shift 2
  echo "== $label: $*" >> "$OUT/first_call.txt"
  PYTHONPATH=$tree TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 90 \
      python3 benchmarks/first_call.py "$@" >> "$OUT/first_call.txt" 2>&1
  echo "rc $?" >> "$OUT/first_call.txt"
  echo "== $label: $*"; grep -E "^d=|first call:|^rc" "$OUT/first_call.txt" | tail -3 | cut -c1-330
}
for round in 1 2; do
  run "before (one batch per tuned kernel)" .scratch/base/src --head-dim 64 --seqlen 1024 --causal
  run "after (one backward batch)" src --head-dim 64 --seqlen 1024 --causal
done
run "before (one batch per tuned kernel)" .scratch/base/src --head-dim 128 --seqlen 4096
run "after (one backward batch)" src --head-dim 128 --seqlen 4096
start=$(date +%s)
PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 220 python3 -m flashio.check \
    --skip-timing --skip-paths --case-timeout 100 > "$OUT/check_default.txt" 2>&1
echo "check rc $? in $(( $(date +%s) - start )) s" >> "$OUT/check_default.txt"
grep -c PASS "$OUT/check_default.txt"; grep -E "FAIL|HANG|rc" "$OUT/check_default.txt" | cut -c1-200 | tail -8
