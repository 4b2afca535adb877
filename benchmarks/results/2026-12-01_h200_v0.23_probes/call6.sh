#!/usr/bin/env bash
# v0.23 device call 6: the split tail of the non-causal persistent fused backward. First its forced check path
# (the grid-shaped cases, among them the two non-causal ones with a partial last round), then probe run 11: the
# tuned persistent forms with and without it, non-causal, three rounds.
export PYTHONPATH=src
timeout 220 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 120 \
    --paths "split tail" > "$OUT/check_run31_split_tail.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run31_split_tail.txt"
grep -c PASS "$OUT/check_run31_split_tail.txt"; grep -v PASS "$OUT/check_run31_split_tail.txt" | tail -12
FLASHIO_TUNING_CACHE=off timeout 330 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --rounds 3 --causal no --seqlens 1024 2048 4096 16384 --forms "tuned" "tuned, split tail" \
    > "$OUT/probe_bwd_run11.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run11.txt"
tail -12 "$OUT/probe_bwd_run11.txt"
