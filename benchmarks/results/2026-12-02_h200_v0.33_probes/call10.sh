#!/usr/bin/env bash
# v0.33 device call 10: the interleaved timing now shuffles the systems' order every pass (sweep.INTERLEAVED_ORDER_SEED;
# calls 7-9: a call after FA2's forward ran 6% slower). The d=128 bf16 grid again (call 2's command), then N=1k with
# the systems listed in the other order, which the shuffle should make no difference to.
set -u
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 150 python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 \
    --head-dims 128 --dtypes bf16 --modes fwd bwd --systems flashio sdpa_flash sdpa_cudnn --no-progress \
    --timing interleaved --out "$OUT/d128_bf16_shuffled" > /tmp/grid.txt 2>&1 || { tail -20 /tmp/grid.txt; exit 1; }
python3 benchmarks/cudnn_table.py "$OUT/d128_bf16_shuffled/bench.json" | grep "| 1024 \|goal"
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 100 python3 -m flashio.cli bench --seqlens 1024 \
    --head-dims 128 --dtypes bf16 --modes fwd bwd --systems sdpa_cudnn sdpa_flash flashio --no-progress \
    --timing interleaved --out "$OUT/d128_bf16_1k_reordered" > /tmp/grid.txt 2>&1 || { tail -20 /tmp/grid.txt; exit 1; }
python3 benchmarks/cudnn_table.py "$OUT/d128_bf16_1k_reordered/bench.json" | grep "| 1024 "
