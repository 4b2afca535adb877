"""``flashio predict`` and ``flashio explain``: the time model on the command line."""

from __future__ import annotations

import argparse
import json

from flashio.cli_types import positive_int, probability
from flashio.model import gpus as gpu_db


def _add_workload_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gpu", required=True, help="GPU slug (see `flashio gpus`)")
    parser.add_argument("--batch", type=positive_int, required=True)
    parser.add_argument("--heads", type=positive_int, required=True)
    parser.add_argument("--seqlen", type=positive_int, required=True)
    parser.add_argument("--head-dim", type=positive_int, required=True)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--dropout", type=probability, default=0.0)
    parser.add_argument("--padding-mask", action="store_true",
                        help="key padding (the paper's masking benchmark: key lengths in [N-20, N])")
    parser.add_argument("--pass", dest="pass_", choices=("fwd", "bwd", "fwdbwd"), default="fwdbwd")
    parser.add_argument("--dtype", choices=("fp16", "bf16"), default="bf16")
    parser.add_argument("--kernel", choices=("fa1", "fa2", "flashio"), default="flashio")
    parser.add_argument("--json", action="store_true")


def _workload(args: argparse.Namespace):
    from flashio.model.timing import Workload

    return Workload(args.batch, args.heads, args.seqlen, args.head_dim, args.causal, args.dropout,
                    args.padding_mask, args.dtype)


def register(subparsers, add_gpu_file_option, add_override_options, resolve_gpu) -> None:
    """Add ``predict`` and ``explain`` to the parser."""

    def predict_handler(args: argparse.Namespace) -> int:
        from flashio.model.timing import predict

        gpu = resolve_gpu(args._parser, args)
        prediction = predict(gpu, _workload(args), args.pass_, args.kernel)
        data = prediction.to_dict()
        if args.json:
            print(json.dumps(data, indent=2))
            return 0
        print(f"{gpu.full_name} ({gpu.name}), kernel {args.kernel}, pass {args.pass_}: "
              f"B={args.batch} H={args.heads} N={args.seqlen} d={args.head_dim}"
              + (" causal" if args.causal else "") + (f" dropout={args.dropout}" if args.dropout else "")
              + (" padding-mask" if args.padding_mask else "") + f" {args.dtype}")
        print(f"  standard {data['standard_ms']:.3f} ms  ({data['standard_hbm_bytes'] / 1e9:.2f} GB DRAM, "
              f"{data['standard_flops'] / 1e9:.1f} GFLOP)")
        print(f"  flash    {data['flash_ms']:.3f} ms  ({data['flash_hbm_bytes'] / 1e9:.3f} GB DRAM, "
              f"{data['flash_flops'] / 1e9:.1f} GFLOP)")
        print(f"  speedup  {data['speedup']:.2f}x")
        for label, key in (("standard", "standard_time_shares"), ("flash", "flash_time_shares")):
            print(f"  {label} time shares: " + ", ".join(f"{k} {v:.0%}" for k, v in data[key].items()))
        return 0

    p_predict = subparsers.add_parser(
        "predict", help="predict standard vs FlashAttention time and speedup on a GPU",
        description="Predicted times, speedup and the counts behind them, from the GPU's specifications "
                    "and efficiency factors measured on the H200.")
    _add_workload_options(p_predict)
    add_gpu_file_option(p_predict)
    add_override_options(p_predict)
    p_predict.set_defaults(handler=predict_handler, _parser=p_predict)

    def explain_handler(args: argparse.Namespace) -> int:
        from flashio.model.explain import explain, format_explanation

        gpu = resolve_gpu(args._parser, args)
        compare = None
        if args.compare:
            try:
                compare = gpu_db.get_gpu(args.compare)
            except gpu_db.UnknownGPUError as exc:
                args._parser.error(str(exc.args[0]))
        result = explain(gpu, _workload(args), args.pass_, args.kernel, compare)
        print(json.dumps(result.to_dict(), indent=2) if args.json else format_explanation(result))
        return 0

    p_explain = subparsers.add_parser(
        "explain", help="elasticities of the speedup, time shares and the seed's three claims",
        description="Why the speedup is what it is on this GPU: elasticities w.r.t. bandwidth, SRAM and "
                    "tensor FLOPs, time shares, and (with --compare) counterfactual swaps of figures.")
    _add_workload_options(p_explain)
    p_explain.add_argument("--compare", default=None, help="swap figures in from this GPU")
    add_gpu_file_option(p_explain)
    add_override_options(p_explain)
    p_explain.set_defaults(handler=explain_handler, _parser=p_explain)
