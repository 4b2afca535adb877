"""``flashio bench``: the command line of the benchmarks."""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

from flashio.cli_types import positive_int, probability


def register(subparsers) -> None:
    from flashio.bench.systems import SYSTEMS

    parser = subparsers.add_parser(
        "bench", help="measure flashio and the alternatives (SDPA backends, FlexAttention, standard) on this GPU",
        description="Sweep sequence length, head dim, causal, dtype, dropout and key padding; time forward, "
                    "backward and both for each system; write CSV and JSON.")
    parser.add_argument("--seqlens", type=positive_int, nargs="+", default=[1024, 2048, 4096, 8192, 16384])
    parser.add_argument("--head-dims", type=positive_int, nargs="+", default=[64, 128])
    parser.add_argument("--causal", choices=["both", "yes", "no"], default="both")
    parser.add_argument("--dtypes", choices=["bf16", "fp16"], nargs="+", default=["bf16"])
    parser.add_argument("--dropout", type=probability, nargs="+", default=[0.0], metavar="P")
    parser.add_argument("--padding", choices=["no", "yes", "both"], default="no",
                        help="key padding: sequence lengths drawn in [N-20, N] (the paper's masking benchmark)")
    parser.add_argument("--modes", choices=["fwd", "bwd", "fwdbwd"], nargs="+", default=["fwd", "bwd", "fwdbwd"])
    parser.add_argument("--systems", choices=sorted(SYSTEMS), nargs="+",
                        default=["flashio", "standard", "sdpa_math", "sdpa_flash", "sdpa_efficient", "sdpa_cudnn",
                                 "flex", "flash_attn"])
    parser.add_argument("--tokens", type=positive_int, default=16384, help="batch·N when --batch is not given")
    parser.add_argument("--batch", type=positive_int, default=None, help="a fixed batch size instead of --tokens")
    parser.add_argument("--hidden", type=positive_int, default=2048, help="heads·d")
    parser.add_argument("--out", type=Path, default=Path("bench-results"), metavar="DIR")
    parser.add_argument("--interpret", action="store_true",
                        help="without a GPU: run flashio and standard attention on the CPU through Triton's "
                             "interpreter, at small sizes (correctness and plumbing, not speed)")
    parser.add_argument("--ncu", action="store_true",
                        help="also measure DRAM bytes per pass with Nsight Compute (one ncu run per point and "
                             "system; slow), when ncu is on the PATH")
    parser.add_argument("--timing", choices=("blocks", "interleaved", "sustained"), default="blocks",
                        help="blocks (the default): triton's do_bench per system, one block after the other "
                             "(see --rounds); interleaved: the systems of each point timed call by call in "
                             "turn, L2 flushed before each call, median call per system, so that every system "
                             "runs at the same GPU clock (it follows the power draw within tens of "
                             "milliseconds); fair between kernels of similar power draw, it understates a "
                             "system that would clock higher alone (FA2, standard attention); sustained: each "
                             "system alone, calls back to back, 1 s of warm-up then ~100 ms timed, so that "
                             "each runs at its own power-limited clock, as in a long training job")
    parser.add_argument("--rounds", type=positive_int, default=1,
                        help="with --timing blocks: this many alternate blocks of 100/ROUNDS ms per system, "
                             "median block kept (a block starts at the clock the previous one left)")
    parser.add_argument("--no-progress", action="store_true")
    parser.set_defaults(handler=_bench_command, needs_kernels=False, _parser=parser)


