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
during that repeat (its tuning, if any, included). Prepared in v0.26, not yet run.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "fused_backward_persistent"))

from flashio.bench import sweep  # noqa: E402
from flashio.bench.sweep import BenchPoint, run_sweep  # noqa: E402
from sustained_forms import traced_reads  # noqa: E402  (the timer's reads, recorded)


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
    samples = []
    for line in open(path):
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) != 3:
            continue
        try:
            stamp = time.mktime(time.strptime(cells[0].split(".")[0], "%Y/%m/%d %H:%M:%S"))
            stamp += float("0." + cells[0].split(".")[1]) if "." in cells[0] else 0.0
            samples.append((stamp, float(cells[1]), float(cells[2])))
        except ValueError:
            continue
    return [(mhz, watts) for stamp, mhz, watts in samples if start <= stamp <= end]


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
            # The timer's reads: per system and mode an estimate (3 single calls), then the runs.
            for calls, totals in reads:
                if calls > 1 or len(totals) > 3:
                    per_call = [total / calls for total in totals]
                    print(f"    {calls} calls per run, ms per call: min {min(per_call):.3f} median "
                          f"{statistics.median(per_call):.3f} max {max(per_call):.3f}; in order: "
                          + " ".join(f"{t:.3f}" for t in per_call), flush=True)
    finally:
        sampler.terminate()
        os.unlink(log)


if __name__ == "__main__":
    main()
