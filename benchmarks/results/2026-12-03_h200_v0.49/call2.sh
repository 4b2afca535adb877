#!/bin/bash
# v0.49 call 2: the masked key blocks through the unmasked step's code (mask_by_branch): correctness (two forced check
# paths), probe run 57 (bf16, median of 3 rounds: v0.48's host-descriptor forms and d=64's three-consumer form, each
# without and with the option) and the source page of d=128's form 6 with it at causal 1k (call 1's without).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
git log -1 --format=%h 2>/dev/null
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --skip-default-cases \
    --paths "forward: Gluon, persistent, host-descriptor forms, masks by branch" \
    "forward: Gluon, persistent, three consumers, masks by branch" --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? at ${SECONDS}s"; grep -c PASS $OUT/check.txt; grep -E "FAIL|Error|error" $OUT/check.txt | head -20
P="benchmarks/experiments/forward_short/probe.py"
FLASHIO_TUNING_CACHE=off timeout 200 python3 $P --head-dims 128 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:16384 causal:1024 causal:2048 causal:4096 causal:16384 \
    --forms "host forms" "host forms, masks by branch" > $OUT/probe57.txt 2>&1
echo "probe d128 rc $? at ${SECONDS}s"
FLASHIO_TUNING_CACHE=off timeout 200 python3 $P --head-dims 64 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:16384 causal:1024 causal:2048 causal:4096 causal:16384 \
    --forms "host forms" "host forms, masks by branch" "three consumers (d=64)" \
    "three consumers (d=64), masks by branch" >> $OUT/probe57.txt 2>&1
echo "probe d64 rc $? at ${SECONDS}s"
[ $SECONDS -lt 400 ] && FLASHIO_TUNING_CACHE=off timeout 120 python3 $P --head-dims 256 --rounds 3 --skip-tuned \
    --points noncausal:1024 causal:1024 causal:4096 causal:16384 \
    --forms "host forms" "host forms, masks by branch" >> $OUT/probe57.txt 2>&1
echo "probe d256 rc $? at ${SECONDS}s"
if [ $SECONDS -lt 480 ]; then
    FLASHIO_TUNING_CACHE=off timeout 90 ncu --clock-control none --profile-from-start off \
        -k regex:attention_forward_gluon --section WarpStateStats --section SourceCounters --page source \
        --print-source sass --csv python3 benchmarks/experiments/backward_limiter/ncu_profile.py --child \
        --pass forward --forward-candidate 6 --mask-by-branch --point 128:causal:1024 \
        > $OUT/ncu_d128_causal1k_form6_branch.csv 2> $OUT/ncu.err
    echo "ncu rc $? at ${SECONDS}s"; gzip -f $OUT/ncu_d128_causal1k_form6_branch.csv
    python3 benchmarks/experiments/backward_limiter/stall_sites.py $OUT/ncu_d128_causal1k_form6_branch.csv.gz | head -8
fi
grep -v "^$" $OUT/probe57.txt | grep "^|"
