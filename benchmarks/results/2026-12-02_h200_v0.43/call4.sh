#!/bin/bash
# v0.43 call 4: the rematch's rounds timed call by call in shuffled turns (launchers._time_alternately_ms) instead of
# each leader alone back to back. First the three timers side by side (call_gap.py --tuner-timer: do_bench alone, the
# alternating timer, the bench's turn beside cuDNN and FA2) at d=256 bf16 non-causal 2k and 8k, the Gluon forms 0-2;
# then call 3 again (six grids on empty tuning caches, the first call at d=128 bf16 non-causal 4k).
# Prediction (written before the run): the alternating timer ranks d=256's one-tile form against the persistent one
# as the bench's turn does (call 1 at non-causal 2k: do_bench 1.007, bench 1.036) within 1%; in the grids the
# forward's tuner takes the persistent form at d=256 non-causal 2k-8k and causal 4k-8k, and the bench's forward there
# is within 1% of call 2's best; the goal 31-34 forward, 59-60 backward; the first call +0-0.2 s.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for p in 256:noncausal:2048 256:noncausal:8192; do
  (cd benchmarks/experiments/forward_short && PYTHONPATH=$(pwd)/../../../src FLASHIO_TUNING_CACHE=off timeout 150 python3 call_gap.py --points $p --only-autograd --also cuDNN FA2 --forward-forms 0 1 2 --tuner-timer 3 --only-timers --passes 60 >> $OUT/call4_timers.txt 2>&1)
  echo "$p rc $?"; grep -E "^timers" $OUT/call4_timers.txt | sort -u | cut -c1-400
done
for point in 128:bf16 128:fp16 256:bf16 256:fp16 64:bf16 64:fp16; do
  IFS=: read dim dtype <<< "$point"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
      --head-dims $dim --dtypes $dtype --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
      --timing interleaved --out "$OUT/grid/d${dim}_$dtype" > /tmp/grid.log 2>&1 || { echo "d$dim $dtype stopped"; tail -3 /tmp/grid.log; }
  rm -f "$OUT/grid/d${dim}_$dtype/bench.csv"
  [ -f "$OUT/grid/d${dim}_$dtype/bench.json" ] && python3 benchmarks/cudnn_table.py "$OUT/grid/d${dim}_$dtype/bench.json" | tail -5
done
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 90 python3 benchmarks/first_call.py --head-dim 128 --seqlen 4096 > $OUT/call4_first_call.txt 2>&1
echo "first call rc $?"; head -3 $OUT/call4_first_call.txt | cut -c1-600
python3 benchmarks/tuner_warmup.py $OUT/grid/*/bench.json | tail -14
