#!/bin/bash
# v0.47 call 1: (a) the persistent forward's Q/K/V host-descriptor check path after 77d73f9 (its launch branch now
# builds the descriptors through launchers.host_descriptor_inputs); (b) the tuner timing CUDA-graph replays
# (FLASHIO_TUNE_REPLAYS=1) against the tuner as before, the d=128 and d=256 grids at 1k-4k, each point's two runs
# back to back (off, then on) in one call; (c) d=256 first call with and without it. Predictions in PERFORMANCE.md
# v0.47, written before the run.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
path="tuned options, Q/K/V host descriptors"
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --paths "$path" > "$OUT/check_host3.txt" 2>&1
echo "check [$path] rc $? PASS $(grep -c PASS $OUT/check_host3.txt)"
grep -E "FAIL|ERROR|HANG|Traceback" "$OUT/check_host3.txt" | head -5
for point in 256:bf16 256:fp16 128:bf16 128:fp16; do
  IFS=: read dim dtype <<< "$point"
  for replays in 0 1; do
    FLASHIO_TUNE_REPLAYS=$replays FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 90 python3 -m flashio.cli bench \
        --seqlens 1024 2048 4096 --head-dims $dim --dtypes $dtype --modes fwd bwd \
        --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing interleaved \
        --out "$OUT/replays$replays/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype r$replays stopped"; tail -3 /tmp/grid.log; }
    rm -f "$OUT/replays$replays/d${dim}_$dtype/bench.csv"
  done
done
for replays in 0 1; do
  python3 benchmarks/cudnn_table.py $OUT/replays$replays/*/bench.json > $OUT/table_replays$replays.md
  python3 - $replays > $OUT/choices_replays$replays.txt <<'PY'
import json, glob, os, sys
for path in sorted(glob.glob(os.environ["OUT"] + f"/replays{sys.argv[1]}/*/bench.json")):
    for r in json.load(open(path))["results"]:
        if r["system"] == "flashio" and r["mode"] == "fwd":
            print(r["head_dim"], r["dtype"], "causal" if r["causal"] else "non-causal", r["seqlen"], round(r["tflops"]),
                  "|", r["tuning"][:400])
PY
done
for replays in 0 1; do
  echo "== replays=$replays d=256 non-causal 4k"
  FLASHIO_TUNE_REPLAYS=$replays TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d)/tuning.json \
      timeout 60 python3 benchmarks/first_call.py --head-dim 256 --seqlen 4096 2>&1 | tail -25
done > $OUT/first_call.txt 2>&1
grep -E "^==|first call|compiled" $OUT/first_call.txt | cut -c1-200 | head -8
python3 - <<'PY'
import json, glob, os
out = os.environ["OUT"]
rows = {}
for replays in (0, 1):
    for path in glob.glob(f"{out}/replays{replays}/*/bench.json"):
        res = json.load(open(path))["results"]
        for r in res:
            key = (r["head_dim"], r["dtype"], r["causal"], r["seqlen"], r["mode"])
            rows.setdefault(key, {})[(replays, r["system"])] = r["tflops"]
print("d dtype causal N mode | flashio/cudnn off | on")
for key in sorted(rows):
    v = rows[key]
    f = lambda rp: v.get((rp, "flashio"), 0) / max(v.get((rp, "sdpa_cudnn"), 1e-9), 1e-9)
    print(*key, "|", f"{f(0):.3f} | {f(1):.3f}")
PY
