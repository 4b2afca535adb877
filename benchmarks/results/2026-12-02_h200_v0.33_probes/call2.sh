#!/usr/bin/env bash
# v0.33 device call 2: the forced check path of d=256's second candidate (two Q slots) with 16-byte dK/dV stores,
# tuned since call 1 without its own check; then the interleaved grid with this tree (16-byte dK/dV stores tuned in
# every fused-backward candidate), flashio against SDPA's FA2 and cuDNN, N = 1k-16k, causal and not, forward and
# backward, one run per (d, dtype), each on an empty tuning cache. The table: python3 benchmarks/cudnn_table.py
# grid/*.json.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing \
    --skip-default-cases --case-timeout 100 --paths "role split at d=256, two Q slots, 16-byte" \
    > "$OUT/check_d256_two_slots_wide.txt" 2>&1
rc=$?
echo "paths check rc $rc"; grep -c PASS "$OUT/check_d256_two_slots_wide.txt"
grep -E "FAIL|HANG|Traceback" "$OUT/check_d256_two_slots_wide.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
for point in "128 bf16" "128 fp16" "64 bf16"; do
  set -- $point
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 180 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $1 --dtypes $2 --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/d$1_$2" > /tmp/grid.txt 2>&1 || { tail -20 /tmp/grid.txt; exit 1; }
  python3 benchmarks/cudnn_table.py "$OUT/d$1_$2/bench.json" | tail -6
done
