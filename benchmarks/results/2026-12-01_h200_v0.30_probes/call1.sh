#!/usr/bin/env bash
# v0.30 device call 1: v0.29's call 5 again for this tree only (its first run, call 0 here, measured v0.28 and then
# failed at every run of this tree: first_call.py's compile-batch timer took no `more=` argument; fixed). First-call
# latency with empty caches: this tree (the backward's compiles in one batch), with
# launch_plans.BUILD_LAUNCHERS_AHEAD (--build-launchers-ahead) and with launch_plans.COMPILE_BACKWARD_WITH_FORWARD
# (--backward-with-forward), and with both; bf16 d=64 causal 1k twice, d=128 non-causal 4k once; then the compile
# pool at 4 and 16 threads against the default 8 (d=64 causal 1k).
set -u
run() {  # label, first_call args
  local label=$1; shift
  local log; log=$(mktemp)
  PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 90 \
      python3 benchmarks/first_call.py "$@" > "$log" 2>&1
  local rc=$?
  { echo "== $label: $*"; cat "$log"; echo "rc $rc"; } >> "$OUT/first_call.txt"
  echo "== $label: $*"; grep -E "^d=|first call:" "$log" | cut -c1-240; echo "rc $rc"
  [ $rc -eq 0 ] || exit $rc
}
variants() {  # first_call args
  run "one backward batch" "$@"
  run "launchers ahead" "$@" --build-launchers-ahead
  run "backward with forward" "$@" --backward-with-forward
  run "both" "$@" --build-launchers-ahead --backward-with-forward
}
for round in 1 2; do variants --head-dim 64 --seqlen 1024 --causal; done
variants --head-dim 128 --seqlen 4096
for threads in 4 16; do
  FLASHIO_COMPILE_THREADS=$threads run "$threads compile threads" --head-dim 64 --seqlen 1024 --causal
done
