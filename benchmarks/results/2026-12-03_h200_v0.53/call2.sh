#!/bin/bash
# v0.53 call 2: (1) the d=64 non-causal 4k first call of v0.48's code (d35b149, its 11.29 s) and of this commit, twice
# each in turn, empty caches: whether v0.52's 14.48 s is the code or the machine (PERFORMANCE.md v0.52 Next item 2);
# (2) Nsight Compute's source pages of d=64's three- and four-consumer candidates at causal 2k (Next item 1, the 64-key
# step's stall reasons); (3) probe run 65: the three-consumer candidate with a fourth K/V slot.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
git log -1 --format=%h 2>/dev/null; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
HERE=$(pwd)
git worktree add -f /tmp/v48 d35b149 > /dev/null 2>&1 || echo "no worktree of d35b149"
first_call() {  # $1 tree, $2 label
    (cd $1 && TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 \
        benchmarks/first_call.py --head-dim 64 --seqlen 4096 > $OUT/first_call_$2.txt 2>&1)
    echo "first call $2 rc $? at ${SECONDS}s: $(grep -iE "first call|kernels" $OUT/first_call_$2.txt | head -3 | tr '\n' ' ' | cut -c1-240)"
}
for round in 1 2; do
    [ -d /tmp/v48 ] && first_call /tmp/v48 v048_$round
    first_call $HERE head_$round
done
source_page() {  # $1 point, $2 candidate index, $3 output name
    FLASHIO_TUNING_CACHE=off timeout 150 ncu --clock-control none --profile-from-start off \
        -k regex:attention_forward_gluon --section WarpStateStats --section SourceCounters --page source \
        --print-source sass --csv python3 benchmarks/experiments/backward_limiter/ncu_profile.py --child \
        --pass forward --forward-candidate $2 --point $1 > $OUT/$3.csv 2> $OUT/$3.err
    echo "ncu $3 rc $? at ${SECONDS}s"; gzip -f $OUT/$3.csv
    python3 benchmarks/experiments/backward_limiter/stall_sites.py $OUT/$3.csv.gz 2>&1 | head -24
}
source_page 64:causal:2048 7 ncu_d64_causal2k_four
[ $SECONDS -lt 380 ] && source_page 64:causal:2048 6 ncu_d64_causal2k_three
if [ $SECONDS -lt 470 ]; then
  FLASHIO_TUNING_CACHE=off timeout $((570 - SECONDS)) python3 benchmarks/experiments/forward_short/probe.py \
      --head-dims 64 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:4096 \
      --forms "d=64 three consumers (v0.52)" "d=64 three consumers, four stages" > $OUT/probe65.txt 2>&1
  echo "probe rc $? at ${SECONDS}s"; grep "^|" $OUT/probe65.txt
fi
