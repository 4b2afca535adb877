#!/usr/bin/env bash
# v0.35 device call 2: d=128's tuned persistent backward with its dQ tile stored without bank conflicts (probe run 22:
# +0.5-4.9%). (1) The GPU check's default cases on empty caches. (2) The interleaved d=128 grid, bf16 then fp16, each on
# an empty tuning cache.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 220 python3 -m flashio.check --skip-timing \
    --skip-paths --case-timeout 100 > "$OUT/check_default.txt" 2>&1
rc=$?
echo "default check rc $rc"; grep -c PASS "$OUT/check_default.txt"
grep -E "FAIL|HANG|Traceback" "$OUT/check_default.txt" | cut -c1-200 | head
[ $rc -eq 0 ] || exit $rc
for point in "128 bf16 150" "128 fp16 150"; do
  set -- $point
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout $3 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $1 --dtypes $2 --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d$1_$2" > /tmp/grid.txt 2>&1 || { tail -5 /tmp/grid.txt; exit 1; }
  python3 benchmarks/cudnn_table.py "$OUT/grid/d$1_$2/bench.json" | tail -6
done
