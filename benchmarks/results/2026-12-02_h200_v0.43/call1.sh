#!/bin/bash
# v0.43 call 1 (v0.42's prepared call 6, with d=256 added): the queries-first check paths on the final loader code
# (a dead branch removed after v0.42's call 3), then the tuner's timer against the bench's turn (call_gap.py
# --tuner-timer: 5 rounds of the tuner's do_bench per form, then 60 shuffled passes of the bench's turn beside cuDNN and
# FA2) at d=128 bf16 non-causal 4k and d=256 bf16 non-causal 2k, the Gluon candidates 0-2 as calls of their own.
set -u
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee $OUT/device.txt
export PYTHONPATH=$(pwd)/src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 120 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "queries first at d=128" > $OUT/call1_check_queries_first.txt 2>&1
echo "check rc $?: $(grep -cE '^  PASS' $OUT/call1_check_queries_first.txt) PASS"
grep -E "FAIL|HANG|Traceback|Error" $OUT/call1_check_queries_first.txt | cut -c1-300
cd benchmarks/experiments/forward_short
for p in 128:noncausal:4096 256:noncausal:2048; do
  FLASHIO_TUNING_CACHE=off timeout 150 python3 call_gap.py --points $p --only-autograd --also cuDNN FA2 --forward-forms 0 1 2 --tuner-timer 5 --only-timers --passes 60 > $OUT/call1_timers_${p//:/_}.txt 2>&1
  echo "$p rc $?"; grep -E "^timers|^form|^tuned" $OUT/call1_timers_${p//:/_}.txt; tail -4 $OUT/call1_timers_${p//:/_}.txt
done
