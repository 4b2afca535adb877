"""Where the library call's 4% went at d=128 causal 1k under the grid's interleaved timing (v0.33).

v0.32 call 5 and v0.33 call 4 (``interleaved_forms.py --call-forms``) measured the public API on inputs that
require grad at 372-374 TFLOP/s interleaved, against 392 for the same call on detached inputs, 396 for the launcher
and 394 for the kernel alone in a CUDA graph: the same kernel (one launch plan), so the difference is either more GPU
work in the autograd call, time the GPU waits between the start event and the kernel, or something about when it ran.

This times the calls the grid's way (a 256 MB flush, a start event, the call, an end event; the calls in turn, the
order rotated by one each pass as ``sweep._time_interleaved`` did until v0.33): first without the profiler, printing
the events' time per call, the number of device allocations and the output addresses; then under
``torch.profiler``, adding the GPU time of the kernels between the flush and the next flush (from the profiler's
activity records), the difference (the GPU idle or busy elsewhere inside the events) and the names of any kernels
other than the attention kernel. Then all of it again with a 200 µs spin kernel queued ahead of each flush
(``torch.cuda._sleep``), which keeps the GPU busy while the host enqueues: host time would close there. ``--also``
adds SDPA's cuDNN and FA2 forwards to the turn; ``--no-grad-first`` puts the detached call first.

Outcome (v0.33 calls 5-9, H200, bf16, results/2026-12-02_h200_v0.33_probes/call_gap_*.txt): the two calls alone, or
with cuDNN, level (393-397 against 395-397); with FA2 in the turn the first call listed 370-374 and the second
390-395, whichever of the two is first (call 9). The slow call's kernel itself runs longer (180-182 against 171-172
µs of GPU time inside 3.3-4 µs of event overhead for both), with no other kernel, no device allocation, and the same
output address as every other call; the spin kernel changes nothing. With the rotation the first-listed call follows
FA2 in three passes of four: a forward started right after FA2's forward (the flush between them) runs 6% slower.
Why (FA2's clock or power state, its L2 or TLB footprint) is not measured. The bench's interleaved timing shuffles
the order every pass since.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/call_gap.py \\
        --points 128:causal:1024 --also cuDNN FA2 --passes 100

v0.34 call 5 (the grid's turn, rotated and shuffled; results/2026-12-02_h200_v0.34_probes/call5_out/): the autograd
call's kernel took 170-171 µs after itself, 177-181 after cuDNN's forward and 183-185 after FA2's, while cuDNN's took
151-153 after any of them; the bench at d=128 bf16 causal 1k, forward only, measured 392 TFLOP/s beside cuDNN alone and
371 with FA2 in the turn. What a preceding kernel leaves behind through a 256 MB flush is not known. Two calls added
for that (prepared, not run): ``--same-code`` (the autograd call on a second set of inputs: the same kernel binary on
other addresses) and ``--same-data`` (the autograd call with the other mask: another kernel binary on the same
inputs). If the kernel after "same code" runs at ~170 µs and after "same data" at ~180, the state is the kernel's
code (each multiprocessor's instruction caches: flashio's tuned forward is 5,512 SASS instructions, cuDNN's 1,272,
v0.25); the other way round, its data (TLB entries, for instance). ("same data"'s TFLOP/s column counts the point's
FLOPs, half its own when the point is causal.)

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/call_gap.py \\
        --points 128:causal:1024 --only-autograd --also FA2 --same-code --same-data --shuffled --passes 150

v0.35 calls 5-6 (results/2026-12-02_h200_v0.35_probes/call_gap_same_code_data*.txt): the autograd call's kernel took
171 µs after itself and after "same code", 184-186 after FA2 and after "same data": the state that carries over is the
code's. The same split elsewhere: d=128 causal 2k 264-265 against 271 µs, d=256 causal 1k 150 against 155, d=128
non-causal 1k 244 against 248, d=64 causal 1k 217 against 218. ``--forward-forms`` (v0.35 call 7) adds the point's
Gluon candidates as calls of their own, each from a CUDA graph, to set each form's cold penalty beside its code size:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/call_gap.py \
        --points 128:causal:1024 --only-autograd --also FA2 --forward-forms 0 1 2 3 --shuffled --passes 150

Outcome (call 7): the persistent forms lose ~11 µs after another binary (tuned form 170 -> 181-182 µs, persistent
pipelined 186 -> 197), the non-persistent ones ~2 µs (221-222 -> 223-224), FA2's ~1 µs; the SASS sizes (6,192-7,856
lines) do not order the penalties.

v0.43: ``--tuner-timer`` also times the forms with the rematch's alternating timer (``launchers._time_alternately_ms``,
the forms call by call in shuffled turns, ``ROUNDS`` times), the third column.

v0.42: ``--tuner-timer ROUNDS`` times the ``--forward-forms`` calls with the tuner's own timer too (do_bench: the form
alone, back to back, an L2 flush before each; ``ROUNDS`` times in turn) beside the bench's turn (with cuDNN and FA2),
and prints each form's rate relative to the first by both. Call 6 runs it where v0.42's grids saw the tuner take the
one-tile-per-program form and the bench then measure it 3-7% below the persistent one (d=128 bf16 non-causal 4k; d=256
non-causal 2k). Prediction: the tuner's timer puts the two forms within 2% of each other where the bench's turn puts
the persistent form 3-7% ahead (a bias of the back-to-back timing: after its own binary the one-tile form loses
nothing, and the persistent form's ~11 µs after another binary, measured at 1k, is about 1% of a 4k call).

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/call_gap.py \
        --points 128:noncausal:4096 256:noncausal:2048 --only-autograd --also cuDNN FA2 --forward-forms 0 1 2 \
        --tuner-timer 5 --only-timers --passes 60
"""

