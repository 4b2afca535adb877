"""Does the GPU's clock fall while flashio's short forward runs, and by how much against cuDNN's? (v0.15
found flashio's d=128 N=1k forward 7% slower after its first 40 ms round of alternate timing, cuDNN's 0-5%
slower; benchmarks/PERFORMANCE.md, v0.15 "Next", item 1.)

Each system runs for ``--seconds`` in chunks of ``--chunk-ms``: every chunk is timed with CUDA events
(rate in TFLOP/s), and ``nvidia-smi`` samples the SM clock and the board power every 20 ms beside it (a
subprocess started before and stopped after; its samples are matched to the chunks by wall-clock time).
Systems alternate ``--rounds`` times. Prints, per system and round, the rate of the first and last chunks
and the mean SM clock and power over the round; then one line per chunk (CSV) for plots.

    PYTHONPATH=src timeout 120 python3 benchmarks/experiments/forward_short/drift.py --seconds 2 --rounds 2
    PYTHONPATH=src timeout 120 python3 benchmarks/experiments/forward_short/drift.py --seconds 2 --rounds 2 \
        --pass forward+backward --causal        # v0.16 "Next" item 2; in v0.17 killed at a 70 s limit
                                                # before its first print (fresh machine: tuning); give it >= 150 s
    PYTHONPATH=src timeout 200 python3 benchmarks/experiments/forward_short/drift.py --seconds 2 --rounds 2 \
        --pass backward --seqlen 16384 --head-dim 64 --dtype fp16   # v0.21 "Next" item 5: the sustained
                                                # long-sequence backward (0.86x cuDNN sustained, 1.03x interleaved)

Prediction (written before its first run): the SM clock falls from ~1980 MHz during flashio's rounds and
explains at least half of its rate's fall; cuDNN's clock falls less.

Outcome (v0.16, H200, bf16 d=128 N=1k non-causal; results/2026-11-30_h200_v0.16_probes/drift.txt): the clock
explains all of both falls, and cuDNN's falls more. Each round starts at 1950-1980 MHz (after a 0.2 s pause)
and runs into the 700 W limit within 50-100 ms: flashio 544 TFLOP/s in its first chunks, then 485 at a
median 1710 MHz; cuDNN 600-617, then 530-535 at 1665 MHz (it draws more power per second). TFLOP/s per MHz
is steady within 4% for both (flashio 0.275 -> 0.284, cuDNN 0.31 -> 0.32), so the kernels do not slow down
per cycle; the ratio flashio / cuDNN is 0.88-0.90 at full clock and 0.91 power-limited. nvidia-smi's clock
readings trail the rate by a chunk or two. What follows for the bench: a system timed right after another
starts at the clock that one left; hence ``flashio bench``'s interleaved timing (v0.16).
"""

import argparse
import statistics
import subprocess
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashio
from flashio import launchers


def sampler() -> subprocess.Popen:
    return subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw", "--format=csv,noheader,nounits",
                             "-lms", "20"], stdout=subprocess.PIPE, text=True)


def parse_samples(text: str) -> list[tuple[float, float, float]]:
    """(unix time, SM MHz, W) per nvidia-smi line ('2026/11/30 21:25:01.123, 1980, 612.3')."""
    samples = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3:
            continue
        try:
            stamp = time.mktime(time.strptime(parts[0].split(".")[0], "%Y/%m/%d %H:%M:%S"))
            stamp += float("0." + parts[0].split(".")[1]) if "." in parts[0] else 0.0
            samples.append((stamp, float(parts[1]), float(parts[2])))
        except ValueError:
            continue
    return samples


