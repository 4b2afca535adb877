#!/bin/bash
# v0.42 call 6: does the tuner's timer rank close forward forms as the bench's turn does? d=128 bf16 non-causal 4k
# (d=256 non-causal 2k left out: the device time left), the Gluon candidates 0-2 as calls of their own beside the library call, cuDNN and FA2
# (call_gap.py --tuner-timer: 5 rounds of the tuner's do_bench per form, then 60 shuffled passes of the bench's turn).
# First the check paths of queries_first again, on the final loader code (a dead branch removed after call 3).
set -u
export PYTHONPATH=$(pwd)/src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 110 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "queries first at d=128" > $OUT/call6_check_queries_first.txt 2>&1
echo "check rc $?: $(grep -cE '^  PASS' $OUT/call6_check_queries_first.txt) PASS"
grep -E "FAIL|HANG|Traceback|Error" $OUT/call6_check_queries_first.txt | cut -c1-300
cd benchmarks/experiments/forward_short
FLASHIO_TUNING_CACHE=off timeout 100 python3 call_gap.py --points 128:noncausal:4096 --only-autograd --also cuDNN FA2 --forward-forms 0 1 2 --tuner-timer 5 --only-timers --passes 60 > $OUT/call6_timers.txt 2>&1
echo "rc $?"; grep -E "^timers|^form|^tuned" $OUT/call6_timers.txt; tail -3 $OUT/call6_timers.txt
