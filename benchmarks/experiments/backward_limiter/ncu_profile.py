"""What limits the backward at short sequences: Nsight Compute sections of flashio's fused backward kernel and
cuDNN's backward kernel at d=128 bf16, N = 1k (causal and not) against N = 16k.

Why (benchmarks/PERFORMANCE.md, v0.12): flashio's backward reaches 0.90x cuDNN at N = 16k but 0.83-0.86x at
N = 1k; a fit of the v0.11 bench put ~11 µs per program outside the block loop, yet the persistent form
(which overlaps a key block's loads and stores with the next block) gained 0-2% at N = 1k. These sections
say where the time goes instead: SM and memory throughput (SpeedOfLight), the tensor pipe's utilisation
(ComputeWorkloadAnalysis), L2/DRAM traffic (MemoryWorkloadAnalysis) and the warps' stall reasons
(WarpStateStats), kernel by kernel, under ``ncu --clock-control none``.

    PYTHONPATH=src python3 benchmarks/experiments/backward_limiter/ncu_profile.py > ncu.log   # parent: runs ncu

The child (``child`` argument) runs each point's backward once to compile, then once between
cudaProfilerStart/Stop; ncu profiles only the kernels matching ``fused|bprop`` in that window. flashio's
backward is forced to the fused kernel's first d=128 candidate (FLASHIO_BACKWARD_PATH=gluon: the tuned
choice at these points in the v0.11/v0.12 grids), its forward untuned (FLASHIO_AUTOTUNE=0; not profiled).

Run 1 (v0.12, H200, 26 s on the machine; results/2026-11-30_h200_v0.12_probes/ncu_backward.log): flashio's
kernel issues at ~0.6x cuDNN's rate, its tensor pipe 11-15 points less busy; the non-causal compile waits on
local-memory spill reloads, the causal one at its CTA-wide barriers (table in benchmarks/PERFORMANCE.md).
"""

import os
import subprocess
import sys

POINTS = ((False, 16384), (False, 1024), (True, 1024))
SECTIONS = ("SpeedOfLight", "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis", "WarpStateStats", "LaunchStats",
            "Occupancy")


def child() -> None:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from flashio import launchers

    torch.manual_seed(0)
    d = 128
    for causal, n in POINTS:
        batch, heads = 16384 // n, 2048 // d  # the grid: 16k tokens, hidden 2048
        q, k, v, do = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
        scale = d ** -0.5
        out, lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal,
                                               dropout_p=0.0, seed=0)
        leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            graph = F.scaled_dot_product_attention(*leaves, is_causal=causal)
        runs = {"flashio": lambda: launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd",
                                                                softmax_scale=scale, causal=causal, dropout_p=0.0,
                                                                seed=0),
                "cuDNN": lambda: torch.autograd.grad(graph, leaves, do, retain_graph=True)}
        for name, run in runs.items():
            run()
            torch.cuda.synchronize()
            print(f"== {name} causal={causal} N={n}", flush=True)
            torch.cuda.cudart().cudaProfilerStart()
            run()
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()


def main() -> int:
    if sys.argv[1:] == ["child"]:
        child()
        return 0
    env = dict(os.environ, FLASHIO_BACKWARD_PATH="gluon", FLASHIO_AUTOTUNE="0", FLASHIO_TUNING_CACHE="off")
    command = ["ncu", "--clock-control", "none", "--profile-from-start", "off", "-k", "regex:fused|bprop",
               *(argument for section in SECTIONS for argument in ("--section", section)),
               sys.executable, __file__, "child"]
    print(" ".join(command), flush=True)
    return subprocess.run(command, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
