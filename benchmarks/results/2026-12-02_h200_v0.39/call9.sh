#!/bin/bash
# v0.39 call 9: d=64's and d=128's tuned persistent forward forms claim their non-causal tiles one at a time
# (noncausal_claims): the check path "forward: Gluon, persistent, non-causal claims" on empty caches (nothing else runs
# if a case fails or hangs), then the interleaved d=128 grid in both dtypes and d=64's in bf16, each on an empty tuning
# cache.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 170 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "forward: Gluon, persistent, non-causal claims" 2>&1 | tail -25 > $OUT/check_noncausal_claims.txt
grep -cE "^  PASS" $OUT/check_noncausal_claims.txt
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_noncausal_claims.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_noncausal_claims.txt | cut -c1-300; exit 1; fi
export TRITON_CACHE_DIR=$(mktemp -d)
for point in d128:128:bf16 d128:128:fp16 d64:64:bf16; do
  IFS=: read name dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/${name}_$dtype" > /tmp/grid.log 2>&1 || { echo "$name $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/${name}_$dtype/bench.csv"
  [ -f "$OUT/grid/${name}_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/${name}_$dtype/bench.json" | tail -13
done
