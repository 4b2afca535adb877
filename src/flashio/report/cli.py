"""``flashio report [--out DIR]``: write the report (the job behind ``make report``).

Argument errors (``--out`` naming a file or a folder that cannot be created, an unknown ``--gpu``) print a
message and exit with code 2, through ``parser.error``. The command exits 1 when the smoke run finds a
kernel outside flash-attn's error bound (the report is still written), 0 otherwise.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers) -> None:
    """Add ``report`` to the ``flashio`` parser."""
    parser = subparsers.add_parser(
        "report", help="write the report: predicted (and, on a GPU, measured) speedups, why, IO, smoke run",
        description="Write report.md (PNG figures beside it), a self-contained report.html and the raw "
                    "CSV/JSON to DIR: the model's predicted speedup over standard attention on every GPU of "
                    "the database, the three-factor explanation, the IO experiments and a correctness smoke "
                    "run; with a GPU, also a benchmark sweep set against the predictions.")
    parser.add_argument("--out", default="report", metavar="DIR", help="output folder (default: report)")
    parser.add_argument("--no-smoke", dest="smoke", action="store_false",
                        help="skip the kernels' correctness smoke run")
    parser.add_argument("--no-bench", dest="bench", action="store_false",
                        help="on a GPU, skip the benchmark sweep (predictions only)")
    parser.add_argument("--gpu", default=None, metavar="SLUG",
                        help="database GPU to compare the measurements with (default: from the device name)")
    parser.set_defaults(handler=_report_command, needs_kernels=True, _parser=parser)


def _check_out_dir(parser: argparse.ArgumentParser, text: str) -> Path:
    folder = Path(text)
    if not text.strip():
        parser.error("--out needs a folder name")
    if folder.exists() and not folder.is_dir():
        parser.error(f"--out {text}: is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--out {text}: cannot create the folder ({exc.strerror or exc})")
    return folder


def _report_command(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args._parser
    if args.gpu is not None:
        from flashio.model.gpus import UnknownGPUError, get_gpu

        try:
            args.gpu = get_gpu(args.gpu).name
        except UnknownGPUError as exc:
            parser.error(str(exc.args[0]))
    folder = _check_out_dir(parser, args.out)

    from flashio.report.builder import ReportOptions, build_report

    def log(message: str) -> None:
        print(message, flush=True)

    result = build_report(ReportOptions(folder, smoke=args.smoke, bench=args.bench, gpu=args.gpu), log)
    print(f"\nwrote {folder / 'report.md'} and {folder / 'report.html'} "
          f"({len(result.files)} files) in {result.seconds:.0f} s")
    if result.bench_error:
        print(f"warning: {result.bench_error}")
    if result.smoke_ok is False:
        print("error: the smoke run found kernel results outside the error bound (see the report)")
        return 1
    return 0