def run_chunks(fn, seconds: float, chunk_ms: float, flops: float) -> list[tuple[float, float, float]]:
    """(wall start, wall end, TFLOP/s) per chunk: calls of ``fn`` queued for about ``chunk_ms``."""
    start_event, end_event = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    start_event.record()
    fn()
    end_event.record()
    torch.cuda.synchronize()
    calls = max(1, int(chunk_ms / start_event.elapsed_time(end_event)))
    chunks, begin = [], time.time()
    while time.time() - begin < seconds:
        wall = time.time()
        start_event.record()
        for _ in range(calls):
            fn()
        end_event.record()
        end_event.synchronize()
        chunks.append((wall, time.time(), flops * calls / start_event.elapsed_time(end_event) / 1e9))
    return chunks


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--chunk-ms", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seqlen", type=int, default=1024)
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    parser.add_argument("--pass", dest="which", choices=("forward", "forward+backward", "backward"),
                        default="forward",
                        help="forward: launchers.attention_forward against SDPA's cuDNN forward; "
                             "forward+backward: flashio.attention and SDPA's cuDNN backend, each with .backward "
                             "(rate at 3.5x the forward's FLOPs); backward: launchers.attention_backward on a "
                             "saved forward against cuDNN's backward on a retained graph (2.5x)")
    args = parser.parse_args(argv)
    n, d = args.seqlen, args.head_dim
    batch, heads = 16384 // n, 2048 // d
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    torch.manual_seed(0)
    q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype) for _ in range(3))
    flops = 4 * batch * heads * n * n * d / (2 if args.causal else 1)

    def flashio_forward():
        return launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=d ** -0.5, causal=args.causal,
                                           dropout_p=0.0, seed=0)[0]

    def cudnn_forward():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v, is_causal=args.causal)

    systems = {"flashio": flashio_forward, "cuDNN": cudnn_forward}
    if args.which == "forward+backward":
        flops *= 3.5  # the backward counts 2.5x the forward (algorithm.md)
        for t in (q, k, v):
            t.requires_grad_(True)
        dout = torch.randn_like(q)

        def with_backward(run):
            def step():
                for t in (q, k, v):
                    t.grad = None
                run().backward(dout)
            return step

        systems = {"flashio": with_backward(lambda: flashio.attention(q, k, v, causal=args.causal)),
                   "cuDNN": with_backward(cudnn_forward)}
    elif args.which == "backward":
        flops *= 2.5
        dout = torch.randn_like(q)
        out, lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=d ** -0.5, causal=args.causal,
                                               dropout_p=0.0, seed=0)
        leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            graph = F.scaled_dot_product_attention(*leaves, is_causal=args.causal)
        systems = {
            "flashio": lambda: launchers.attention_backward(dout, q, k, v, out, lse, layout="bhnd",
                                                            softmax_scale=d ** -0.5, causal=args.causal,
                                                            dropout_p=0.0, seed=0),
            "cuDNN": lambda: torch.autograd.grad(graph, leaves, dout, retain_graph=True),
        }
    for fn in systems.values():  # compile, tune, warm
        fn()
    torch.cuda.synchronize()
    time.sleep(1.0)
    proc = sampler()
    time.sleep(0.3)
    rounds = []
    for index in range(args.rounds):
        for name, fn in systems.items():
            rounds.append((name, index, run_chunks(fn, args.seconds, args.chunk_ms, flops)))
            time.sleep(0.2)
    proc.terminate()
    samples = parse_samples(proc.communicate()[0])
    print(f"{args.which}, d={d} N={n} causal={args.causal} {args.dtype}; {len(samples)} nvidia-smi samples")
    print("| system | round | chunks | first chunk TFLOP/s | last chunk TFLOP/s | median TFLOP/s | mean SM MHz | "
          "mean W | median TFLOP/s per GHz |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, index, chunks in rounds:
        inside = [s for s in samples if chunks[0][0] <= s[0] <= chunks[-1][1]]
        clock = statistics.mean(s[1] for s in inside) if inside else float("nan")
        power = statistics.mean(s[2] for s in inside) if inside else float("nan")
        rates = [c[2] for c in chunks]
        # Rate per clock: a kernel that slows down only with the clock keeps it; one that slows down for
        # another reason (memory, contention) loses it.
        median = statistics.median(rates)
        print(f"| {name} | {index} | {len(chunks)} | {rates[0]:.0f} | {rates[-1]:.0f} | {median:.0f} | {clock:.0f} | "
              f"{power:.0f} | {median / clock * 1000:.0f} |")
    print("\nsystem,round,wall_start,tflops,sm_mhz,watts")
    for name, index, chunks in rounds:
        for wall, end, rate in chunks:
            near = [s for s in samples if wall - 0.02 <= s[0] <= end + 0.02]
            clock = statistics.mean(s[1] for s in near) if near else float("nan")
            power = statistics.mean(s[2] for s in near) if near else float("nan")
            print(f"{name},{index},{wall:.3f},{rate:.1f},{clock:.0f},{power:.0f}")


if __name__ == "__main__":
    main()