import argparse
import random
import statistics

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

import flashio
from flashio import configs, launch_plans
from flashio.bench import sweep
from interleaved_forms import _graphed, _point  # this folder's script: --points D:causal:N or D:noncausal:N

FLUSH_BYTES = 256 << 20  # as flashio.bench.sweep._CudaEventTimer
SDPA_BACKENDS = {"cuDNN": SDPBackend.CUDNN_ATTENTION, "FA2": SDPBackend.FLASH_ATTENTION}


def _spin_cycles(us: float) -> int:
    """Cycles of ``torch.cuda._sleep`` for about ``us`` microseconds (measured once)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(1_000_000)
    end.record()
    torch.cuda.synchronize()
    return int(1_000_000 * us / (start.elapsed_time(end) * 1e3))


def _forced_forms(library, detached_call, before: set, head_dim: int, indices: list) -> dict:
    """Calls named 'form I' (``--forward-forms``): the forward with the tuned choice of this point's key (the one
    ``library`` added after ``before``) replaced by the Gluon candidate I, captured in a CUDA graph; the tuned choice
    is restored afterwards and ``library`` recorded again."""
    key = next(key for key in configs.cached_choices() if key not in before and key[0] == "forward")
    tuned = configs.cached_choices()[key]
    forms = {}
    with torch.no_grad():
        for index in indices:
            configs._CHOICES[key] = configs.FORWARD_GLUON_CANDIDATES[head_dim][index]  # the probes' override
            launch_plans.clear()
            replay, out = _graphed(detached_call)
            forms[f"form {index}"] = lambda replay=replay, out=out: (replay(), out)[1]
            print(f"form {index}: {sweep.describe_choice(configs._CHOICES[key], 'forward')}", flush=True)
    configs._CHOICES[key] = tuned
    launch_plans.clear()
    library()
    print(f"tuned choice: {sweep.describe_choice(tuned, 'forward')}", flush=True)
    return forms


def _timed_calls(calls: dict, leaves: list, flush: torch.Tensor, passes: int, spin: int,
                 shuffled: bool = False) -> tuple[dict, list]:
    """Event handles per call name, and the call order (one name per timed call): the order rotated by one each
    pass, or (``shuffled``) drawn afresh each pass as the bench does since v0.33."""
    handles, order = {name: [] for name in calls}, []
    names = list(calls)
    shuffle = random.Random(sweep.INTERLEAVED_ORDER_SEED).shuffle
    for index in range(passes):
        if shuffled:
            shuffle(names)
            turn = list(names)
        else:
            turn = names[index % len(names):] + names[:index % len(names)]
        for name in turn:
            for leaf in leaves:
                leaf.grad = None
            if spin:
                torch.cuda._sleep(spin)
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            calls[name]()
            end.record()
            handles[name].append((start, end))
            order.append(name)
    return handles, order


def _compare_timers(calls: dict, forms: list, leaves: list, flush: torch.Tensor, d: int, causal: bool, n: int,
                    flops: float, rounds: int, passes: int) -> None:
    """Each form's median µs by the tuner's timer (``launchers._time_ms``, ``rounds`` times, the forms in turn) and by
    the bench's (every call in ``calls`` in turn, a fresh order each pass, ``passes`` passes), and each form's rate
    relative to the first form by both: whether the tuner's back-to-back timing ranks close forms as the bench's turn
    does (v0.42, PERFORMANCE.md "Next" item 1)."""
    from flashio import launchers
    tuner = {name: [] for name in forms}
    for _ in range(rounds):
        for name in forms:
            tuner[name].append(launchers._time_ms(calls[name]) * 1e3)
    # v0.43: the rematch's alternating timer (launchers._time_alternately_ms: the forms call by call in shuffled turns)
    alternate = {name: [] for name in forms}
    for _ in range(rounds):
        for name, ms in zip(forms, launchers._time_alternately_ms([calls[name] for name in forms])):
            alternate[name].append(ms * 1e3)
    handles, _ = _timed_calls(calls, leaves, flush, passes, 0, shuffled=True)
    torch.cuda.synchronize()
    bench = {name: statistics.median(s.elapsed_time(e) * 1e3 for s, e in handles[name]) for name in forms}
    first = forms[0]
    for name in forms:
        tuned_us, alternate_us = statistics.median(tuner[name]), statistics.median(alternate[name])
        relative = (f"tuner {statistics.median(tuner[first]) / tuned_us:.3f}, "
                    f"alternate {statistics.median(alternate[first]) / alternate_us:.3f}, "
                    f"bench {bench[first] / bench[name]:.3f}")
        print(f"timers | {d} | {causal} | {n} | {name} | tuner {tuned_us:.1f} µs "
              f"({', '.join(f'{t:.1f}' for t in tuner[name])}) | alternate {alternate_us:.1f} µs "
              f"({', '.join(f'{t:.1f}' for t in alternate[name])}) | bench {bench[name]:.1f} µs | ÷ {first}: {relative} "
              f"| bench {flops / bench[name] / 1e6:.0f} TFLOP/s |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", nargs="+", type=_point, required=True)
    parser.add_argument("--passes", type=int, default=200)
    parser.add_argument("--no-grad-first", action="store_true",
                        help="the detached call first in the turn (it then follows the last system listed)")
    parser.add_argument("--only-autograd", action="store_true", help="leave the detached call out of the turn")
    parser.add_argument("--shuffled", action="store_true", help="a fresh order each pass (the bench since v0.33)")
    parser.add_argument("--also", nargs="*", default=[], choices=sorted(SDPA_BACKENDS),
                        help="more calls in turn: SDPA's cuDNN and FLASH_ATTENTION (FA2) backends")
    parser.add_argument("--same-code", action="store_true",
                        help="add the autograd call on a second set of inputs (same kernel, other addresses)")
    parser.add_argument("--same-data", action="store_true",
                        help="add the autograd call with the other mask (another kernel, the same inputs)")
    parser.add_argument("--forward-forms", nargs="*", type=int, default=[], metavar="I",
                        help="add configs.FORWARD_GLUON_CANDIDATES[d][I] as calls of their own (the tuned choice "
                             "overridden, each replayed from a CUDA graph on the detached inputs)")
    parser.add_argument("--tuner-timer", type=int, default=0, metavar="ROUNDS",
                        help="also time each --forward-forms call ROUNDS times in turn with the tuner's timer "
                             "(launchers._time_ms: do_bench, the call alone back to back, an L2 flush before each)")
    parser.add_argument("--only-timers", action="store_true",
                        help="with --tuner-timer: print the two timers' medians per form, skip the profiled passes")
    args = parser.parse_args()
    if args.no_grad_first and args.only_autograd:
        parser.error("--no-grad-first puts the detached call first; --only-autograd leaves it out: choose one")
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    spin = _spin_cycles(200.0)
    print("| d | causal | N | spin ahead | call | events µs | kernels µs | gap µs | TFLOP/s (events) | other kernels |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d, causal, n in args.points:
        batch, heads = 16384 // n, 2048 // d
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16).requires_grad_(True)
                   for _ in range(3))
        detached = [t.detach() for t in (q, k, v)]
        flops = 4 * batch * heads * n * n * d / (2 if causal else 1)

        def sdpa(backend):
            def call():
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return call

        calls = {"autograd": lambda: flashio.attention(q, k, v, is_causal=causal),
                 "no grad": lambda: flashio.attention(*detached, is_causal=causal)}
        calls.update({name: sdpa(SDPA_BACKENDS[name]) for name in args.also})
        if args.same_code:
            other_inputs = [torch.randn_like(t).requires_grad_(True) for t in (q, k, v)]
            calls["same code"] = lambda: flashio.attention(*other_inputs, is_causal=causal)
        if args.same_data:
            calls["same data"] = lambda: flashio.attention(q, k, v, is_causal=not causal)
        if args.no_grad_first:  # the turn's order: each call follows the one before it in most passes
            calls = {"no grad": calls.pop("no grad"), **calls}
        if args.only_autograd:
            del calls["no grad"]
        before = set(configs.cached_choices())
        for fn in calls.values():  # tuning and the launch plan
            fn()
        if args.forward_forms:
            calls.update(_forced_forms(calls["autograd"], lambda: flashio.attention(*detached, is_causal=causal),
                                       before, d, args.forward_forms))
        if args.tuner_timer:
            _compare_timers(calls, [name for name in calls if name.startswith("form ")], [q, k, v], flush, d, causal,
                            n, flops, args.tuner_timer, args.passes)
            if args.only_timers:
                continue
        # The flush's own GPU activity names, to split the record into calls.
        with profile(activities=[ProfilerActivity.CUDA]) as flush_profile:
            flush.zero_()
            torch.cuda.synchronize()
        flush_names = {e.name for e in flush_profile.events() if e.device_type == torch.autograd.DeviceType.CUDA}
        for spin_ahead in (0, spin):
            _timed_calls(calls, [q, k, v], flush, 20, spin_ahead, args.shuffled)  # warm-up
            # The same calls without the profiler (its activity records add host work to every launch).
            addresses = {name: [] for name in calls}
            recording = {name: (lambda name=name: addresses[name].append(calls[name]().data_ptr())) for name in calls}
            before = torch.cuda.memory_stats().get("num_device_alloc", 0)
            plain, _ = _timed_calls(recording, [q, k, v], flush, args.passes, spin_ahead, args.shuffled)
            torch.cuda.synchronize()
            device_allocs = torch.cuda.memory_stats().get("num_device_alloc", 0) - before
            print(f"device allocations (cudaMalloc) in {len(calls) * args.passes} timed calls: {device_allocs}; "
                  "output addresses: " + ", ".join(f"{name} {len(set(found))} distinct, first {found[0]:#x}"
                                                   for name, found in addresses.items()), flush=True)
            for name in calls:
                event_us = statistics.median(s.elapsed_time(e) * 1e3 for s, e in plain[name])
                print(f"| {d} | {causal} | {n} | {'200 µs' if spin_ahead else 'none'} | {name}, not profiled | "
                      f"{event_us:.1f} | | | {flops / event_us / 1e6:.0f} | |", flush=True)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                handles, order = _timed_calls(calls, [q, k, v], flush, args.passes, spin_ahead, args.shuffled)
                torch.cuda.synchronize()
            activities = sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                                 and "spin_kernel" not in e.name), key=lambda e: e.time_range.start)
            per_call, current = [], None
            for event in activities:
                # Without a flush activity in the record (memsets not traced), a call starts at its attention kernel.
                if event.name in flush_names or (not flush_names and "attention" in event.name):
                    current = [] if flush_names else [event]
                    per_call.append(current)
                elif current is not None:
                    current.append(event)
            if len(per_call) != len(order):
                raise SystemExit(f"split the profile into {len(per_call)} calls, timed {len(order)}")
            kernel_us = {name: [] for name in calls}
            others = {name: set() for name in calls}
            for name, events in zip(order, per_call):
                kernel_us[name].append(sum(e.time_range.end - e.time_range.start for e in events))
                others[name] |= {e.name[:60] for e in events if "attention" not in e.name and name not in SDPA_BACKENDS}
            for name in calls:
                event_us = statistics.median(s.elapsed_time(e) * 1e3 for s, e in handles[name])
                kernels = statistics.median(kernel_us[name])
                print(f"| {d} | {causal} | {n} | {'200 µs' if spin_ahead else 'none'} | {name} | {event_us:.1f} | "
                      f"{kernels:.1f} | {event_us - kernels:.1f} | {flops / event_us / 1e6:.0f} | "
                      f"{', '.join(sorted(others[name])) or '-'} |", flush=True)
            # Each call's kernel time by the call just before it (the first timed call has none).
            by_predecessor: dict = {}
            for before, (name, events) in zip(order, list(zip(order, per_call))[1:]):
                by_predecessor.setdefault((name, before), []).append(
                    sum(e.time_range.end - e.time_range.start for e in events))
            print("kernel µs by the call before: " + "; ".join(
                f"{name} after {before} {statistics.median(times):.1f} ({len(times)})"
                for (name, before), times in sorted(by_predecessor.items())), flush=True)


if __name__ == "__main__":
    main()
