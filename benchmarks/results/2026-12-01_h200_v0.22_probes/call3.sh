#!/usr/bin/env bash
# v0.22 device call 3: the whole check (default cases and every forced path, each with the grid-shaped cases).
export PYTHONPATH=src
timeout 540 python3 -m flashio.check --skip-timing > "$OUT/check_run25_all.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run25_all.txt"
grep -c PASS "$OUT/check_run25_all.txt"; grep -v PASS "$OUT/check_run25_all.txt" | tail -40
