#!/usr/bin/env bash
# Prepared in v0.33, not run (no device time left). The grid's d=128 causal 1k forward measured 375-378 TFLOP/s with
# the rotated and with the shuffled order (calls 2 and 10), its kernel 393 when cuDNN alone shares the turn (call 6),
# and call_gap.py put a 6% loss on the call right after FA2's forward (calls 7-9); but in the grid's rotation flashio
# follows FA2 in only one pass of three. The grid's own turn (the autograd call, FA2, cuDNN), rotated and shuffled,
# with each call's kernel time by the call before it (profiled).
set -u
export PYTHONPATH=src
for order in "" "--shuffled"; do
  name="call_gap_grid_turn${order:+_shuffled}"
  FLASHIO_TUNING_CACHE=off timeout 120 python3 benchmarks/experiments/forward_short/call_gap.py \
      --points 128:causal:1024 --only-autograd --also FA2 cuDNN --passes 150 $order > "$OUT/$name.txt" 2>&1
  rc=$?
  echo "rc $rc" >> "$OUT/$name.txt"; grep "not profiled\|^rc\|Error\|by the call before" "$OUT/$name.txt" | cut -c1-400
  [ $rc -eq 0 ] || exit $rc
done
# The bench itself at d=128 1k, forward only, with and without FA2 in the turn: if flashio's causal forward reaches
# ~393 without FA2 and ~375 with it, the grid's number is the neighbour effect after all.
for systems in "flashio sdpa_cudnn" "flashio sdpa_flash sdpa_cudnn"; do
  name="bench_1k_${systems// /_}"
  FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 -m flashio.cli bench --seqlens 1024 --head-dims 128 \
      --dtypes bf16 --modes fwd --systems $systems --no-progress --timing interleaved --out "$OUT/$name" \
      > /tmp/bench.txt 2>&1 || { tail -20 /tmp/bench.txt; exit 1; }
  echo "$systems"; python3 benchmarks/cudnn_table.py "$OUT/$name/bench.json" 2>&1 | grep "| 1024 " | cut -c1-120
done
