"""First-call latency of flashio on a GPU: the forward and backward of one shape, timed from the first call
(Triton compiling and the tuner timing every candidate) to the steady state.

    FLASHIO_TUNING_CACHE=/tmp/tuning python3 benchmarks/first_call.py --head-dim 128 --seqlen 4096

Run it with an empty Triton cache (``TRITON_CACHE_DIR`` a fresh folder) and no tuning file for what a new
machine pays; again (Triton's compiled kernels and flashio's tuning file both on disk: neither is repeated);
and with FLASHIO_TUNING_CACHE=off (compiled kernels on disk, the timing repeated). FLASHIO_TUNE_ALL=1 times
every candidate (configs.HOPPER_UNTIMED included) and FLASHIO_COMPILE_THREADS=1 compiles them one by one, as
before v0.27. Besides the times it prints how many kernels Triton compiled (and their summed compile time,
which concurrent compiles overlap), how many candidates the tuner timed, the choices it made, the first call's
forward and backward seconds and each concurrent compile batch (jobs, wall seconds); ``--profile N`` adds the
first call's N costliest functions (cProfile; on Python 3.12 its records also take in the compile pool's
threads, so read a function's cost as the calling thread's only where it runs there). Not part of the test suite (needs a CUDA GPU).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time

import torch
from triton import knobs

import flashio
from flashio import configs, launch_plans, launchers


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--seqlen", type=int, default=4096)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--build-launchers-ahead", action=argparse.BooleanOptionalAction, default=None,
                        help="launch_plans.BUILD_LAUNCHERS_AHEAD on or off (on by default since v0.30): the compile "
                             "batches also build the kernels' launchers")
    parser.add_argument("--backward-with-forward", action=argparse.BooleanOptionalAction, default=None,
                        help="launch_plans.COMPILE_BACKWARD_WITH_FORWARD on or off (on by default since v0.30): the "
                             "forward's first compile batch also compiles the backward's candidates")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="profile the first call (cProfile) and print its N costliest functions "
                             "by cumulative time")
    args = parser.parse_args()
    if args.build_launchers_ahead is not None:
        launch_plans.BUILD_LAUNCHERS_AHEAD = args.build_launchers_ahead
    if args.backward_with_forward is not None:
        launch_plans.COMPILE_BACKWARD_WITH_FORWARD = args.backward_with_forward
    batch, heads = args.tokens // args.seqlen, args.hidden // args.head_dim
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    compiles = {"seconds": 0.0, "cache_hits": 0}
    compiled_names: list[str] = []  # in compile order: a call's are those added during it

    def listen(*, src, metadata, metadata_group, times, cache_hit):
        if cache_hit:
            compiles["cache_hits"] += 1
        else:
            compiled_names.append(getattr(getattr(src, "fn", None), "__name__", "?"))
            compiles["seconds"] += times.total / 1e6 if hasattr(times, "total") else 0.0

    knobs.compilation.listener = listen
    torch.ones(1, device="cuda")  # CUDA's start-up is not the first call's
    # Nor is torch's first backward with a given gradient, which imports torch.fx's symbolic shapes (and sympy):
    # 3.1 s of a profiled first call in v0.29, paid once per process by any such backward.
    torch.ones(1, requires_grad=True).backward(torch.ones(1))
    # Each concurrent compile batch (launch_plans.compile_concurrently): its jobs and wall time.
    batches: list[tuple[int, float]] = []
    compile_concurrently = launch_plans.compile_concurrently

    def timed_batch(jobs, more=None):
        added: list = []  # the jobs ``more`` provides (a forward's first call: its backward's compiles)

        def counted_more():
            extra = list(more())
            added.extend(extra)
            return extra

        start = time.perf_counter()
        # A tree whose compile_concurrently takes no ``more`` (v0.28) never passes one.
        compile_concurrently(jobs, *(() if more is None else (counted_more,)))
        batches.append((len(jobs) + len(added), time.perf_counter() - start))

    launch_plans.compile_concurrently = timed_batch
    passes: list[float] = []  # the last call's forward and backward seconds

    def call(seqlen: int) -> float:
        q, k, v = (torch.randn(batch, heads, seqlen, args.head_dim, device="cuda", dtype=dtype,
                               requires_grad=True) for _ in range(3))
        grad = torch.randn_like(q)
        torch.cuda.synchronize()
        start = time.perf_counter()
        out = flashio.attention(q, k, v, is_causal=args.causal)
        torch.cuda.synchronize()
        middle = time.perf_counter()
        out.backward(grad)
        torch.cuda.synchronize()
        passes[:] = [middle - start, time.perf_counter() - middle]
        return time.perf_counter() - start

    def measured_call(seqlen: int) -> tuple[float, list[str]]:
        """(seconds, names of the kernels Triton compiled) of one call at ``seqlen``."""
        before = len(compiled_names)
        seconds = call(seqlen)
        return seconds, compiled_names[before:]

    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    first = call(args.seqlen)
    if profiler is not None:
        profiler.disable()
    first_compiled, first_compiles, timed = len(compiled_names), dict(compiles), configs.tuning_measurements()
    warm_ups, warm_up_seconds = launchers.tuning_warm_ups()
    first_passes, first_batches = list(passes), list(batches)
    second = call(args.seqlen)
    # Another length in the same power-of-two bucket (and divisible by 16, as Triton specialises): the cached
    # choice is reused, nothing is timed or compiled.
    same_bucket_length = args.seqlen * 3 // 4
    same_bucket, same_bucket_compiled = measured_call(same_bucket_length)
    # The same bucket at a length that is not a multiple of 16: nothing is timed, but kernels whose length
    # arguments Triton specialises are compiled once more (then cached for every such length).
    odd_length = same_bucket_length - 8
    odd, odd_compiled = measured_call(odd_length)
    odd_again, _ = measured_call(odd_length - 16)
    print(f"d={args.head_dim} N={args.seqlen} causal={args.causal} {args.dtype}: first forward+backward "
          f"{first:.2f} s ({first_compiled} kernels compiled, {first_compiles['seconds']:.1f} s of "
          f"compiling summed, {first_compiles['cache_hits']} from Triton's cache; {timed} candidates timed after "
          f"{warm_ups} warm-ups of {warm_up_seconds:.2f} s in all), "
          f"second {second * 1e3:.1f} ms, N={same_bucket_length} (same bucket) {same_bucket * 1e3:.1f} ms "
          f"({len(same_bucket_compiled)} kernels compiled, {configs.tuning_measurements() - timed} timed), "
          f"N={odd_length} (not a multiple of 16) {odd * 1e3:.1f} ms ({len(odd_compiled)} kernels compiled), "
          f"N={odd_length - 16} {odd_again * 1e3:.1f} ms")
    print(f"    first call: forward {first_passes[0]:.2f} s, backward {first_passes[1]:.2f} s; compile batches "
          f"(jobs, wall s): " + ", ".join(f"({jobs}, {seconds:.2f})" for jobs, seconds in first_batches)
          + f"; candidates timed through their launcher after a failed capture: {launchers.tuning_replay_fallbacks()}")
    for label, names in (("same bucket", same_bucket_compiled), ("not a multiple of 16", odd_compiled)):
        if names:
            print(f"    compiled for the {label} call: {', '.join(names)}")
    for key, choice in configs.cached_choices().items():
        print(f"    {key[0]}: {choice}")
    if profiler is not None:
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
