"""The tuned persistent forward with 16-byte and with 4-byte output stores, timed the grid's way (v0.32).

Probe run 36 (``probe.py``: ``do_bench``, one form's calls in a block of ~40 ms, forms and cuDNN in turn, five
rounds) measured the 16-byte stores at +7% over the 4-byte ones at d=128 causal 1k (370 -> 397 TFLOP/s), but the
v0.32 grid, which took the 16-byte form there, measured 377 (v0.31's grid, 4-byte: 373). The grid times call by
call, its systems interleaved (``flashio.bench.sweep._time_interleaved``: a 256 MB flush before each call, every
system at the clock the mix allows), through the public API with inputs that require grad. Which of these moves
the number?

At each point, in one process: the library's first call (tuning) on inputs that require grad, as the grid makes
them; then each form set in turn as the forward's choice and captured in a CUDA graph (one kernel; its output
checked against the tuned call's); then rounds of the grid's interleaved timing over cuDNN, the library call
(public API, tuned choice) and the graphed forms, and ``do_bench`` blocks of the same callables. TFLOP/s, median of
the rounds.

``--call-forms`` adds two more callables (same choice as the library call): the public API on detached inputs
(no autograd record), and the launcher itself (``launchers.attention_forward``); and prints each callable's host
time to enqueue a call (``benchmarks/host_overhead.host_ms``: 200 calls queued back to back, ``perf_counter``).

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/interleaved_forms.py \\
        --points 128:causal:1024 128:noncausal:1024 64:causal:1024 --rounds 3
"""

import argparse
import dataclasses
import os
import statistics
import sys
import types

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashio
from flashio import configs, launch_plans, launchers
from flashio.bench import sweep

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from host_overhead import host_ms  # noqa: E402 - benchmarks/host_overhead.py: 200 calls queued, perf_counter


def _graphed(fn):
    """``fn`` (one forward) captured in a CUDA graph: (its replay, which keeps the graph, the captured output)."""
    fn()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return graph.replay, out


def _point(spec: str) -> tuple[int, bool, int]:
    d, kind, n = spec.split(":")
    if kind not in ("causal", "noncausal") or 16384 % int(n):
        raise SystemExit(f"--points takes D:causal:N or D:noncausal:N with N dividing 16384, got {spec!r}")
    return int(d), kind == "causal", int(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", nargs="+", type=_point, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    parser.add_argument("--call-forms", action="store_true",
                        help="also time the public API on detached inputs and the launcher; print host times")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    columns = ["cuDNN", "library call", *(["no grad", "launcher"] if args.call_forms else []), "16-byte (graph)",
               "4-byte (graph)"]
    print(f"| d | causal | N | timing | {' | '.join(columns)} | errors 16 / 4-byte |")
    print("|---|---|---|---|" + "---|" * (len(columns) + 1))
    for d, causal, n in args.points:
        batch, heads = 16384 // n, 2048 // d
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype).requires_grad_(True)
                   for _ in range(3))
        flops = 4 * batch * heads * n * n * d / (2 if causal else 1)
        before = set(configs.cached_choices())
        library = lambda: flashio.attention(q, k, v, is_causal=causal)
        reference = library().detach().float()
        torch.cuda.synchronize()
        key = next(key for key in configs.cached_choices() if key not in before and key[0] == "forward")
        tuned = configs.cached_choices()[key]
        wide = next(c for c in configs.FORWARD_GLUON_CANDIDATES[d] if c.persistent and c.output_from_registers)
        forms = {"16-byte (graph)": wide, "4-byte (graph)": dataclasses.replace(wide, wide_stores=False)}
        replays, errors = {}, {}
        with torch.no_grad():
            for name, option in forms.items():
                configs._CHOICES[key] = option  # the probes' override of the tuned choice
                launch_plans.clear()
                replays[name], out = _graphed(library)
                replays[name]()
                torch.cuda.synchronize()
                errors[name] = float((out.float() - reference).abs().max())
        configs._CHOICES[key] = tuned
        launch_plans.clear()
        library()

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        calls = {"cuDNN": cudnn, "library call": library}
        if args.call_forms:
            detached = [t.detach() for t in (q, k, v)]
            calls["no grad"] = lambda: flashio.attention(*detached, is_causal=causal)
            calls["launcher"] = lambda: launchers.attention_forward(*detached, layout="bhnd", softmax_scale=d ** -0.5,
                                                                    causal=causal, dropout_p=0.0, seed=0)[0]
        calls.update(replays)
        prepared = {name: types.SimpleNamespace(forward=fn, forward_backward=None, leaves=[q, k, v])
                    for name, fn in calls.items()}
        interleaved = {name: [] for name in calls}
        blocks = {name: [] for name in calls}
        for _ in range(args.rounds):
            times, failed = sweep._time_interleaved(prepared)
            assert not failed, failed
            for name in calls:
                interleaved[name].append(flops / times[name]["fwd"] / 1e9)
            for name, fn in calls.items():
                blocks[name].append(flops / triton.testing.do_bench(fn, warmup=5, rep=40, return_mode="median")
                                    / 1e9)
        for label, rates in (("interleaved", interleaved), ("do_bench blocks", blocks)):
            cells = [f"{statistics.median(rates[name]):.0f}" for name in calls]
            print(f"| {d} | {causal} | {n} | {label} | {' | '.join(cells)} | "
                  f"{' / '.join(f'{error:.4f}' for error in errors.values())} |", flush=True)
        print(f"tuned choice: {sweep.describe_choice(tuned, 'forward')}", flush=True)
        if args.call_forms:
            print("host µs to enqueue a call: " + ", ".join(f"{name} {1e3 * host_ms(fn):.1f}"
                                                            for name, fn in calls.items()), flush=True)


if __name__ == "__main__":
    main()
