#!/usr/bin/env bash
# Prepared in v0.34, not run (no device time left): ncu run 15, the tuned d=128 backward's source page at non-causal
# 1k, as tuned and with its dQ tile stored without bank conflicts (run after call10_prepared.sh's check path passed),
# summed by stall_sites.py, and the shared wavefronts per store width.
set -u
export PYTHONPATH=src
P=benchmarks/experiments/backward_limiter
for form in tuned tuned-spread; do
  FLASHIO_TUNING_CACHE=off FLASHIO_BACKWARD_PATH=gluon FLASHIO_AUTOTUNE=0 timeout 150 ncu --clock-control none \
      --profile-from-start off -k regex:attention_backward_fused --section WarpStateStats --section SourceCounters \
      --page source --print-source sass --csv python3 $P/ncu_profile.py --child --pass backward \
      --backward-form $form --point 128:noncausal:1024 > /tmp/src_$form.csv 2> /tmp/src_$form.err
  echo "source rc $?" >> /tmp/src_$form.err
  gzip -c /tmp/src_$form.csv > "$OUT/ncu_run15_source_d128_noncausal_1024_$form.csv.gz"
  (python3 $P/stall_sites.py /tmp/src_$form.csv; tail -3 /tmp/src_$form.err) > "$OUT/ncu_run15_stall_sites_$form.txt" 2>&1
  head -14 "$OUT/ncu_run15_stall_sites_$form.txt"
done
