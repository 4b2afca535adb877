#!/bin/bash
# v0.48 call 2: d=64's tuned host-descriptor forward with three consumer warpgroups (192-row tiles): its check path,
# then probe run 53 against the two-consumer form (prediction in PERFORMANCE.md v0.48, before the run).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --case-head-dims 64 \
    --paths "forward: Gluon, persistent, three consumers, tuned host-descriptor options" > "$OUT/check_three.txt" 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check_three.txt) FAIL $(grep -c FAIL $OUT/check_three.txt)"
grep -E "FAIL|ERROR|HANG|Traceback|Error" "$OUT/check_three.txt" | head -5
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py --head-dims 64 --rounds 3 \
    --skip-tuned --points noncausal:1024 noncausal:4096 noncausal:16384 causal:1024 causal:4096 causal:16384 \
    --forms "d=64 host descriptors" "d=64 three consumers, host descriptors" > $OUT/probe_run53.txt 2>&1
echo "probe rc $?"; tail -12 $OUT/probe_run53.txt
# The tuner's captures without torch.cuda.graph's synchronise and empty_cache (after v0.47): d=256 non-causal 4k first
# call, as v0.47 call 1 (7.41 s without replays, 7.67 s with them through torch.cuda.graph).
for replays in 0 1; do
  echo "== replays=$replays d=256 non-causal 4k"
  FLASHIO_TUNE_REPLAYS=$replays TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d)/tuning.json \
      timeout 60 python3 benchmarks/first_call.py --head-dim 256 --seqlen 4096 2>&1 | tail -25
done > $OUT/first_call.txt 2>&1
grep -E "^==|first call|compiled" $OUT/first_call.txt | cut -c1-250 | head -8
