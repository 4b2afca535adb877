#!/usr/bin/env bash
# v0.26 device call 3: (1) ncu run 12: the source pages of the tuned d=128 persistent forward and of the same with two
# K slots, three V slots and two Q sets (probe run 26: level at 1k), at d=128 non-causal 1k, summed by
# stall_sites.py: where the tile-start Q wait went once Q is fetched a tile ahead. (2) The bf16 d=256 sustained
# forward at 1k-2k re-timed (v0.25's sustained grid: 0.90x cuDNN at non-causal 1k; interleaved v0.23 1.00,
# probe run 26 0.99).
export PYTHONPATH=src
P=benchmarks/experiments/backward_limiter
for form in out-regs-half-balanced out-regs-half-balanced-k2v3-q2; do
  FLASHIO_TUNING_CACHE=off timeout 140 ncu --clock-control none --profile-from-start off \
      -k regex:attention_forward_gluon --section WarpStateStats --section SourceCounters --page source \
      --print-source sass --csv python3 $P/ncu_profile.py --child --pass forward \
      --forward-form $form --point 128:noncausal:1024 > /tmp/src_$form.csv 2> /tmp/src_$form.err
  echo "source rc $?" >> /tmp/src_$form.err
  gzip -c /tmp/src_$form.csv > "$OUT/ncu_run12_source_$form.csv.gz"
  (python3 $P/stall_sites.py /tmp/src_$form.csv; tail -3 /tmp/src_$form.err) > "$OUT/ncu_run12_stall_sites_$form.txt" 2>&1
  head -24 "$OUT/ncu_run12_stall_sites_$form.txt"
done
timeout 200 python3 -m flashio.cli bench --seqlens 1024 2048 --head-dims 256 --dtypes bf16 \
    --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d256_bf16" \
    > "$OUT/d256_bf16_sustained.log" 2>&1
echo "bench rc $?" >> "$OUT/d256_bf16_sustained.log"
rm -f "$OUT/d256_bf16/bench.csv"
grep -E "^\| (flashio|sdpa_cudnn) " "$OUT/d256_bf16_sustained.log" | cut -c1-120; tail -1 "$OUT/d256_bf16_sustained.log"
