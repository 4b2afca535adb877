"""The ``flashio`` command line.

Sub-commands are registered by the modules that own them, so that each part of the package
(kernels, the IO model, the benchmarks, the report) keeps its own argument parsing:

- ``flashio demo``: run the kernels against the reference on random inputs (``flashio.demo``).
- ``flashio gpus`` / ``flashio predict`` / ``flashio io``: the IO accounting and performance model
  (``flashio.model.cli``).
- ``flashio bench``: measured speed of flashio and the alternatives (``flashio.bench``).
- ``flashio report --out DIR``: the report: predicted (and, on a GPU, measured) speedups, the explanation,
  the IO experiments and a smoke run (``flashio.report``).

Errors in the arguments print a message and exit with code 2, as argparse does.
"""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flashio",
        description="IO-aware exact attention: kernels, IO accounting and a cross-GPU performance model.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True

    from flashio import demo

    demo.register(subparsers)

    from flashio.model import cli as model_cli

    model_cli.register(subparsers)

    from flashio.bench import cli as bench_cli

    bench_cli.register(subparsers)

    from flashio.report import cli as report_cli

    report_cli.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "needs_kernels", False):
        use_interpreter_without_gpu()
    return int(args.handler(args) or 0)


def use_interpreter_without_gpu() -> None:
    """Without a CUDA GPU, run kernels through Triton's CPU interpreter.

    Triton reads TRITON_INTERPRET when it is first imported, so this must run before any kernel module
    loads; ``import flashio`` alone imports neither torch nor Triton.
    """
    import os

    if "triton" in sys.modules:
        return
    import torch

    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
