#!/usr/bin/env bash
# v0.28 device call 7: the prefetching warp with a handshake (the loader starts tile t once the prefetcher is done
# with tile t - 2; two barriers each way), its forced check path, then forward probe run 30 at d=128.
export PYTHONPATH=src
timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 45 \
    --paths "forward: Gluon, persistent, prefetching warp" > "$OUT/check_run44_prefetching_warp_handshake.txt" 2>&1
rc=$?; echo "rc $rc" >> "$OUT/check_run44_prefetching_warp_handshake.txt"
tail -3 "$OUT/check_run44_prefetching_warp_handshake.txt" | cut -c1-200
[ $rc -ne 0 ] && exit 1
FLASHIO_TUNING_CACHE=off timeout 140 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 --rounds 2 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 \
    causal:2048 noncausal:16384 --forms "tuned persistent" "tuned persistent, prefetching warp" \
    > "$OUT/probe_fwd_run30.txt" 2>&1
echo "rc $?" >> "$OUT/probe_fwd_run30.txt"
cut -c1-250 "$OUT/probe_fwd_run30.txt"
