#!/usr/bin/env bash
# v0.25 device call 6: ncu run 11, cuDNN's forward read like flashio's (runs 9-10): its source page (SASS) at
# d=128 non-causal 1k, d=64 non-causal 1k and d=128 causal 1k, summed per opcode by opcode_stalls.py. Does
# cuDNN run its exponentials beside the P V product, and where do its warps stall at short sequences? (flashio runs
# one candidate form beside it, so that its tuning stays short; ncu profiles only cuDNN.)
export PYTHONPATH=src
P=benchmarks/experiments/backward_limiter
for point in 128:noncausal:1024 64:noncausal:1024 128:causal:1024; do
  name=cudnn_$(echo $point | tr ':' '_')
  FLASHIO_TUNING_CACHE=off timeout 80 ncu --clock-control none --profile-from-start off \
      -k regex:fprop --section WarpStateStats --section SourceCounters --page source \
      --print-source sass --csv python3 $P/ncu_profile.py --child --pass forward --point $point \
      --forward-form out-regs-half-balanced \
      > /tmp/$name.csv 2> /tmp/$name.err
  echo "$point source rc $?"; tail -2 /tmp/$name.err
  gzip -c /tmp/$name.csv > "$OUT/ncu_run11_source_$name.csv.gz"
done
(cd $P && python3 opcode_stalls.py /tmp/cudnn_*.csv --top 14) > "$OUT/ncu_run11_opcode_stalls.txt" 2>&1
cat "$OUT/ncu_run11_opcode_stalls.txt"
