"""What limits flashio's kernels at short sequences: Nsight Compute sections of flashio's kernel and cuDNN's
for the same pass and shape, bf16, on the H200.

Why (benchmarks/PERFORMANCE.md, v0.12): flashio's backward reaches 0.90x cuDNN at N = 16k but 0.83-0.86x at
N = 1k; a fit of the v0.11 bench put ~11 µs per program outside the block loop, yet the persistent form
(which overlaps a key block's loads and stores with the next block) gained 0-2% at N = 1k. These sections
say where the time goes instead: SM and memory throughput (SpeedOfLight), the tensor pipe's utilisation
(ComputeWorkloadAnalysis), L2/DRAM traffic (MemoryWorkloadAnalysis) and the warps' stall reasons
(WarpStateStats), kernel by kernel, under ``ncu --clock-control none``.

    PYTHONPATH=src python3 benchmarks/experiments/backward_limiter/ncu_profile.py > ncu.log        # run 1
    PYTHONPATH=src python3 benchmarks/experiments/backward_limiter/ncu_profile.py --stats-in-shared
    PYTHONPATH=src python3 benchmarks/experiments/backward_limiter/ncu_profile.py --pass forward
    PYTHONPATH=src python3 benchmarks/experiments/backward_limiter/ncu_profile.py --pass forward --forward-form persistent
    PYTHONPATH=src python3 benchmarks/experiments/backward_limiter/ncu_profile.py --pass forward --forward-form out-regs
    PYTHONPATH=src python3 benchmarks/experiments/backward_limiter/ncu_profile.py --pass forward --forward-form three

The child (``--child``) runs each point's pass once (compiling, and for the forward tuning it), then once
between cudaProfilerStart/Stop; ncu profiles only the kernels of that pass in that window (flashio's
``attention_forward*`` or fused backward kernels, cuDNN's ``fprop``/``bprop``). The backward is forced to
the fused kernel's first d=128 candidate (FLASHIO_BACKWARD_PATH=gluon: the tuned choice at these points in
the v0.11/v0.12 grids), or with ``--stats-in-shared`` to its form with LSE/D rows in shared memory; the
forward is flashio's tuned choice.

Run 1 (v0.12, H200, 26 s on the machine; results/2026-11-30_h200_v0.12_probes/ncu_backward.log): flashio's
kernel issues at ~0.6x cuDNN's rate, its tensor pipe 11-15 points less busy; the non-causal compile waits on
local-memory spill reloads, the causal one at its CTA-wide barriers (table in benchmarks/PERFORMANCE.md).
Run 2 (v0.13, ``--stats-in-shared``; results/2026-11-30_h200_v0.13_probes/ncu_stats.log): no local-memory
requests left (117.6 M at 16k before); kernel 8780 µs at 16k non-causal (cuDNN 8930: faster), 731 at 1k (cuDNN
647), 508 at causal 1k (cuDNN 410); tensor pipe 64.7 / 48.9 / 39.8% busy against cuDNN's 65.1 / 56.3 / 50.0%;
the causal kernel's top stall is still its CTA-wide barriers (30% of 15 cycles between issues).
Run 3 (v0.13, ``--pass forward``; ncu_forward.log): d=128 non-causal 16k 3.05 ms (Gluon persistent pipelined)
against cuDNN's 3.17; causal 1k 186 µs (Triton persistent) against 161, causal 2k 313 against 266; d=64 causal
4k 684 µs (the portable kernel, 64x64) against 636. At d=128 causal 1k / 2k flashio's forward waits longer
between issues (7.5 / 7.3 cycles against cuDNN's 5.9 / 5.7) and keeps the SM 9-10 points less busy (44.5 /
49.8% against 53.2 / 59.5%); the d=64 portable kernel is busier than cuDNN's (56.7 against 48.2%) and still
slower (warp-level MMAs, not warpgroup ones).
Since v0.13 the fused backward's first d=128 candidate is the shared-memory form, so ``--stats-in-shared``
changes nothing; ``--forward-form persistent|out-regs`` (prepared in v0.13, not run; the non-causal 1k point
added to the forward points) compares the persistent Gluon forward with the form that stores its output from
registers; ``three|three-plain`` (prepared in v0.14, not run; d=64 causal 1k added) the d=64 forms with three
consumer warpgroups, which the v0.14 probe measured 12-26% slower than two at causal 1k-2k.
Run 4 (v0.18): ``--pass forward --point 128:causal:1024`` with ``--forward-form out-regs-half-balanced`` (the
tuned d=128 Gluon form) and ``--forward-form ws-balanced`` (the Triton persistent kernel with the list, the
tuned choice there): why the Gluon form, which masks only the diagonal, trails the Triton kernel, which masks
every block, by 1-2% at d=128 causal 1k. Prediction: the Gluon kernel's warps wait longer at barriers (its
consumers' tile boundaries: the first scores and softmax, the last P V product and epilogue, with nothing of
their own to overlap) and its tensor pipe is less busy, while it issues fewer instructions. Outcome (v0.18,
results/2026-12-01_h200_v0.18_probes/ncu_run4_*.log): held — Gluon 194.7 µs, tensor pipe 41.0%, 1.13
instructions per active cycle, 10.6 cycles between a warp's issues (top stall: CTA barrier); Triton 186.4 µs,
45.2%, 1.63, 7.4 (short scoreboard); cuDNN 160.7 µs, 53.4%, 1.54, 5.9. Run 5 exported the Gluon kernel's source
page (``stall_sites.py`` beside this file sums it): a quarter of the samples are warps parked at the final
barriers for the whole kernel (padding warps: no cost); of the rest, the consumers' wait for their Q tile at
each tile start is 7.2%, warpgroup-MMA waits 9.9%, exponentials 9.9%.
Run 6 (v0.19): the backward at d=64 (the tuned persistent form with three Q/dO slots and two dS^T tiles, now
the first candidate) and at d=128 causal 1k the tuned persistent listed form (``--backward-form
persistent-balanced``): ``--point 64:noncausal:1024``, ``--point 64:causal:1024``, ``--backward-form
persistent-balanced --point 128:causal:1024`` (results/2026-12-01_h200_v0.19_probes/ncu_run6_*.log).
Kernel alone, flashio / cuDNN: d=64 non-causal 1k 918 / 794 µs (SM busy 38.8 / 45.3%, IPC 1.12 / 1.72, 10.7 /
5.8 cycles between a warp's issues), d=64 causal 1k 592 / 554 µs (33.7 / 36.4%, 1.21 / 1.47, 9.9 / 6.8), d=128
causal 1k 507 / 410 µs (39.7 / 49.9%, 0.80 / 1.25, 14.9 / 8.0). Same 12 warps and one program per SM on both
sides, DRAM 15-33% of peak, L2 hits 69-81% on both: neither is memory-bound; flashio's MMA warps issue less often.
Run 8 (v0.23): the d=64 non-causal forward, where a polynomial for a share of the exponentials (forward probe
run 19) lost in proportion to its share: ``--pass forward --forward-form q-regs-half-balanced --point
64:noncausal:16384`` and ``--forward-form two-programs --point 64:noncausal:1024`` (each the fastest form at its
point). Prediction: the MUFU (XU) pipe below the issue slots' use; issue slots busy above cuDNN's.
Run 7 (v0.20): d=128 with ``--backward-form three-slots`` (the tuned causal form since v0.20) and ``rows`` (the
key rows on two MMA partitions, 1-3% slower in probe run 7) at ``--point 128:causal:1024``, and at
``--point 128:noncausal:1024`` ``three-slots`` and ``--stats-in-shared`` (the specialised form the tuner takes
there) (results/2026-12-01_h200_v0.20_probes/ncu_run7_*.log); run after probe run 7 to say why the row-split
kernel lost, with no prediction written beforehand. Kernel alone, flashio / cuDNN: causal 1k three slots
495 / 411 µs (IPC 0.80 / 1.25, 15.0 / 8.0 cycles between a warp's issues, issue slots busy 19 / 29%, tensor-led
pipe 40.8 / 50.0%), rows 520 / 411 µs (0.85, 14.2 cycles; 339 k local-memory requests against 11 k for the
three-slot form, and 12% more instructions); non-causal 1k specialised 738 / 641 µs (0.77 / 1.36),
three slots 742 / 640 µs (0.75). From IPC x active cycles x 132 SMs cuDNN issues 25% (causal) to 50% (non-causal)
more instructions than flashio in 15-18% fewer cycles: the gap is latency between a warp's issues (its products
and exponentials wait on each other), not instruction count, memory, occupancy (12 warps, 168 registers, one
program per SM, 215-216 KB of shared memory on both sides) or the 8-warp barrier (the row-split kernel, which
has none, is slower). cuDNN's kernel name says 64x64 tiles at d=128 (flashio: 64 queries x 128 keys).
Run 13 (v0.34; results/2026-12-02_h200_v0.34_probes/): d=256's role-split backward (``--point 256:noncausal:1024``,
``256:noncausal:16384``), its source page read with stall_sites.py: A's first use of its LSE row (loaded after
the S^T product's issue) held 13% of its samples, and the float32 P^T and dQ tiles' 8-byte shared stores took twice
the ideal wavefronts; both fixed or prepared since (PERFORMANCE.md v0.34). Run 15 (prepared): the same source page
for the tuned d=128 form and the same with its dQ tile stored without bank conflicts (``--backward-form tuned``,
``tuned-spread``, ``--point 128:noncausal:1024``): the d=128 backward was never profiled per instruction.
Run 16 (v0.35): d=256's tuned tile against the same with its dQ chunks stored without bank conflicts
(``--backward-form d256-tuned``, ``d256-tuned-spread``, ``--point 256:noncausal:2048``; probe run 22 put the latter
8-14% behind), read with ``stall_sites.py --shared``. Outcome (v0.35 call 3): the spread stores take the ideal
wavefronts (1.80 -> 1.00 of it), but the MMA warpgroups' waits for Q_i and dO_i to land grow 5x and 4x (2.4k ->
11.8k and 6.4k -> 24.8k samples) while the loader's waits for free slots stay level: the loads land later.
Run 15's outcome (the same call): d=128's spread stores 1.98 -> 1.00 of the ideal wavefronts, -2.2% stall samples;
the first uses of each block's LSE row, read after the S^T wait, hold 7% of the samples outside the parked warps.
"""

