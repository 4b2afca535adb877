"""Which statistic of the tuner's rematch agrees with the bench: at the points where the rematch's median and its
lowest timing chose different forms (the ``tuning`` fields of `flashio bench` result files), both forms timed again,
alternately, as the bench times a call.

Why (PERFORMANCE.md v0.40, "Next" item 1): the rematch ranks its leaders by the median of three timings. In the
recorded tunings the lowest timing would often have chosen another form; which of the two the bench's timing agrees
with is not in the records.

    python3 benchmarks/tuner_statistic.py FILES --list                   # the disagreements (no GPU)
    PYTHONPATH=src python3 benchmarks/tuner_statistic.py FILES --rounds 12

On the GPU, each point is called once (the tuner times every pass as usual), then the tuned pass's choice is set to
each of the two forms in turn, ``--rounds`` times: per turn 2 warm-up calls, then ``--calls`` calls timed one by one
(a 256 MB L2 flush before each, CUDA events around it; the bench's timer). A forward pass is timed as the forward
call; a backward pass as forward+backward, less the forward's median. Prints each form's median ms and which
statistic's pick was faster.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tuning_survey import parse_tuning_timings  # noqa: E402 - benchmarks/tuning_survey.py

TIMED_PASSES = ("forward", "backward_fused")  # whole calls time them; the others are other strategies' tiles


def disagreements(paths: list[str]) -> list[dict]:
    """One entry per (dtype, d, causal, N, pass) whose rematched candidates (three or more timings) have a different
    fastest by median and by lowest timing."""
    found: dict[tuple, dict] = {}
    for path in paths:
        with open(path) as f:
            rows = json.load(f)["results"]
        for row in rows:
            if row["system"] != "flashio" or not row.get("tuning"):
                continue
            for name, times in parse_tuning_timings(row["tuning"]).items():
                rematched = [label for label, timed in times.items() if len(timed) >= 3]
                if name not in TIMED_PASSES or len(rematched) < 2:
                    continue
                by_median = min(rematched, key=lambda label: statistics.median(times[label]))
                by_lowest = min(rematched, key=lambda label: min(times[label]))
                if by_median == by_lowest:
                    continue
                point = (row["dtype"], row["head_dim"], row["causal"], row["seqlen"], name)
                found[point] = dict(dtype=row["dtype"], head_dim=row["head_dim"], causal=row["causal"],
                                    seqlen=row["seqlen"], batch=row["batch"], heads=row["heads"], tuned=name,
                                    median_pick=by_median, lowest_pick=by_lowest, source=path,
                                    recorded={label: times[label] for label in (by_median, by_lowest)})
    return list(found.values())


def _time_point(entry: dict, rounds: int, calls: int) -> dict:
    import torch

    from flashio import configs
    import flashio
    from flashio.bench.sweep import _CudaEventTimer, describe_choice

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[entry["dtype"]]
    shape = (entry["batch"], entry["heads"], entry["seqlen"], entry["head_dim"])
    torch.manual_seed(0)
    q, k, v = (torch.randn(shape, device="cuda", dtype=dtype).requires_grad_(True) for _ in range(3))
    grad = torch.randn(shape, device="cuda", dtype=dtype)
    forward = lambda: flashio.attention(q, k, v, is_causal=entry["causal"])
    forward_backward = lambda: torch.autograd.grad(forward(), (q, k, v), grad)
    configs.clear_choices()
    forward_backward()  # tunes every pass of this point
    torch.cuda.synchronize()
    keys = [key for key in configs.cached_choices() if key[0] == entry["tuned"] and configs.tuning_timings(key)]
    forms = {}
    for key in keys:
        for option, _ in configs.tuning_timings(key):
            label = describe_choice(option, key[0])
            if label in (entry["median_pick"], entry["lowest_pick"]):
                forms[label] = (key, option)
    if len(forms) != 2:
        return {"skipped": f"the two forms are not among this process's candidates ({sorted(forms)})"}
    timer = _CudaEventTimer()
    call = forward if entry["tuned"] == "forward" else forward_backward
    handles = {label: [] for label in forms}
    forward_handles = []
    for _ in range(rounds):
        for label, (key, option) in forms.items():
            configs._CHOICES[key] = option  # noqa: SLF001 - this probe sets the pass's choice directly
            configs._COUNTERS["generation"] += 1  # noqa: SLF001 - so that no launch plan of the other form replays
            for _ in range(2):
                timer.read([timer.time(call, [q, k, v])])
            handles[label] += [timer.time(call, [q, k, v]) for _ in range(calls)]
            if call is forward_backward:
                forward_handles += [timer.time(forward, [q, k, v]) for _ in range(calls)]
    result = {label: statistics.median(timer.read(timed)) for label, timed in handles.items()}
    if forward_handles:
        forward_ms = statistics.median(timer.read(forward_handles))
        result = {label: ms - forward_ms for label, ms in result.items()}
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--list", action="store_true", help="only list the disagreements (no GPU)")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--max-points", type=int, default=None)
    args = parser.parse_args(argv)
    entries = disagreements(args.files)[:args.max_points]
    print("| dtype | d | causal | N | pass | median's pick | lowest's pick | recorded: lowest's pick ÷ median's pick, "
          "by median / by lowest |" + ("" if args.list else " timed now: ms median's / lowest's | faster |"))
    print("|---|---|---|---|---|---|---|---|" + ("" if args.list else "---|---|"))
    wins = {"median": 0, "lowest": 0}
    for entry in entries:
        a, b = entry["recorded"][entry["median_pick"]], entry["recorded"][entry["lowest_pick"]]
        cells = [entry["dtype"], str(entry["head_dim"]), "yes" if entry["causal"] else "no", str(entry["seqlen"]),
                 entry["tuned"], entry["median_pick"], entry["lowest_pick"],
                 f"{statistics.median(b) / statistics.median(a):.3f} / {min(b) / min(a):.3f}"]
        if not args.list:
            timed = _time_point(entry, args.rounds, args.calls)
            if "skipped" in timed:
                cells += [timed["skipped"], "-"]
            else:
                ms_median, ms_lowest = timed[entry["median_pick"]], timed[entry["lowest_pick"]]
                faster = "median" if ms_median < ms_lowest else "lowest"
                wins[faster] += 1
                cells += [f"{ms_median:.4f} / {ms_lowest:.4f} ({ms_lowest / ms_median:.3f})", faster]
        print("| " + " | ".join(cells) + " |", flush=True)
    if not args.list:
        print(f"\nfaster pick: median's {wins['median']}, lowest's {wins['lowest']} of {sum(wins.values())} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
