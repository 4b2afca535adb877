#!/bin/bash
# v0.47 call 4: the six grids (d = 64, 128, 256; bf16, fp16; 1k-16k, causal and not; forward and backward) with the
# tuner timing replays (the default), empty tuning caches, v0.46's command per grid; the table over all six.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 64:bf16 64:fp16 128:bf16 128:fp16 256:bf16 256:fp16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 95 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
done
python3 benchmarks/cudnn_table.py $OUT/grid/*/bench.json > $OUT/table.md
python3 - > $OUT/choices.txt <<'PY'
import json, glob, os
for path in sorted(glob.glob(os.environ["OUT"] + "/grid/*/bench.json")):
    for r in json.load(open(path))["results"]:
        if r["system"] == "flashio":
            print(r["mode"], r["head_dim"], r["dtype"], "causal" if r["causal"] else "non-causal", r["seqlen"],
                  round(r["tflops"]), "|", r["tuning"][:300])
PY
tail -8 $OUT/table.md
