#!/bin/bash
# v0.45 call 1: d=256's persistent forward storing its output from registers. Its check paths on d=256's cases (the
# grid's 1k shape added, both masks), forward probe run 49 (forward_short/probe.py; prediction in its docstring,
# written before the run), then the d=256 grids (bf16, fp16; empty tuning caches) with the form as a fourth d=256
# forward candidate (configs.FORWARD_GLUON_CANDIDATES[256][3]; prediction in PERFORMANCE.md v0.45).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --case-head-dims 256 --paths "d=256 output from registers" > $OUT/call1_check.txt 2>&1
echo "check rc $?"; grep -c PASS $OUT/call1_check.txt; grep -E "FAIL|ERROR|HANG|Traceback" $OUT/call1_check.txt | head -5
FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/forward_short/probe.py --head-dims 256 \
    --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 causal:1024 causal:2048 \
    causal:16384 --forms "tuned persistent" "d=256 persistent, output from registers" \
    "d=256 persistent, output from registers, 16-byte stores" \
    "d=256 persistent, output from registers, 16-byte stores, Q handed back early" \
    "d=256 persistent, output from registers, 16-byte stores, claims" > $OUT/call1_probe_fwd_run49.txt 2>&1
echo "probe 49 rc $?"; cat $OUT/call1_probe_fwd_run49.txt | tail -8
for point in 256:bf16 256:fp16; do
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
        if r["system"] == "flashio" and r["mode"] == "fwd":
            print(r["dtype"], "causal" if r["causal"] else "non-causal", r["seqlen"], round(r["tflops"]),
                  r["tiles"].split(";")[0], "|", r["tuning"][:240])
PY
