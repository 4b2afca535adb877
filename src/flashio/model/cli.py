"""Command-line entry points of the model: ``flashio gpus``, ``flashio predict``, ``flashio io``,
``flashio explain``.

Argument errors (unknown GPU, SRAM smaller than one block, non-positive sizes) print a message on stderr
and exit with code 2, through ``parser.error``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from flashio.cli_types import fraction, positive_float, positive_int, probability
from flashio.model import gpus as gpu_db
from flashio.model.counts import (
    BACKWARD_TILES,
    FORWARD_TILES,
    AttentionProblem,
    BlockSparsity,
    SRAMTooSmallError,
    analytic_io,
    paper_blocking,
)


_OVERRIDE_OPTIONS = (
    ("--bandwidth-gbs", "hbm_bandwidth_gbs", "DRAM bandwidth, GB/s"),
    ("--smem-kib", "smem_per_sm_kib", "shared memory per SM, KiB (the per-block limit follows)"),
    ("--smem-per-block-kib", "smem_per_block_kib", "shared memory per thread block, KiB"),
    ("--sms", "sm_count", "number of SMs"),
    ("--l2-mib", "l2_mib", "L2 (last-level cache) size, MiB"),
    ("--tensor-tflops", "tensor_tflops", "dense FP16/BF16 tensor TFLOP/s (FP32 accumulate)"),
    ("--fp32-tflops", "fp32_tflops", "non-tensor FP32 TFLOP/s"),
    ("--clock-mhz", "boost_clock_mhz", "boost clock, MHz (sets the exp-unit rate)"),
)


def _add_gpu_file_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gpu-file", action="append", default=[], metavar="PATH",
                        help="TOML or JSON file adding GPUs (fields of GPUSpec; 'based_on' copies a GPU)")


def _add_override_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("override GPU figures")
    for flag, field_name, help_text in _OVERRIDE_OPTIONS:
        kind = positive_int if field_name == "sm_count" else positive_float
        group.add_argument(flag, dest=f"override_{field_name}", type=kind, default=None, help=help_text)


def _load_user_gpus(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    for path in args.gpu_file:
        try:
            gpu_db.register_gpus(gpu_db.load_gpu_file(path))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            parser.error(f"cannot read GPU file {path}: {exc}")


def _resolve_gpu(parser: argparse.ArgumentParser, args: argparse.Namespace) -> gpu_db.GPUSpec:
    _load_user_gpus(parser, args)
    try:
        spec = gpu_db.get_gpu(args.gpu)
    except gpu_db.UnknownGPUError as exc:
        parser.error(str(exc.args[0]))
    overrides = {name: getattr(args, f"override_{name}", None) for _, name, _ in _OVERRIDE_OPTIONS}
    try:
        return gpu_db.with_overrides(spec, **overrides)
    except ValueError as exc:
        parser.error(str(exc))
    raise AssertionError("unreachable")


# ---------------------------------------------------------------------------------------------------
# flashio gpus
# ---------------------------------------------------------------------------------------------------


def _gpus_handler(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args._parser
    _load_user_gpus(parser, args)
    specs = list(gpu_db.GPUS.values())
    if args.gpu:
        try:
            specs = [gpu_db.with_overrides(gpu_db.get_gpu(args.gpu),
                                           **{n: getattr(args, f"override_{n}") for _, n, _ in _OVERRIDE_OPTIONS})]
        except (gpu_db.UnknownGPUError, ValueError) as exc:
            parser.error(str(exc.args[0]))
    if args.json:
        print(json.dumps([s.to_dict() for s in specs], indent=2))
        return 0
    header = f"{'name':<10} {'GB/s':>6} {'SMs':>4} {'smem/SM KiB':>11} {'L2 MiB':>7} {'tensor TF':>9} " \
             f"{'FP32 TF':>7} {'MHz':>5} {'exp Tops':>8}  checked"
    print(header)
    for s in specs:
        print(f"{s.name:<10} {s.hbm_bandwidth_gbs:>6g} {s.sm_count:>4d} {s.smem_per_sm_kib:>11g} {s.l2_mib:>7g} "
              f"{s.tensor_tflops:>9g} {s.fp32_tflops:>7g} {s.boost_clock_mhz:>5g} {s.exp_ops_per_s / 1e12:>8.2f}  "
              f"{'yes' if s.checked else 'no (lead)'}")
    return 0


# ---------------------------------------------------------------------------------------------------
# flashio io
# ---------------------------------------------------------------------------------------------------


def _io_handler(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args._parser
    element_bytes = 2
    try:
        paper_blocking(args.sram_bytes, args.head_dim, element_bytes, FORWARD_TILES)
        if args.pass_ != "fwd":
            paper_blocking(args.sram_bytes, args.head_dim, element_bytes, BACKWARD_TILES)
    except SRAMTooSmallError as exc:
        parser.error(f"impossible SRAM: {exc}")
    sparsity = None
    if args.block_sparse is not None:
        blocking = paper_blocking(args.sram_bytes, args.head_dim, element_bytes, FORWARD_TILES)
        sparsity = BlockSparsity(args.block_sparse, args.seed, blocking.block_rows, blocking.block_cols)
    if args.key_valid is not None and args.key_valid > args.seqlen:
        parser.error(f"--key-valid {args.key_valid} exceeds --seqlen {args.seqlen}")
    problem = AttentionProblem(args.seqlen, args.head_dim, args.causal, args.dropout, args.key_valid, sparsity)
    io = analytic_io(args.kernel, problem, args.sram_bytes, args.pass_, element_bytes)
    result: dict[str, Any] = {"kernel": args.kernel, "pass": args.pass_, "seqlen": args.seqlen,
                              "head_dim": args.head_dim, "sram_bytes": args.sram_bytes,
                              "unit": "bytes" if args.bytes else "elements"}
    if args.kernel != "standard":
        fb = paper_blocking(args.sram_bytes, args.head_dim, element_bytes, FORWARD_TILES)
        result["block_rows"], result["block_cols"] = fb.block_rows, fb.block_cols
    result["analytic_reads"] = io.read_bytes(element_bytes) if args.bytes else io.total_reads
    result["analytic_writes"] = io.write_bytes(element_bytes) if args.bytes else io.total_writes
    if args.simulate:
        if args.seqlen > 4096:
            parser.error("--simulate runs in NumPy on one head; use --seqlen ≤ 4096")
        from flashio.model.simulator import simulate

        sim = simulate(args.kernel, problem, args.sram_bytes, args.pass_, args.seed, element_bytes)
        result["simulated_reads"] = sim.io.read_bytes(element_bytes) if args.bytes else sim.io.total_reads
        result["simulated_writes"] = sim.io.write_bytes(element_bytes) if args.bytes else sim.io.total_writes
        result["max_abs_error"] = sim.max_abs_error
        result["counts_match"] = sim.io == io
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    unit = result["unit"]
    print(f"{args.kernel} {args.pass_}: N={args.seqlen} d={args.head_dim} M={args.sram_bytes} B"
          + (f" (B_r={result['block_rows']}, B_c={result['block_cols']})" if "block_rows" in result else ""))
    print(f"  analytic  HBM reads {result['analytic_reads']:,} {unit}, writes {result['analytic_writes']:,} {unit}")
    if args.simulate:
        print(f"  simulated HBM reads {result['simulated_reads']:,} {unit}, writes {result['simulated_writes']:,} "
              f"{unit} ({'equal' if result['counts_match'] else 'DIFFERENT'}); "
              f"max |out − reference| = {result['max_abs_error']:.2e}")
    return 0


# ---------------------------------------------------------------------------------------------------
# registration
# ---------------------------------------------------------------------------------------------------


def register(subparsers) -> None:
    """Add ``gpus``, ``predict``, ``io`` and ``explain`` to the ``flashio`` parser."""
    p_gpus = subparsers.add_parser("gpus", help="list the GPU database",
                                   description="List the GPUs the model knows, with their figures.")
    p_gpus.add_argument("--json", action="store_true", help="print a JSON list of objects")
    p_gpus.add_argument("--gpu", default=None, help="show only this GPU (after overrides)")
    _add_gpu_file_option(p_gpus)
    _add_override_options(p_gpus)
    p_gpus.set_defaults(handler=_gpus_handler, _parser=p_gpus)

    p_io = subparsers.add_parser(
        "io", help="analytic (and simulated) HBM reads and writes of one attention head",
        description="HBM reads/writes of one (batch, head) slice for an SRAM of M bytes, in elements of "
                    "the 2-byte input dtype unless --bytes (fp32 statistics count 4 bytes each).")
    p_io.add_argument("--seqlen", type=positive_int, required=True)
    p_io.add_argument("--head-dim", type=positive_int, required=True)
    p_io.add_argument("--sram-bytes", type=positive_int, required=True)
    p_io.add_argument("--kernel", choices=("standard", "fa1", "fa2"), default="fa1")
    p_io.add_argument("--pass", dest="pass_", choices=("fwd", "bwd", "fwdbwd"), default="fwd")
    p_io.add_argument("--causal", action="store_true")
    p_io.add_argument("--dropout", type=probability, default=0.0)
    p_io.add_argument("--key-valid", type=positive_int, default=None,
                      help="number of unpadded keys (key padding mask)")
    p_io.add_argument("--block-sparse", type=fraction, default=None, metavar="S",
                      help="fraction of non-zero blocks (pattern on the forward blocks)")
    p_io.add_argument("--simulate", action="store_true", help="also run the NumPy simulator and compare")
    p_io.add_argument("--bytes", action="store_true", help="report bytes instead of elements")
    p_io.add_argument("--seed", type=int, default=0)
    p_io.add_argument("--json", action="store_true")
    p_io.set_defaults(handler=_io_handler, _parser=p_io)

    from flashio.model import cli_predict

    cli_predict.register(subparsers, _add_gpu_file_option, _add_override_options, _resolve_gpu)


def build_parser() -> argparse.ArgumentParser:
    """A parser with only the model's sub-commands (used by tests; ``flashio.cli`` adds the others)."""
    parser = argparse.ArgumentParser(prog="flashio")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
