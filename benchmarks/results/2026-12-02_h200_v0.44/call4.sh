#!/bin/bash
# v0.44 call 4: the d=256 grids (bf16, fp16; empty tuning caches) on the second look that times every close candidate
# again with the fastest (configs._second_look). Call 3's fp16 non-causal 2k forward took the one-tile form on a
# second timing against the persistent form's one slow-clock timing (0.99x cuDNN). Prediction (written before the
# run): d=256 non-causal 2k-8k forwards take the persistent form, fp16 2k at 1.02-1.05x cuDNN; the rest within the
# calls' spread (±3%); the backward as call 3 (all 20 d=256 points past the goal).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 256:fp16 256:bf16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
done
python3 benchmarks/cudnn_table.py $OUT/grid/*/bench.json
python3 - <<'PY'
import json, glob, os
for path in sorted(glob.glob(os.environ["OUT"] + "/grid/*/bench.json")):
    for r in json.load(open(path))["results"]:
        if r["system"] == "flashio" and r["mode"] == "fwd" and not r["causal"]:
            print(r["dtype"], r["seqlen"], round(r["tflops"]), r["tiles"].split(";")[0], "|", r["tuning"][:300])
PY
