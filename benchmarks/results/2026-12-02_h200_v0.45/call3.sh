#!/bin/bash
# v0.45 call 3: the d=128 grids (bf16, fp16; empty tuning caches) with d=128's tuned persistent form holding Q in
# registers as a sixth d=128 forward candidate (configs.FORWARD_GLUON_CANDIDATES[128][5]; its check path "tuned
# options, Q in registers at d=128" passed in v0.42; prediction in PERFORMANCE.md v0.45, written before the run), then
# the d=256 grids once more on call 1's code (a second sample of their 1k points).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 128:bf16 128:fp16 256:bf16 256:fp16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 135 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
done
python3 benchmarks/cudnn_table.py $OUT/grid/*/bench.json
python3 - <<'PY'
import json, glob, os
for path in sorted(glob.glob(os.environ["OUT"] + "/grid/*/bench.json")):
    for r in json.load(open(path))["results"]:
        if r["system"] == "flashio" and r["mode"] == "fwd" and r["head_dim"] == 128:
            print(r["dtype"], "causal" if r["causal"] else "non-causal", r["seqlen"], round(r["tflops"]),
                  r["tiles"].split(";")[0], "|", r["tuning"][:300])
PY
