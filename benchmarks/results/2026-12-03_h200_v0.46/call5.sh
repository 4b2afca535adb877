#!/bin/bash
# v0.46 call 5: the host-descriptor forms' slow mode in the tuner's timings (host_overhead/host_descriptor_launches.py;
# prediction in its docstring, written before the run), three processes sharing one Triton cache.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
for run in 1 2 3; do
  echo "== process $run"
  FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/host_overhead/host_descriptor_launches.py
done > $OUT/call5_host_descriptor_launches.txt 2>&1
cat $OUT/call5_host_descriptor_launches.txt | cut -c1-400
