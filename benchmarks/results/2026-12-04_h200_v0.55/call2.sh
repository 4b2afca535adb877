#!/bin/bash
# v0.55 call 2: the non-causal claim list with the short last query blocks of the last heads claimed at the end
# (`schedules.noncausal_claim_order`). (1) Probe run 73: d=64's three-consumer form, the new order against v0.54's head
# order (bf16, median of 5 rounds); (2) the d=64 grids, bf16 and fp16 (v0.54 call 4's command, empty tuning caches);
# (3) the d=64 default check cases.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 64 --rounds 5 --skip-tuned \
    --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:8192 noncausal:16384 \
    --forms "d=64 three consumers, short last blocks claimed last" "d=64 three consumers, claims in head order (v0.54)" \
    > $OUT/probe73.txt 2>&1
echo "probe 73 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe73.txt
for dtype in bf16 fp16; do
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 110 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims 64 --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d64_$dtype" > /tmp/grid.log 2>&1 || { echo "d64 $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d64_$dtype/bench.csv"
  echo "grid d64 $dtype done at ${SECONDS} s"
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
grep -E "^\| (bf16|fp16) \| 64 \| no" $OUT/table.md
if [ $SECONDS -lt 480 ]; then
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout $((570 - SECONDS)) python3 -m flashio.check --skip-timing --skip-paths \
      --case-head-dims 64 --case-timeout 60 > "$OUT/check.txt" 2>&1
  echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
fi
