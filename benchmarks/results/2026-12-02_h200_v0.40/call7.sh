#!/bin/bash
# v0.40 call 7: does the bench's forward+backward call wait for the host? (benchmarks/experiments/host_gap/host_gap.py:
# each call timed as the bench does, and with the GPU held ~1 ms before its start event; bf16, 40 calls each.)
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=$(mktemp -d)
timeout 250 python3 benchmarks/experiments/host_gap/host_gap.py --points 128:nc:1024 64:c:1024 64:nc:1024 256:nc:1024 \
    --systems flashio cuDNN FA2 2>&1 | grep -v -i warn | tee $OUT/host_gap.txt
