#!/bin/bash
# v0.53 call 5: which form of call 4 faults (one process per form, CUDA_LAUNCH_BLOCKING=1, each against a float32 SDPA,
# d=64 bf16 1k both masks): the untuned default, the three-consumer candidate, and its row-sum form (its block of ones
# now K-major); then, if the row-sum form ran, call 4's check and probe run 66 again.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
for form in default plain rowsum; do
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=off CUDA_LAUNCH_BLOCKING=1 timeout 120 python3 - $form <<'PY' 2>&1 | tail -4 | tee -a $OUT/which.txt
import sys, os, dataclasses, torch
from flashio import configs, launchers
form = sys.argv[1]
if form != "default":
    os.environ["FLASHIO_FORWARD_PATH"] = "gluon"
    c = configs.FORWARD_GLUON_CANDIDATES[64][6]
    configs.FORWARD_GLUON_CANDIDATES[64] = (dataclasses.replace(c, row_sum_mma=(form == "rowsum")),)
for causal, n in ((False, 1024), (True, 1024)):
    q, k, v = (torch.randn(16, 32, n, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=0.125, causal=causal, dropout_p=0.0, seed=0)[0]
    torch.cuda.synchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal, scale=0.125)
    print(form, "causal" if causal else "non-causal", n, "max err", float((out.float() - ref).abs().max()), flush=True)
PY
done
echo "which at ${SECONDS}s"
if grep -q "rowsum causal" $OUT/which.txt; then
  export TRITON_CACHE_DIR=$(mktemp -d)
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --case-head-dims 64 \
      --paths "row sums on the tensor cores" --skip-default-cases --case-timeout 60 > $OUT/check.txt 2>&1
  echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
  grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
  FLASHIO_TUNING_CACHE=off timeout $((560 - SECONDS)) python3 benchmarks/experiments/forward_short/probe.py \
      --head-dims 64 --rounds 3 --skip-tuned \
      --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 causal:1024 causal:2048 causal:4096 \
      --forms "d=64 three consumers (v0.53)" "d=64 three consumers, row sums by MMA" "d=64 four consumers (v0.53)" \
              "d=64 four consumers, row sums by MMA" "d=64 four consumers, masks by branch (v0.53)" \
              "d=64 four consumers, masks by branch, row sums by MMA" > $OUT/probe66.txt 2>&1
  echo "probe rc $? at ${SECONDS}s"; grep "^|" $OUT/probe66.txt
fi
