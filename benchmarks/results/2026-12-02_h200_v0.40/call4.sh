#!/bin/bash
# v0.40 call 4: the preprocess kernel zeroing the fused backward's dQ accumulator in its pass (ZERO_DQ, every call
# after the first). The library's default correctness cases at 1k (d=64 / 128 / 256, causal and not, bf16: each run
# twice, the second call taking the zeroing preprocess) on empty caches, nothing else if a case fails; then the step
# traces of v0.40 call 3's d=64 non-causal 1k and d=128 non-causal 1k points, flashio alone.
set -u
export PYTHONPATH=src
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 300 python3 -m flashio.check --skip-timing \
    --skip-paths --head-dims 64 128 256 --seqlens 1024 --causal both --dtype bf16 --case-timeout 90 2>&1 | tail -30 > $OUT/check_default_1k.txt
grep -cE "^  PASS" $OUT/check_default_1k.txt
if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_default_1k.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_default_1k.txt | cut -c1-300; exit 1; fi
export TRITON_CACHE_DIR=$(mktemp -d)
for point in "64 1024 --no-causal" "128 1024 --no-causal" "64 2048"; do
  set -- $point
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 benchmarks/step_trace.py --head-dim $1 --seqlen $2 ${3:-} \
      --systems flashio 2>&1 | grep -v -i "warn" | tee -a $OUT/step_trace.txt | grep -E "^(bf16|flashio)|preprocess|Fill"
done
