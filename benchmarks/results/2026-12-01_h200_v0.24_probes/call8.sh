#!/usr/bin/env bash
# v0.24 device call 8: call 7's trace with a 1000 ms warm-up instead of 300 (is the first run's slow stretch a
# transient of the clock after the tuner that a longer warm-up outlasts?), then call 5's d=64 fp16 sustained
# sweep with the same 1000 ms warm-up.
export PYTHONPATH=src
timeout 150 python3 benchmarks/experiments/fused_backward_persistent/sustained_forms.py --trace --warmup-ms 1000 \
    > "$OUT/sustained_trace_warm1000.txt" 2>&1
echo "rc $?" >> "$OUT/sustained_trace_warm1000.txt"; grep "^|" "$OUT/sustained_trace_warm1000.txt"
timeout 330 python3 -c "
import sys
from flashio.bench import sweep
from flashio import cli
sweep.SUSTAINED_WARMUP_MS = 1000
sys.exit(cli.main(['bench', '--seqlens', '1024', '2048', '4096', '8192', '16384', '--head-dims', '64', '--dtypes',
                   'fp16', '--systems', 'flashio', 'sdpa_flash', 'sdpa_cudnn', '--no-progress', '--timing',
                   'sustained', '--out', '$OUT/d64_fp16_warm1000']))
" > "$OUT/d64_fp16_sustained_warm1000.log" 2>&1
echo "bench rc $?" >> "$OUT/d64_fp16_sustained_warm1000.log"
rm -f "$OUT/d64_fp16_warm1000/bench.csv"; grep -E "^\| (flashio|sdpa_cudnn) " "$OUT/d64_fp16_sustained_warm1000.log" | cut -c1-120; tail -2 "$OUT/d64_fp16_sustained_warm1000.log"
