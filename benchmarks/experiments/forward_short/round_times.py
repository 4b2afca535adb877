"""Where the persistent forward's cold start goes, tile by tile (v0.36; PERFORMANCE.md v0.35 "Next" item 1).

v0.35 calls 5-7 (``call_gap.py``): the persistent Gluon forwards run ~11 µs longer at d=128 causal 1k when the kernel
before them (a 256 MB flush between) was another binary (FA2's forward, or flashio's own other-mask kernel) than when
it was themselves; the non-persistent forms lose ~2 µs. Is that time paid once, in each program's first tile (the
instruction caches filled once), or spread over the rounds?

This launches a Gluon forward candidate directly with ``CLOCK_TILES`` set (``kernels/gluon_clock.py``: each
partition's global-timer and cycle-counter readings at its entry, at each tile's start and end, and at its exit),
in turns of: the clocked kernel after itself ("warm"), after SDPA's FA2 forward, after SDPA's cuDNN forward, and after
the same candidate compiled without the clock ("plain": the nearest other binary). A 256 MB flush precedes every
clocked launch, as in the bench; events around it give its time. Per condition, the median over turns of:

- event µs, and the span from the earliest partition entry to the latest exit;
- entry skew: each program's first entry after the earliest (median / max over programs);
- per tile t (t = 0, 1, ...): the consumers' mean duration of tile t over the programs that have one, start to
  end (its Q wait, key loop and epilogue), and its start after the earliest entry;
- the SM clock: cycles over nanoseconds, over each program's whole run;
- the programs' exits (the later consumer's) after the earliest entry, earliest and median (the span is the latest),
  and a consumer's busy time: the sum of its tiles' durations, mean over programs and consumers.

The clock stores add a few instructions per tile; warm and cold carry the same ones, and the plain tuned kernel's
event time is printed beside them.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/round_times.py \\
        --points 128:causal:1024 --forms 2 1 --turns 30

v0.48: the forms with Q, K and V through host descriptors launch as the library's launcher makes them
(``host_descriptor_inputs``); ``--early-q-release`` times the forms with Q handed back after the last score product;
``--boundary`` (claiming forms; prepared, not yet run) adds warm launches whose consumers also mark the end of each
tile's Q-barrier wait and of its entry's read, and prints how the time from a tile's end to the next one's start
splits into Q wait, entry read and decode.
"""

import argparse
import contextlib
import dataclasses
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from flashio import configs, launchers

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from interleaved_forms import _point  # noqa: E402 - this folder's script: --points D:causal:N or D:noncausal:N
import tile_orders  # noqa: E402 - benchmarks/experiments/tile_orders.py

ORDERS = {"library": contextlib.nullcontext, "rotated": tile_orders.rotated_pairs,
          "measured": tile_orders.measured_tile_costs, "measured-tail": lambda: tile_orders.measured_tile_costs(True)}

FLUSH_BYTES = 256 << 20  # as flashio.bench.sweep._CudaEventTimer
CLOCK_TILES = 40  # more than any program's tile count at the points below (d=128 1k: <= 16 per program)


