"""First-call compilation cost without a GPU: Triton compiling, for sm_90a, the kernels that a first forward +
backward call on an H200 times for one shape bucket (16-bit fixed-length inputs, no dropout or mask, N >= 1k),
with an empty Triton cache, on this machine's CPU.

    PYTHONPATH=src python3 benchmarks/compile_cost.py 128 [--causal] [--all] [--threads N]

The set follows the launchers' rules: every forward list (portable, tensor-descriptor, warp-specialised where
configs.WS_TUNED_BUCKETS has the head dim, Gluon), the backward's dQ strategies (configs.dq_strategies: the fused
kernel's candidates, and the two-kernel scheme's dK/dV and dQ tiles where that strategy is timed), less the
candidates configs.HOPPER_UNTIMED leaves out; ``--all`` keeps them (what FLASHIO_TUNE_ALL=1, and every first call
before v0.27, compiled). ``--threads N`` compiles N at a time, as launch_plans.compile_concurrently does on the GPU
(it compiles one timing batch at a time; here everything is one batch, so this is a lower bound). ``--processes N``
compiles them in N worker processes instead (spawned, each importing flashio; the wall includes starting them, and
the wall after a warm-up job in every worker is printed too): whether Python's interpreter lock, which threads
share, limits the threads' wall. The preprocess and conversion kernels, compiled by every first call alike, are
left out.

v0.31 on the H200's 16-core host (results/2026-12-01_h200_v0.31_probes/call1_compile_cost.txt), d=64 causal, 15
kernels: 1 thread 24.3 s wall; 4 threads 7.5 s; 8 threads 6.0 s; 16 threads 7.5 s, the compiles' summed time rising
24 -> 28 -> 44 -> 73 s as they slow each other. 8 and 16 processes: 28.5 and 31.8 s summed, 5.6 and 4.8 s wall once
started, but starting them (spawn, importing torch and flashio) took 4.8-5.7 s. At d=128 non-causal (9 kernels): 8
threads 7.4 s, 8 processes 5.3 s after a 5.4 s start. So the threads do contend (by the summed times), but a process
pool's floor, its longest compile, is ~1-1.5 s below the threads' wall, less than the pool's start.

The GPU measurement is `benchmarks/first_call.py` (v0.27: bf16 d=128 non-causal 4k, 39 kernels compiled and 85.8 s
before, 11 and 20.9 s with the pruning and concurrent compiles on the H200's 16-core host).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from flashio import configs, launchers
from flashio.bench import resources
from flashio.kernels import backward, backward_ws, forward, forward_tma, forward_ws


def _timed(kernel: str, d: int, options, everything: bool, causal: bool) -> list:
    """The options a first call times, as launchers._pick lists them: a causal call's candidates that differ only in
    non-causal options (TileConfig.causal_form) once, then less configs.HOPPER_UNTIMED's (and a non-causal call's less
    configs.HOPPER_CAUSAL_ONLY's)."""
    if causal:
        options = configs.distinct_for_causal(options)
    return configs.timed_candidates(kernel, d, options, hopper_regime=not everything, causal=causal)


