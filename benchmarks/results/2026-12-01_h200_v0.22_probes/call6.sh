#!/usr/bin/env bash
# v0.22 device call 6: the forced paths calls 3 and 5 did not reach, with the grid-shaped cases, each path in a
# process of its own under its own time limit (call 5 lost its time to one hanging path).
export PYTHONPATH=src
for path in "half diagonal block" "Q in registers" "persistent grid, balanced schedule" "backward: tensor descriptors" \
    "backward: warp-specialised" "backward: two-pass"; do
  timeout 75 python3 -m flashio.check --skip-timing --skip-default-cases --paths "$path" >> "$OUT/check_run28_rest.txt" 2>&1
  echo "check \"$path\" rc $?" >> "$OUT/check_run28_rest.txt"
done
grep -c PASS "$OUT/check_run28_rest.txt"; grep -v PASS "$OUT/check_run28_rest.txt" | tail -30