def _launcher(config, q, k, v, causal: bool, clock_tiles: int, claim_options: tuple = ()):
    """(a function launching candidate ``config`` on (q, k, v) (bhnd) and returning its output, its programs, its tile
    list or None); with ``clock_tiles`` the function also fills the int64 buffer it is given with
    ``gluon_clock.mark_tile``'s timestamps."""
    batch, heads, n, d = q.shape
    problem = launchers.describe(q, k, "bhnd", None)
    out = torch.empty_like(q)
    lse = torch.empty(q.shape[:3], device=q.device, dtype=torch.float32)
    kernel, grid, trailing, listed = launchers.gluon_forward_launch(config, problem, causal, q.device)
    constants = dict(IS_CAUSAL=causal, num_warps=config.num_warps, **launchers.gluon_forward_constants(config, d),
                     **listed, **({name: True for name in claim_options} if listed.get("DYNAMIC") else {}))
    # host_descriptors (v0.46): Q, and K and V, as descriptors made here, as the library's launcher makes them.
    loaded = launchers.host_descriptor_inputs(config.host_descriptors, problem, (
        (q, q.stride(), heads, n, constants["ROWS"], 1),
        (k, k.stride(), k.shape[1], k.shape[2], config.block_n, 3),
        (v, v.stride(), v.shape[1], v.shape[2], config.block_n, 3)))
    arguments = (*loaded, out, lse, *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *out.stride()[:3],
                 *lse.stride(), n, k.shape[2], heads // k.shape[1], d ** -0.5, *trailing)
    launchers._ensure_tma_allocator()

    def launch(buffer=None, boundary=None):
        if clock_tiles and boundary is not None:  # v0.48: the consumers' marks between tiles too
            kernel[grid](*arguments, tile_clock=buffer, CLOCK_TILES=clock_tiles, boundary_clock=boundary,
                         BOUNDARY_MARKS=True, **constants)
        elif clock_tiles:
            kernel[grid](*arguments, tile_clock=buffer, CLOCK_TILES=clock_tiles, **constants)
        else:
            kernel[grid](*arguments, **constants)
        return out
    return launch, grid[0], trailing[2]


def _summary(buffer: torch.Tensor, consumers: int) -> dict:
    """The per-run figures of the module note from one clocked launch's buffer (programs, tiles + 1, partitions, 4)."""
    b = buffer.cpu().double()
    recorded = b[..., 0] >= 0
    entries = b[:, 0, :, 0]
    exits = b[:, 0, :, 1]
    t0 = entries.min()
    per_program_entry = entries.min(dim=1).values
    skew = (per_program_entry - t0) / 1e3
    result = {"span": float(exits.max() - t0) / 1e3, "skew_med": float(skew.median()), "skew_max": float(skew.max())}
    tiles = []
    for t in range(1, b.shape[1]):
        have = recorded[:, t, :consumers].all(dim=1)
        if not have.any():
            break
        starts = b[have, t, :consumers, 0]
        ends = b[have, t, :consumers, 1]
        tiles.append((float((ends - starts).mean()) / 1e3, float((starts.mean(dim=1) - t0).median()) / 1e3,
                      int(have.sum())))
    result["tiles"] = tiles
    program_exits = (b[:, 0, :consumers, 1].max(dim=1).values - t0) / 1e3
    result["exit_min"], result["exit_med"] = float(program_exits.min()), float(program_exits.median())
    durations = (b[:, 1:, :consumers, 1] - b[:, 1:, :consumers, 0]).clamp(min=0) * recorded[:, 1:, :consumers]
    result["busy"] = float(durations.sum(dim=1).mean()) / 1e3  # a consumer's time inside its tiles
    cycles = b[:, 0, 0, 3] - b[:, 0, 0, 2]
    nanoseconds = b[:, 0, 0, 1] - b[:, 0, 0, 0]
    result["ghz"] = float((cycles / nanoseconds).median())
    return result


def _boundary_split(tiles: torch.Tensor, boundary: torch.Tensor, consumers: int) -> list:
    """Per tile t >= 1 of one launch with BOUNDARY_MARKS: the consumers' mean cycles from tile t-1's end to the end of
    tile t's Q-barrier wait, from there to the end of the entry's read, and from there to tile t's start mark (the
    entry decoded), as (t, three means, pairs counted); cycles of one multiprocessor's counter (``%clock64``)."""
    t_cycles = tiles.cpu().double()[:, :, :consumers, 2:]  # [start, end] cycles per (program, slot, consumer)
    b_cycles = boundary.cpu().double()[:, :, :, 2:]  # [after the Q wait, after the read]
    out = []
    for slot in range(2, tiles.shape[1]):
        previous_end, start = t_cycles[:, slot - 1, :, 1], t_cycles[:, slot, :, 0]
        waited, read = b_cycles[:, slot, :, 0], b_cycles[:, slot, :, 1]
        have = (previous_end >= 0) & (start >= 0) & (waited >= 0) & (read >= 0)
        if not have.any():
            break
        out.append((slot - 1, float((waited - previous_end)[have].mean()), float((read - waited)[have].mean()),
                    float((start - read)[have].mean()), int(have.sum())))
    return out


def _median_runs(runs: list) -> dict:
    """Median over runs of every figure (tile t over the runs that reached it)."""
    out = {key: statistics.median(r[key] for r in runs)
           for key in ("span", "skew_med", "skew_max", "ghz", "event", "exit_min", "exit_med", "busy")}
    tiles = []
    for t in range(max(len(r["tiles"]) for r in runs)):
        values = [r["tiles"][t] for r in runs if len(r["tiles"]) > t]
        tiles.append(tuple(statistics.median(v[i] for v in values) for i in range(3)))
    out["tiles"] = tiles
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", nargs="+", type=_point, required=True)
    parser.add_argument("--forms", nargs="+", type=int, required=True,
                        help="indices into configs.FORWARD_GLUON_CANDIDATES[d] (persistent forms)")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--tiles-shown", type=int, default=6)
    parser.add_argument("--dynamic", action="store_true",
                        help="the forms with dynamic_schedule (their programs claim tiles one at a time; causal)")
    parser.add_argument("--static", action="store_true",
                        help="the forms with their static lists (v0.37: d=128's tuned form has the dynamic one)")
    parser.add_argument("--claim", nargs="*", default=[], choices=("CLAIM_FIRST", "CLAIM_AHEAD"),
                        help="with --dynamic: these probe constexprs of the dynamic loader (v0.36, prepared)")
    parser.add_argument("--early-q-release", action="store_true",
                        help="the forms with early_q_release (Q handed back after the tile's last score product; "
                             "v0.48: the host-descriptor form's tile boundary with it)")
    parser.add_argument("--boundary", action="store_true",
                        help="v0.48: after the conditions, --turns warm launches with the consumers' marks between "
                             "tiles (claiming forms): where the time from one tile's end to the next one's start goes")
    parser.add_argument("--order", choices=list(ORDERS), default="library",
                        help="the causal tile list: the library's, or one of tile_orders' (rotated pairs, the tail or "
                             "all of it assigned with measured tile times)")
    parser.add_argument("--dump", help="a folder: save each condition's first five buffers and the tile list there "
                                       "(torch.save, one file per point and form)")
    args = parser.parse_args()
    if args.static and args.dynamic:
        parser.error("--static and --dynamic: one list or the other")
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    for d, causal, n in args.points:
        batch, heads = 16384 // n, 2048 // d
        torch.manual_seed(0)
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        neighbours = {}
        for name, backend in (("FA2", SDPBackend.FLASH_ATTENTION), ("cuDNN", SDPBackend.CUDNN_ATTENTION)):
            def sdpa(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            neighbours[name] = sdpa
        for form in args.forms:
            config = configs.FORWARD_GLUON_CANDIDATES[d][form]
            if args.dynamic or args.static:
                config = dataclasses.replace(config, dynamic_schedule=args.dynamic)
            if args.early_q_release:
                config = dataclasses.replace(config, early_q_release=True)
            if not config.persistent:
                raise SystemExit(f"form {form} at d={d} is not a persistent kernel: {config}")
            with ORDERS[args.order]():  # the launchers' list is made (and kept) inside
                clocked, programs, schedule = _launcher(config, q, k, v, causal, CLOCK_TILES, tuple(args.claim))
                plain, _, _ = _launcher(config, q, k, v, causal, 0, tuple(args.claim))
            neighbours["plain"] = plain
            consumers = 3 if config.block_m == 192 else 2
            shape = (programs, CLOCK_TILES + 1, consumers + 1, 4)
            reference = plain().clone()
            check = torch.full(shape, -1, dtype=torch.int64, device="cuda")
            clocked(check)
            torch.cuda.synchronize()
            error = float((clocked(check) - reference).abs().max())
            conditions = ("warm", "FA2", "cuDNN", "plain")
            buffers = {c: [torch.full(shape, -1, dtype=torch.int64, device="cuda") for _ in range(args.turns)]
                       for c in conditions}
            events = {c: [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                          for _ in range(args.turns)] for c in conditions}
            plain_events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                            for _ in range(args.turns)]
            for turn in range(args.turns):
                for condition in conditions:
                    if condition == "warm":
                        flush.zero_()
                        clocked(check)  # the run before the warm one: the clocked binary itself
                    else:
                        neighbours[condition]()
                    flush.zero_()
                    start, end = events[condition][turn]
                    start.record()
                    clocked(buffers[condition][turn])
                    end.record()
                flush.zero_()
                plain()
                flush.zero_()
                start, end = plain_events[turn]
                start.record()
                plain()
                end.record()
            torch.cuda.synchronize()
            if args.dump:
                torch.save({"config": str(config), "programs": programs, "consumers": consumers,
                            "schedule": None if schedule is None else schedule.cpu(),
                            "buffers": {c: [b.cpu() for b in buffers[c][:5]] for c in conditions}},
                           os.path.join(args.dump, f"round_times_d{d}_{'causal' if causal else 'noncausal'}_{n}"
                                                   f"_form{form}_{args.order}{'_dynamic' if args.dynamic else ''}.pt"))
            plain_us = statistics.median(s.elapsed_time(e) * 1e3 for s, e in plain_events)
            print(f"\n## d={d} {'causal' if causal else 'non-causal'} N={n}, form {form} ({args.order} list): {config}")
            print(f"{programs} programs; clocked output vs plain max |diff| {error:.3g}; plain kernel after itself "
                  f"{plain_us:.1f} µs (event, median of {args.turns})")
            header = [f"tile {t}: µs (start)" for t in range(args.tiles_shown)]
            print("| before it | event µs | span µs | programs' exits min / median µs | busy µs | entry skew med / max µs "
                  "| SM GHz | " + " | ".join(header) + " | last tiles |")
            print("|---|---|---|---|---|---|---|" + "---|" * (len(header) + 1))
            medians = {}
            for condition in conditions:
                runs = []
                for turn in range(args.turns):
                    summary = _summary(buffers[condition][turn], consumers)
                    start, end = events[condition][turn]
                    summary["event"] = start.elapsed_time(end) * 1e3
                    runs.append(summary)
                m = medians[condition] = _median_runs(runs)
                cells = [f"{m['tiles'][t][0]:.1f} ({m['tiles'][t][1]:.1f})" for t in range(min(args.tiles_shown,
                                                                                               len(m['tiles'])))]
                last = " ".join(f"{t[0]:.1f}" for t in m["tiles"][args.tiles_shown:])
                print(f"| {condition} | {m['event']:.1f} | {m['span']:.1f} | {m['exit_min']:.1f} / {m['exit_med']:.1f} | "
                      f"{m['busy']:.1f} | {m['skew_med']:.2f} / {m['skew_max']:.2f}"
                      f" | {m['ghz']:.3f} | " + " | ".join(cells) + f" | {last} |")
            if args.boundary:
                _print_boundary(clocked, flush, shape, consumers, args.turns, medians["warm"]["ghz"])
            print("\ncold minus warm, per tile (µs of the consumers' mean duration):")
            for condition in conditions[1:]:
                diffs = [c[0] - w[0] for c, w in zip(medians[condition]["tiles"], medians["warm"]["tiles"])]
                print(f"- after {condition}: event {medians[condition]['event'] - medians['warm']['event']:+.1f}, "
                      f"span {medians[condition]['span'] - medians['warm']['span']:+.1f}; tiles "
                      + " ".join(f"{x:+.1f}" for x in diffs))


def _print_boundary(clocked, flush, shape, consumers: int, turns: int, ghz: float) -> None:
    """``--boundary``: ``turns`` warm launches (each after itself and a flush) with the marks between tiles; per
    boundary before tile t the median over launches of the three parts (``_boundary_split``), in µs at ``ghz``."""
    programs, slots = shape[0], shape[1]
    splits = []
    for _ in range(turns):
        tiles = torch.full(shape, -1, dtype=torch.int64, device="cuda")
        boundary = torch.full((programs, slots, consumers, 4), -1, dtype=torch.int64, device="cuda")
        flush.zero_()
        clocked(tiles)
        flush.zero_()
        clocked(tiles, boundary)
        torch.cuda.synchronize()
        splits.append(_boundary_split(tiles, boundary, consumers))
    to_us = lambda cycles: cycles / ghz / 1e3
    print(f"\nbetween tiles (warm, median of {turns} launches; µs at {ghz:.3f} GHz): tile t-1's end -> tile t's Q "
          "barrier passed -> its entry read -> its start mark")
    print("| before tile | Q wait | entry read | decode | all | consumer-tiles counted |")
    print("|---|---|---|---|---|---|")
    for t in range(max(len(s) for s in splits)):
        rows = [s[t] for s in splits if len(s) > t]
        q, e, d = (statistics.median(r[i] for r in rows) for i in (1, 2, 3))
        print(f"| {t + 1} | {to_us(q):.2f} | {to_us(e):.2f} | {to_us(d):.2f} | {to_us(q + e + d):.2f} | "
              f"{statistics.median(r[4] for r in rows)} |")


if __name__ == "__main__":
    main()
