#!/bin/bash
# v0.49 call 1: where the time between a consumer's tiles goes at d=128 causal 1k (PERFORMANCE.md v0.48 Next item 1),
# two ways: round_times.py --boundary (forms 6 and 7: marks after each tile's Q wait and entry read) and Nsight
# Compute's per-instruction stall samples of form 6; then the d=64 three-consumer form at causal 1k-2k (Next item 2):
# round_times on forms 5 (two consumers) and 6 (three), and its source page at causal 1k.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
git log -1 --format=%h 2>/dev/null; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/round_times.py \
    --points 128:causal:1024 --forms 6 7 --turns 30 --boundary > $OUT/round_times_d128.txt 2>&1
echo "round_times d128 rc $? at ${SECONDS}s"
FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/forward_short/round_times.py \
    --points 64:causal:1024 64:causal:2048 --forms 5 6 --turns 20 > $OUT/round_times_d64.txt 2>&1
echo "round_times d64 rc $? at ${SECONDS}s"
source_page() {  # $1 point, $2 candidate index, $3 output name
    FLASHIO_TUNING_CACHE=off timeout 150 ncu --clock-control none --profile-from-start off \
        -k regex:attention_forward_gluon --section WarpStateStats --section SourceCounters --page source \
        --print-source sass --csv python3 benchmarks/experiments/backward_limiter/ncu_profile.py --child \
        --pass forward --forward-candidate $2 --point $1 > $OUT/$3.csv 2> $OUT/$3.err
    echo "ncu $3 rc $? at ${SECONDS}s"; gzip -f $OUT/$3.csv
    python3 benchmarks/experiments/backward_limiter/stall_sites.py $OUT/$3.csv.gz 2>&1 | head -20
}
source_page 128:causal:1024 6 ncu_d128_causal1k_form6
[ $SECONDS -lt 330 ] && source_page 64:causal:1024 6 ncu_d64_causal1k_form6
for f in $OUT/round_times_d128.txt $OUT/round_times_d64.txt; do
    echo "== $f"; grep -v "^$" $f | grep -v "^- after\|^cold minus" | cut -c1-250
done
