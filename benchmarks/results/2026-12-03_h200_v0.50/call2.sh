#!/bin/bash
# v0.50 call 2: do a tile's two consumers reach its boundaries together? round_times.py --dump (10 turns) on d=128's
# form 6 and ninth candidate at causal 1k and 16k and d=64's three-consumer form at causal 1k, then
# consumer_offsets.py over the dumps (the dumps themselves are not kept: ~10 MB each).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
mkdir -p /tmp/dumps
R="benchmarks/experiments/forward_short"
FLASHIO_TUNING_CACHE=off timeout 200 python3 $R/round_times.py --points 128:causal:1024 128:causal:16384 \
    --forms 6 8 --turns 10 --dump /tmp/dumps > $OUT/round_times_d128.txt 2>&1
echo "round_times d128 rc $? at ${SECONDS}s"
FLASHIO_TUNING_CACHE=off timeout 100 python3 $R/round_times.py --points 64:causal:1024 --forms 5 6 --turns 10 \
    --dump /tmp/dumps > $OUT/round_times_d64.txt 2>&1
echo "round_times d64 rc $? at ${SECONDS}s"
python3 $R/consumer_offsets.py /tmp/dumps/*.pt | tee $OUT/consumer_offsets.txt
grep -E "^\| warm" $OUT/round_times_d128.txt $OUT/round_times_d64.txt
# The overlapped-tile path again: its consumer now releases other consumers' blocks through _release_unread.
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases \
    --paths "forward: Gluon, persistent, host-descriptor forms, overlapped tiles" --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
