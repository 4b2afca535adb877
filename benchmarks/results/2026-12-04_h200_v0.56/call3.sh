#!/bin/bash
# v0.56 call 3: the grids of all three head dims on the closing commit (kernels and lists as v0.55 call 3 ran them;
# host code refactored since), v0.49 call 3's command, empty tuning caches; the table and the tuner's choices.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 64:bf16 64:fp16 128:bf16 128:fp16 256:bf16 256:fp16; do
  # A grid takes ~50-70 s here: none started past 400 s, so the call ends within its limit.
  if [ $SECONDS -gt 400 ]; then echo "grid d$point not started (${SECONDS} s)"; continue; fi
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 110 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
  echo "grid d$dim $dtype done at ${SECONDS} s"
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
(cd $OUT && tar czf grid.tar.gz grid && rm -rf grid)
grep "^fwd" $OUT/choices.txt | cut -c1-90
cat $OUT/table.md
