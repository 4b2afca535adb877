"""Launch plans: a launcher call on inputs seen before, replayed without the launcher's Python.

A forward or backward call does the same work every time it meets the same shapes, strides, dtypes and
options: the same kernels (the tuned choice), grids, integer arguments and compile-time constants, only on
new tensors. On the H200 host that Python costs about as much as short kernels take to run (v0.9: a forward
launcher 90-250 µs, a backward 190-440 µs; a d=128 causal N=1k forward runs ~190 µs on the GPU; v0.11:
Triton's own launch of one kernel with its arguments already built, 43-56 µs). So the first call on such
inputs is recorded -- the buffers it allocates (shape, strides, dtype), the kernels it launches (the
compiled kernel, grid and full argument list, each tensor argument replaced by the index of the input or
buffer it is) and the buffer operations between them (zero, copy) -- and later calls with the same key
replay the record: allocate the buffers, put the new tensors into the argument lists and launch the
compiled kernels directly (Triton's argument binding, specialisation key and cache lookup are what the key
already decided). Measured on the H200 (v0.11, bf16 d=128 causal 1k): the forward launcher 152 -> 51 µs per
call, the backward launcher 348 -> 126 µs.

What keeps a replay exact:
- the key (built by the launcher) holds everything the launcher's decisions read: shapes, strides, dtypes,
  device, 16-byte alignment of every input, the options, the forced path and autotune settings, and the
  tuned-choice generation (``configs.choices_generation``: clearing the choices forgets every plan);
- a record is kept only if the call timed no candidate (``configs.tuning_measurements``: a call that tuned
  also launched the losers), every tensor argument is an input, a buffer allocated through this module, or a
  tensor marked ``persistent`` (the launchers' placeholders), and the inputs are distinct objects (a tensor
  passed twice would be one slot);
- buffers are allocated empty, as the recorded call allocated them; every initialisation of them goes
  through ``zero_`` / ``copy_`` here, so it is recorded too;
- with a launch hook set (a profiler, ``triton.knobs.runtime.launch_enter_hook``) nothing is replayed.

On a GPU a replayed launch calls the compiled kernel's launcher as ``JITFunction.run`` does after its cache
hit; under the Triton interpreter (where launches compile nothing) it launches the kernel object again with
the recorded constants, which lets the CPU tests check the records. Plans are on for CUDA tensors and off
under the interpreter unless ``FLASHIO_LAUNCH_PLANS=1``; ``FLASHIO_LAUNCH_PLANS=0`` turns them off.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Hashable, Optional, Sequence

import torch
from triton import knobs
from triton.runtime.driver import driver

try:  # Triton's own concurrent compilation (3.4 and later): compiles in a pool, kernel caches on this thread
    from triton.runtime._async_compile import AsyncCompileMode, active_mode as _async_mode
except ImportError:  # pragma: no cover - an older Triton compiles candidates one by one
    AsyncCompileMode = None

from flashio import configs

# compile_concurrently also builds the compiled kernels' launchers on its pool (``_build_launchers``): Triton
# builds a kernel's launcher (a C extension, ~0.3 s each) at its first launch otherwise, one after another. On
# since v0.30: first_call.py on the H200 (v0.30 call 1), a first forward+backward 11.84 / 12.61 -> 11.34 / 10.62 s
# (d=64 causal 1k, two rounds), 11.86 -> 10.25 s (d=128 non-causal 4k).
BUILD_LAUNCHERS_AHEAD = True
# A forward's first call whose inputs require grad also compiles, in its own batch, the candidates its backward
# will time (``launchers._backward_compile_jobs``, bound to placeholder tensors on the meta device, no memory).
# On since v0.30: first_call.py, 11.84 / 12.61 -> 9.81 / 10.47 s and 11.86 -> 9.33 s on the same points; with
# both switches 8.63 / 9.61 s and 6.44 s. The GPU check's default cases passed with both on (v0.30 call 0).
COMPILE_BACKWARD_WITH_FORWARD = True

MAX_PLANS = 512  # plans kept; on overflow all are dropped (each holds a few tuples and compiled-kernel refs)

_PLANS: dict[Hashable, "Plan"] = {}
_PERSISTENT: dict[int, torch.Tensor] = {}
_STATE = threading.local()


def enabled(tensor: torch.Tensor) -> bool:
    """Whether calls on ``tensor``'s device record and replay plans (``FLASHIO_LAUNCH_PLANS``)."""
    setting = os.environ.get("FLASHIO_LAUNCH_PLANS")
    if setting is None:
        return tensor.is_cuda
    return setting not in ("0", "false", "False", "no", "off")


