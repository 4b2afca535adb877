#!/usr/bin/env bash
# v0.35 device call 3: ncu run 16 (d=256's tuned role-split backward against the same with its dQ chunks stored without
# bank conflicts, non-causal 2k: probe run 22 put the latter 14% behind) and run 15 (v0.34's call11_prepared.sh: the
# d=128 tuned form as it was in v0.34 and as it is now, non-causal 1k). Each source page summed by stall_sites.py,
# with shared-memory wavefronts by opcode.
set -u
export PYTHONPATH=src
P=benchmarks/experiments/backward_limiter
for run in "16 d256-tuned 256:noncausal:2048" "16 d256-tuned-spread 256:noncausal:2048" \
           "15 tuned 128:noncausal:1024" "15 tuned-spread 128:noncausal:1024"; do
  set -- $run
  name="ncu_run$1_$2_${3//:/_}"
  FLASHIO_TUNING_CACHE=off FLASHIO_BACKWARD_PATH=gluon FLASHIO_AUTOTUNE=0 timeout 150 ncu --clock-control none \
      --profile-from-start off -k regex:attention_backward_fused --section WarpStateStats --section SourceCounters \
      --page source --print-source sass --csv python3 $P/ncu_profile.py --child --pass backward \
      --backward-form $2 --point $3 > /tmp/src.csv 2> /tmp/src.err
  echo "source rc $?" >> /tmp/src.err
  gzip -c /tmp/src.csv > "$OUT/$name.csv.gz"
  (python3 $P/stall_sites.py --shared /tmp/src.csv; tail -3 /tmp/src.err) > "$OUT/$name.txt" 2>&1
  echo "== $name"; cat "$OUT/$name.txt" | cut -c1-160
done
