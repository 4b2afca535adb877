#!/usr/bin/env bash
# v0.29 device call 5 (prepared; no device was lent when it was written, so it has not run): first-call latency with
# empty caches, alternating v0.28 (.scratch/base/src, carried; make it with
# `mkdir -p .scratch/base && git archive 30e5e64 src | tar -x -C .scratch/base`), this tree (the backward's compiles
# in one batch), this tree with launch_plans.BUILD_LAUNCHERS_AHEAD (first_call.py --build-launchers-ahead: the
# launchers built on the compile pool) and with launch_plans.COMPILE_BACKWARD_WITH_FORWARD (--backward-with-forward:
# the backward's candidates compiled in the forward's batch, bound to meta placeholders). first_call.py from this
# tree in all: it keeps torch's first gradient-given backward out of the timing. bf16 d=64 causal 1k twice, d=128
# non-causal 4k once. Then the GPU check's default cases with both switches on.
run() {  # label, source tree, first_call args
  local label=$1 tree=$2; shift 2
  echo "== $label: $*" >> "$OUT/first_call.txt"
  PYTHONPATH=$tree TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 90 \
      python3 benchmarks/first_call.py "$@" >> "$OUT/first_call.txt" 2>&1
  echo "rc $?" >> "$OUT/first_call.txt"
  echo "== $label: $*"; grep -E "^d=|first call:|^rc" "$OUT/first_call.txt" | tail -3 | cut -c1-260
}
variants() {  # first_call args
  run "v0.28" .scratch/base/src "$@"
  run "one backward batch" src "$@"
  run "one backward batch, launchers ahead" src "$@" --build-launchers-ahead
  run "one backward batch, backward with forward" src "$@" --backward-with-forward
}
for round in 1 2; do variants --head-dim 64 --seqlen 1024 --causal; done
variants --head-dim 128 --seqlen 4096
# The compile pool's size: the forward's batch of 8 jobs took 6.7-9.1 s in call 3 for ~2.7 s of compiling each (the
# same kernels compile in ~1.3 s each on a 2-core CPU, and 2 threads there overlap them 1.9x): 4 and 16 threads
# against the default 8, d=64 causal 1k.
for threads in 4 16; do
  echo "== FLASHIO_COMPILE_THREADS=$threads" >> "$OUT/first_call.txt"
  export FLASHIO_COMPILE_THREADS=$threads
  run "one backward batch, $threads compile threads" src --head-dim 64 --seqlen 1024 --causal
done
unset FLASHIO_COMPILE_THREADS
start=$(date +%s)
PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -c "
import sys
from flashio import check, launch_plans
launch_plans.BUILD_LAUNCHERS_AHEAD = launch_plans.COMPILE_BACKWARD_WITH_FORWARD = True
sys.exit(check.main(['--skip-timing', '--skip-paths', '--case-timeout', '100']))" > "$OUT/check_default.txt" 2>&1
echo "check rc $? in $(( $(date +%s) - start )) s" >> "$OUT/check_default.txt"
grep -c PASS "$OUT/check_default.txt"; grep -E "FAIL|HANG|rc" "$OUT/check_default.txt" | cut -c1-200 | tail -8
