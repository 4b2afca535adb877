"""One point of ``flashio bench --timing sustained`` timed several times over, with each timed run's time per
call and the GPU's SM clock and power sampled beside it, to say why a single sustained sample can move by 0.1x
cuDNN at 1k (benchmarks/PERFORMANCE.md, v0.26).

Why (v0.26): at d=64 fp16 causal 1k a sustained sample gave flashio's forward 0.296 ms per call (0.77x cuDNN)
where its own tuner, a moment earlier in the same process, had timed the same kernel at 0.228 ms, and v0.25's
sustained run 0.253 ms; the host enqueues a call in a third of its GPU time (experiments/host_overhead), so the
queue does not run dry. What is left: a clock that moves during or after the warm-up (v0.24 found one at d=64
fp16 8k with 300 ms), or a kernel whose time per call itself moves.

    PYTHONPATH=src python3 benchmarks/experiments/sustained_trace/trace_point.py --point 64:fp16:causal:1024

Each repeat runs the bench's sustained sweep at the point for flashio and cuDNN (the first repeat tunes
flashio; the later ones reuse its choice); it prints the ratios, every timed run's ms per call (fwd then
fwd+bwd, flashio then cuDNN), and the SM clock (MHz) and power (W) that ``nvidia-smi --loop-ms`` sampled
during that repeat (its tuning, if any, included). Prepared in v0.26; run in v0.27
(results/2026-12-01_h200_v0.27_probes/trace_*.txt).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

for _folder in ("fused_backward_persistent", "forward_short"):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", _folder))

from drift import parse_samples  # noqa: E402  (nvidia-smi's timestamped lines)
from flashio.bench import sweep  # noqa: E402
from flashio.bench.sweep import BenchPoint, run_sweep  # noqa: E402
from sustained_forms import print_reads, traced_reads  # noqa: E402  (the timer's reads, recorded)


def parse_point(text: str) -> BenchPoint:
    """"D:DTYPE:causal|noncausal:N" -> the bench point (the issue's grid: 16k tokens, hidden 2048)."""
    parts = text.split(":")
    if len(parts) != 4 or parts[1] not in ("bf16", "fp16") or parts[2] not in ("causal", "noncausal"):
        raise argparse.ArgumentTypeError(f"--point: expected D:bf16|fp16:causal|noncausal:N, got {text!r}")
    return BenchPoint(int(parts[3]), int(parts[0]), causal=parts[2] == "causal", dtype=parts[1])


def start_clock_log(path: str, interval_ms: int) -> subprocess.Popen:
    """nvidia-smi sampling the SM clock and power draw every ``interval_ms`` into ``path``."""
    return subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw", "--format=csv,noheader,nounits",
                             f"--loop-ms={interval_ms}"], stdout=open(path, "w"), stderr=subprocess.DEVNULL)


def clock_samples(path: str, start: float, end: float) -> list[tuple[float, float]]:
    """(MHz, W) samples of the log taken between the wall-clock times ``start`` and ``end`` (seconds)."""
    with open(path) as log:
        return [(mhz, watts) for stamp, mhz, watts in parse_samples(log.read()) if start <= stamp <= end]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--point", type=parse_point, default=parse_point("64:fp16:causal:1024"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--interval-ms", type=int, default=20, help="nvidia-smi's sampling interval")
    args = parser.parse_args()
    reads = traced_reads()
    log = tempfile.NamedTemporaryFile(suffix=".csv", delete=False).name
    sampler = start_clock_log(log, args.interval_ms)
    time.sleep(1.0)  # nvidia-smi's first samples
    try:
        print(f"point {args.point}, sustained warm-up {sweep.SUSTAINED_WARMUP_MS} ms")
        print("| repeat | flashio fwd / bwd TFLOP/s | cuDNN fwd / bwd TFLOP/s | fwd / bwd ÷ cuDNN | SM MHz min / median "
              "/ max | W median |")
        print("|---|---|---|---|---|---|")
        for repeat in range(args.repeats):
            reads.clear()
            start = time.time()
            rows = run_sweep([args.point], systems=["flashio", "sdpa_cudnn"], modes=("fwd", "bwd", "fwdbwd"),
                             progress=False, timing="sustained")
            end = time.time()
            rate = {(r.system, r.mode): r.tflops for r in rows}
            samples = clock_samples(log, start, end)
            clocks = sorted(mhz for mhz, _ in samples) or [float("nan")]
            watts = statistics.median(w for _, w in samples) if samples else float("nan")
            print(f"| {repeat + 1} | {rate[('flashio', 'fwd')]:.0f} / {rate[('flashio', 'bwd')]:.0f} | "
                  f"{rate[('sdpa_cudnn', 'fwd')]:.0f} / {rate[('sdpa_cudnn', 'bwd')]:.0f} | "
                  f"{rate[('flashio', 'fwd')] / rate[('sdpa_cudnn', 'fwd')]:.2f} / "
                  f"{rate[('flashio', 'bwd')] / rate[('sdpa_cudnn', 'bwd')]:.2f} | {clocks[0]:.0f} / "
                  f"{statistics.median(clocks):.0f} / {clocks[-1]:.0f} | {watts:.0f} |", flush=True)
            print_reads(reads)
    finally:
        sampler.terminate()
        os.unlink(log)


if __name__ == "__main__":
    main()
