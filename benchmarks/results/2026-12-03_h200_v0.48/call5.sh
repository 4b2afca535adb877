#!/bin/bash
# v0.48 call 5: the claiming forwards' loader publishes each claimed tile's id (the consumers no longer look it up in
# the list between tiles): the d=64 and d=128 default check cases and the three-consumer path; probe run 56 (v0.48
# against v0.47's lookup as a probe constexpr); then, if every check case passed, the d=64 and d=128 grids (v0.47 call
# 4's command; d=256's kernels are v0.47's); last, round_times.py on d=128's form 6 (call 1's reading, now with it).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-paths \
    --case-head-dims 64 128 --case-timeout 60 > "$OUT/check.txt" 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) graph $(grep -c 'CUDA graph' $OUT/check.txt)"
grep -E "FAIL|ERROR|HANG|Traceback|Error" "$OUT/check.txt" | head -5
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 -m flashio.check --skip-timing --skip-default-cases \
    --case-timeout 60 --case-head-dims 64 \
    --paths "forward: Gluon, persistent, three consumers, tuned host-descriptor options" > "$OUT/check_three.txt" 2>&1
echo "check three rc $? PASS $(grep -c PASS $OUT/check_three.txt) FAIL $(grep -c FAIL $OUT/check_three.txt)"
FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 \
    --rounds 3 --skip-tuned --points causal:1024 causal:4096 causal:16384 noncausal:1024 noncausal:16384 \
    --forms "claiming host forms (v0.48)" "claiming host forms, consumers read the list (v0.47)" \
    > $OUT/probe_run56.txt 2>&1
echo "probe rc $?"; tail -11 $OUT/probe_run56.txt
if [ "$(grep -c FAIL $OUT/check.txt $OUT/check_three.txt | awk -F: '{s+=$2} END {print s}')" = "0" ]; then
  for point in 128:bf16 128:fp16 64:bf16 64:fp16; do
    # A grid takes ~50-60 s here: none started past 330 s, so the call ends within the device time left.
    if [ $SECONDS -gt 330 ]; then echo "grid d$point not started (${SECONDS} s)"; continue; fi
    IFS=: read dim dtype <<< "$point"
    FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
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
  tail -6 $OUT/table.md
fi
[ $SECONDS -lt 400 ] && FLASHIO_TUNING_CACHE=off timeout 80 python3 benchmarks/experiments/forward_short/round_times.py \
    --points 128:causal:1024 --forms 6 --turns 30 > $OUT/round_times.txt 2>&1
echo "round_times rc $?"; grep -A6 "^## " $OUT/round_times.txt | cut -c1-200
