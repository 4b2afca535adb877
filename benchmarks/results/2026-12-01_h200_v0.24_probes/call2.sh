#!/usr/bin/env bash
# v0.24 device call 2: (a) the persistent role-split d=256 form without the split tail, after the launcher's fix
# (whole key blocks round-robin; call 1 measured it reading the split list: wrong dK/dV); (b, c) PERFORMANCE.md
# "Next" 3: the d=128 non-causal 1k forward (tuned form) -- ncu sections, then the source page summed by
# stall_sites.py; (d) "Next" 2: the sustained bench at d=64 fp16 non-causal 8k-16k, that point alone.
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 110 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 256 --rounds 1 --causal no --seqlens 1024 2048 --forms "tuned" "role split persistent" \
    > "$OUT/probe_bwd_run12b_d256.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run12b_d256.txt"; tail -5 "$OUT/probe_bwd_run12b_d256.txt"
P=benchmarks/experiments/backward_limiter
timeout 100 python3 $P/ncu_profile.py --pass forward --point 128:noncausal:1024 \
    --forward-form out-regs-half-balanced > "$OUT/ncu_run9_d128_nc1k.log" 2>&1
echo "ncu rc $?" >> "$OUT/ncu_run9_d128_nc1k.log"
grep -E "^==|Duration|Executed Ipc Active|Issue Slots Busy|Warp Cycles Per Issued|SM Busy|Registers Per|Active Warps" "$OUT/ncu_run9_d128_nc1k.log" | head -40
FLASHIO_TUNING_CACHE=off timeout 120 ncu --clock-control none --profile-from-start off \
    -k regex:attention_forward_gluon --section WarpStateStats --section SourceCounters --page source \
    --print-source sass --csv python3 $P/ncu_profile.py --child --pass forward \
    --forward-form out-regs-half-balanced --point 128:noncausal:1024 > /tmp/ncu_run9_source.csv 2> /tmp/ncu_run9_source_stderr.txt
echo "source rc $?" >> /tmp/ncu_run9_source_stderr.txt
gzip -c /tmp/ncu_run9_source.csv > "$OUT/ncu_run9_source.csv.gz"
(python3 $P/stall_sites.py /tmp/ncu_run9_source.csv; tail -5 /tmp/ncu_run9_source_stderr.txt) > "$OUT/ncu_run9_stall_sites.txt" 2>&1; cat "$OUT/ncu_run9_stall_sites.txt" | head -40
timeout 200 python3 -m flashio.cli bench --seqlens 8192 16384 --head-dims 64 --dtypes fp16 --causal no \
    --systems flashio sdpa_cudnn --timing sustained --no-progress --out "$OUT/sustained" > "$OUT/sustained_console.txt" 2>&1
echo "bench rc $?" >> "$OUT/sustained_console.txt"; tail -15 "$OUT/sustained_console.txt"; ls "$OUT/sustained"
