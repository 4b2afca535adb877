"""DRAM bytes per kernel, measured with Nsight Compute, for standard attention, flashio and SDPA.

    python3 benchmarks/ncu_dram.py --out results.json      # on a GPU machine with ncu on the PATH

Runs each system's forward+backward once at the paper's GPT-2 medium shape (batch 64, 16 heads, N=1024,
d=64, fp16; inputs made on the CPU so that no generator kernel is counted) in a child process under
`ncu --clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum`, then prints the bytes of
every kernel and the totals per pass. Kernels are attributed to forward or backward by launch order: the
child launches a marker kernel (ATen's spin_kernel) before, between and after the two passes.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys

SHAPE = dict(batch=64, heads=16, seqlen=1024, head_dim=64)


def child(system: str, causal: bool) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
    import torch
    import torch.nn.functional as F

    import flashio

    b, h, n, d = SHAPE["batch"], SHAPE["heads"], SHAPE["seqlen"], SHAPE["head_dim"]
    make = lambda: torch.randn(b, h, n, d, dtype=torch.float16).cuda().requires_grad_(True)
    q, k, v = make(), make(), make()
    dout = torch.randn(b, h, n, d, dtype=torch.float16).cuda()
    if system == "standard":
        fn = lambda: flashio.attention_reference(q, k, v, causal=causal, upcast=False)
    elif system == "flashio":
        fn = lambda: flashio.attention(q, k, v, causal=causal)
    else:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = {"sdpa_flash": SDPBackend.FLASH_ATTENTION, "sdpa_cudnn": SDPBackend.CUDNN_ATTENTION}[system]

        def fn():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    torch.cuda.synchronize()
    # Markers: torch.cuda._sleep launches ATen's `spin_kernel`, which no attention path uses.
    torch.cuda._sleep(10)  # start
    out = fn()
    torch.cuda.synchronize()
    torch.cuda._sleep(10)  # forward / backward boundary
    out.backward(dout)
    torch.cuda.synchronize()
    torch.cuda._sleep(10)  # end
    torch.cuda.synchronize()


def profile(system: str, causal: bool) -> dict:
    command = ["ncu", "--clock-control", "none", "--csv", "--metrics",
               "dram__bytes_read.sum,dram__bytes_write.sum", sys.executable, __file__, "--child", system]
    if causal:
        command.append("--causal")
    env = dict(os.environ, FLASHIO_AUTOTUNE="0")
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    lines = [l for l in result.stdout.splitlines() if l.startswith('"')]
    if not lines:
        return {"system": system, "causal": causal, "error": (result.stderr or result.stdout)[-2000:]}
    kernels: dict[int, dict] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        entry = kernels.setdefault(int(row["ID"]), {"name": row["Kernel Name"][:90]})
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "byte")
        scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}.get(unit, 1)
        entry["read" if "read" in row["Metric Name"] else "write"] = value * scale
    ordered = [kernels[i] for i in sorted(kernels)]
    markers = [i for i, kernel in enumerate(ordered) if "spin_kernel" in kernel["name"]]
    start, middle, end = markers[-3], markers[-2], markers[-1]
    forward, backward = ordered[start + 1:middle], ordered[middle + 1:end]
    total = lambda ks, key: sum(k.get(key, 0.0) for k in ks)
    return {
        "system": system, "causal": causal,
        "forward": forward, "backward": backward,
        "fwd_read_gb": total(forward, "read") / 1e9, "fwd_write_gb": total(forward, "write") / 1e9,
        "bwd_read_gb": total(backward, "read") / 1e9, "bwd_write_gb": total(backward, "write") / 1e9,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", default=None)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--out", default=None)
    parser.add_argument("--systems", nargs="+", default=["standard", "flashio", "sdpa_flash", "sdpa_cudnn"])
    args = parser.parse_args()
    if args.child:
        child(args.child, args.causal)
        return 0
    results = []
    for system in args.systems:
        for causal in (False, True):
            r = profile(system, causal)
            results.append(r)
            if "error" in r:
                print(f"{system} causal={causal}: ERROR {r['error'][-500:]}")
                continue
            print(f"\n{system} causal={causal}: fwd read {r['fwd_read_gb']:.3f} GB write {r['fwd_write_gb']:.3f} GB; "
                  f"bwd read {r['bwd_read_gb']:.3f} GB write {r['bwd_write_gb']:.3f} GB")
            for phase in ("forward", "backward"):
                for kernel in r[phase]:
                    print(f"   {phase[:3]} {kernel.get('read', 0) / 1e9:7.3f} R {kernel.get('write', 0) / 1e9:7.3f} W  {kernel['name']}")
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
