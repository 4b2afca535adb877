#!/usr/bin/env bash
# v0.30 device call 8 (run as this inline command, on the tree of calls 4-7): the grid's d=128 fp16 again with the
# forward's pairs within a head (the cross-head rule switched off in-process), after call 5 had the tuner choose the
# round-robin form at causal 1k. Output: grid/d128_fp16_within_head.json.
export PYTHONPATH=src; timeout 120 python3 -c "
import sys
from flashio import schedules, cli
schedules.CROSS_HEAD_PAIRS_MAX_BLOCKS = 0  # v0.29's within-head lists (the v0.30 cross-head rule reverted)
sys.exit(cli.main(['bench','--seqlens','1024','2048','4096','8192','16384','--head-dims','128','--dtypes','fp16','--modes','fwd','bwd','--systems','flashio','sdpa_flash','sdpa_cudnn','--no-progress','--timing','interleaved','--out','$OUT/d128_fp16_within']))" > /tmp/g.txt 2>&1; echo rc $?; python3 benchmarks/cudnn_table.py $OUT/d128_fp16_within/bench.json | sed -n 8,20p
