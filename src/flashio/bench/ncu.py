"""DRAM bytes per pass, measured with Nsight Compute (``ncu``), for any system at any point.

Each measurement runs one forward and one backward of a system in a child process under
``ncu --clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum``. The child launches
ATen's ``spin_kernel`` (``torch.cuda._sleep``) before, between and after the two passes, so the kernels in
between are attributed to the forward or the backward by launch order (NVTX ranges cannot do it:
autograd runs the backward on its own thread). Autotuning is switched off in the child
(``FLASHIO_AUTOTUNE=0``) so that only the measured passes run.

    python -m flashio.bench.ncu --system standard --seqlen 1024 --head-dim 64 --batch 64 --heads 16 --dtype fp16
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict
from typing import Optional

_UNITS = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def ncu_available() -> bool:
    return shutil.which("ncu") is not None


def _child(system: str, point_json: str) -> None:
    """Run one forward and one backward between markers (inside ncu)."""
    import torch

    from flashio.bench.sweep import BenchPoint, _make_inputs
    from flashio.bench.systems import SYSTEMS

    point = BenchPoint(**json.loads(point_json))
    inputs = _make_inputs(point, "cuda")
    run = SYSTEMS[system].run
    out = run(inputs)  # compile and build derived inputs first (profiled too, but before the markers)
    dout = torch.randn_like(out)
    out.backward(dout)
    del out
    torch.cuda.synchronize()
    torch.cuda._sleep(10)
    out = run(inputs)
    torch.cuda.synchronize()
    torch.cuda._sleep(10)
    out.backward(dout)
    torch.cuda.synchronize()
    torch.cuda._sleep(10)
    torch.cuda.synchronize()


def measure_dram_bytes(system: str, point, timeout_s: float = 600.0) -> dict:
    """{'fwd': (read, write), 'bwd': (read, write), 'kernels': [...]} in bytes, or {'error': message}."""
    if not ncu_available():
        return {"error": "ncu is not on the PATH"}
    command = ["ncu", "--clock-control", "none", "--csv", "--metrics",
               "dram__bytes_read.sum,dram__bytes_write.sum",
               sys.executable, "-m", "flashio.bench.ncu", "--child", system, "--point", json.dumps(asdict(point))]
    env = dict(os.environ, FLASHIO_AUTOTUNE="0")
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"error": f"ncu did not finish in {timeout_s:.0f} s"}
    rows = [line for line in done.stdout.splitlines() if line.startswith('"')]
    if not rows:
        return {"error": (done.stderr or done.stdout).strip()[-500:]}
    kernels: dict[int, dict] = {}
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        entry = kernels.setdefault(int(row["ID"]), {"name": row["Kernel Name"]})
        value = float(row["Metric Value"].replace(",", "")) * _UNITS.get(row.get("Metric Unit", "byte"), 1.0)
        entry["read" if "read" in row["Metric Name"] else "write"] = value
    ordered = [kernels[i] for i in sorted(kernels)]
    markers = [i for i, kernel in enumerate(ordered) if "spin_kernel" in kernel["name"]]
    if len(markers) < 3:
        return {"error": "could not find the pass markers in ncu's output"}
    start, middle, end = markers[-3:]
    passes = {"fwd": ordered[start + 1:middle], "bwd": ordered[middle + 1:end]}
    total = lambda ks, key: sum(k.get(key, 0.0) for k in ks)
    return {
        "fwd": (total(passes["fwd"], "read"), total(passes["fwd"], "write")),
        "bwd": (total(passes["bwd"], "read"), total(passes["bwd"], "write")),
        "kernels": [{"pass": name, **k} for name, ks in passes.items() for k in ks],
    }


def attach_dram_bytes(results: list, points: list, progress: bool = True) -> None:
    """Fill ``dram_read_bytes``/``dram_write_bytes`` of successful results, one ncu run per (point, system)."""
    by_key: dict[tuple, list] = {}
    for r in results:
        if r.status == "ok":
            by_key.setdefault((r.system, r.seqlen, r.head_dim, r.causal, r.dtype, r.dropout_p, r.padding,
                               r.batch, r.heads), []).append(r)
    point_of = {(p.seqlen, p.head_dim, p.causal, p.dtype, p.dropout_p, p.padding, p.resolved_batch,
                 p.resolved_heads): p for p in points}
    for index, (key, rows) in enumerate(by_key.items(), 1):
        if progress:
            print(f"ncu {index}/{len(by_key)}: {key[0]} N={key[1]} d={key[2]} causal={key[3]}",
                  file=sys.stderr, flush=True)
        measured = measure_dram_bytes(key[0], point_of[key[1:]])
        for row in rows:
            if "error" in measured:
                row.reason = (row.reason + "; " if row.reason else "") + f"ncu: {measured['error'][:120]}"
                continue
            if row.mode == "fwdbwd":
                row.dram_read_bytes = measured["fwd"][0] + measured["bwd"][0]
                row.dram_write_bytes = measured["fwd"][1] + measured["bwd"][1]
            else:
                row.dram_read_bytes, row.dram_write_bytes = measured[row.mode]


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flashio.bench.ncu")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--point", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--system", default="flashio")
    parser.add_argument("--seqlen", type=int, default=1024)
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--dtype", default="fp16")
    parser.add_argument("--causal", action="store_true")
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.point)
        return 0
    from flashio.bench.sweep import BenchPoint

    point = BenchPoint(args.seqlen, args.head_dim, args.causal, args.dtype, batch=args.batch, heads=args.heads)
    measured = measure_dram_bytes(args.system, point)
    if "error" in measured:
        print(f"ncu failed: {measured['error']}", file=sys.stderr)
        return 1
    for name in ("fwd", "bwd"):
        print(f"{args.system} {name}: DRAM read {measured[name][0] / 1e9:.3f} GB, write {measured[name][1] / 1e9:.3f} GB")
    for kernel in measured["kernels"]:
        print(f"  {kernel['pass']} {kernel.get('read', 0) / 1e9:8.3f} R {kernel.get('write', 0) / 1e9:8.3f} W  "
              f"{kernel['name'][:100]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
