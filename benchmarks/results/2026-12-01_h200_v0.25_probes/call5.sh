#!/usr/bin/env bash
# v0.25 device call 5: where conditional rescaling loses at d=64 (probe run 24: non-causal 1k 391 -> 337): the
# source page's stall sites of the tuned d=64 persistent form and of the same form with lazy_rescale, at d=64
# non-causal 1k (ncu run 10; 2k is not among the script's forward points), summed by stall_sites.py.
export PYTHONPATH=src
P=benchmarks/experiments/backward_limiter
for form in q-regs-half-balanced q-regs-half-balanced-lazy; do
  FLASHIO_TUNING_CACHE=off timeout 140 ncu --clock-control none --profile-from-start off \
      -k regex:attention_forward_gluon --section WarpStateStats --section SourceCounters --page source \
      --print-source sass --csv python3 $P/ncu_profile.py --child --pass forward \
      --forward-form $form --point 64:noncausal:1024 > /tmp/src_$form.csv 2> /tmp/src_$form.err
  echo "source rc $?" >> /tmp/src_$form.err
  gzip -c /tmp/src_$form.csv > "$OUT/ncu_run10_source_$form.csv.gz"
  (python3 $P/stall_sites.py /tmp/src_$form.csv; tail -3 /tmp/src_$form.err) > "$OUT/ncu_run10_stall_sites_$form.txt" 2>&1
  head -30 "$OUT/ncu_run10_stall_sites_$form.txt"
done
