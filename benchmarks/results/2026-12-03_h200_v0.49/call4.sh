#!/bin/bash
# v0.49 call 4 (after three refused starts, trimmed to the device time left: no three-consumer check path, no d=256
# probe; the grids bf16 first): the single step with its mask computed in every block, no branch (mask_every_block): two forced check
# paths; probe run 58 (bf16, median of 3 rounds: each host form without / with the branch / with the mask in every
# block); then, if every check case passed, the d=128 and d=64 grids with it as a candidate (v0.47 call 4's command).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) PYTHONUNBUFFERED=1
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases \
    --paths "forward: Gluon, persistent, host-descriptor forms, mask in every block" --case-timeout 60 \
    > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:" $OUT/check.txt | head -5
P="benchmarks/experiments/forward_short/probe.py"
FLASHIO_TUNING_CACHE=off timeout 120 python3 $P --head-dims 128 --rounds 3 --skip-tuned \
    --points noncausal:1024 noncausal:16384 causal:1024 causal:2048 causal:4096 causal:16384 \
    --forms "host forms" "host forms, masks by branch" "host forms, mask in every block" > $OUT/probe58.txt 2>&1
echo "probe d128 rc $? at ${SECONDS}s"
FLASHIO_TUNING_CACHE=off timeout 120 python3 $P --head-dims 64 --rounds 3 --skip-tuned \
    --points noncausal:1024 causal:1024 causal:2048 causal:4096 causal:16384 \
    --forms "host forms" "host forms, mask in every block" "three consumers (d=64), mask in every block" \
    >> $OUT/probe58.txt 2>&1
echo "probe d64 rc $? at ${SECONDS}s"
grep "^|" $OUT/probe58.txt
if [ "$(grep -c FAIL $OUT/check.txt)" = "0" ]; then
  for point in 128:bf16 64:bf16 128:fp16 64:fp16; do
    if [ $SECONDS -gt 170 ]; then echo "grid d$point not started (${SECONDS} s)"; continue; fi
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
        if r["system"] == "flashio" and r["mode"] == "fwd":
            print(r["head_dim"], r["dtype"], "causal" if r["causal"] else "non-causal", r["seqlen"],
                  round(r["tflops"]), "|", r["tuning"][:240])
PY
  (cd $OUT && tar czf grid.tar.gz grid && rm -rf grid)
  grep -E "^\| (bf16|fp16) \| (64|128) \| yes \| (1024|2048) " $OUT/table.md; tail -5 $OUT/table.md
  grep -c "mask-all" $OUT/choices.txt
fi