import argparse
import os
import subprocess
import sys
from dataclasses import replace

from flashio import configs
from flashio.configs import TileConfig

BACKWARD_POINTS = ((128, False, 16384), (128, False, 1024), (128, True, 1024), (64, False, 1024), (64, True, 1024),
                   # v0.34 (run 13): d=256's role-split backward, never profiled before.
                   (256, False, 1024), (256, False, 16384),
                   # v0.35 (run 16): where probe run 22 put the d=256 spread dQ stores 14% behind.
                   (256, False, 2048))
FORWARD_POINTS = ((128, False, 16384), (128, False, 1024), (128, True, 1024), (128, True, 2048), (64, True, 4096),
                  (64, True, 1024), (64, False, 16384), (64, False, 1024))
# --forward-form: the persistent Gluon forward as tuned since v0.11, with its output stored from registers
# (v0.14: tuned), or at d=64 with three consumer warpgroups (192-row tile; pipelined or plain loop; d=128 then
# takes the output-from-registers form), instead of flashio's tuned choice.
FORWARD_FORMS = {"persistent": {}, "out-regs": {"output_from_registers": True},
                 "three": {"output_from_registers": True, "block_m": 192},
                 "three-plain": {"output_from_registers": True, "block_m": 192, "pipelined": False},
                 # v0.18: the tuned d=128 Gluon form (half diagonal block, balanced tile list), and the Triton
                 # persistent kernel with the list (the tuned choice at d=128 causal 1k).
                 "out-regs-half-balanced": {"output_from_registers": True, "half_diagonal": True,
                                            "balanced_schedule": True},
                 "ws-balanced": None,
                 # v0.23 (d=64 only): the tuned persistent d=64 form (Q in registers, two Q sets) and the tuned
                 # two-program 64-key tile (80 registers, plain loop, non-persistent).
                 "q-regs-half-balanced": {"output_from_registers": True, "q_buffers": 2, "half_diagonal": True,
                                          "balanced_schedule": True, "q_in_registers": True},
                 "two-programs": {"persistent": False, "pipelined": False, "block_n": 64, "max_registers": 80}}
