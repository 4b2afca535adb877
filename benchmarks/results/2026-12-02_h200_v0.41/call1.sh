#!/bin/bash
# v0.41 call 1: the fused backward writing dQ itself (convert_dq). First the two check paths (the tuned forms with
# the split tail, then with non-causal claims; path cases plus more queries than keys), then backward probe run 27
# (tuned / claims forms against the same with convert_dq, d=64 and d=128, causal and not, 1k, 3 rounds).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for path in "backward: fused five-product (Gluon), dQ converted in the kernel" \
            "backward: fused five-product (Gluon), dQ converted in the kernel, non-causal claims"; do
  name=$(echo "$path" | tr -c 'a-zA-Z0-9\n' '_' | tail -c 40)
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 170 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 60 --paths "$path" 2>&1 | tail -30 > $OUT/check_$name.txt
  echo "$path: $(grep -cE '^  PASS' $OUT/check_$name.txt) PASS"
  if grep -qE "FAIL|HANG|Traceback|Error" $OUT/check_$name.txt; then grep -E "FAIL|HANG|Traceback|Error" $OUT/check_$name.txt | cut -c1-300; exit 1; fi
done
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/fused_backward_persistent/probe.py --head-dims 64 128 --rounds 3 --seqlens 1024 --forms "tuned (v0.40)" "tuned (v0.40), dQ converted in the kernel" "claims (v0.40)" "claims (v0.40), dQ converted in the kernel" > $OUT/probe_bwd_run27_1k.txt 2>&1; tail -8 $OUT/probe_bwd_run27_1k.txt
