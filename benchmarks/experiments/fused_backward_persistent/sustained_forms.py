"""The sustained forward+backward at d=64 fp16 non-causal 8k and 16k with each d=64 fused-backward candidate
forced in turn, flashio beside cuDNN, each alone at its own power-limited clock (``flashio bench --timing
sustained``'s timer), on the H200.

Why (benchmarks/PERFORMANCE.md, v0.24): timed alone (call 2) the two points' backwards ran at 449 / 417 TFLOP/s
(cuDNN 432 / 413), in the d=64 fp16 sweep (call 5, as in v0.21) at 373 / 400 (cuDNN 432 / 434), while the
tuner, in both runs, timed its two candidates (three or four Q/dO slots) within 4% of each other and chose
differently: three slots at 8k alone, four in the sweep; four at 16k alone, three in the sweep. This times both
forms, twice each in alternation, so a form that loses only when run back to back shows.

    PYTHONPATH=src python3 benchmarks/experiments/fused_backward_persistent/sustained_forms.py

Outcome (v0.24 call 6, results/2026-12-01_h200_v0.24_probes/sustained_forms.txt): the form does not matter, the
order does: the first run at each length was the slow one whichever form it had (8k: 391 against 423-433
TFLOP/s for the next three; 16k: 394 against 451-457), cuDNN 410-422 throughout. ``--trace`` (call 7) repeats
one form three times per length and prints, for every run, the per-call times of the sustained timer's runs
(forward+backward), to say whether the first run is slow throughout or in a part of it.
"""

import argparse
import os
import statistics

os.environ["FLASHIO_TUNING_CACHE"] = "off"

from flashio import configs  # noqa: E402
from flashio.bench import sweep  # noqa: E402
from flashio.bench.sweep import BenchPoint, describe_choice, run_sweep  # noqa: E402


def traced_reads() -> list:
    """Every list of run totals the sustained timer reads, with its calls per run, from now on."""
    reads = []
    read, time_one, time_run = sweep._CudaEventTimer.read, sweep._CudaEventTimer.time, sweep._CudaEventTimer.time_run

    def time_one_noting(self, fn, leaves):
        self.calls_per_run = 1
        return time_one(self, fn, leaves)

    def time_run_noting_calls(self, fn, leaves, calls):
        handle = time_run(self, fn, leaves, calls)
        self.calls_per_run = calls
        return handle

    def read_noting(self, handles):
        totals = read(self, handles)
        reads.append((getattr(self, "calls_per_run", 1), totals))
        return totals

    sweep._CudaEventTimer.time, sweep._CudaEventTimer.time_run = time_one_noting, time_run_noting_calls
    sweep._CudaEventTimer.read = read_noting
    return reads


def print_reads(reads: list, digits: int = 3) -> None:
    """The timer's recorded reads (``traced_reads``), one line per timed sequence: its runs' ms per call,
    lowest, median, highest and in order. A sequence of at most three single calls (the timer's estimate
    before its runs) is skipped. Per system the sequences are fwd then fwd+bwd, in the order timed."""
    for calls, totals in reads:
        if calls > 1 or len(totals) > 3:
            per_call = [total / calls for total in totals]
            print(f"    {calls} calls per run, ms per call: min {min(per_call):.3f} median "
                  f"{statistics.median(per_call):.3f} max {max(per_call):.3f}; in order: "
                  + " ".join(f"{t:.{digits}f}" for t in per_call), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", action="store_true",
                        help="the first candidate three times per length, with each run's per-call times")
    parser.add_argument("--warmup-ms", type=int, default=None,
                        help="the sustained timer's warm-up per system and mode instead of the bench's")
    args = parser.parse_args()
    if args.warmup_ms is not None:
        sweep.SUSTAINED_WARMUP_MS = args.warmup_ms
    forms = configs.BACKWARD_FUSED_CANDIDATES[64]
    reads = traced_reads() if args.trace else []
    order = (forms[0],) * 3 if args.trace else (*forms, *forms)
    print("| N | form | flashio fwd / bwd TFLOP/s | cuDNN fwd / bwd TFLOP/s | bwd ÷ cuDNN |")
    print("|---|---|---|---|---|")
    for seqlen in (8192, 16384):
        for form in order:
            configs.BACKWARD_FUSED_CANDIDATES[64] = (form,)
            configs.clear_choices()
            reads.clear()
            rows = run_sweep([BenchPoint(seqlen, 64, dtype="fp16")], systems=["flashio", "sdpa_cudnn"],
                             modes=("fwd", "bwd", "fwdbwd"), progress=False, timing="sustained")
            rate = {(r.system, r.mode): r.tflops for r in rows}
            ratio = rate[("flashio", "bwd")] / rate[("sdpa_cudnn", "bwd")]
            print(f"| {seqlen} | {describe_choice(form, 'backward_fused')} | {rate[('flashio', 'fwd')]:.0f} / "
                  f"{rate[('flashio', 'bwd')]:.0f} | {rate[('sdpa_cudnn', 'fwd')]:.0f} / "
                  f"{rate[('sdpa_cudnn', 'bwd')]:.0f} | {ratio:.2f} |", flush=True)
            print_reads(reads, digits=2)
    configs.BACKWARD_FUSED_CANDIDATES[64] = forms


if __name__ == "__main__":
    main()
