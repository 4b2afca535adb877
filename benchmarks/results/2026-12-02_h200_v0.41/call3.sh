#!/bin/bash
# v0.41 call 3: the tuner's rematch statistic. At the 17 points of v0.40's grids where the rematch's median and its
# lowest timing picked different forward or fused-backward forms, both forms timed again alternately (10 rounds of
# 2 warm-up + 3 timed calls each, the bench's flushed event timer).
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=off
timeout 540 python3 benchmarks/tuner_statistic.py benchmarks/results/2026-12-02_h200_v0.40/grid/*/bench.json benchmarks/results/2026-12-02_h200_v0.40/grid6/*/bench.json --rounds 10 --calls 3 > $OUT/tuner_statistic.txt 2>&1; tail -22 $OUT/tuner_statistic.txt
