#!/usr/bin/env bash
# v0.34 device call 1: (1) backward probe run 18: d=256's tuned role-split tile against its rings re-cut (one dQ
# buffer per warpgroup, freeing 32 KB for a second dO or Q slot at 64-column dQ chunks; or a second dO slot with
# 32-column chunks), bf16, median of 3 rounds, max difference to the deterministic two-kernel backward. (2) ncu run 13:
# the tuned d=256 kernel's source page (stall samples per SASS instruction) at non-causal 1k and 16k, summed by
# stall_sites.py: which waits hold the step.
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 256 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned, 16-byte dK/dV stores" \
    "tuned, one dQ buffer" "tuned, two dO slots, one dQ buffer" "tuned, two Q slots, one dQ buffer" \
    "tuned, two dO slots, 32-column dQ chunks" > "$OUT/probe_bwd_run18_d256.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run18_d256.txt"
cat "$OUT/probe_bwd_run18_d256.txt" | cut -c1-400
P=benchmarks/experiments/backward_limiter
for n in 1024 16384; do
  FLASHIO_TUNING_CACHE=off FLASHIO_BACKWARD_PATH=gluon FLASHIO_AUTOTUNE=0 timeout 150 ncu --clock-control none \
      --profile-from-start off -k regex:attention_backward_fused --section WarpStateStats --section SourceCounters \
      --page source --print-source sass --csv python3 $P/ncu_profile.py --child \
      --pass backward --point 256:noncausal:$n > /tmp/src_$n.csv 2> /tmp/src_$n.err
  echo "source rc $?" >> /tmp/src_$n.err
  gzip -c /tmp/src_$n.csv > "$OUT/ncu_run13_source_d256_noncausal_$n.csv.gz"
  (python3 $P/stall_sites.py /tmp/src_$n.csv; tail -3 /tmp/src_$n.err) > "$OUT/ncu_run13_stall_sites_d256_noncausal_$n.txt" 2>&1
  head -30 "$OUT/ncu_run13_stall_sites_d256_noncausal_$n.txt"
done
