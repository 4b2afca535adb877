#!/bin/bash
# v0.47 call 2: claim counters of their own for captured launches (and the tuner's captures in thread-local mode).
# (a) The GPU check's 27 default cases on empty caches, each now also captured into a CUDA graph and replayed;
# (b) the d=128 grids at 1k-4k, tuner with and without replays (call 1's d=128 half, which broke with replays);
# (c) one process tuning d=128 bf16 non-causal 1k with replays: the fallbacks and the tuner's timings.
set -u
export PYTHONPATH=src TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 200 python3 -m flashio.check --skip-timing --skip-paths \
    --case-timeout 60 > "$OUT/check_default.txt" 2>&1
echo "check default rc $? PASS $(grep -c PASS $OUT/check_default.txt) FAIL $(grep -c FAIL $OUT/check_default.txt)"
grep -E "FAIL|ERROR|HANG|Traceback|Error" "$OUT/check_default.txt" | head -5
for point in 128:bf16 128:fp16; do
  IFS=: read dim dtype <<< "$point"
  for replays in 0 1; do
    FLASHIO_TUNE_REPLAYS=$replays FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 90 python3 -m flashio.cli bench \
        --seqlens 1024 2048 4096 --head-dims $dim --dtypes $dtype --modes fwd bwd \
        --systems flashio sdpa_flash sdpa_cudnn --no-progress --timing interleaved \
        --out "$OUT/replays$replays/d${dim}_$dtype" > $OUT/grid_${dim}_${dtype}_$replays.log 2>&1 || { echo "d$dim $dtype r$replays stopped"; tail -3 $OUT/grid_${dim}_${dtype}_$replays.log; }
    rm -f "$OUT/replays$replays/d${dim}_$dtype/bench.csv"
  done
done
FLASHIO_TUNE_REPLAYS=1 FLASHIO_TUNING_CACHE=off timeout 60 python3 - > $OUT/replay_tuning.txt 2>&1 <<'PY'
import torch, flashio
from flashio import launchers, configs
q, k, v = (torch.randn(16, 16, 1024, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
out = flashio.attention(q, k, v, causal=False)
torch.cuda.synchronize()
ref = torch.nn.functional.scaled_dot_product_attention(q, k, v)
print("fallbacks", launchers.tuning_replay_fallbacks(), "max err", (out - ref).abs().max().item())
from flashio.bench.sweep import describe_choice
for key, timings in configs._TIMINGS.items():
    print(key[0] if isinstance(key, tuple) else key, "|",
          ", ".join(f"{describe_choice(c) if hasattr(c, 'block_m') else c} " + "/".join(f"{t:.4f}" for t in ts)
                    for c, ts in timings))
PY
tail -3 $OUT/replay_tuning.txt | cut -c1-600
python3 - <<'PY'
import json, glob, os
out = os.environ["OUT"]
rows = {}
for replays in (0, 1):
    for path in glob.glob(f"{out}/replays{replays}/*/bench.json"):
        for r in json.load(open(path))["results"]:
            key = (r["head_dim"], r["dtype"], r["causal"], r["seqlen"], r["mode"])
            rows.setdefault(key, {})[(replays, r["system"])] = r["tflops"]
            if r["system"] == "flashio" and r["mode"] == "fwd":
                rows[key][(replays, "tiles")] = r["tuning"][:160]
print("d dtype causal N mode | flashio/cudnn off | on")
for key in sorted(rows):
    v = rows[key]
    f = lambda rp: v.get((rp, "flashio"), 0) / max(v.get((rp, "sdpa_cudnn"), 1e-9), 1e-9)
    print(*key, "|", f"{f(0):.3f} | {f(1):.3f}")
PY