def clear() -> None:
    """Forget every plan (the next call on each key records again)."""
    _PLANS.clear()


def plan_count() -> int:
    return len(_PLANS)


def persistent(tensor: torch.Tensor) -> torch.Tensor:
    """Mark a tensor that outlives calls (a placeholder argument): a record refers to it as it is."""
    _PERSISTENT[id(tensor)] = tensor
    return tensor


def alignment(tensor: torch.Tensor) -> int:
    """The key's alignment field: the tensor's address modulo 16 (the kernels' descriptor and vector-load
    eligibility and Triton's pointer specialisation depend on it)."""
    return tensor.data_ptr() % 16


# --- what the launchers call instead of torch / Triton directly ------------------------------------------


def _recorder() -> Optional["_Recorder"]:
    return getattr(_STATE, "recorder", None)


def _compiling_only() -> bool:
    return getattr(_STATE, "compile_only", False)


def _nothing_runs() -> bool:
    """Inside ``compile_concurrently``'s jobs or ``gathering_compiles``: buffer operations do nothing."""
    return _compiling_only() or gathered() is not None


@contextlib.contextmanager
def _unrecorded():
    """Nothing done inside is recorded into the plan of the call around it."""
    recorder, _STATE.recorder = _recorder(), None
    try:
        yield
    finally:
        _STATE.recorder = recorder


def gathered() -> Optional[list]:
    """Inside ``gathering_compiles``, the list of compile jobs it is filling; else None."""
    return getattr(_STATE, "gathered", None)


@contextlib.contextmanager
def gathering_compiles(placeholders: bool = False):
    """Run a launcher's code without running anything, to collect what it would compile: inside, ``launch``,
    ``zero_`` and ``copy_`` do nothing, nothing is recorded into a plan, and the launchers' tuned choices
    (``launchers._pick``) add to the yielded list one job per candidate they would time (a launch of it, as
    ``compile_concurrently`` takes them) and go on with the first. The backward gathers the candidates of all
    its dQ strategies this way so that one concurrent batch compiles them, instead of one batch per kernel
    that is tuned, each waiting for its slowest compile. ``placeholders``: ``empty`` and ``empty_like`` give
    tensors on the meta device (shape, strides and dtype, no memory; address 0, which a compile reads as
    16-byte aligned, as the allocator's are), for jobs that only compile."""
    jobs: list = []
    saved_placeholders = getattr(_STATE, "placeholders", False)
    _STATE.gathered, _STATE.placeholders = jobs, placeholders
    try:
        with _unrecorded():
            yield jobs
    finally:
        _STATE.gathered, _STATE.placeholders = None, saved_placeholders


def _placeholders() -> bool:
    return gathered() is not None and getattr(_STATE, "placeholders", False)


