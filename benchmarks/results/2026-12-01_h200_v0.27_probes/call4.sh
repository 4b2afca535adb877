#!/usr/bin/env bash
# v0.27 device call 4: the bf16 d=128 sustained grid (1k-16k, causal and not) on this machine's empty default
# Triton cache, with the pruned candidate lists and concurrent compiles: how long a fresh bench takes, and a
# second sample of v0.25's sustained d=128 bf16 rows (same kernels). Then first_call.py at d=128 non-causal 4k on
# the caches the bench left, to see what the same-bucket call (N=3072) compiles.
export PYTHONPATH=src
start=$(date +%s)
timeout 420 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 --head-dims 128 --dtypes bf16 \
    --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d128_bf16" > /tmp/b.log 2>&1
echo "bench rc $? in $(( $(date +%s) - start )) s" >> /tmp/b.log
rm -f "$OUT/d128_bf16/bench.csv"; cp /tmp/b.log "$OUT/sustained_d128_bf16.log"
grep -E "^\| (flashio|sdpa_cudnn) " /tmp/b.log | cut -c1-120; tail -1 /tmp/b.log
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 60 python3 benchmarks/first_call.py --head-dim 128 --seqlen 4096 \
    > "$OUT/first_call_warm_cache.txt" 2>&1
cut -c1-400 "$OUT/first_call_warm_cache.txt" | head -3