def first_call_kernels(d: int, causal: bool, everything: bool) -> list[tuple[str, object, dict, object]]:
    """(label, kernel, constants, config) of each compile a first Hopper call makes for this bucket."""
    jobs = []
    descriptor = lambda c, **extra: dict(BLOCK_M=c.block_m, BLOCK_N=c.block_n, HEAD_DIM=d, IS_CAUSAL=causal,
                                         **extra)
    forward_options = [*configs.FORWARD_CANDIDATES[d], *configs.FORWARD_TMA_CANDIDATES[d],
                       *(configs.FORWARD_WS_CANDIDATES[d] if d in configs.WS_TUNED_BUCKETS["forward"] else ()),
                       *configs.FORWARD_GLUON_CANDIDATES[d]]
    for c in _timed("forward", d, forward_options, everything, causal):
        schedule = launchers.schedule_constexprs(c, causal) if c.persistent else {}  # the grid's lengths
        if c.path == "pointer":
            jobs.append(("forward, portable", forward.attention_forward_kernel,
                         dict(resources._portable_constants(c, d), IS_CAUSAL=causal), c))
        elif c.path == "tma":
            jobs.append(("forward, tensor descriptors", forward_tma.attention_forward_tma_kernel,
                         descriptor(c, IS_VARLEN=False), c))
        elif c.path == "ws":
            kernel = forward_ws.attention_forward_ws_persistent_kernel if c.persistent else \
                forward_ws.attention_forward_ws_kernel
            # MAY_MASK as the launcher sets it at the grid's lengths (multiples of every block)
            jobs.append(("forward, warp-specialised", kernel, descriptor(c, MAY_MASK=causal, **schedule), c))
        else:
            kernel = launchers.forward_gluon_kernels.attention_forward_gluon_persistent_kernel if c.persistent \
                else launchers.forward_gluon_kernels.attention_forward_gluon_kernel
            jobs.append(("forward, Gluon", kernel,
                         dict(launchers.gluon_forward_constants(c, d), IS_CAUSAL=causal, **schedule), c))
    # everything: as outside the lengths the H200 grids timed, or with FLASHIO_TUNE_ALL=1
    strategies = configs.dq_strategies(d, True, grid_lengths=not everything)
    if "fused" in strategies:
        for c in _timed("backward_fused", d, configs.BACKWARD_FUSED_CANDIDATES[d], everything, causal):
            kernel, constants = launchers.fused_backward_kernel(c, d)
            schedule = launchers.schedule_constexprs(c, causal) if c.persistent else {}
            jobs.append(("backward, fused (Gluon)", kernel, dict(constants, IS_CAUSAL=causal, **schedule), c))
    for atomic in [s == "atomic" for s in strategies if s in ("atomic", "separate")]:
        dkdv_options = [*configs.BACKWARD_DKDV_CANDIDATES[d],
                        *(configs.BACKWARD_DKDV_WS_CANDIDATES[d]
                          if not atomic and d in configs.WS_TUNED_BUCKETS["backward_dkdv"] else ())]
        for c in _timed("backward_dkdv", d, dkdv_options, everything, causal):
            for dk, dv in ((True, True),) if c.passes == 1 else ((False, True), (True, False)):
                if c.path == "ws":
                    kernel = backward_ws.attention_backward_dkdv_ws_persistent_kernel if c.persistent else \
                        backward_ws.attention_backward_dkdv_ws_kernel
                    jobs.append(("backward dK/dV, warp-specialised", kernel,
                                 descriptor(c, COMPUTE_DK=dk, COMPUTE_DV=dv), c))
                else:
                    jobs.append(("backward dK/dV, portable" + (" (dQ atomics)" if atomic else ""),
                                 backward.attention_backward_dkdv_kernel,
                                 dict(resources._portable_constants(c, d, ATOMIC_DQ=atomic, COMPUTE_DK=dk,
                                                                    COMPUTE_DV=dv), IS_CAUSAL=causal), c))
        if not atomic:
            dq_options = [*configs.BACKWARD_DQ_CANDIDATES[d],
                          *(configs.BACKWARD_DQ_WS_CANDIDATES[d] if d in configs.WS_TUNED_BUCKETS["backward_dq"]
                            else ())]
            for c in _timed("backward_dq", d, dq_options, everything, causal):
                if c.path == "ws":
                    jobs.append(("backward dQ, warp-specialised", backward_ws.attention_backward_dq_ws_kernel,
                                 descriptor(c), c))
                else:
                    jobs.append(("backward dQ, portable", backward.attention_backward_dq_kernel,
                                 dict(resources._portable_constants(c, d), IS_CAUSAL=causal), c))
    return jobs


def _compile_in_worker(d: int, causal: bool, everything: bool, index: int) -> tuple[str, float, str]:
    """Compile job ``index`` of ``first_call_kernels(d, causal, everything)`` in this (worker) process: (label,
    seconds, error or "")."""
    label, kernel, constants, config = first_call_kernels(d, causal, everything)[index]
    start = time.perf_counter()
    try:
        resources.compile_for_hopper(kernel, constants, config)
        error = ""
    except Exception as exception:  # noqa: BLE001 - a first call pays a failed candidate's attempt too
        error = f"{label} {config}: {type(exception).__name__}"
    return label, time.perf_counter() - start, error


def _started(_index: int) -> None:
    time.sleep(0.2)  # long enough that each worker takes one of these calls


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("head_dim", type=int, choices=(64, 128, 256))
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--all", action="store_true", help="every candidate (FLASHIO_TUNE_ALL=1)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--processes", type=int, default=0, help="compile in N worker processes instead")
    args = parser.parse_args(argv)
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # an empty cache: nothing compiled before is reused
    jobs = first_call_kernels(args.head_dim, args.causal, args.all)
    seconds: dict[str, float] = {}
    failed = []

    def compile_one(job):
        label, kernel, constants, config = job
        start = time.perf_counter()
        try:
            resources.compile_for_hopper(kernel, constants, config)
        except Exception as error:  # noqa: BLE001 - a first call pays a failed candidate's attempt too
            failed.append(f"{label} {config}: {type(error).__name__}")
        seconds[label] = seconds.get(label, 0.0) + time.perf_counter() - start

    start = time.perf_counter()
    if args.processes > 0:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=args.processes, mp_context=context) as pool:
            # every worker started and importing flashio before the compiles' own clock starts
            list(pool.map(_started, range(args.processes)))
            warm = time.perf_counter()
            outcomes = pool.map(_compile_in_worker, *zip(*[(args.head_dim, args.causal, args.all, index)
                                                          for index in range(len(jobs))]))
            for label, value, error in outcomes:
                seconds[label] = seconds.get(label, 0.0) + value
                if error:
                    failed.append(error)
        print(f"workers started in {warm - start:.1f} s; compiles {time.perf_counter() - warm:.1f} s wall after that")
    else:
        with ThreadPoolExecutor(max_workers=max(1, args.threads)) as pool:
            list(pool.map(compile_one, jobs))
    wall = time.perf_counter() - start
    for label, value in seconds.items():
        print(f"d={args.head_dim} {label}: {sum(1 for j in jobs if j[0] == label)} kernels, {value:.1f} s")
    for line in failed:
        print(f"    did not compile: {line}")
    workers = f"{args.processes} process(es)" if args.processes else f"{max(1, args.threads)} thread(s)"
    print(f"d={args.head_dim} {'causal' if args.causal else 'non-causal'}{' (all candidates)' if args.all else ''}: "
          f"{len(jobs)} kernels, {sum(seconds.values()):.1f} s of compiling, {wall:.1f} s wall on {workers}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