def _bench_command(args) -> int:
    import torch

    parser = args._parser  # argument errors exit with code 2 through argparse, as in the other commands
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out: expected a folder, got the file {args.out}")
    from flashio.bench.sweep import check_timing

    try:
        check_timing(args.timing, args.rounds)
    except ValueError as exc:  # before any GPU work: the message names the option
        parser.error(f"--{exc}")
    has_gpu = torch.cuda.is_available()
    if not has_gpu and not args.interpret:
        print("flashio bench: no CUDA GPU is visible, so there is nothing to time. Use --interpret to run the "
              "kernels on the CPU through Triton's interpreter (small sizes, no timing value), or "
              "`flashio predict` for the model's estimate.", file=sys.stderr)
        return 2
    if not has_gpu:
        from flashio.cli import use_interpreter_without_gpu

        use_interpreter_without_gpu()
        if max(args.seqlens) > 512:
            parser.error("--interpret runs at most N=512 (the interpreter is slow); "
                         f"got --seqlens {' '.join(map(str, args.seqlens))}")

    from flashio.bench.results import write_results
    from flashio.bench.sweep import grid, measure_ceilings, run_sweep, timing_record

    causals = {"both": [False, True], "yes": [True], "no": [False]}[args.causal]
    paddings = {"both": [False, True], "yes": [True], "no": [False]}[args.padding]
    points = grid(args.seqlens, args.head_dims, causals, args.dtypes, args.dropout, paddings, args.batch,
                  args.tokens if has_gpu or args.batch else min(args.tokens, 2 * max(args.seqlens)), args.hidden)
    if not has_gpu:
        points = [dataclasses.replace(p, hidden=min(p.hidden, 2 * p.head_dim)) for p in points]
    ceilings = measure_ceilings() if has_gpu else None
    results = run_sweep(points, args.systems, args.modes, progress=not args.no_progress, rounds=args.rounds,
                        timing=args.timing)
    if args.ncu:
        from flashio.bench.ncu import attach_dram_bytes, ncu_available

        if has_gpu and ncu_available():
            attach_dram_bytes(results, points, progress=not args.no_progress)
        else:
            print("flashio bench: --ncu: skipped (needs a GPU and ncu on the PATH)", file=sys.stderr)
    # How the GPU timings were taken (the interpreter's are one wall-clock call each).
    method = timing_record(args.timing, args.rounds) if has_gpu else None
    csv_path, json_path = write_results(results, args.out, ceilings=ceilings, extra={"timing": method})
    print(format_results(results, ceilings))
    print(f"\nwrote {csv_path} and {json_path}")
    return 0


def format_results(results, ceilings=None) -> str:
    """A Markdown table: one row per (point, system) with the modes side by side."""
    modes = list(dict.fromkeys(r.mode for r in results))
    header = ["system", "dtype", "d", "causal", "N", "B×H", "dropout", "padded"] + \
             [f"{m} ms" for m in modes] + [f"{m} TFLOP/s" for m in modes] + \
             ["× standard (fwdbwd)" if "fwdbwd" in modes else "× standard"] + \
             (["DRAM GB (fwdbwd)"] if any(r.dram_read_bytes is not None for r in results) else []) + \
             (["share of matmul"] if ceilings else []) + ["extra GB", "max err", "note"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    grouped: dict[tuple, dict] = {}
    for r in results:
        key = (r.dtype, r.head_dim, r.causal, r.seqlen, r.batch, r.heads, r.dropout_p, r.padding, r.system)
        grouped.setdefault(key, {})[r.mode] = r
    fmt = lambda x, spec: "–" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)
    for key, by_mode in grouped.items():
        any_row = next(iter(by_mode.values()))
        speed_mode = "fwdbwd" if "fwdbwd" in by_mode else modes[0]
        cells = [key[-1], key[0], str(key[1]), "yes" if key[2] else "no", str(key[3]), f"{key[4]}×{key[5]}",
                 str(key[6]), "yes" if key[7] else "no"]
        cells += [fmt(by_mode[m].time_ms, ".3f") for m in modes]
        cells += [fmt(by_mode[m].tflops, ".1f") for m in modes]
        cells.append(fmt(by_mode[speed_mode].speedup_vs_standard, ".2f"))
        if any(r.dram_read_bytes is not None for r in results):
            row = by_mode[speed_mode]
            cells.append("–" if row.dram_read_bytes is None else f"{(row.dram_read_bytes + row.dram_write_bytes) / 1e9:.2f}")
        if ceilings:
            cells.append(fmt(by_mode[speed_mode].tflops / ceilings["matmul_tflops"], ".2f"))
        cells += [fmt(by_mode[speed_mode].extra_memory_gb, ".2f"), fmt(any_row.max_abs_error, ".1e"),
                  any_row.reason if any_row.status != "ok" else ""]
        lines.append("| " + " | ".join(cells) + " |")
    if ceilings:
        lines.append(f"\nceilings measured in this run: copy {ceilings['copy_tb_s']:.2f} TB/s, "
                     f"bf16 matmul {ceilings['matmul_tflops']:.0f} TFLOP/s")
    return "\n".join(lines)
