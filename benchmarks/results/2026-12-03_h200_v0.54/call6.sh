#!/bin/bash
# v0.54 call 6: d=128's ninth forward candidate without its half diagonal block: its forced check path at d=128 (the
# four-consumer mask-by-branch path, whose d=128 form it is), then the d=128 grids (bf16, fp16) with it, v0.49 call 3's
# command, empty tuning caches; the table of the d=128 points and the tuner's choices.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 -m flashio.check --skip-timing --case-head-dims 128 \
    --paths "four consumers, 64-key blocks, masks by branch" --skip-default-cases --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -5
for dtype in bf16 fp16; do
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims 128 --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d128_$dtype" > /tmp/grid.log 2>&1 || { echo "d128 $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d128_$dtype/bench.csv"
  echo "grid d128 $dtype done at ${SECONDS} s"
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
grep "^fwd" $OUT/choices.txt | cut -c1-140
cat $OUT/table.md
