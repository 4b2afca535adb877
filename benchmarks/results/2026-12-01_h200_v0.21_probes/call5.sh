#!/usr/bin/env bash
# v0.21 device call 5: the sustained grids v0.17 did not run (d=256 bf16 / fp16; d=64 fp16 ran in call 6 by the same command), each system timed
# alone for its whole run (--timing sustained); one timeout each so that a slow one leaves the others' files.
export PYTHONPATH=src
for spec in "256 bf16 250" "256 fp16 225"; do
  set -- $spec
  timeout "$3" python3 -m flashio.cli bench --seqlens 1024 2048 4096 8192 16384 --head-dims "$1" --dtypes "$2" \
    --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing sustained --out "$OUT/d$1_$2_sustained" \
    > "$OUT/d$1_$2_sustained.log" 2>&1
  echo "d=$1 $2 rc $?"; rm -f "$OUT/d$1_$2_sustained"/*.csv  # the tables read the JSON; at most 8 files come back
done
ls -R "$OUT" | head -30
