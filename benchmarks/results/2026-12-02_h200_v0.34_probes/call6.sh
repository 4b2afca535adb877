#!/usr/bin/env bash
# v0.34 device call 6: d=256's role-split backward with only its P^T hand-off tile (float32) in a 32-byte swizzle
# (call 3 swizzled the dQ chunks too: 14-22% slower, their reduce-adds in 8-column boxes). ncu run 14: the 8-byte
# stores and loads of that tile take twice the ideal shared-memory wavefronts. (1) The forced check paths that run
# it. (2) Backward probe run 21: the committed kernel (f560095: LSE/D rows one block ahead) against this tree's, in
# alternating processes, twice each, bf16, median of 2 rounds per process.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing \
    --skip-default-cases --case-timeout 100 --paths "role split at d=256, 16-byte" "persistent role-split at d=256" \
    > "$OUT/check_d256_p_swizzle32.txt" 2>&1
rc=$?
echo "paths check rc $rc"; grep -c PASS "$OUT/check_d256_p_swizzle32.txt"
grep -E "FAIL|HANG|Traceback" "$OUT/check_d256_p_swizzle32.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
rm -rf /tmp/src_head && cp -r src /tmp/src_head
git show HEAD:src/flashio/kernels/backward_gluon_split.py > /tmp/src_head/flashio/kernels/backward_gluon_split.py
for pass in 1 2; do
  for tree in /tmp/src_head src; do
    echo "== pass $pass, tree $tree" >> "$OUT/probe_bwd_run21_d256.txt"
    PYTHONPATH=$tree FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 256 --rounds 2 --seqlens 1024 2048 16384 --forms "tuned, 16-byte dK/dV stores" \
        >> "$OUT/probe_bwd_run21_d256.txt" 2>&1 || { echo "probe failed"; tail -20 "$OUT/probe_bwd_run21_d256.txt"; exit 1; }
  done
done
grep -E "^==|^\| 256" "$OUT/probe_bwd_run21_d256.txt"
