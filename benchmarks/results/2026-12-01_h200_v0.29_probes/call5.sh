#!/usr/bin/env bash
# v0.29 device call 5: first-call latency with empty caches, three trees alternating: before v0.29 (.scratch/base/src),
# the backward's compiles in one batch (.scratch/base2/src, call 3's "after"), and that plus the launchers built on the
# compile pool (src); first_call.py from src in all (it now keeps torch's first gradient-given backward out of the
# timing). bf16 d=64 causal 1k twice, d=128 non-causal 4k once. Then the GPU check's default cases on src.
run() {  # label, source tree, first_call args
  local label=$1 tree=$2; shift 2
  echo "== $label: $*" >> "$OUT/first_call.txt"
  PYTHONPATH=$tree TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 90 \
      python3 benchmarks/first_call.py "$@" >> "$OUT/first_call.txt" 2>&1
  echo "rc $?" >> "$OUT/first_call.txt"
  echo "== $label: $*"; grep -E "^d=|first call:|^rc" "$OUT/first_call.txt" | tail -3 | cut -c1-260
}
for round in 1 2; do
  run "v0.28" .scratch/base/src --head-dim 64 --seqlen 1024 --causal
  run "one backward batch" .scratch/base2/src --head-dim 64 --seqlen 1024 --causal
  run "one backward batch, launchers on the pool" src --head-dim 64 --seqlen 1024 --causal
done
run "v0.28" .scratch/base/src --head-dim 128 --seqlen 4096
run "one backward batch" .scratch/base2/src --head-dim 128 --seqlen 4096
run "one backward batch, launchers on the pool" src --head-dim 128 --seqlen 4096
start=$(date +%s)
PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check \
    --skip-timing --skip-paths --case-timeout 100 > "$OUT/check_default.txt" 2>&1
echo "check rc $? in $(( $(date +%s) - start )) s" >> "$OUT/check_default.txt"
grep -c PASS "$OUT/check_default.txt"; grep -E "FAIL|HANG|rc" "$OUT/check_default.txt" | cut -c1-200 | tail -8
