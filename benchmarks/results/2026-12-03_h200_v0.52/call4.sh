#!/bin/bash
# v0.52 call 4 (call 2's probe, deferred): the forced check path of d=64's ninth candidate (four consumers, masks by
# branch), then probe run 63 (bf16, median of 3 rounds): the eighth and ninth candidates, and the two-consumer sixth
# with and without 64-key blocks, at the causal points and non-causal 1k; then a first call at d=64 causal 1k and
# non-causal 4k with empty caches (nine d=64 forward candidates now; v0.48's seven: 11.3 s at non-causal 4k).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-head-dims 64 --paths "forward: Gluon, persistent, four consumers, 64-key blocks, masks by branch" \
    --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
P="benchmarks/experiments/forward_short/probe.py"
FLASHIO_TUNING_CACHE=off timeout 300 python3 $P --head-dims 64 --rounds 3 --skip-tuned \
    --points causal:1024 causal:2048 causal:4096 causal:8192 causal:16384 noncausal:1024 \
    --forms "d=64 four consumers" "d=64 four consumers, masks by branch" "d=64 sixth (two consumers) (v0.51)" \
            "d=64 sixth (two consumers), 64-key blocks" > $OUT/probe63.txt 2>&1
echo "probe rc $? at ${SECONDS}s"
for args in "--seqlen 1024 --causal" "--seqlen 4096"; do
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 120 python3 benchmarks/first_call.py \
      --head-dim 64 $args >> $OUT/first_call.txt 2>&1
  echo "first call $args rc $? at ${SECONDS}s"
done
grep -iE "first call|forward|compiled|timed" $OUT/first_call.txt | head -16
grep "^|" $OUT/probe63.txt