# v0.25's ncu run 10 had "q-regs-half-balanced-lazy" too, that d=64 form with lazy_rescale=True (conditional
# rescaling, removed after forward probe run 24: results/2026-12-01_h200_v0.25_probes/conditional_rescaling.patch).
# v0.26's ncu run 12 had "out-regs-half-balanced-k2v3-q2", the d=128 form with split_kv=True, k_stages=2 and
# q_buffers=2 (two K slots, three V slots, two Q sets; removed after forward probe run 26:
# results/2026-12-01_h200_v0.26_probes/k_stages.patch).
# --backward-form (d=128, persistent with the balanced list): the tuned causal form of v0.18 (two Q/dO slots,
# two dQ tiles), of v0.20 (three slots, one dQ tile), and the key rows on two MMA partitions (v0.20: correct,
# 1-3% slower at d=128).
BACKWARD_FORMS = {
    "persistent-balanced": TileConfig(64, 128, 8, 2, "gluon", dq_chunks=1, dq_buffers=2, warp_specialised=True,
                                      persistent=True, stats_in_shared=True, balanced_schedule=True),
    "three-slots": TileConfig(64, 128, 8, 3, "gluon", dq_chunks=1, dq_buffers=1, warp_specialised=True,
                              persistent=True, stats_in_shared=True, balanced_schedule=True),
    "rows": TileConfig(64, 128, 4, 2, "gluon", warp_specialised=True, persistent=True, stats_in_shared=True,
                       balanced_schedule=True, split_rows=True),
    # v0.34 (prepared, run 15): the tuned form as it was in v0.34 (the last d=128 candidate: split tail, 16-byte dK/dV
    # stores) and the same with its dQ tile stored without bank conflicts (tuned since v0.35).
    "tuned": replace(configs.BACKWARD_FUSED_CANDIDATES[128][-1], spread_dq_stores=False),
    "tuned-spread": replace(configs.BACKWARD_FUSED_CANDIDATES[128][-1], spread_dq_stores=True),
    # v0.35 (run 16): d=256's tuned role-split tile and the same with its dQ chunks stored without bank conflicts
    # (probe run 22: 8-14% slower, with the same stores and one select per dQ register more in its SASS).
    "d256-tuned": configs.BACKWARD_FUSED_CANDIDATES[256][0],
    "d256-tuned-spread": replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], spread_dq_stores=True)}
