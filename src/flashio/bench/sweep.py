"""Benchmark sweeps: time, TFLOP/s, speedup, memory and error of every system at every point.

Timing: compile and autotuning happen in an untimed first call of every system before any of the point's
timings; inputs are tens to hundreds of MB (well past the 60 MB L2 of an H200 at the default 16k tokens).
By default (``timing="blocks"``) each system is timed with ``triton.testing.do_bench`` (CUDA events, L2
flushed before each call, warm-up 25 ms, 100 ms of repeats, median), one system after the other, or in
``rounds`` alternate blocks of 100/rounds ms (median block). The H200's SM clock follows the board's power
draw within tens of milliseconds (v0.16: 1980 MHz for the first ~50 ms of a d=128 forward, 1650-1730 MHz at
the 700 W limit), so a block starts at the clock the previous block left: with the same kernels, cuDNN's
d=128 1k forward measured 546 or 594 TFLOP/s depending on the block order. ``timing="interleaved"`` times
the systems call by call in turn (``_time_interleaved``): every system at the same clock, which suits a
head-to-head of kernels that draw similar power (flashio and cuDNN); a system that draws less power alone
(FA2, memory-bound standard attention) would run at a higher clock than the mix gives it, so its rate is
understated and ratios against it overstated (v0.16, d=128, same session: FA2's forward 1-2% and its
backward 5-7% slower interleaved than in blocks, medians). ``timing="sustained"`` runs each system alone,
calls back to back, for 1 s before timing it (``_time_sustained``): every system at its own
power-limited clock, as in a long training job (v0.17: d=128 causal 1k forward flashio ÷ cuDNN 0.90,
interleaved 0.84).
Backward time = (forward+backward) − forward. FLOPs follow
the standard conventions (algorithm.md): forward 4·B·H·N²·d, halved for causal, backward 2.5× forward;
the same nominal count for every system, so TFLOP/s ratios are time ratios.

Extra memory: peak allocated during one forward (mode ``fwd``) or forward+backward minus what was
allocated before (inputs and dO already there). Error: max |out − fp32 reference| on the first sequence
of the batch and its first four heads (the fp32 reference materialises N×N).
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable, Optional, Sequence

import torch

from flashio import configs
from flashio.bench.systems import SYSTEMS, Inputs, _unpack

MODES = ("fwd", "bwd", "fwdbwd")
DEFAULT_SYSTEMS = ("flashio", "standard", "sdpa_math", "sdpa_flash", "sdpa_efficient", "sdpa_cudnn", "flex",
                   "flash_attn")
_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


@dataclass(frozen=True)
class BenchPoint:
    """One configuration. Batch and heads default to the anchors' convention: batch·N = ``tokens``,
    heads·d = ``hidden``."""

    seqlen: int
    head_dim: int
    causal: bool = False
    dtype: str = "bf16"
    dropout_p: float = 0.0
    padding: bool = False
    batch: Optional[int] = None
    heads: Optional[int] = None
    tokens: int = 16384
    hidden: int = 2048

    @property
    def resolved_batch(self) -> int:
        return self.batch if self.batch is not None else max(1, self.tokens // self.seqlen)

    @property
    def resolved_heads(self) -> int:
        return self.heads if self.heads is not None else max(1, self.hidden // self.head_dim)

    def flops(self, mode: str) -> float:
        forward = 4.0 * self.resolved_batch * self.resolved_heads * self.seqlen**2 * self.head_dim
        forward /= 2.0 if self.causal else 1.0
        return {"fwd": forward, "bwd": 2.5 * forward, "fwdbwd": 3.5 * forward}[mode]

    def label(self) -> str:
        extras = "".join([" causal" if self.causal else "", f" dropout={self.dropout_p}" if self.dropout_p else "",
                          " padded" if self.padding else ""])
        return f"{self.dtype} d={self.head_dim} N={self.seqlen} B={self.resolved_batch} H={self.resolved_heads}{extras}"


@dataclass
class BenchResult:
    system: str
    mode: str
    seqlen: int
    head_dim: int
    batch: int
    heads: int
    causal: bool
    dtype: str
    dropout_p: float
    padding: bool
    time_ms: float = math.nan
    tflops: float = math.nan
    speedup_vs_standard: float = math.nan
    extra_memory_gb: float = math.nan
    max_abs_error: float = math.nan
    status: str = "ok"
    reason: str = ""
    dram_read_bytes: Optional[float] = None
    dram_write_bytes: Optional[float] = None
    tiles: str = ""  # flashio: the tuned choices its first call at this point made ("kernel=choice; ...")
    tuning: str = ""  # flashio: the tuner's timings behind those choices (see describe_timings)

    def to_dict(self) -> dict:
        return asdict(self)


def describe_choice(choice, kernel: str = "") -> str:
    """A tuned choice of ``kernel`` (a tuning key's first field) in a few characters: 'ws 128x128 w4 s2'
    for a tile configuration (a Gluon backward tile adds its dQ chunks x buffers, ' ws' when
    warp-specialised, ' split' with its roles on two warpgroups, ' kv-regs' with K/V in registers and
    ' stats-smem' with its LSE/D rows in shared memory:
    'gluon 64x64 w4 s2 dq1x1'; Gluon forward tiles ' pipelined', ' split-kv', ' pingpong', ' out-regs',
    ' out-smem', ' half-diag', ' balanced', ' q-regs'; ' ds2' with two dS^T tiles, ' rows' with its key rows
    on two MMA partitions; ' wide-out' for either pass's tile stored 16 bytes at a time; ' do2' with two dO
    slots; ' spread-dq' with its dQ tiles stored without bank conflicts; ' early-lse' with its LSE rows read before
    the S^T wait; ' dynamic' for a persistent forward or fused backward claiming its causal tiles one at a time;
    ' host3' with three of its inputs through descriptors made on the host, ``host_descriptors``; ' mask-branch' with
    its masked key blocks through the unmasked step's code, ``mask_by_branch``; ' mask-all' with that step's mask
    computed in every block, ``mask_every_block``; ' overlap' with each tile's output stored while the next tile's
    first score product runs, ``overlap_tiles``; ' coords' with each claimed tile's coordinates published packed,
    ``published_coordinates``; ' sum-mma' with its row sums on the tensor cores, ``row_sum_mma``), else the value."""
    if not isinstance(choice, configs.TileConfig):
        return str(choice)
    extras = (f" r{choice.max_registers}" if choice.max_registers else "") + \
        (f" {choice.passes}-pass" if choice.passes > 1 else "") + (" persistent" if choice.persistent else "") + \
        (f" dq{choice.dq_chunks}x{choice.dq_buffers}" if choice.path == "gluon" and kernel != "forward" else "") + \
        (" ws" if choice.warp_specialised else "") + (" split" if choice.split_roles else "") + \
        (" kv-regs" if choice.kv_in_registers else "") + (" stats-smem" if choice.stats_in_shared else "") + \
        (" pipelined" if choice.pipelined else "") + \
        (" split-kv" if choice.split_kv else "") + (" pingpong" if choice.pingpong else "") + \
        (" out-regs" if choice.output_from_registers else "") + (" out-smem" if choice.output_buffer else "") + \
        (" q2" if choice.q_buffers == 2 else "") + (" early-q" if choice.early_q_release else "") + \
        (" half-diag" if choice.half_diagonal else "") + \
        (" balanced" if choice.balanced_schedule else "") + (" q-regs" if choice.q_in_registers else "") + \
        (" ds2" if choice.ds_buffers == 2 else "") + (" rows" if choice.split_rows else "") + \
        (" late-kv-wait" if choice.late_key_gradient_wait else "") + (" split-tail" if choice.split_tail else "") + \
        (" wide-out" if choice.wide_stores else "") + (f" do{choice.do_stages}" if choice.do_stages > 1 else "") + \
        (" spread-dq" if choice.spread_dq_stores else "") + (" early-lse" if choice.early_lse else "") + \
        (" dynamic" if choice.dynamic_schedule else "") + (" nc-claims" if choice.noncausal_claims else "") + \
        (" kv2" if choice.kv_slots == 2 else "") + (" queries-first" if choice.queries_first else "") + \
        (f" host{choice.host_descriptors}" if choice.host_descriptors else "") + \
        (" mask-branch" if choice.mask_by_branch else "") + (" mask-all" if choice.mask_every_block else "") + \
        (" overlap" if choice.overlap_tiles else "") + (" coords" if choice.published_coordinates else "") + \
        (" sum-mma" if choice.row_sum_mma else "")
    return f"{choice.path} {choice.block_m}x{choice.block_n} w{choice.num_warps} s{choice.num_stages}{extras}"


def describe_timings(key) -> str:
    """The tuner's timings behind the choice for ``key`` (configs.tuning_timings), fastest median first:
    'forward: gluon 128x128 w4 s3 persistent pipelined 0.677/0.680/0.679 ms, pointer 64x64 w4 s3 0.720 ms,
    ...'; empty when the choice was not timed in this process."""
    timings = configs.tuning_timings(key)
    if not timings:
        return ""
    ranked = sorted(timings, key=lambda entry: statistics.median(entry[1]))
    cells = [f"{describe_choice(option, key[0])} {'/'.join(f'{ms:.4f}' for ms in times)} ms" for option, times in ranked]
    return f"{key[0]}: " + ", ".join(cells)


def _make_inputs(point: BenchPoint, device: str, seed: int = 0) -> Inputs:
    generator = torch.Generator(device=device).manual_seed(seed)
    dtype = _DTYPES[point.dtype]
    shape = (point.resolved_batch, point.resolved_heads, point.seqlen, point.head_dim)
    make = lambda: torch.randn(shape, device=device, dtype=dtype, generator=generator).requires_grad_(True)
    lengths = None
    if point.padding:
        # The paper's masking benchmark: lengths drawn uniformly in [N - 20, N].
        low = max(1, point.seqlen - 20)
        lengths = torch.randint(low, point.seqlen + 1, (point.resolved_batch,), generator=torch.Generator().manual_seed(seed)).tolist()
    return Inputs(make(), make(), make(), point.causal, point.dropout_p, lengths)


def _max_error(system_out: torch.Tensor, inputs: Inputs, point: BenchPoint) -> float:
    """Max |out - fp32 reference| on sequence 0, heads 0..3 (dropout makes outputs random: NaN then)."""
    from flashio.reference import attention_reference

    if point.dropout_p > 0:
        return math.nan
    out = system_out
    if inputs.lengths is not None and out.dim() == 3:
        out = _unpack(out, inputs)
    heads = min(4, inputs.q.shape[1])
    q, k, v = (t[:1, :heads].detach() for t in (inputs.q, inputs.k, inputs.v))
    mask = inputs.key_padding_mask[:1] if inputs.lengths is not None else None
    with torch.no_grad():
        ref = attention_reference(q, k, v, causal=point.causal, key_padding_mask=mask, upcast=True).float()
    got = out[:1, :heads].detach().float()
    if inputs.lengths is not None:
        rows = inputs.lengths[0]
        ref, got = ref[:, :, :rows], got[:, :, :rows]
    return (got - ref).abs().max().item()


def _leaves(inputs: Inputs, system_name: str) -> list[torch.Tensor]:
    if inputs.lengths is not None and system_name in ("flashio", "flashio_deterministic", "flash_attn"):
        return list(inputs.cache["packed"][:3])
    return [inputs.q, inputs.k, inputs.v]


@dataclass
class _Prepared:
    """A system ready to be timed at one point: its forward, and forward+backward if a mode needs it."""

    forward: Callable[[], object]
    forward_backward: Optional[Callable[[], object]]
    leaves: list
    memory: dict
    error: float


def _prepare(system_name: str, inputs: Inputs, point: BenchPoint, modes: Sequence[str]) -> _Prepared:
    """The untimed part of a measurement: the first call (compile, autotune, packed inputs), the error
    against the reference, the extra memory of one forward (and forward+backward)."""
    system = SYSTEMS[system_name]
    fn = lambda: system.run(inputs)
    out = fn()
    dout = torch.randn_like(out)
    leaves = _leaves(inputs, system_name)
    error = _max_error(out, inputs, point)
    need_backward = any(m in ("bwd", "fwdbwd") for m in modes)
    if need_backward:
        out.backward(dout)
    del out
    memory = {}
    for mode in ("fwd", "fwdbwd") if need_backward else ("fwd",):
        for leaf in leaves:
            leaf.grad = None
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        result = fn()
        if mode == "fwdbwd":
            result.backward(dout)
        torch.cuda.synchronize()
        memory[mode] = (torch.cuda.max_memory_allocated() - before) / 1e9
        del result
    memory["bwd"] = memory.get("fwdbwd", math.nan)
    for leaf in leaves:
        leaf.grad = None
    forward_backward = (lambda: fn().backward(dout)) if need_backward else None
    return _Prepared(fn, forward_backward, leaves, memory, error)


def _failure(exc: Exception) -> str:
    """A system's failure as recorded in its result: the exception's type and first line."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


def _timing_failure(exc: Exception) -> str:
    """A failure while a prepared system was being timed (recorded, not fatal: the others go on)."""
    return "out of GPU memory while timing" if isinstance(exc, torch.cuda.OutOfMemoryError) else _failure(exc)


def _with_backward(measured: dict) -> dict:
    """``measured`` ({mode: ms}) with the backward's time, forward+backward - forward, when both were timed."""
    if "fwdbwd" in measured:
        measured["bwd"] = measured["fwdbwd"] - measured["fwd"]
    return measured


# The timing of one point: ``rounds`` alternate blocks over the systems, each block ``TIMED_MS`` / rounds
# of repeats after a warm-up of ``WARMUP_MS`` / rounds (at least 5 ms), the median over the blocks. With
# one round (the default) every system is timed in one block of TIMED_MS, one system after the other.
WARMUP_MS = 25
TIMED_MS = 100
TIMING_METHODS = ("blocks", "interleaved", "sustained")


def check_timing(timing: str, rounds: int) -> None:
    """ValueError, naming the argument, unless ``timing`` is one of TIMING_METHODS and ``rounds`` a positive
    integer that is 1 unless timing is "blocks"."""
    if timing not in TIMING_METHODS:
        raise ValueError(f"timing: expected one of {TIMING_METHODS}, got {timing!r}")
    if not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds: expected a positive integer, got {rounds!r}")
    if timing != "blocks" and rounds != 1:
        raise ValueError(f"rounds: only timing 'blocks' takes rounds, got {rounds} with timing {timing!r}")


def _time_in_rounds(prepared: dict, rounds: int) -> tuple[dict, dict]:
    """({system: {mode: ms}}, {system: failure}): forward, and forward+backward, of every prepared system in
    ``rounds`` alternate blocks (so that a drift of the GPU's clock within the sweep falls on all systems
    alike), the median of the blocks; backward = forward+backward - forward. A system whose timing raises
    is left out of the later rounds and reported with its failure; the others go on."""
    from triton.testing import do_bench

    warmup, rep = max(5, WARMUP_MS // rounds), max(5, TIMED_MS // rounds)
    blocks = {name: {"fwd": [], "fwdbwd": []} for name in prepared}
    failed: dict[str, str] = {}
    for _ in range(rounds):
        for name, p in prepared.items():  # do_bench synchronises before it times
            if name in failed:
                continue
            try:
                blocks[name]["fwd"].append(do_bench(p.forward, warmup=warmup, rep=rep, return_mode="median"))
                if p.forward_backward is not None:
                    blocks[name]["fwdbwd"].append(do_bench(p.forward_backward, warmup=warmup, rep=rep,
                                                           return_mode="median", grad_to_none=p.leaves))
            except Exception as exc:
                failed[name] = _timing_failure(exc)
    times = {name: _with_backward({mode: statistics.median(ms) for mode, ms in timed.items() if ms})
             for name, timed in blocks.items() if name not in failed}
    return times, failed


class _CudaEventTimer:
    """Times one call at a time on the current stream with a pair of CUDA events, the L2 cache flushed
    before each call as ``triton.testing.do_bench`` does (a 256 MB memset: at the bench's sizes a call
    then reads its inputs from HBM, as in a model's layer). Calls are queued; ``read`` synchronises once."""

    def __init__(self):
        self.flush_buffer = torch.empty(256 << 20, dtype=torch.int8, device="cuda")

    def time(self, fn: Callable[[], object], leaves: list) -> tuple:
        for leaf in leaves:  # a backward accumulates into .grad otherwise (do_bench's grad_to_none)
            leaf.grad = None
        self.flush_buffer.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        return start, end

    def time_run(self, fn: Callable[[], object], leaves: list, calls: int) -> tuple:
        """``calls`` calls back to back between one pair of events, no flush: the GPU kept busy as in a
        training step (the handle reads as the run's total ms)."""
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            for leaf in leaves:
                leaf.grad = None
            fn()
        end.record()
        return start, end

    def read(self, handles: list) -> list[float]:
        torch.cuda.synchronize()
        return [start.elapsed_time(end) for start, end in handles]


# Interleaved timing: at least this many timed calls of every system per mode (a median of fewer says little),
# at most this many warm-up and this many timed passes (a 0.01 ms call would otherwise queue ten thousand).
INTERLEAVED_MIN_CALLS = 10
INTERLEAVED_MAX_CALLS = 1000
# Each pass takes the systems in a fresh order drawn from this seed, so that every system follows every other about
# equally often. Why: a call's time depends on the call before it. On the H200 (v0.33,
# benchmarks/experiments/forward_short/call_gap.py) flashio's d=128 causal 1k forward ran 6% slower (kernel 180
# against 172 us) right after FA2's forward than after cuDNN's or its own, a flush between them. With the order
# rotated by one each pass (until v0.32) a system follows the same neighbour in all but one pass of n, so its number
# could depend on where --systems listed it. (The grid's own point did not move with the change: 378 -> 375 TFLOP/s.)
INTERLEAVED_ORDER_SEED = 0


def _time_interleaved(prepared: dict, timer=None) -> tuple[dict, dict]:
    """({system: {mode: ms}}, {system: failure}): every system's forward, then every system's
    forward+backward, timed call by call in turn (each pass every system once, in an order shuffled per pass
    from INTERLEAVED_ORDER_SEED), the median call per system; backward = forward+backward - forward.

    Why: the H200's SM clock follows the board's power draw within tens of milliseconds (drift.py, v0.16:
    1980 MHz for the first ~50 ms of a 1k forward, then 1650-1730 MHz at the 700 W limit), so a block of
    100 ms timed after another system's block inherits the clock that system left behind: the same
    kernels, timed in one 100 ms block each or in five alternate 20 ms blocks, moved cuDNN's d=128 1k
    forward from 546 to 594 TFLOP/s. Calls interleaved one by one run at the same clock on average: the
    clock the mix of systems allows, higher than a high-power kernel gets alone and lower than a low-power
    one would (same session, d=128: FA2's backward 5-7% slower than in blocks, cuDNN's 4-10% faster).

    Warm-up: whole passes for about WARMUP_MS; the number of timed passes makes the slowest system's
    calls add up to about TIMED_MS (between INTERLEAVED_MIN_CALLS and INTERLEAVED_MAX_CALLS). A system
    whose call raises is left out from then on and reported with its failure; the others go on."""
    timer = timer if timer is not None else _CudaEventTimer()
    times: dict[str, dict] = {name: {} for name in prepared}
    failed: dict[str, str] = {}  # a system in it is left out of every later call and of the result
    for mode in ("fwd", "fwdbwd"):
        calls = {name: p.forward if mode == "fwd" else p.forward_backward for name, p in prepared.items()
                 if name not in failed and (mode == "fwd" or p.forward_backward is not None)}
        leaves = {name: prepared[name].leaves for name in calls}
        estimate: dict[str, float] = {}
        for name in list(calls):  # three calls each: a first estimate of the call's time
            try:
                estimate[name] = statistics.median(timer.read([timer.time(calls[name], leaves[name])
                                                               for _ in range(3)]))
            except Exception as exc:
                failed[name] = _timing_failure(exc)
                del calls[name]
        if not calls:
            continue
        pass_ms = max(sum(estimate[name] for name in calls), 1e-3)
        slowest_ms = max(max(estimate[name] for name in calls), 1e-3)
        warmup_passes = min(INTERLEAVED_MAX_CALLS, max(1, math.ceil(WARMUP_MS / pass_ms)))
        timed_passes = min(INTERLEAVED_MAX_CALLS, max(INTERLEAVED_MIN_CALLS, math.ceil(TIMED_MS / slowest_ms)))
        handles: dict[str, list] = {name: [] for name in calls}
        names = list(calls)
        order = random.Random(INTERLEAVED_ORDER_SEED)
        for index in range(warmup_passes + timed_passes):
            order.shuffle(names)
            for name in names:
                if name in failed:
                    continue
                try:
                    handle = timer.time(calls[name], leaves[name])
                except Exception as exc:
                    failed[name] = _timing_failure(exc)
                    continue
                if index >= warmup_passes:
                    handles[name].append(handle)
        for name in names:
            if name not in failed:
                times[name][mode] = statistics.median(timer.read(handles[name]))
    return {name: _with_backward(measured) for name, measured in times.items() if name not in failed}, failed


# Sustained timing: each system alone, calls back to back, SUSTAINED_WARMUP_MS of warm-up, then runs of about
# RUN_MS timed for about TIMED_MS, at least SUSTAINED_MIN_RUNS of them; the median run per call. The H200
# reaches its power limit within 50-100 ms of a busy start (drift.py, v0.16), but after a point's first calls
# (flashio's tuning) its clock keeps moving for longer: with 300 ms of warm-up the first system timed at a
# point (flashio) ran its d=64 fp16 8k forward+backward at 8.5 ms per call rising to 9.7 within the timed
# 100 ms, a settled 8.7-9.0 in the next runs at that point (v0.24, sustained_forms.py --trace; backward 0.93x
# cuDNN first, 1.05x after). With 1000 ms the first run measured what the later ones did (1.08x, three runs).
SUSTAINED_WARMUP_MS = 1000
RUN_MS = 10
SUSTAINED_MIN_RUNS = 5


def _time_sustained(prepared: dict, timer=None) -> tuple[dict, dict]:
    """({system: {mode: ms}}, {system: failure}): every system's forward and forward+backward, each alone
    and long enough to run at its own power-limited clock, as in a long training job: calls back to back
    (no L2 flush between them, so a point whose inputs fit in the L2 reads some of them from there), the
    median of runs of about RUN_MS, per call; backward = forward+backward - forward.

    Why: blocks of 100 ms start at the clock the previous block left, and interleaved calls run at the
    clock the mix of systems allows, which understates a system that draws less power (v0.16). After
    SUSTAINED_WARMUP_MS alone a system's clock is its own (drift.py: flashio's d=128 1k forward 1710 MHz at
    the 700 W limit, cuDNN's 1665). A system whose call raises is reported with its failure; the others go
    on."""
    timer = timer if timer is not None else _CudaEventTimer()
    times: dict[str, dict] = {}
    failed: dict[str, str] = {}
    for name, p in prepared.items():
        measured: dict[str, float] = {}
        try:
            for mode, fn in (("fwd", p.forward), ("fwdbwd", p.forward_backward)):
                if fn is None:
                    continue
                estimate = max(statistics.median(timer.read([timer.time(fn, p.leaves) for _ in range(3)])), 1e-3)
                calls = max(1, round(RUN_MS / estimate))
                timer.time_run(fn, p.leaves, max(1, math.ceil(SUSTAINED_WARMUP_MS / estimate)))
                runs = max(SUSTAINED_MIN_RUNS, math.ceil(TIMED_MS / (calls * estimate)))
                totals = timer.read([timer.time_run(fn, p.leaves, calls) for _ in range(runs)])
                measured[mode] = statistics.median(total / calls for total in totals)
        except Exception as exc:
            failed[name] = _timing_failure(exc)
            continue
        times[name] = _with_backward(measured)
    return times, failed


def timing_record(timing: str, rounds: int) -> dict:
    """How a GPU sweep's timings were taken, for its result files: the method, its rounds, and the warm-up and
    timed milliseconds that method uses per system and point (sustained: SUSTAINED_WARMUP_MS of warm-up;
    blocks and interleaved: WARMUP_MS). The sustained files of v0.24-v0.26 recorded 25 ms, the blocks' warm-up,
    while their runs had warmed up for 1000."""
    check_timing(timing, rounds)
    warmup = SUSTAINED_WARMUP_MS if timing == "sustained" else WARMUP_MS
    return {"method": timing, "rounds": rounds, "warmup_ms": warmup, "timed_ms": TIMED_MS}


def _measure_on_cpu(system_name: str, inputs: Inputs, point: BenchPoint, modes: Sequence[str]) -> dict:
    """The interpreter path: wall-clock time of one call (the interpreter's speed means nothing)."""
    system = SYSTEMS[system_name]
    start = time.perf_counter()
    out = system.run(inputs)
    times = {"fwd": (time.perf_counter() - start) * 1e3}
    error = _max_error(out, inputs, point)
    if any(m in ("bwd", "fwdbwd") for m in modes):
        start = time.perf_counter()
        out.backward(torch.randn_like(out))
        times["bwd"] = (time.perf_counter() - start) * 1e3
        times["fwdbwd"] = times["fwd"] + times["bwd"]
    return {"times": times, "memory": {}, "error": error}


class _Progress:
    """A one-line progress bar on stderr (long sweeps); silent when disabled."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled, self.start = total, 0, enabled, time.time()

    def step(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(1, self.total))
        elapsed = time.time() - self.start
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                         f"{elapsed:5.0f}s {label[:70]:70s}")
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def run_sweep(
    points: Iterable[BenchPoint],
    systems: Sequence[str] = DEFAULT_SYSTEMS,
    modes: Sequence[str] = MODES,
    progress: bool = True,
    device: Optional[str] = None,
    rounds: int = 1,
    timing: str = "blocks",
) -> list[BenchResult]:
    """Measure every system at every point. A system that cannot run a point (unsupported, out of
    memory, not installed, no GPU) is recorded with ``status`` and ``reason``; the sweep goes on. On a GPU
    every system's first call (compile, autotune) comes before any timing of the point; ``timing``
    "blocks" (the default) then times them in ``rounds`` alternate blocks of calls (``_time_in_rounds``),
    "interleaved" call by call in turn (``_time_interleaved``), "sustained" each alone at its own
    power-limited clock (``_time_sustained``)."""
    check_timing(timing, rounds)
    points = list(points)
    for name in systems:
        if name not in SYSTEMS:
            raise ValueError(f"systems: unknown system {name!r}; expected some of {sorted(SYSTEMS)}")
    for mode in modes:
        if mode not in MODES:
            raise ValueError(f"modes: expected some of {MODES}, got {mode!r}")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    bar = _Progress(len(points) * len(systems), progress)
    results: list[BenchResult] = []
    for point in points:
        inputs = _make_inputs(point, device)
        measured: dict[str, dict] = {}
        reasons: dict[str, tuple[str, str]] = {}
        prepared: dict[str, _Prepared] = {}
        for name in systems:
            bar.step(f"{name} {point.label()}")
            reason = SYSTEMS[name].reason_not_runnable(inputs)
            if reason:
                reasons[name] = ("skipped", reason)
                continue
            try:
                known = set(configs.cached_choices())
                if device == "cuda":
                    prepared[name] = _prepare(name, inputs, point, modes)
                    measured[name] = {"memory": prepared[name].memory, "error": prepared[name].error}
                else:
                    measured[name] = _measure_on_cpu(name, inputs, point, modes)
                new = [(key, choice) for key, choice in configs.cached_choices().items() if key not in known]
                measured[name]["tiles"] = "; ".join(f"{key[0]}={describe_choice(choice, key[0])}" for key, choice in new)
                measured[name]["tuning"] = " | ".join(filter(None, (describe_timings(key) for key, _ in new)))
            except torch.cuda.OutOfMemoryError:
                reasons[name] = ("failed", "out of GPU memory")
            except Exception as exc:  # recorded, not fatal: the other systems still run
                reasons[name] = ("failed", _failure(exc))
            finally:
                for leaf in [inputs.q, inputs.k, inputs.v]:
                    leaf.grad = None
                if device == "cuda":
                    torch.cuda.empty_cache()
            if name in reasons:
                prepared.pop(name, None)
                measured.pop(name, None)
        if prepared:
            timers = {"blocks": lambda: _time_in_rounds(prepared, rounds),
                      "interleaved": lambda: _time_interleaved(prepared),
                      "sustained": lambda: _time_sustained(prepared)}
            timed, failed = timers[timing]()
            for name, times in timed.items():
                measured[name]["times"] = times
            for name, failure in failed.items():
                reasons[name] = ("failed", failure)
                measured.pop(name, None)
            prepared.clear()
            torch.cuda.empty_cache()
        for name in systems:
            for mode in modes:
                row = BenchResult(name, mode, point.seqlen, point.head_dim, point.resolved_batch,
                                  point.resolved_heads, point.causal, point.dtype, point.dropout_p, point.padding)
                if name in reasons:
                    row.status, row.reason = reasons[name]
                else:
                    m = measured[name]
                    row.time_ms = m["times"].get(mode, math.nan)
                    row.tflops = point.flops(mode) / row.time_ms / 1e9
                    row.extra_memory_gb = m["memory"].get(mode, math.nan)
                    row.max_abs_error = m["error"]
                    row.tiles = m.get("tiles", "")
                    row.tuning = m.get("tuning", "")
                    standard = measured.get("standard")
                    if standard is not None and mode in standard["times"]:
                        row.speedup_vs_standard = standard["times"][mode] / row.time_ms
                results.append(row)
        del inputs
    return results


def measure_ceilings() -> dict:
    """The GPU's copy bandwidth (bytes read + written) and bf16 matmul rate, measured now."""
    from triton.testing import do_bench

    source = torch.empty(1 << 30, device="cuda", dtype=torch.uint8).random_()  # 1 GiB: far past L2
    target = torch.empty_like(source)
    copy_ms = do_bench(lambda: target.copy_(source), warmup=25, rep=100, return_mode="median")
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    matmul_ms = do_bench(lambda: a @ b, warmup=25, rep=100, return_mode="median")
    del source, target, a, b
    torch.cuda.empty_cache()
    return {"copy_tb_s": 2 * (1 << 30) / copy_ms / 1e9, "matmul_tflops": 2 * 8192**3 / matmul_ms / 1e9}


def grid(seqlens: Sequence[int], head_dims: Sequence[int], causals: Sequence[bool] = (False, True),
         dtypes: Sequence[str] = ("bf16",), dropouts: Sequence[float] = (0.0,),
         paddings: Sequence[bool] = (False,), batch: Optional[int] = None, tokens: int = 16384,
         hidden: int = 2048) -> list[BenchPoint]:
    """The cartesian product of the axes, as points."""
    return [BenchPoint(n, d, c, t, p, pad, batch, None, tokens, hidden)
            for t in dtypes for d in head_dims for c in causals for p in dropouts for pad in paddings
            for n in seqlens]


# The report's systems: the FlashAttention-2 and cuDNN anchors, the memory-efficient backend and the
# baseline. FlexAttention compiles per shape (tens of seconds each): it is in `flashio bench`, not here.
REPORT_SYSTEMS = ("flashio", "standard", "sdpa_flash", "sdpa_efficient", "sdpa_cudnn")


def report_points() -> list[BenchPoint]:
    """The sweep behind ``flashio report`` on a GPU: the anchors' grid at three lengths (a few minutes)."""
    return grid(seqlens=(1024, 4096, 16384), head_dims=(64, 128), causals=(False, True))