def empty(shape: Sequence[int], *, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """``torch.empty``; recorded as a buffer of the plan (a meta tensor when gathering with placeholders)."""
    if _placeholders():
        return torch.empty(tuple(shape), device="meta", dtype=dtype)
    tensor = torch.empty(tuple(shape), device=device, dtype=dtype)
    recorder = _recorder()
    if recorder is not None:
        recorder.add_buffer(tensor)
    return tensor


def empty_like(tensor: torch.Tensor) -> torch.Tensor:
    """``torch.empty_like``; recorded as a buffer of the plan (with the strides it got; a meta tensor when
    gathering with placeholders)."""
    if _placeholders():
        return torch.empty_like(tensor, device="meta")
    result = torch.empty_like(tensor)
    recorder = _recorder()
    if recorder is not None:
        recorder.add_buffer(result)
    return result


def zero_(tensor: torch.Tensor) -> torch.Tensor:
    if _nothing_runs():
        return tensor
    recorder = _recorder()
    if recorder is not None:
        recorder.add_operation(("zero", recorder.slot(tensor)))
    return tensor.zero_()


def copy_(target: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
    if _nothing_runs():
        return target
    recorder = _recorder()
    if recorder is not None:
        recorder.add_operation(("copy", recorder.slot(target), recorder.slot(source)))
    return target.copy_(source)


def launch(kernel, grid: tuple, *args, **constants):
    """``kernel[grid](*args, **constants)``; recorded as a launch of the plan. Inside
    ``compile_concurrently`` it only compiles (``kernel.warmup``) and returns None; inside
    ``gathering_compiles`` it does nothing."""
    if gathered() is not None:
        return None
    if _compiling_only():
        kernel.warmup(*args, grid=grid, **constants)
        return None
    compiled = kernel[grid](*args, **constants)
    recorder = _recorder()
    if recorder is not None:
        recorder.add_launch(kernel, grid, args, constants, compiled)
    return compiled


def compile_threads() -> int:
    """Threads that compile a first call's candidates: ``FLASHIO_COMPILE_THREADS``, by default the CPUs
    (at most 8: the largest list a first call times on Hopper has 8 candidates, and each compile holds up to
    ~0.4 GB, ptxas's peak for a Gluon forward); 1 compiles each candidate when it is first timed, one after
    the other. Measured on the H200's 16-core host (v0.31, benchmarks/compile_cost.py, the 15 kernels of a d=64
    causal first call): 4, 8 and 16 threads 7.5, 6.0 and 7.5 s, the threads slowing each other's compiles (24 s
    summed on one thread, 44 on 8, 73 on 16); worker processes would finish in 4.8 s, but start in 5-6 s."""
    setting = os.environ.get("FLASHIO_COMPILE_THREADS")
    if setting:
        try:
            threads = int(setting)
        except ValueError:
            raise ValueError(f"FLASHIO_COMPILE_THREADS must be a positive integer, got {setting!r}") from None
        if threads < 1:
            raise ValueError(f"FLASHIO_COMPILE_THREADS must be a positive integer, got {setting!r}")
        return threads
    return max(1, min(os.cpu_count() or 1, 8))


def compile_concurrently(jobs: Sequence[Callable[[], object]],
                         more: Optional[Callable[[], Sequence[Callable[[], object]]]] = None) -> None:
    """Run each job (a launcher's launch of one candidate) with its launches only compiling, the compiles
    spread over ``compile_threads()`` threads, and return once all are compiled.

    Triton compiles a kernel serially on its first launch; a first call that times a dozen candidates waits
    for each compile in turn, while ptxas and most of Triton's passes run without Python's lock. Here the
    jobs run on this thread one after another (binding the arguments, the kernel caches), inside Triton's
    ``AsyncCompileMode``, which hands each compile to the pool and files the compiled kernels into the
    caches when all are done; the timing that follows finds them there. Buffer operations (``zero_``,
    ``copy_``) are skipped and nothing is recorded (not even the jobs' allocations) or launched. A job or
    compile that fails is passed over: the timing meets the same error and rates that candidate ``inf``.
    Nothing happens with one thread, one job, an older Triton, or inside another such block. ``more``: a
    provider of further jobs for the same batch, called only when a batch runs (a provider that fails adds
    nothing; a forward's first call passes its backward's compiles this way, ``COMPILE_BACKWARD_WITH_FORWARD``).
    With ``BUILD_LAUNCHERS_AHEAD`` the compiled kernels' launchers are then built on the same pool.
    """
    threads = compile_threads()
    if threads <= 1 or AsyncCompileMode is None or _async_mode.get() is not None:
        return
    if more is not None:
        try:
            jobs = [*jobs, *more()]
        except Exception:  # noqa: BLE001 - the jobs' own calls compile them later
            pass
    if len(jobs) <= 1:
        return
    with ThreadPoolExecutor(max_workers=min(threads, len(jobs))) as pool:
        mode = AsyncCompileMode(pool, ignore_errors=True)
        # The jobs' allocations are not the call's buffers: a call that compiles without timing (its choices
        # read from the tuning file) keeps its plan, which must not allocate them on every replay.
        with _unrecorded(), mode:
            for job in jobs:
                _STATE.compile_only = True
                try:
                    job()
                except Exception:  # noqa: BLE001 - the timing reports it as a candidate that does not run
                    pass
                finally:
                    _STATE.compile_only = False
        if BUILD_LAUNCHERS_AHEAD:
            compiled = [future.kernel for future in getattr(mode, "future_kernels", {}).values()]
            _build_launchers(pool, [kernel for kernel in compiled if kernel is not None])


def _build_launchers(pool: ThreadPoolExecutor, kernels: Sequence) -> None:
    """Build the host-side launchers of freshly compiled kernels on ``pool``, so that their first launches find
    them in Triton's cache.

    Triton makes a kernel's launcher (a small C module, one per argument signature, compiled by the host's C
    compiler and cached on disk) when the kernel is first launched, on the launching thread: on the H200's
    host 0.2-0.4 s each, 3.0 s for the 11 kernels of a d=128 first call and 3.2 s for the 16 of a d=64 one
    (v0.29, first_call.py --profile), one after another inside the timing. Building them here overlaps them;
    the first launch then loads the cached module. Kernels of one signature share a launcher: one build each.
    Best effort: a build that fails is left to the first launch, which meets the same error."""
    if not kernels:
        return
    try:
        make = driver.active.launcher_cls
    except Exception:  # noqa: BLE001 - no GPU driver (or an older Triton): nothing to build ahead
        return
    distinct = {}
    for kernel in kernels:
        source, metadata = getattr(kernel, "src", None), getattr(kernel, "metadata", None)
        if source is None or metadata is None:
            continue
        signature = (getattr(source, "fn", None), repr(getattr(source, "signature", None)),
                     repr(sorted(getattr(source, "constants", {}).items(), key=repr)),
                     repr(getattr(metadata, "tensordesc_meta", None)))
        distinct.setdefault(signature, (source, metadata))
    futures = [pool.submit(make, source, metadata) for source, metadata in distinct.values()]
    for future in futures:
        try:
            future.result()
        except Exception:  # noqa: BLE001 - the first launch builds it and reports its error
            pass


# --- recording and replay ---------------------------------------------------------------------------------


class _Recorder:
    def __init__(self, inputs: Sequence[torch.Tensor]):
        self.slots: dict[int, int] = {id(tensor): index for index, tensor in enumerate(inputs)}
        self.keep = list(inputs)  # keeps every recorded tensor alive, so that no id is reused meanwhile
        self.device = inputs[0].device
        self.buffers: list[tuple] = []
        self.steps: list[tuple] = []
        self.broken: Optional[str] = None

    def add_buffer(self, tensor: torch.Tensor) -> None:
        self.slots[id(tensor)] = len(self.keep)
        self.keep.append(tensor)
        self.buffers.append((tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype))

    def slot(self, tensor: torch.Tensor) -> int:
        index = self.slots.get(id(tensor))
        if index is None:
            self.broken = "an operation on a tensor that is neither an input nor a buffer of the call"
            return -1
        return index

    def add_operation(self, operation: tuple) -> None:
        self.steps.append(operation)

    def add_launch(self, kernel, grid, args, constants, compiled) -> None:
        if self.broken:
            return
        grid = tuple(grid) + (1,) * (3 - len(grid))
        if compiled is not None and hasattr(compiled, "packed_metadata"):
            # The full argument list in signature order, as JITFunction.run passes it to the launcher
            # (the compile-time constants included; launch options such as num_warps are not arguments).
            params = kernel.params
            values = list(args) + [constants[p.name] if p.name in constants else p.default
                                   for p in params[len(args):]]
            if len(values) != len(params):
                self.broken = "a launch with more arguments than the kernel has"
                return
            call = ("compiled", compiled.run, compiled.function, compiled.packed_metadata)
        else:  # the interpreter (or a test's stand-in): launch the kernel object again
            values = list(args)
            call = ("kernel", kernel, dict(constants))
        positions = []
        for index, value in enumerate(values):
            # A tensor descriptor made on the host (``launchers.host_descriptor``) is rebuilt over the replay's
            # tensor: kept as recorded, it would point the kernel at the first call's memory.
            described = _described_tensor(value)
            tensor = described if described is not None else value
            if isinstance(tensor, torch.Tensor):
                if id(tensor) in _PERSISTENT:
                    if described is not None:
                        self.broken = "a host tensor descriptor over a placeholder tensor"
                        return
                    continue
                slot = self.slot(tensor)
                if slot < 0:
                    return
                positions.append((index, slot, value if described is not None else None))
                values[index] = None
        self.steps.append(("launch", call, grid, tuple(values), tuple(positions)))


def _described_tensor(value) -> Optional[torch.Tensor]:
    """The tensor under a host tensor descriptor (Gluon's or Triton's ``TensorDescriptor``: a dataclass with a
    ``base`` tensor and a ``block_shape``), else None."""
    if dataclasses.is_dataclass(value) and hasattr(value, "block_shape") and \
            isinstance(getattr(value, "base", None), torch.Tensor):
        return value.base
    return None


@dataclass(frozen=True)
class Plan:
    """A recorded call: buffers to allocate, steps to run, which slots the call returned."""

    device: torch.device
    buffers: tuple
    steps: tuple
    outputs: tuple

    def replay(self, inputs: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
        slots = list(inputs)
        device = self.device
        for shape, stride, dtype in self.buffers:
            slots.append(torch.empty_strided(shape, stride, dtype=dtype, device=device))
        stream = None
        for step in self.steps:
            kind = step[0]
            if kind == "launch":
                _, call, grid, values, positions = step
                arguments = list(values)
                for index, slot, descriptor in positions:
                    arguments[index] = slots[slot] if descriptor is None else \
                        dataclasses.replace(descriptor, base=slots[slot])
                if call[0] == "compiled":
                    if stream is None:
                        stream = _current_stream()
                    call[1](grid[0], grid[1], grid[2], stream, call[2], call[3], None, None, None, *arguments)
                else:
                    call[1][grid](*arguments, **call[2])
            elif kind == "zero":
                slots[step[1]].zero_()
            else:
                slots[step[1]].copy_(slots[step[2]])
        return tuple(slots[index] for index in self.outputs)


def stream_handle(device_index: int) -> int:
    """The current stream of CUDA device ``device_index`` as Triton launches on it (the raw handle)."""
    return driver.active.get_current_stream(device_index)


def _current_stream():
    return stream_handle(driver.active.get_current_device())


def _hooks_set() -> bool:
    """Whether a launch hook is registered (Triton 3.6 keeps an empty ``HookChain`` when none is)."""
    for hook in (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook):
        if hook is not None and getattr(hook, "calls", True):
            return True
    return False


def run(key: Optional[Hashable], inputs: Sequence[torch.Tensor], call: Callable[[], tuple]) -> tuple:
    """``call()`` (a launcher's work on ``inputs``, returning its output tensors), replayed from the plan
    recorded for ``key`` when there is one; ``key=None`` means the call is not one plans take."""
    if key is None or _recorder() is not None or _hooks_set():
        return call()
    plan = _PLANS.get(key)
    if plan is not None:
        return plan.replay(inputs)
    if len({id(tensor) for tensor in inputs}) != len(inputs):
        return call()
    recorder = _Recorder(inputs)
    measurements = configs.tuning_measurements()
    _STATE.recorder = recorder
    try:
        outputs = call()
    finally:
        _STATE.recorder = None
    if recorder.broken is None and configs.tuning_measurements() == measurements:
        slots = tuple(recorder.slots.get(id(tensor), -1) for tensor in outputs)
        if -1 not in slots:
            if len(_PLANS) >= MAX_PLANS:
                _PLANS.clear()
            _PLANS[key] = Plan(recorder.device, tuple(recorder.buffers), tuple(recorder.steps), slots)
    return outputs