KERNELS = {"backward": "regex:fused|bprop", "forward": "regex:attention_forward|fprop"}
SECTIONS = ("SpeedOfLight", "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis", "WarpStateStats", "LaunchStats",
            "Occupancy")


def child(kernel_pass: str, stats_in_shared: bool, forward_form: str | None, only: str | None = None,
          backward_form: str | None = None, forward_candidate: int | None = None, mask_by_branch: bool = False) -> None:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from flashio import configs, launchers

    if stats_in_shared:
        configs.BACKWARD_FUSED_CANDIDATES[128] = (configs.TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True,
                                                                     stats_in_shared=True),)
    if backward_form is not None:  # one form instead of the first candidate (d=256 for the d256- forms, else d=128)
        configs.BACKWARD_FUSED_CANDIDATES[256 if backward_form.startswith("d256-") else 128] = \
            (BACKWARD_FORMS[backward_form],)
    if forward_form == "ws-balanced":
        os.environ["FLASHIO_FORWARD_PATH"] = "ws"
        for d in (64, 128):
            configs.FORWARD_WS_CANDIDATES[d] = (configs.TileConfig(128, 128, 4, 2, "ws", persistent=True,
                                                                   balanced_schedule=True),)
    elif forward_form is not None:
        os.environ["FLASHIO_FORWARD_PATH"] = "gluon"
        base = configs.TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True)
        options = FORWARD_FORMS[forward_form]
        for d in (64, 128):
            three_consumers_at_d128 = d == 128 and options.get("block_m") == 192
            configs.FORWARD_GLUON_CANDIDATES[d] = (
                replace(base, output_from_registers=True) if three_consumers_at_d128 else replace(base, **options),)
    if forward_candidate is not None:  # v0.49: one entry of the library's own candidate list, at every head dim
        os.environ["FLASHIO_FORWARD_PATH"] = "gluon"  # (v0.56: at those whose list has that entry: d=64 has ten)
        for d in (64, 128):
            if forward_candidate < len(configs.FORWARD_GLUON_CANDIDATES[d]):
                # (v0.56: --mask-by-branch adds the option; without it a candidate that has it keeps it)
                candidate = configs.FORWARD_GLUON_CANDIDATES[d][forward_candidate]
                configs.FORWARD_GLUON_CANDIDATES[d] = (
                    replace(candidate, mask_by_branch=mask_by_branch or candidate.mask_by_branch),)
    torch.manual_seed(0)
    points = BACKWARD_POINTS if kernel_pass == "backward" else FORWARD_POINTS
    if only is not None:  # v0.53: any point, not only the listed ones (a point off the list profiled nothing)
        d, mode, n = only.split(":")
        points = ((int(d), mode == "causal", int(n)),)
    for d, causal, n in points:
        batch, heads = 16384 // n, 2048 // d  # the grid: 16k tokens, hidden 2048
        q, k, v, do = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
        scale = d ** -0.5
        forward = lambda: launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal,
                                                      dropout_p=0.0, seed=0)
        out, lse = forward()
        leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            graph = F.scaled_dot_product_attention(*leaves, is_causal=causal)
        if kernel_pass == "backward":
            runs = {"flashio": lambda: launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd",
                                                                    softmax_scale=scale, causal=causal,
                                                                    dropout_p=0.0, seed=0),
                    "cuDNN": lambda: torch.autograd.grad(graph, leaves, do, retain_graph=True)}
        else:
            def cudnn_forward():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION), torch.no_grad():
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            runs = {"flashio": forward, "cuDNN": cudnn_forward}
        for name, run in runs.items():
            run()
            torch.cuda.synchronize()
            print(f"== {name} {kernel_pass} d={d} causal={causal} N={n}", flush=True)
            torch.cuda.cudart().cudaProfilerStart()
            run()
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pass", dest="kernel_pass", choices=("backward", "forward"), default="backward")
    parser.add_argument("--stats-in-shared", action="store_true",
                        help="backward: the fused kernel with LSE/D rows in shared memory")
    parser.add_argument("--forward-form", choices=tuple(FORWARD_FORMS),
                        help="forward: this form of the persistent Gluon forward instead of the tuned choice")
    parser.add_argument("--backward-form", choices=tuple(BACKWARD_FORMS),
                        help="backward: this fused form instead of the first candidate (at d=256 for the d256- "
                             "forms, else at d=128)")
    parser.add_argument("--forward-candidate", type=int, default=None, metavar="INDEX",
                        help="forward: configs.FORWARD_GLUON_CANDIDATES[d][INDEX] (at d=64 and d=128) instead of the "
                             "tuned choice (v0.49)")
    parser.add_argument("--mask-by-branch", action="store_true",
                        help="with --forward-candidate: that candidate with mask_by_branch (v0.49)")
    parser.add_argument("--point", default=None, metavar="D:causal|noncausal:N",
                        help="profile only this point of the pass's list (e.g. 128:causal:1024)")
    parser.add_argument("--metrics", default=None, metavar="M1,M2",
                        help="ncu metrics to collect beside the sections (e.g. a pipe's share of its peak)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.kernel_pass, args.stats_in_shared, args.forward_form, args.point, args.backward_form,
              args.forward_candidate, args.mask_by_branch)
        return 0
    env = dict(os.environ, FLASHIO_TUNING_CACHE="off")
    if args.kernel_pass == "backward":
        env.update(FLASHIO_BACKWARD_PATH="gluon", FLASHIO_AUTOTUNE="0")  # the forward is not profiled
    command = ["ncu", "--clock-control", "none", "--profile-from-start", "off", "-k", KERNELS[args.kernel_pass],
               *(argument for section in SECTIONS for argument in ("--section", section)),
               *(["--metrics", args.metrics] if args.metrics else []),
               sys.executable, __file__, "--child", "--pass", args.kernel_pass,
               *(["--stats-in-shared"] if args.stats_in_shared else []),
               *(["--forward-form", args.forward_form] if args.forward_form else []),
               *(["--backward-form", args.backward_form] if args.backward_form else []),
               *(["--forward-candidate", str(args.forward_candidate)] if args.forward_candidate is not None else []),
               *(["--mask-by-branch"] if args.mask_by_branch else []),
               *(["--point", args.point] if args.point else [])]
    print(" ".join(command), flush=True)
    return subprocess.run(command, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
