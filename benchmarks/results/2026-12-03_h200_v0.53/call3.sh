#!/bin/bash
# v0.53 call 3: call 2's Nsight Compute source pages again (ncu_profile.py's --point now takes a point off its list):
# d=64's four- and three-consumer candidates at causal 2k.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d)
source_page() {  # $1 point, $2 candidate index, $3 output name
    FLASHIO_TUNING_CACHE=off timeout 200 ncu --clock-control none --profile-from-start off \
        -k regex:attention_forward_gluon --section WarpStateStats --section SourceCounters --page source \
        --print-source sass --csv python3 benchmarks/experiments/backward_limiter/ncu_profile.py --child \
        --pass forward --forward-candidate $2 --point $1 > $OUT/$3.csv 2> $OUT/$3.err
    echo "ncu $3 rc $? at ${SECONDS}s"; gzip -f $OUT/$3.csv
    python3 benchmarks/experiments/backward_limiter/stall_sites.py $OUT/$3.csv.gz 2>&1 | head -24
}
source_page 64:causal:2048 7 ncu_d64_causal2k_four
source_page 64:causal:2048 6 ncu_d64_causal2k_three
