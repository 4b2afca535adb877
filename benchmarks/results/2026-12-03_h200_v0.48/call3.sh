#!/bin/bash
# v0.48 call 3: d=64's seventh forward candidate (three consumers, host descriptors): the d=64 default check cases,
# the two d=64 grids (v0.47 call 4's command); step_sync.py's A/B of the autograd function's gradient materialisation.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing --skip-paths \
    --case-head-dims 64 --case-timeout 60 > "$OUT/check_d64.txt" 2>&1
echo "check d64 rc $? PASS $(grep -c PASS $OUT/check_d64.txt) FAIL $(grep -c FAIL $OUT/check_d64.txt) graph $(grep -c 'CUDA graph' $OUT/check_d64.txt)"
grep -E "FAIL|ERROR|HANG|Traceback|Error" "$OUT/check_d64.txt" | head -5
for dtype in bf16 fp16; do
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims 64 --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d64_$dtype" > /tmp/grid.log 2>&1 || { echo "d64 $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d64_$dtype/bench.csv"
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
cat $OUT/table.md
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 120 python3 benchmarks/experiments/host_overhead/step_sync.py \
    > $OUT/step_sync.txt 2>&1
echo "step_sync rc $?"; tail -14 $OUT/step_sync.txt
