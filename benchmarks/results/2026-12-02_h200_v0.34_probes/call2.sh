#!/usr/bin/env bash
# v0.34 device call 2: d=256's role-split backward with each block's LSE (A) and D (B) rows requested one block ahead
# (ncu run 13: A's first use of its LSE row held 13% of its stall samples). (1) The forced check paths that run it
# (the tuned tile, and the persistent form sharing the helpers). (2) Backward probe run 19: the committed kernel
# (HEAD's backward_gluon_split.py, in a copy of src/) and this tree's, in alternating processes, twice each,
# bf16, median of 2 rounds per process. (3) ncu run 14: the new kernel's source page at non-causal 16k.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing \
    --skip-default-cases --case-timeout 100 --paths "role split at d=256, 16-byte" "persistent role-split at d=256" \
    > "$OUT/check_d256_stats_ahead.txt" 2>&1
rc=$?
echo "paths check rc $rc"; grep -c PASS "$OUT/check_d256_stats_ahead.txt"
grep -E "FAIL|HANG|Traceback" "$OUT/check_d256_stats_ahead.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
rm -rf /tmp/src_head && cp -r src /tmp/src_head
git show HEAD:src/flashio/kernels/backward_gluon_split.py > /tmp/src_head/flashio/kernels/backward_gluon_split.py
for pass in 1 2; do
  for tree in /tmp/src_head src; do
    echo "== pass $pass, tree $tree" >> "$OUT/probe_bwd_run19_d256.txt"
    PYTHONPATH=$tree FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 256 --rounds 2 --seqlens 1024 2048 16384 --forms "tuned, 16-byte dK/dV stores" \
        >> "$OUT/probe_bwd_run19_d256.txt" 2>&1 || { echo "probe failed"; tail -20 "$OUT/probe_bwd_run19_d256.txt"; exit 1; }
  done
done
grep -E "^==|^\| 256" "$OUT/probe_bwd_run19_d256.txt"
P=benchmarks/experiments/backward_limiter
FLASHIO_TUNING_CACHE=off FLASHIO_BACKWARD_PATH=gluon FLASHIO_AUTOTUNE=0 timeout 150 ncu --clock-control none \
    --profile-from-start off -k regex:attention_backward_fused --section WarpStateStats --section SourceCounters \
    --page source --print-source sass --csv python3 $P/ncu_profile.py --child \
    --pass backward --point 256:noncausal:16384 > /tmp/src.csv 2> /tmp/src.err
echo "source rc $?" >> /tmp/src.err
gzip -c /tmp/src.csv > "$OUT/ncu_run14_source_d256_noncausal_16384.csv.gz"
(python3 $P/stall_sites.py /tmp/src.csv; tail -3 /tmp/src.err) > "$OUT/ncu_run14_stall_sites_d256_noncausal_16384.txt" 2>&1
head -12 "$OUT/ncu_run14_stall_sites_d256_noncausal_16384.txt"
