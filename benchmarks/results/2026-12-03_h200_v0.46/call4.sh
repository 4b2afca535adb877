#!/bin/bash
# v0.46 call 4: a second sample of the d=128 and d=256 grids on call 3's code (the tuner's records now name the forms
# with host descriptors, " host3"), then what the new candidates cost a first call (benchmarks/first_call.py, bf16,
# forward + backward, empty Triton cache and tuning file; d=128 and d=256 non-causal 4k, once each). Predictions in
# PERFORMANCE.md v0.46, written before the run.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for point in 128:bf16 128:fp16 256:bf16 256:fp16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 135 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
done
python3 benchmarks/cudnn_table.py $OUT/grid/*/bench.json > $OUT/table.md
python3 - > $OUT/choices.txt <<'PY'
import json, glob, os
for path in sorted(glob.glob(os.environ["OUT"] + "/grid/*/bench.json")):
    for r in json.load(open(path))["results"]:
        if r["system"] == "flashio" and r["mode"] == "fwd":
            print(r["head_dim"], r["dtype"], "causal" if r["causal"] else "non-causal", r["seqlen"], round(r["tflops"]),
                  "|", r["tuning"][:400])
PY
tail -6 $OUT/table.md
for point in 128 256; do
  echo "== d=$point non-causal 4k"
  TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d)/tuning.json timeout 100 \
      python3 benchmarks/first_call.py --head-dim $point --seqlen 4096 2>&1 | tail -25
done > $OUT/first_call.txt 2>&1
grep -E "^==|first call|compiled" $OUT/first_call.txt | cut -c1-250 | head -12
