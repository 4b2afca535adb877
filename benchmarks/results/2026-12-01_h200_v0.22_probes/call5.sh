#!/usr/bin/env bash
# v0.22 device call 5: the forced paths call 3 did not reach (forward from "across tiles" on; the unfused
# backward paths), with the grid-shaped cases.
export PYTHONPATH=src
timeout 420 python3 -m flashio.check --skip-timing --skip-default-cases --paths "across tiles" "half diagonal block" \
  "Q in registers" "persistent grid, balanced schedule" "backward: tensor descriptors" "backward: warp-specialised" \
  "backward: two-pass" > "$OUT/check_run27_rest.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run27_rest.txt"
grep -c PASS "$OUT/check_run27_rest.txt"; grep -v PASS "$OUT/check_run27_rest.txt" | tail -25
