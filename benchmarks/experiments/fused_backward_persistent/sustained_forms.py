"""The sustained forward+backward at d=64 fp16 non-causal 8k and 16k with each d=64 fused-backward candidate
forced in turn, flashio beside cuDNN, each alone at its own power-limited clock (``flashio bench --timing
sustained``'s timer), on the H200.

Why (benchmarks/PERFORMANCE.md, v0.24): timed alone (call 2) the two points' backwards ran at 449 / 417 TFLOP/s
(cuDNN 432 / 413), in the d=64 fp16 sweep (call 5, as in v0.21) at 373 / 400 (cuDNN 432 / 434), while the
tuner, in both runs, timed its two candidates (three or four Q/dO slots) within 4% of each other and chose
differently: three slots at 8k alone, four in the sweep; four at 16k alone, three in the sweep. This times both
forms, twice each in alternation, so a form that loses only when run back to back shows.

    PYTHONPATH=src python3 benchmarks/experiments/fused_backward_persistent/sustained_forms.py
"""

import os

os.environ["FLASHIO_TUNING_CACHE"] = "off"

from flashio import configs  # noqa: E402
from flashio.bench.sweep import BenchPoint, describe_choice, run_sweep  # noqa: E402


def main() -> None:
    forms = configs.BACKWARD_FUSED_CANDIDATES[64]
    print("| N | form | flashio fwd / bwd TFLOP/s | cuDNN fwd / bwd TFLOP/s | bwd ÷ cuDNN |")
    print("|---|---|---|---|---|")
    for seqlen in (8192, 16384):
        for form in (*forms, *forms):
            configs.BACKWARD_FUSED_CANDIDATES[64] = (form,)
            configs.clear_choices()
            rows = run_sweep([BenchPoint(seqlen, 64, dtype="fp16")], systems=["flashio", "sdpa_cudnn"],
                             modes=("fwd", "bwd", "fwdbwd"), progress=False, timing="sustained")
            rate = {(r.system, r.mode): r.tflops for r in rows}
            ratio = rate[("flashio", "bwd")] / rate[("sdpa_cudnn", "bwd")]
            print(f"| {seqlen} | {describe_choice(form, 'backward_fused')} | {rate[('flashio', 'fwd')]:.0f} / "
                  f"{rate[('flashio', 'bwd')]:.0f} | {rate[('sdpa_cudnn', 'fwd')]:.0f} / "
                  f"{rate[('sdpa_cudnn', 'bwd')]:.0f} | {ratio:.2f} |", flush=True)
    configs.BACKWARD_FUSED_CANDIDATES[64] = forms


if __name__ == "__main__":
    main()
