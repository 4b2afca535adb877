"""Launchers: allocate outputs, choose tiles, launch the Triton kernels.

Inputs reach this layer already validated (``flashio.validation``). Every tensor is described to the
kernels by four strides in (batch, head, row, dim) order, so one kernel serves every layout:

* ``"bhnd"``: PyTorch SDPA's (batch, heads, seqlen, head_dim);
* ``"bnhd"``: flash-attn's (batch, seqlen, heads, head_dim);
* ``"thd"``:  packed variable-length batches (total_tokens, heads, head_dim) with ``cu_seqlens``.

No tensor is copied to change its layout; outputs are allocated in the layout of the query.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import statistics
import time
from dataclasses import dataclass, replace
from typing import Callable, Hashable, Optional, Sequence

import torch
import triton
from triton.runtime import _allocation as _triton_allocation  # private: the allocator check below

from flashio import configs, launch_plans, schedules
from flashio._interpreter_compat import ensure_interpreter_fixes
from flashio.block_sparse import BlockSparseIndex
from flashio.configs import TileConfig
from flashio.kernels import backward as backward_kernels
from flashio.kernels import backward_tma as backward_tma_kernels
from flashio.kernels import backward_ws as backward_ws_kernels
from flashio.kernels import forward as forward_kernels
from flashio.kernels import forward_tma as forward_tma_kernels
from flashio.kernels import forward_ws as forward_ws_kernels

LAYOUTS = ("bhnd", "bnhd", "thd")

# The fused backward is written in Gluon, an experimental dialect whose API changes between Triton releases:
# it runs only with the release it was written and checked for (pyproject allows older Tritons, which have
# no Gluon or a different one; they keep the Triton kernels).
GLUON_TRITON_RELEASE = "3.6."
try:
    from flashio.kernels import backward_gluon as backward_gluon_kernels
    from flashio.kernels import backward_gluon_rows as backward_gluon_rows_kernels
    from flashio.kernels import backward_gluon_split as backward_gluon_split_kernels
    from flashio.kernels import forward_gluon as forward_gluon_kernels
except ImportError:  # a Triton without this Gluon
    backward_gluon_kernels = backward_gluon_rows_kernels = backward_gluon_split_kernels = forward_gluon_kernels = None
GLUON_AVAILABLE = backward_gluon_kernels is not None and triton.__version__.startswith(GLUON_TRITON_RELEASE)
# Registers per thread of the warp-specialised fused backward's one-warp TMA loader and dQ reducer (they hold
# a few indices and barrier phases); the MMA warps get the rest of the register file (setmaxnreg).
FUSED_WORKER_REGISTERS = 24
# The Gluon forward's two consumer warpgroups: 2 x 128 x 240 + 32 x 24 registers per program; with three
# (block_m = 192, FlashAttention-3's d=64 tile) 3 x 128 x 160 + 32 x 24.
GLUON_FORWARD_CONSUMER_REGISTERS = 240
GLUON_FORWARD_THREE_CONSUMER_REGISTERS = 160
# With four (block_m = 256 at d=64, 64-key blocks, v0.52): 17 warps launch as five warpgroups of 96 registers per
# thread (65,536 / 640 rounded down to a multiple of 8), 480 per thread in all, so the first consumer (the default
# partition) keeps 480 - 3 x 112 - 24 = 120 and the other three get 112; at 120 each the first kept 96 and spilled
# (ptxas serialised its warpgroup MMAs, C7512; CPU compiles for sm_90a).
GLUON_FORWARD_FOUR_CONSUMER_REGISTERS = 112


def gluon_forward_consumer_registers(program_registers: int) -> int:
    """Registers per consumer thread of a Gluon forward program of 12 warps capped at ``program_registers``
    per thread (``TileConfig.max_registers``): the loader's warpgroup gives up all but 24 of its own, the two
    consumer warpgroups share the rest, rounded down to the multiple of 8 that ``setmaxnreg`` takes.
    (12 x 32 x cap = 2 x 128 x consumer + 128 x 24; a larger request would never be granted: a hang.)"""
    consumer_warps, loader_warpgroup_warps = 8, 4
    per_consumer_thread = (12 * program_registers - loader_warpgroup_warps * FUSED_WORKER_REGISTERS) // consumer_warps
    return per_consumer_thread // 8 * 8


def gluon_forward_consumers(config: TileConfig) -> int:
    """The Gluon forward's consumer warpgroups for its tile rows: 192-row tiles three (v0.48), 256-row tiles four
    (v0.52), else two."""
    return {192: 3, 256: 4}.get(config.block_m, 2)


def gluon_forward_constants(config: TileConfig, head_dim: int) -> dict:
    """Tile constexprs of the Gluon forward (``kernels/forward_gluon.py``) for a ``path="gluon"`` forward
    configuration: ``block_m`` rows split between its two consumer warpgroups, or with ``block_m`` = 192 or 256
    (persistent kernel only, no ping-pong; 256 with key blocks of at most 64) between three or four of 64 rows each."""
    if config.output_buffer and not config.persistent:
        raise ValueError(f"output_buffer is an option of the persistent Gluon forward; got {config}")
    if config.output_from_registers and config.output_buffer:
        raise ValueError(f"output_from_registers and output_buffer exclude each other; got {config}")
    if config.q_buffers not in (1, 2) or (config.q_buffers == 2 and not config.persistent):
        raise ValueError(f"q_buffers is 1, or 2 in the persistent Gluon forward; got {config}")
    if config.early_q_release and not (config.persistent and config.pipelined
                                       and (config.output_from_registers or config.output_buffer)):
        raise ValueError(f"early_q_release is an option of the persistent pipelined Gluon forward whose Q buffer "
                         f"does not stage the output (output_from_registers or output_buffer); got {config}")
    if config.half_diagonal and not (config.pipelined and config.block_n == 2 * (config.block_m // 2)):
        raise ValueError(f"half_diagonal is an option of the pipelined two-consumer Gluon forward whose key "
                         f"blocks are twice a consumer's rows; got {config}")
    if config.q_in_registers and not (config.persistent and config.pipelined
                                      and (config.output_from_registers or config.output_buffer)
                                      and not config.early_q_release):
        raise ValueError(f"q_in_registers is an option of the persistent pipelined Gluon forward whose Q buffer "
                         f"does not stage the output (output_from_registers or output_buffer; no early Q "
                         f"release); got {config}")
    if config.balanced_schedule and not config.persistent:
        raise ValueError(f"balanced_schedule is an option of the persistent forward; got {config}")
    if config.split_tail and not config.persistent:
        raise ValueError(f"split_tail is an option of the persistent Gluon forward; got {config}")
    if config.dynamic_schedule and not (config.persistent and config.balanced_schedule):
        raise ValueError(f"dynamic_schedule is an option of the persistent Gluon forward with balanced_schedule; "
                         f"got {config}")
    if config.noncausal_claims and not (config.persistent and not config.split_tail):
        raise ValueError(f"noncausal_claims is an option of the persistent Gluon forward without split_tail (both "
                         f"decide the non-causal tile list); got {config}")
    if config.host_descriptors not in (0, 1, 3) or (config.host_descriptors and not config.persistent):
        raise ValueError(f"host_descriptors is 0, or 1 (Q) or 3 (Q, K, V) in the persistent Gluon forward; "
                         f"got {config}")
    if config.mask_by_branch and not (config.persistent and config.pipelined):
        raise ValueError(f"mask_by_branch is an option of the persistent pipelined Gluon forward; got {config}")
    if config.mask_every_block and not (config.persistent and config.pipelined and not config.mask_by_branch):
        raise ValueError(f"mask_every_block is an option of the persistent pipelined Gluon forward without "
                         f"mask_by_branch; got {config}")
    if config.overlap_tiles and not (config.persistent and config.pipelined and config.output_from_registers
                                     and config.dynamic_schedule and not config.pingpong and not config.q_in_registers):
        raise ValueError(f"overlap_tiles is an option of the persistent pipelined Gluon forward storing its output "
                         f"from registers and claiming its causal tiles (dynamic_schedule), without ping-pong or Q in "
                         f"registers; got {config}")
    if config.published_coordinates and not (config.persistent and (config.dynamic_schedule or config.noncausal_claims)
                                              and not config.overlap_tiles):
        raise ValueError(f"published_coordinates is an option of the persistent Gluon forward claiming its tiles "
                         f"(dynamic_schedule or noncausal_claims), without overlap_tiles; got {config}")
    if config.row_sum_mma and not (config.persistent and config.pipelined and not config.pingpong
                                   and not config.overlap_tiles and config.block_n in (64, 128)):
        raise ValueError(f"row_sum_mma is an option of the persistent pipelined Gluon forward with 64- or 128-key "
                         f"blocks, without pingpong or overlap_tiles; got {config}")
    consumers = gluon_forward_consumers(config)
    if config.wide_stores and not (config.output_from_registers and config.block_m // consumers == 64):
        raise ValueError(f"wide_stores is an option of the Gluon forward storing its output from registers with "
                         f"64-row consumers; got {config}")
    if consumers > 2 and (not config.persistent or config.pingpong):
        raise ValueError(f"{'three' if consumers == 3 else 'four'} consumer warpgroups (block_m={config.block_m}) are "
                         f"a form of the persistent Gluon forward without ping-pong; got {config}")
    if consumers == 4 and config.block_n > 64:
        raise ValueError(f"four consumer warpgroups (block_m=256) take key blocks of at most 64 (a 64 x 128 score "
                         f"block does not fit in their {GLUON_FORWARD_FOUR_CONSUMER_REGISTERS} registers per thread); "
                         f"got block_n={config.block_n}")
    registers = {3: GLUON_FORWARD_THREE_CONSUMER_REGISTERS, 4: GLUON_FORWARD_FOUR_CONSUMER_REGISTERS}.get(
        consumers, GLUON_FORWARD_CONSUMER_REGISTERS)
    if config.max_registers is not None:
        if consumers > 2 or config.persistent:
            raise ValueError(f"max_registers (two programs per multiprocessor) is an option of the non-persistent "
                             f"two-consumer Gluon forward; got {config}")
        registers = gluon_forward_consumer_registers(config.max_registers)
    return dict(ROWS=config.block_m // consumers, BLOCK_N=config.block_n, HEAD_DIM=head_dim,
                NUM_STAGES=config.num_stages, CONSUMER_REGS=registers, LOADER_REGS=FUSED_WORKER_REGISTERS,
                PIPELINED=config.pipelined, SPLIT_KV=config.split_kv, PINGPONG=config.pingpong,
                **({"OUTPUT_FROM_REGISTERS": True} if config.output_from_registers else {}),
                **({"OUTPUT_BUFFER": True} if config.output_buffer else {}),
                **({"CONSUMERS": consumers} if consumers > 2 else {}),
                **({"Q_BUFFERS": 2} if config.q_buffers == 2 else {}),
                **({"EARLY_Q_RELEASE": True} if config.early_q_release else {}),
                **({"HALF_DIAGONAL": True} if config.half_diagonal else {}),
                **({"Q_IN_REGISTERS": True} if config.q_in_registers else {}),
                **({"WIDE_STORES": True} if config.wide_stores else {}),
                **({"HOST_DESCRIPTORS": config.host_descriptors} if config.host_descriptors else {}),
                **({"MERGED_MASK": 1} if config.mask_by_branch else {}),
                **({"MERGED_MASK": 2} if config.mask_every_block else {}),
                **({"OVERLAP_TILES": True} if config.overlap_tiles else {}),
                **({"ROW_SUM_MMA": True} if config.row_sum_mma else {}))


def gluon_forward_launch(config: TileConfig, problem: "Problem", causal: bool, device: torch.device) -> tuple:
    """(kernel, grid, trailing arguments, extra constants) of a Gluon forward launch: one program per 2 * ROWS
    query rows, head and batch, or for the persistent kernel one 12-warp program per multiprocessor (at most
    one per work unit: a query block of one head, or causal, a pair of them of equal total work,
    kernels/forward_gluon.py) with (heads, work units, tile list) appended to the arguments (the list is
    read only with ``balanced_schedule``, causal: ``LISTED``, or with ``split_tail``, non-causal with a partial last
    round: ``LISTED`` and ``SPLIT_TAIL``, whose pieces the caller gives a buffer, ``split_tail_partials``, and merges
    after the kernel, ``combine_split_tail``)."""
    query_blocks = cdiv(problem.seqlen_q, config.block_m)
    if not config.persistent:
        return forward_gluon_kernels.attention_forward_gluon_kernel, (query_blocks, problem.num_heads,
                                                                       problem.batch), (), {}
    units = (cdiv(query_blocks, 2) if causal else query_blocks) * problem.num_heads * problem.batch
    programs = min(units, persistent_programs(device))
    schedule, listed = persistent_schedule(config, problem, causal, programs, device)
    if listed.get("PUBLISHED_COORDINATES") and not coordinates_fit(query_blocks, problem.num_heads, problem.batch):
        listed = {name: value for name, value in listed.items() if name != "PUBLISHED_COORDINATES"}
    return (forward_gluon_kernels.attention_forward_gluon_persistent_kernel, (programs,),
            (problem.num_heads, units, schedule), listed)


def coordinates_fit(query_blocks: int, heads: int, batch: int) -> bool:
    """Whether a claimed tile's (query block, head, batch) fit the persistent Gluon forward's int64 packing
    (``published_coordinates``; kernels/forward_gluon.py ``_packed_coordinates``): 20 bits each for the block and
    the head, 23 for the batch."""
    return query_blocks <= 1 << 20 and heads <= 1 << 20 and batch < 1 << 23


_SCHEDULES: dict = {}


def persistent_schedule(config: TileConfig, problem: "Problem", causal: bool, programs: int,
                        device: torch.device, backward: bool = False) -> tuple[Optional[torch.Tensor], dict]:
    """(tile list, its constexprs) of a persistent forward (query blocks of each head) or fused backward
    (``backward``: key blocks of each KV head) launch of ``programs`` programs: with ``balanced_schedule``
    and causal attention the int32 table of ``schedules.balanced_causal_schedule`` for these shapes, made
    once per device and shape (a host-to-device copy on the first call only), and ``LISTED``; else None and
    no constexpr (the kernels' ``schedule`` argument is then a compile-time None, never read). A fused backward
    with ``split_tail``, non-causal, whose key blocks leave a partial last round: the table of
    ``schedules.split_tail_schedule``, ``LISTED`` and ``SPLIT_TAIL``; a Gluon forward with ``split_tail``, likewise
    with ``schedules.split_tail_forward_schedule``'s. A Gluon forward or fused backward with ``noncausal_claims``,
    non-causal: every tile as a dynamic list (``_noncausal_claim_table``: in order, the short last blocks of the last
    heads at the end), ``LISTED`` and ``DYNAMIC``."""
    if config.noncausal_claims and (config.path != "gluon" or config.split_tail):
        raise ValueError(f"noncausal_claims is an option of the persistent Gluon forward and of the persistent "
                         f"warp-specialised fused backward, without split_tail; got {config} for the "
                         f"{'backward' if backward else 'forward'}")
    if config.split_tail and not causal and not backward and config.path != "gluon":
        raise ValueError(f"split_tail is an option of the persistent Gluon forward and of the persistent "
                         f"warp-specialised fused backward; got {config} for the forward")
    if config.dynamic_schedule and config.path != "gluon" and (causal or not config.split_tail):
        raise ValueError(f"dynamic_schedule is an option of the persistent Gluon forward and of the persistent "
                         f"warp-specialised fused backward; got {config} for the "
                         f"{'backward' if backward else 'forward'}")
    partial_last_round = config.split_tail and not causal and \
        split_tail_extent(config, problem, programs, backward)[1] > 0
    constants = schedule_constexprs(config, causal, partial_last_round)
    if not constants:
        return None, {}
    if constants.get("SPLIT_TAIL"):
        return _split_tail_table(config, problem, programs, device, backward), constants
    if constants.get("DYNAMIC"):
        table = _claim_table(config, problem, programs, device, backward) if causal else \
            _noncausal_claim_table(problem, config, device, backward, programs)
        return table, {**constants, "claims": _claim_counters(device)}
    return _balanced_table(config, problem, programs, device, backward), constants


def schedule_constexprs(config: TileConfig, causal: bool, partial_last_round: bool = True) -> dict:
    """The tile-list constexprs of a persistent kernel's launch (``persistent_schedule``'s, without the table and
    the claim counters; also what ``benchmarks/compile_cost.py`` compiles): ``LISTED`` for a tile list, with
    ``DYNAMIC`` when the programs claim its entries (``noncausal_claims`` non-causal, ``dynamic_schedule`` causal)
    or ``SPLIT_TAIL`` (``split_tail`` non-causal, when the tiles leave a ``partial_last_round``: whole rounds take
    the round-robin and no list); a causal ``balanced_schedule`` static list alone; else none. A dynamic list adds
    ``PUBLISHED_COORDINATES`` with ``published_coordinates`` (the launch drops it where the shape does not fit,
    ``coordinates_fit``)."""
    published = {"PUBLISHED_COORDINATES": True} if config.published_coordinates else {}
    if not causal and config.noncausal_claims:
        return {"LISTED": True, "DYNAMIC": True, **published}
    if not causal and config.split_tail:
        return {"LISTED": True, "SPLIT_TAIL": True} if partial_last_round else {}
    if not (causal and config.balanced_schedule):
        return {}
    return {"LISTED": True, "DYNAMIC": True, **published} if config.dynamic_schedule else {"LISTED": True}


def _capturing(device: torch.device) -> bool:
    """Whether the current stream of ``device`` is being captured into a CUDA graph."""
    return device.type == "cuda" and torch.cuda.is_current_stream_capturing()


_WARM_UP_BEFORE_CAPTURE = (
    "flashio: this attention call's first run on these shapes and options is inside a CUDA graph capture, where it "
    "would {what}. Run the call once outside the capture first (PyTorch's warm-up before torch.cuda.graph), then "
    "capture it.")


def _refuse_in_capture(device: torch.device, what: str) -> None:
    """A clear error for first-call work that cannot go into a CUDA graph (the tuner's timings synchronise; a new
    schedule table's copy would only run at replay), instead of the capture failing inside PyTorch or a table
    that holds garbage until the graph replays."""
    if _capturing(device):
        raise RuntimeError(_WARM_UP_BEFORE_CAPTURE.format(what=what))


def _cached_table(key: tuple, device: torch.device, make) -> torch.Tensor:
    """The int32 table ``make()`` (a list of ints) on ``device``: made once per ``key`` (device and shape) and kept,
    so that later calls copy nothing to the device. Not made during a CUDA graph capture: there its copy to the
    device would only run when the graph replays, while the cache would hand it at once to every later call."""
    table = _SCHEDULES.get(key)
    if table is None:
        _refuse_in_capture(device, "make a schedule table on the GPU")
        table = _SCHEDULES[key] = launch_plans.persistent(torch.tensor(make(), dtype=torch.int32).to(device))
    return table


def _schedule_table(key: tuple, programs: int, device: torch.device, make) -> torch.Tensor:
    """The kernels' int32 table of the schedule ``make()`` of ``programs`` programs, on ``device`` (``_cached_table``)."""
    def table() -> list[int]:
        schedule = make()
        if schedule.programs != programs:
            raise RuntimeError(f"a schedule for {programs} programs came out with {schedule.programs}: {key}")
        return schedule.table()
    return _cached_table(key, device, table)


def _persistent_tiles(config: TileConfig, problem: "Problem", backward: bool) -> tuple[int, int]:
    """(blocks per head, heads x batch) of a persistent kernel's tiles: the fused backward's key blocks of each KV
    head, or (``backward=False``) the Gluon forward's query blocks of each head; tile ids are
    ``head_batch * blocks + block``."""
    if backward:
        return cdiv(problem.seqlen_k, config.block_n), problem.num_kv_heads * problem.batch
    return cdiv(problem.seqlen_q, config.block_m), problem.num_heads * problem.batch


def _balanced_table(config: TileConfig, problem: "Problem", programs: int, device: torch.device,
                    backward: bool) -> torch.Tensor:
    """``schedules.balanced_causal_schedule``'s table: query blocks of each head (forward) or key blocks of each
    KV head (``backward``)."""
    head_batches = _persistent_tiles(config, problem, backward)[1]
    block_work = schedules.causal_backward_block_work if backward else schedules.causal_forward_block_work
    work = block_work(problem.seqlen_q, problem.seqlen_k, config.block_m, config.block_n)
    return _schedule_table((device, backward, head_batches, programs, problem.seqlen_q, problem.seqlen_k,
                            config.block_m, config.block_n), programs, device,
                           lambda: schedules.balanced_causal_schedule(len(work), head_batches, programs, work,
                                                                      high_first=not backward))


def _claim_table(config: TileConfig, problem: "Problem", programs: int, device: torch.device,
                 backward: bool = False) -> torch.Tensor:
    """A dynamic tile list's int32 table (``schedules.claim_order``: its entry count, then the tile ids): query
    blocks of each head (forward) or key blocks of each KV head (``backward``, each pair's heavy key block first),
    made once per device and shape."""
    head_batches = _persistent_tiles(config, problem, backward)[1]
    block_work = schedules.causal_backward_block_work if backward else schedules.causal_forward_block_work
    work = block_work(problem.seqlen_q, problem.seqlen_k, config.block_m, config.block_n)
    key = (device, "claim order", backward, head_batches, programs, problem.seqlen_q, problem.seqlen_k,
           config.block_m, config.block_n)

    def table() -> list[int]:
        order = schedules.claim_order(len(work), head_batches, programs, work, high_first=not backward)
        return [len(order), *order]
    return _cached_table(key, device, table)


def _noncausal_claim_table(problem: "Problem", config: TileConfig, device: torch.device, backward: bool,
                           programs: int) -> torch.Tensor:
    """The non-causal dynamic tile list's int32 table: its entry count, then every tile id in order (forward:
    ``schedules.noncausal_claim_order`` of ``head_batch * query_blocks + block``, a head's query blocks one after
    another, so that the programs at work at once share its K/V in L2, with the short last blocks of the last heads at
    the end where the sequence leaves a consumer of the last block without rows; ``backward``: key blocks of each KV
    head in order, sharing its Q/dO), made once per device and shape. Program p takes entry p, then claims the next
    free one after each tile (``kernels/gluon_claims.py``)."""
    blocks, head_batches = _persistent_tiles(config, problem, backward)
    tiles = blocks * head_batches
    last_block_short = not backward and _last_block_short(config, problem.seqlen_q)
    moved = schedules.short_last_blocks_moved(head_batches, programs, last_block_short)
    return _cached_table((device, "non-causal claim order", tiles, blocks, moved), device,
                         lambda: [tiles, *schedules.noncausal_claim_order(blocks, head_batches, programs,
                                                                          last_block_short)])


def _last_block_short(config: TileConfig, seqlen_q: int) -> bool:
    """Whether a Gluon forward's last query block of each head leaves a whole consumer without rows, which then
    computes nothing (three or four 64-row consumers: ``SKIP_ROWS_PAST_END`` in ``kernels/forward_gluon.py``), so
    that its tile runs shorter than the others (d=64's 192-row tiles at N = 1k: 64 of 192 rows)."""
    consumers = gluon_forward_consumers(config)
    if consumers < 3:
        return False
    rows_past_end = cdiv(seqlen_q, config.block_m) * config.block_m - seqlen_q
    return rows_past_end >= config.block_m // consumers


_CLAIM_COUNTERS: dict = {}


def _claim_counters(device: torch.device) -> torch.Tensor:
    """A dynamic tile list's two int32 counters (entries claimed, programs done) on ``device``, one pair per CUDA
    stream so that launches on different streams never share them: zero when made, and each launch leaves them zero
    (its last program resets them), so they are never cleared between launches.

    A launch captured into a CUDA graph gets a pair of its own, zeroed by the graph before the kernel at every
    replay. A pair made during a capture and kept would be zero only once that graph had replayed, and garbage for
    good if the capture was abandoned (v0.47 call 1: the tuner's captures, ``tune_through_replays``, then timed
    launches that claimed no tile, 27 µs for a 250 µs kernel, and one process failed with a CUDA error)."""
    if _capturing(device):
        return launch_plans.zero_(launch_plans.empty((2,), dtype=torch.int32, device=device))
    stream = launch_plans.stream_handle(device.index) if device.type == "cuda" else 0
    counters = _CLAIM_COUNTERS.get((device, stream))
    if counters is None:
        counters = _CLAIM_COUNTERS[(device, stream)] = launch_plans.persistent(
            torch.zeros(2, dtype=torch.int32, device=device))
    return counters


def split_tail_extent(config: TileConfig, problem: "Problem", programs: int,
                      backward: bool = True) -> tuple[int, int]:
    """(first tile id, tiles) of a split-tail persistent kernel's last round: the fused backward's key blocks
    (``schedules.split_tail_schedule``; their dK/dV are summed in a float32 buffer of that many slots) or
    (``backward=False``) the Gluon forward's query blocks (``schedules.split_tail_forward_schedule``)."""
    blocks, head_batches = _persistent_tiles(config, problem, backward)
    tiles = blocks * head_batches
    programs = min(programs, tiles)
    return tiles // programs * programs, tiles % programs


def _split_tail_schedule(config: TileConfig, problem: "Problem", programs: int,
                         backward: bool) -> schedules.TileSchedule:
    """The split-tail schedule of a fused backward's key blocks or (``backward=False``) a Gluon forward's query
    blocks (each tile's steps: the other side's blocks)."""
    blocks, head_batches = _persistent_tiles(config, problem, backward)
    if backward:
        return schedules.split_tail_schedule(blocks, head_batches, programs, cdiv(problem.seqlen_q, config.block_m))
    return schedules.split_tail_forward_schedule(blocks, head_batches, programs,
                                                 cdiv(problem.seqlen_k, config.block_n))


def _split_tail_key(config: TileConfig, problem: "Problem", programs: int, device: torch.device,
                    backward: bool) -> tuple:
    head_batches = _persistent_tiles(config, problem, backward)[1]
    return (device, "split tail" if backward else "forward split tail", head_batches, programs, problem.seqlen_q,
            problem.seqlen_k, config.block_m, config.block_n)


def _split_tail_table(config: TileConfig, problem: "Problem", programs: int, device: torch.device,
                      backward: bool = True) -> torch.Tensor:
    """``_split_tail_schedule``'s table (whole rounds only when the tiles leave no partial one)."""
    return _schedule_table(_split_tail_key(config, problem, programs, device, backward), programs, device,
                           lambda: _split_tail_schedule(config, problem, programs, backward))


def split_tail_partials(config: TileConfig, problem: "Problem", programs: int,
                        device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """(float32 buffer, int32 merge table) of a split-tail Gluon forward of ``programs`` programs. The buffer: one slot
    per piece of a cut tile, at least one (``block_m`` x d outputs, then ``block_m`` LSE values; written by the kernel
    before they are read, so never cleared). The table: ``schedules.split_tail_combines``' tile ids, first slots and
    piece counts, made once per device and shape."""
    key = _split_tail_key(config, problem, programs, device, False)
    merges = _SPLIT_TAIL_COMBINES.get(key)
    if merges is None:
        merges = _SPLIT_TAIL_COMBINES[key] = schedules.split_tail_combines(
            _split_tail_schedule(config, problem, programs, False))
    combines = _cached_table(key + ("combines",), device,
                             lambda: [merge[field] for field in range(3) for merge in merges])
    # At least one slot: a tail whose runs each cover whole tiles (one key block per tile, say) cuts none, and the
    # kernel still takes a buffer it never writes.
    slots = max(sum(pieces for _, _, pieces in merges), 1)
    partials = launch_plans.empty((slots, config.block_m * (problem.head_dim + 1)), device=device, dtype=torch.float32)
    return partials, combines


_SPLIT_TAIL_COMBINES: dict = {}
# Rows of a tile that one program of the split tail's merge takes (register use: BLOCK_ROWS x d float32 twice),
# and the depth of its software pipeline over a tile's pieces.
SPLIT_TAIL_COMBINE_ROWS = 16
SPLIT_TAIL_COMBINE_STAGES = 3


def combine_split_tail(partials: torch.Tensor, combines: torch.Tensor, out: torch.Tensor, lse: torch.Tensor,
                       out_strides: tuple, lse_strides: tuple, problem: "Problem", block_m: int, *,
                       block_rows: int = SPLIT_TAIL_COMBINE_ROWS, num_stages: int = SPLIT_TAIL_COMBINE_STAGES) -> None:
    """The split tiles' O and LSE from their pieces in ``partials`` (``split_tail_partials``; kernels/forward.py's
    ``split_tail_combine_kernel``), after a split-tail Gluon forward. ``block_rows`` (a power of two) and
    ``num_stages`` are the merge's tile and pipeline depth (forward_short/merge_cost.py times them)."""
    merges = combines.numel() // 3
    if merges == 0:  # no tile was cut: the kernel stored every one
        return
    launch_plans.launch(
        forward_kernels.split_tail_combine_kernel, (merges, cdiv(block_m, block_rows)), partials,
        combines, out, lse, *out_strides[:3], *lse_strides, cdiv(problem.seqlen_q, block_m), problem.num_heads,
        problem.seqlen_q, merges, TILE_ROWS=block_m, HEAD_DIM=problem.head_dim, BLOCK_ROWS=block_rows,
        NUM_STAGES=num_stages, num_warps=4)


# Registers per MMA thread of the fused backwards with two MMA warpgroups as partitions of their own: the
# role-split kernel (d=256; three one-warp workers, 2 x 128 x 240 + 3 x 32 x 24 = 63744 of the 65536
# registers of a multiprocessor) and the row-split kernel (two workers, padded to a warpgroup at 24 each).
FUSED_SPLIT_MMA_REGISTERS = 240


def fused_backward_kernel(config: TileConfig, head_dim: int):
    """(Gluon kernel, its tile constexprs) of a fused-backward configuration: the row-split persistent kernel
    (``split_rows``: the key rows on two MMA partitions, same launch as the persistent specialised kernel), the
    role-split kernel
    (``split_roles``: dQ in ``dq_chunks`` column chunks over both warpgroups, ``num_stages`` Q slots), the
    warp-specialised one (``persistent``: in a persistent grid, see ``fused_backward_launch``), or the plain
    one. All take the same arguments and grid, except the persistent kernel (two more, one program per
    multiprocessor)."""
    if config.ds_buffers not in (1, 2) or (config.ds_buffers == 2 and not (config.warp_specialised
                                                                        and not config.split_roles
                                                                        and config.num_stages >= 2)):
        raise ValueError(f"ds_buffers is 1, or 2 in the warp-specialised fused backward with num_stages >= 2 (its "
                         f"Q/dO slots are released one query block late); got {config}")
    if config.split_tail and not (config.warp_specialised and config.persistent and not config.split_rows):
        raise ValueError(f"split_tail is an option of the persistent warp-specialised fused backward (without split "
                         f"rows); got {config}")
    if config.late_key_gradient_wait and not (config.warp_specialised and config.ds_buffers == 2
                                              and config.dq_chunks == 1 and not config.split_rows
                                              and not config.split_roles):
        raise ValueError("late_key_gradient_wait is a form of the warp-specialised fused backward with two dS "
                         "tiles (ds_buffers=2: a block's Q/dO slot is handed back after the next block's score "
                         "products, which retire after its dV and dK) and dQ in one piece (dq_chunks=1: a dQ "
                         f"chunk's wait would wait for them), without split rows or roles; got {config}")
    if config.late_key_gradient_wait and head_dim > 64:
        # Compiled for sm_90a (v0.22): at d=128 the two 64 x 128 accumulators in flight across the loop's back
        # edge leave ptxas too few registers, and it serialises every warpgroup MMA (32 groups of one k-step).
        raise ValueError(f"late_key_gradient_wait is compiled for head_dim <= 64 (at larger ones the MMAs run "
                         f"serialised); got head_dim={head_dim}")
    # The persistent warp-specialised fused backward with one MMA partition (no split rows or roles): the kernel
    # that the options below, but for the role-split ones, are forms of.
    persistent_specialised = config.warp_specialised and config.persistent and not config.split_rows \
        and not config.split_roles
    specialised_wide = persistent_specialised and config.block_n == 16 * config.num_warps
    role_split_wide = config.split_roles and not config.persistent and config.block_n == 64
    if config.wide_stores and not (specialised_wide or role_split_wide):
        raise ValueError(f"wide_stores is an option of the persistent warp-specialised fused backward whose MMA "
                         f"warps hold the key rows 16 each (block_n = 16 * num_warps; no split rows or roles) and "
                         f"of the role-split one with 64-key blocks (one per program); got {config}")
    if config.spread_dq_stores and not (role_split_wide or (specialised_wide and config.dq_chunks == 1)):
        raise ValueError(f"spread_dq_stores is an option of the persistent warp-specialised fused backward with dQ "
                         f"in one chunk (block_n = 16 * num_warps; no split rows or roles) and of the role-split one "
                         f"with 64-key blocks (one per program); got {config}")
    if config.early_lse and not (specialised_wide and config.stats_in_shared):
        raise ValueError(f"early_lse is an option of the persistent warp-specialised fused backward with LSE/D rows "
                         f"in shared memory (stats_in_shared; block_n = 16 * num_warps; no split rows or roles); "
                         f"got {config}")
    if config.dynamic_schedule and not (persistent_specialised and config.balanced_schedule):
        raise ValueError(f"dynamic_schedule is an option of the persistent warp-specialised fused backward with "
                         f"balanced_schedule (no split rows or roles) and of the persistent Gluon forward; got "
                         f"{config}")
    if config.noncausal_claims and not (persistent_specialised and not config.split_tail):
        raise ValueError(f"noncausal_claims is an option of the persistent warp-specialised fused backward without "
                         f"split_tail (no split rows or roles) and of the persistent Gluon forward; got {config}")
    if config.kv_slots not in (1, 2) or (config.kv_slots == 2 and not persistent_specialised):
        raise ValueError(f"kv_slots is 1, or 2 in the persistent warp-specialised fused backward (no split rows or "
                         f"roles); got {config}")
    if config.kv_slots == 2 and head_dim > 64:
        # Two more [block_n, head_dim] 16-bit tiles: 32 KB at d=64 (the tuned forms then take 179-196 of 227 KB);
        # at d=128 the tuned form already takes 211 KB.
        raise ValueError(f"kv_slots=2 fits the shared memory at head_dim <= 64; got head_dim={head_dim}")
    if config.queries_first and not (persistent_specialised and config.kv_slots == 1):
        raise ValueError(f"queries_first is an option of the persistent warp-specialised fused backward with one K/V "
                         f"slot (kv_slots=1; no split rows or roles); got {config}")
    if config.split_rows:
        if not (config.warp_specialised and config.persistent and config.stats_in_shared and config.block_n == 128
                and config.num_warps == 4 and config.dq_chunks == 1 and config.ds_buffers == 1
                and not config.split_roles):
            raise ValueError("split_rows is a form of the persistent warp-specialised fused backward with LSE/D rows "
                             "in shared memory, 128-key blocks on two 4-warp MMA warpgroups (num_warps=4), dQ in "
                             f"one chunk and its own two dS tiles (ds_buffers=1), without split roles; got {config}")
        return backward_gluon_rows_kernels.attention_backward_fused_rows_kernel, dict(
            BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=head_dim, NUM_STAGES=config.num_stages,
            DQ_BUFFERS=config.dq_buffers, MMA_REGS=FUSED_SPLIT_MMA_REGISTERS, WORKER_REGS=FUSED_WORKER_REGISTERS,
            **({"KV_IN_REGISTERS": True} if config.kv_in_registers else {}))
    if config.host_descriptors not in (0, 2, 4) or (config.host_descriptors and not role_split_wide):
        raise ValueError(f"host_descriptors is 0, or 2 (K, V) or 4 (Q, K, V, dO) in the role-split fused backward with "
                         f"64-key blocks (one per program); got {config}")
    if config.do_stages not in (1, 2) or (config.do_stages == 2 and not config.split_roles):
        raise ValueError(f"do_stages is 1, or 2 in the role-split fused backward (its dO ring; the other kernels "
                         f"load Q_i and dO_i into one ring of num_stages slots); got {config}")
    if config.split_roles:
        constants = dict(BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=head_dim,
                         Q_STAGES=config.num_stages, DO_STAGES=config.do_stages, DQ_COLS=head_dim // config.dq_chunks,
                         DQ_BUFFERS=config.dq_buffers, MMA_REGS=FUSED_SPLIT_MMA_REGISTERS,
                         WORKER_REGS=FUSED_WORKER_REGISTERS)
        if config.persistent:  # v0.23 (v0.24: not faster, not a candidate): always from a tile list
            return backward_gluon_split_kernels.attention_backward_fused_split_persistent_kernel, constants
        if config.wide_stores:
            constants["WIDE_STORES"] = True
        if config.spread_dq_stores:
            constants["SPREAD_DQ"] = True
        if config.host_descriptors:
            constants["HOST_DESCRIPTORS"] = config.host_descriptors
        return backward_gluon_split_kernels.attention_backward_fused_split_kernel, constants
    constants = dict(BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=head_dim,
                     NUM_STAGES=config.num_stages, WARPS=config.num_warps, DQ_CHUNKS=config.dq_chunks,
                     DQ_BUFFERS=config.dq_buffers, KV_IN_REGISTERS=config.kv_in_registers)
    if config.warp_specialised:
        kernel = backward_gluon_kernels.attention_backward_fused_ws_persistent_kernel if config.persistent else \
            backward_gluon_kernels.attention_backward_fused_ws_kernel
        constants = dict(constants, LOADER_REGS=FUSED_WORKER_REGISTERS, REDUCER_REGS=FUSED_WORKER_REGISTERS)
        if config.stats_in_shared:
            constants["STATS_IN_SMEM"] = True
        if config.ds_buffers == 2:
            constants["DS_BUFFERS"] = 2
        if config.late_key_gradient_wait:
            constants["LATE_KV_WAIT"] = True
        if config.wide_stores:
            constants["WIDE_STORES"] = True
        if config.spread_dq_stores:
            constants["SPREAD_DQ"] = True
        if config.early_lse:
            constants["EARLY_LSE"] = True
        if config.kv_slots == 2:
            constants["KV_SLOTS"] = 2
        if config.queries_first:
            constants["QUERIES_FIRST"] = True
        return kernel, constants
    return backward_gluon_kernels.attention_backward_fused_kernel, constants


def fused_backward_launch(config: TileConfig, problem: "Problem", device: torch.device,
                          causal: bool = False) -> tuple[tuple, tuple, dict]:
    """(grid, trailing arguments, extra constants) of a fused-backward launch: one program per key block, KV
    head and batch, or for the persistent kernel one per multiprocessor (at most one per work unit, a pair of
    key blocks of one head) with (KV heads, work units, tile list) appended to the arguments (the list is
    read only with ``balanced_schedule``, causal: ``LISTED``, or with ``split_tail``, non-causal with a partial
    last round: ``LISTED`` and ``SPLIT_TAIL``; like the fused kernel's dQ, a split tail's dK/dV sums are then
    not bitwise reproducible, and ``deterministic=True`` calls never take this kernel)."""
    key_blocks = cdiv(problem.seqlen_k, config.block_n)
    if config.balanced_schedule and not config.persistent:
        raise ValueError(f"balanced_schedule is an option of the persistent fused backward; got {config}")
    if not config.persistent:
        return (key_blocks, problem.num_kv_heads, problem.batch), (), {}
    if config.split_roles:
        return _role_split_persistent_launch(config, problem, device, causal)
    units = cdiv(key_blocks, 2) * problem.num_kv_heads * problem.batch
    programs = min(units, persistent_programs(device))
    schedule, listed = persistent_schedule(config, problem, causal, programs, device, backward=True)
    return (programs,), (problem.num_kv_heads, units, schedule), listed


def _role_split_persistent_launch(config: TileConfig, problem: "Problem", device: torch.device,
                                  causal: bool) -> tuple[tuple, tuple, dict]:
    """The persistent role-split backward (d=256; v0.23, not a candidate since v0.24) always reads a tile list:
    causal, the balanced list of ``schedules.balanced_causal_schedule``; non-causal with ``split_tail`` and a
    partial last round, ``schedules.split_tail_schedule``'s (that round in pieces, SPLIT_TAIL); else whole key
    blocks round-robin (``schedules.whole_tile_schedule``).
    One program per multiprocessor, at most one per key block (causal: per pair of key blocks, the balanced
    schedule's unit)."""
    key_blocks = cdiv(problem.seqlen_k, config.block_n)
    tiles = key_blocks * problem.num_kv_heads * problem.batch
    if causal:
        programs = min(cdiv(key_blocks, 2) * problem.num_kv_heads * problem.batch, persistent_programs(device))
        return (programs,), (problem.num_kv_heads, tiles, _balanced_table(config, problem, programs, device, True)), \
            {"LISTED": True}
    programs = min(tiles, persistent_programs(device))
    if config.split_tail and split_tail_extent(config, problem, programs)[1] > 0:
        return (programs,), (problem.num_kv_heads, tiles, _split_tail_table(config, problem, programs, device)), \
            {"LISTED": True, "SPLIT_TAIL": True}
    # Without the option (or without a partial round) whole key blocks round-robin: a list with pieces would be
    # read as whole blocks, and their dK/dV stored over one another (v0.24's first probe of the form).
    head_batches = problem.num_kv_heads * problem.batch
    whole = _schedule_table((device, "whole tiles", head_batches, programs, key_blocks), programs, device,
                            lambda: schedules.whole_tile_schedule(key_blocks, head_batches, programs))
    return (programs,), (problem.num_kv_heads, tiles, whole), {"LISTED": True}


def convert_key_gradient_parts(parts: torch.Tensor, dk: torch.Tensor, dv: torch.Tensor, dk_strides: tuple,
                                dv_strides: tuple, first_tile: int, problem: "Problem", block_n: int) -> None:
    """dK and dV of the key blocks ``first_tile`` .. ``first_tile + len(parts) - 1`` from their float32 sums in
    ``parts`` ([slots, 2, block_n, head_dim]: tau dk, dv), which a split-tail fused backward left there."""
    launch_plans.launch(
        backward_kernels.key_gradient_parts_kernel, (parts.shape[0],), parts, dk, dv, *dk_strides[:3],
        *dv_strides[:3], first_tile, cdiv(problem.seqlen_k, block_n), problem.num_kv_heads, problem.seqlen_k,
        BLOCK_N=block_n, HEAD_DIM=problem.head_dim, num_warps=4)


def interpreter_enabled() -> bool:
    """True when Triton runs kernels on the CPU through its interpreter (``TRITON_INTERPRET=1``)."""
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


@dataclass(frozen=True)
class VarlenInfo:
    """Packed batch description: cumulative lengths (int32, length batch+1) and the maxima."""

    cu_seqlens_q: torch.Tensor
    cu_seqlens_k: torch.Tensor
    max_seqlen_q: int
    max_seqlen_k: int

    @property
    def batch(self) -> int:
        return self.cu_seqlens_q.numel() - 1


@dataclass(frozen=True)
class Problem:
    """Shape facts shared by the forward and backward launches."""

    layout: str
    batch: int
    num_heads: int
    num_kv_heads: int
    seqlen_q: int  # per-sequence length, or the maximum for packed batches
    seqlen_k: int
    head_dim: int
    varlen: Optional[VarlenInfo]
    block_d: int  # head_dim padded to a power of two, at least 16 (tl.dot needs K >= 16)

    @property
    def group_size(self) -> int:
        return self.num_heads // self.num_kv_heads


def describe(q: torch.Tensor, k: torch.Tensor, layout: str, varlen: Optional[VarlenInfo]) -> Problem:
    if not q.is_cuda:
        ensure_interpreter_fixes()
    if layout == "bhnd":
        batch, heads, seqlen_q, head_dim = q.shape
        kv_heads, seqlen_k = k.shape[1], k.shape[2]
    elif layout == "bnhd":
        batch, seqlen_q, heads, head_dim = q.shape
        seqlen_k, kv_heads = k.shape[1], k.shape[2]
    elif layout == "thd":
        assert varlen is not None
        heads, head_dim = q.shape[1], q.shape[2]
        kv_heads = k.shape[1]
        batch, seqlen_q, seqlen_k = varlen.batch, varlen.max_seqlen_q, varlen.max_seqlen_k
    else:  # pragma: no cover - guarded by the callers
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    block_d = max(16, 1 << (head_dim - 1).bit_length())
    return Problem(layout, batch, heads, kv_heads, seqlen_q, seqlen_k, head_dim, varlen, block_d)


def cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints (plain Python: this runs on every call)."""
    return -(-a // b)


def strides_bhnd(t: torch.Tensor, layout: str) -> tuple[int, int, int, int]:
    """Strides of ``t`` in (batch, head, row, dim) order; packed tensors get batch stride 0."""
    if layout == "bhnd":
        return t.stride(0), t.stride(1), t.stride(2), t.stride(3)
    if layout == "bnhd":
        return t.stride(0), t.stride(2), t.stride(1), t.stride(3)
    return 0, t.stride(1), t.stride(0), t.stride(2)


def _row_stats_strides(stats: torch.Tensor, layout: str) -> tuple[int, int, int]:
    """Strides (batch, head, row) of a per-row float32 tensor: (B, H, N), or (H, total) when packed."""
    if layout == "thd":
        return 0, stats.stride(0), stats.stride(1)
    return stats.stride(0), stats.stride(1), stats.stride(2)


def _new_row_stats(problem: Problem, q: torch.Tensor) -> torch.Tensor:
    if problem.layout == "thd":
        return launch_plans.empty((problem.num_heads, q.shape[0]), device=q.device, dtype=torch.float32)
    return launch_plans.empty((problem.batch, problem.num_heads, problem.seqlen_q), device=q.device,
                              dtype=torch.float32)


_PLACEHOLDERS: dict = {}


def _placeholder(device: torch.device) -> torch.Tensor:
    """A tiny int32 tensor passed where a kernel argument is unused (no varlen, no block mask): made once
    per device, because allocating (and zero-filling) one on every call costs a launch."""
    tensor = _PLACEHOLDERS.get(device)
    if tensor is None:
        tensor = _PLACEHOLDERS[device] = launch_plans.persistent(
            torch.zeros((1, 1, 1, 1), device=device, dtype=torch.int32))
    return tensor


def _varlen_args(problem: Problem, q: torch.Tensor):
    if problem.varlen is None:
        dummy = _placeholder(q.device)
        return dummy, dummy, problem.seqlen_q, problem.seqlen_k
    v = problem.varlen
    return v.cu_seqlens_q, v.cu_seqlens_k, v.max_seqlen_q, v.max_seqlen_k


def _dot_precision(dtype: torch.dtype) -> str:
    # float32 inputs use true fp32 products (not TF32), so that the fp32 path is exact to fp32 rounding.
    return "ieee" if dtype == torch.float32 else "tf32"


def _dropout_args(dropout_p: float) -> tuple[int, float]:
    """(threshold on 24 random bits, 1/(1-p)) for the kernels' keep test ``bits >= threshold``."""
    return int(round(dropout_p * (1 << 24))), (1.0 / (1.0 - dropout_p) if dropout_p > 0 else 1.0)


def _sparse_args(index: Optional[BlockSparseIndex], by_rows: bool, q: torch.Tensor):
    """(counts, indices, 3 count strides, 4 index strides, block_m, block_n) for the kernels."""
    if index is None:
        dummy = _placeholder(q.device)
        return (dummy, dummy, 0, 0, 0, 0, 0, 0, 0, 16, 16)
    counts, indices = (index.row_counts, index.row_indices) if by_rows else (index.col_counts, index.col_indices)
    return (counts, indices, *index.broadcast_strides(counts), *index.broadcast_strides(indices),
            index.block_m, index.block_n)


_UNFIT = (triton.runtime.errors.OutOfResources, triton.compiler.errors.CompilationError, RuntimeError)
_LAST_TIMING_END = [float("-inf")]  # time.monotonic() when the tuner last had the GPU busy (a timing or a warm-up)
_WARM_UPS = {"count": 0, "seconds": 0.0}


def tuning_warm_ups() -> tuple[int, float]:
    """(how many warm-ups the tuner ran in this process, their seconds in all): part of a first call's cost."""
    return _WARM_UPS["count"], _WARM_UPS["seconds"]


def _time_ms(run) -> float:
    """Median time of ``run()`` in ms, or inf when the configuration does not compile for this device."""
    try:
        # Long enough that the choice is not decided by noise at short sequences (a 0.2 ms kernel gets
        # ~150 repeats).
        return triton.testing.do_bench(run, warmup=10, rep=40, return_mode="median")
    except _UNFIT:
        return float("inf")
    finally:
        _LAST_TIMING_END[0] = time.monotonic()


ALTERNATE_TIMING_MS = 40  # per candidate and round, as ``_time_ms``'s do_bench repeats


def alternating_turns(count: int, passes: int, seed: int = 0) -> list[list[int]]:
    """``passes`` orders of the indices ``0..count-1``, each shuffled afresh (a fixed seed: the same turns in every
    process), for ``_time_alternately_ms``."""
    shuffle = random.Random(seed).shuffle
    turns = []
    for _ in range(passes):
        turn = list(range(count))
        shuffle(turn)
        turns.append(turn)
    return turns


def _time_alternately_ms(runs: Sequence[Callable[[], object]]) -> list[float]:
    """Median time in ms of each of ``runs``, timed call by call in shuffled turns (an L2 clear before each call, as
    do_bench does), so that every call follows another candidate's kernel as in a model's step; about
    ``ALTERNATE_TIMING_MS`` of calls of the slowest. The tuner's rematch rounds (configs._rematch)."""
    cache = triton.runtime.driver.active.get_empty_cache_for_benchmark()
    estimates = []
    for run in runs:
        run()  # any lazy set-up outside the timing
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(3):
            run()
        end.record()
        torch.cuda.synchronize()
        estimates.append(start.elapsed_time(end) / 3)
    passes = min(1000, max(5, int(ALTERNATE_TIMING_MS / max(max(estimates), 1e-3))))
    events = [[] for _ in runs]
    for turn in alternating_turns(len(runs), passes):
        for index in turn:
            triton.runtime.driver.active.clear_cache(cache)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            runs[index]()
            end.record()
            events[index].append((start, end))
    torch.cuda.synchronize()
    _LAST_TIMING_END[0] = time.monotonic()
    return [statistics.median(start.elapsed_time(end) for start, end in timed) for timed in events]


def _warm_up_gpu(runs: Sequence[Callable[[], object]], clock: Callable[[], float] = time.monotonic,
                 synchronize: Callable[[], None] = torch.cuda.synchronize, calls_per_sync: int = 8) -> float:
    """Keep the GPU busy for ``configs.TUNING_WARMUP_MS`` before the tuner's first timing of a key, with the first
    of ``runs`` that runs (a candidate that does not fit is skipped), so that no candidate is timed at the higher
    clock of a GPU that has been idle (configs.TUNING_WARMUP_MS says what that did). Nothing runs when the tuner
    timed something less than ``configs.TUNING_IDLE_S`` ago. Returns the seconds spent."""
    start = clock()
    if start - _LAST_TIMING_END[0] < configs.TUNING_IDLE_S:
        return 0.0
    for run in runs:
        try:
            while clock() - start < configs.TUNING_WARMUP_MS / 1e3:
                for _ in range(calls_per_sync):  # queued ahead, so the GPU does not wait for the host
                    run()
                synchronize()
            break
        except _UNFIT:
            continue
    _LAST_TIMING_END[0] = clock()
    _WARM_UPS["count"] += 1
    _WARM_UPS["seconds"] += _LAST_TIMING_END[0] - start
    return _LAST_TIMING_END[0] - start


_CAPABILITIES: dict = {}


def device_capability(device: torch.device) -> tuple[int, int]:
    """Compute capability of a CUDA device, asked once per device (never at import)."""
    capability = _CAPABILITIES.get(device)
    if capability is None:
        capability = _CAPABILITIES[device] = torch.cuda.get_device_capability(device)
    return capability


_MULTIPROCESSORS: dict = {}


def multiprocessor_count(device: torch.device) -> int:
    """Streaming multiprocessors of a CUDA device (the persistent grids' size), asked once per device."""
    count = _MULTIPROCESSORS.get(device)
    if count is None:
        count = _MULTIPROCESSORS[device] = torch.cuda.get_device_properties(device).multi_processor_count
    return count


INTERPRETER_PERSISTENT_PROGRAMS = 3


def persistent_programs(device: torch.device) -> int:
    """Programs of a persistent grid: one per multiprocessor, or a few under the interpreter (so that its tests
    see programs taking more than one tile)."""
    return multiprocessor_count(device) if device.type == "cuda" else INTERPRETER_PERSISTENT_PROGRAMS


_DEVICE_NAMES: dict = {}


def device_name(device: torch.device) -> str:
    """The GPU's name (two GPUs of one compute capability, an H100 and an H200, tune differently)."""
    name = _DEVICE_NAMES.get(device)
    if name is None:
        name = _DEVICE_NAMES[device] = torch.cuda.get_device_name(device)
    return name


def _tune_key(kernel: str, problem: Problem, q: torch.Tensor, *flags) -> tuple:
    capability = device_capability(q.device) if q.is_cuda else (0, 0)
    name = device_name(q.device) if q.is_cuda else "cpu"
    return (kernel, name, capability, str(q.dtype), problem.block_d, problem.group_size,
            configs.length_bucket(problem.seqlen_q), configs.length_bucket(problem.seqlen_k), *flags)


def _pick(kernel: str, problem: Problem, q: torch.Tensor, interpreter_default: TileConfig,
          candidates: dict, launch, flags: tuple, sparse: Optional[BlockSparseIndex],
          extra_candidates: Optional[dict] = None, hopper_regime: bool = False,
          also_compile: Optional[Callable[[], list]] = None, causal: bool = False) -> TileConfig:
    """Choose a tile configuration (fixed under the interpreter, timed-and-cached on a GPU).

    ``extra_candidates`` (other kernel paths of the same pass) join the timing on a GPU. With
    ``hopper_regime`` (sm_90 inputs of the kind the H200 grids timed) the candidates of
    ``configs.HOPPER_UNTIMED`` are left out. The candidates are compiled concurrently before they are timed
    (``launch_plans.compile_concurrently``), with ``also_compile()``'s jobs in the same batch. For a ``causal``
    call, candidates that differ only in options of non-causal calls (``TileConfig.causal_form``) are one kernel:
    the first of them is timed.
    """
    max_m = sparse.block_m if sparse is not None else 1 << 30
    max_n = sparse.block_n if sparse is not None else 1 << 30
    if not q.is_cuda:
        return interpreter_default.clipped(max_m, max_n) if sparse is not None else interpreter_default
    key = _tune_key(kernel, problem, q, *flags, max_m, max_n)
    chosen = configs.cached_choice(key)
    if chosen is not None:  # the common path: no list building on every call
        return chosen
    bucket = configs.head_dim_bucket(problem.block_d)
    options = list(candidates[bucket]) + list((extra_candidates or {}).get(bucket, ()))
    options = [c.clipped(max_m, max_n) for c in options]
    if q.dtype == torch.float32:
        # fp32 tiles take twice the shared memory and run on FMA units: small tiles, few stages.
        options = [TileConfig(64, 32, 4, 1).clipped(max_m, max_n)]
    options = list(dict.fromkeys(options))
    if causal:
        options = configs.distinct_for_causal(options)
    if configs.autotune_enabled():  # without autotuning the list's first entry runs, as documented
        options = configs.timed_candidates(kernel, bucket, options, hopper_regime, causal=causal)
    jobs = launch_plans.gathered()
    if jobs is not None:  # collecting a first backward's compiles: what would be timed, then go on with one
        pending = configs.candidates_to_compile(key, options)
        jobs.extend(functools.partial(launch, c) for c in pending)
        return pending[0]
    if len(configs.candidates_to_compile(key, options)) > 1:
        _refuse_in_capture(q.device, "time the kernel's tile candidates")
    runs = lambda tiles: [functools.partial(launch, c) for c in tiles]
    timed_run = _timed_runs(launch)
    return configs.choose_config(
        key, options, lambda config: _time_ms(timed_run(config)),
        prepare=lambda timed: launch_plans.compile_concurrently(runs(timed), more=also_compile),
        warm_up=lambda timed: _warm_up_gpu(runs(timed)),
        time_alternately=lambda leaders: _time_alternately_ms([timed_run(c) for c in leaders]))


def tune_through_replays() -> bool:
    """Whether the tuner times each candidate's launch replayed from a CUDA graph captured once (``_replayable``)
    instead of through the launcher: on unless ``FLASHIO_TUNE_REPLAYS=0``. Its timings clear the L2 before each call
    (~60 µs of GPU work), so a launch whose host time passes that and its kernel's is timed as host time: on the
    H200 a launch took 110-160 µs of host time through the whole launcher against 146-153 µs of kernel at d=256
    causal 1k (v0.46 call 5), and in two of four grids the tuner kept a form 6-7% slower there. A replay costs the
    host a few µs. Measured (v0.47 calls 1-2, H200, d=128 and d=256 grids at 1k-4k, the tuner with and without):
    d=256 causal 1k forward 0.968 / 0.974 -> 1.032 / 1.036x cuDNN (bf16 / fp16), every other point within 1.5%;
    a d=256 first call 7.41 -> 7.67 s."""
    return os.environ.get("FLASHIO_TUNE_REPLAYS", "1") not in ("0", "false", "False", "no", "off")


def _timed_runs(launch: Callable[[Hashable], None]) -> Callable[[Hashable], Callable[[], object]]:
    """config (a tile configuration, or the backward's dQ strategy) -> what the tuner times for it: ``launch(config)``,
    or with ``tune_through_replays`` its replay, captured at the first timing of that config (later timings of it
    replay the same graph; the graphs share one memory pool, as they never run at once and keep no output in it, and
    each zeroes its own claim counters, ``_claim_counters``)."""
    if not tune_through_replays():
        return lambda config: functools.partial(launch, config)
    replays: dict = {}
    pool = torch.cuda.graph_pool_handle()

    def timed_run(config: Hashable) -> Callable[[], object]:
        if config not in replays:
            replays[config] = _replayable(functools.partial(launch, config), lambda: torch.cuda.CUDAGraph(),
                                          lambda graph: _capturing_quietly(graph, pool))
        return replays[config]
    return timed_run


_CAPTURE_STREAMS: dict = {}


@contextlib.contextmanager
def _capturing_quietly(graph, pool):
    """Capture into ``graph`` (memory from ``pool``) what runs inside, on a side stream of the current device kept for
    the tuner's captures: ``torch.cuda.graph``'s capture without what its ``__enter__`` does first, a device-wide
    synchronisation and ``torch.cuda.empty_cache()`` (plus the pinned host cache's), which at each candidate of a first
    call would hand a training process's cached GPU memory back to the driver, to be allocated again by cudaMalloc,
    and cost the first call ~0.26 s at d=256 (v0.47). A capture only records, so the side stream needs no ordering
    against the current one; the replays run on the stream current at their call. Error mode "thread_local": the
    compile pool's threads may call CUDA during a capture (loading a module), which under the default "global" mode
    would end the capture in an error and the candidate would be timed through its launcher."""
    index = torch.cuda.current_device()
    stream = _CAPTURE_STREAMS.get(index)
    if stream is None:
        stream = _CAPTURE_STREAMS[index] = torch.cuda.Stream(index)
    with torch.cuda.stream(stream):
        graph.capture_begin(pool, capture_error_mode="thread_local")
        try:
            yield
        finally:
            graph.capture_end()


def _replayable(run: Callable[[], object], new_graph: Callable[[], object],
                capturing: Callable[[object], contextlib.AbstractContextManager]) -> Callable[[], object]:
    """A replay of ``run``: one call outside any graph (its kernels compiled, its lazy set-up done), then one captured
    into ``new_graph()`` under ``capturing(graph)``; returns the graph's ``replay``. When the call or the capture
    fails (a configuration that does not fit the device, an operation a graph cannot hold), ``run`` itself, whose
    timing then fails or measures as before."""
    try:
        run()
        graph = new_graph()
        with capturing(graph):
            run()
    except _UNFIT:
        _REPLAY_FALLBACKS[0] += 1
        return run
    return graph.replay


_REPLAY_FALLBACKS = [0]


def tuning_replay_fallbacks() -> int:
    """How many candidates ``tune_through_replays`` timed through their launcher in this process because the call
    or its capture failed (a configuration that does not fit the device, or a capture that broke)."""
    return _REPLAY_FALLBACKS[0]


def _tma_eligible(problem: Problem, tensors: tuple[torch.Tensor, ...], strides: tuple[tuple[int, ...], ...],
                  dropout_p: float, sparse: Optional[BlockSparseIndex]) -> bool:
    """Whether the tensor-descriptor forward applies: no dropout or block mask, a power-of-two head dim,
    unit stride along it, 16-byte aligned bases and row/head/batch strides (TMA's requirements)."""
    if dropout_p > 0 or sparse is not None or problem.head_dim != problem.block_d:
        return False
    element = tensors[0].element_size()
    for t, (b, h, n, d) in zip(tensors, strides):
        if d != 1 or t.data_ptr() % 16 or (b * element) % 16 or (h * element) % 16 or (n * element) % 16:
            return False
    return True


def host_descriptor(tensor: torch.Tensor, strides: tuple[int, int, int, int], batch: int, heads: int, seqlen: int,
                    rows: int, head_dim: int):
    """A tensor descriptor made on the host over ``tensor``'s (batch, head, row, column) index space, boxes of
    ``rows`` rows by all ``head_dim`` columns (Gluon's ``TensorDescriptor``; strides in elements, the last 1, as
    ``strides_bhnd`` gives them). A kernel addresses a box by [batch, head, row, 0]; rows past ``seqlen`` read as
    zeros, as with the per-head descriptors that kernels write in global memory themselves. Made at every launch (it
    holds the tensor): its box layout is kept (``_host_box_layout``), which is most of a descriptor's host cost."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    block, layout = _host_box_layout(tensor.dtype, rows, head_dim)
    return TensorDescriptor(tensor, [batch, heads, seqlen, head_dim], list(strides), list(block), layout)


def host_descriptor_inputs(count: int, problem: "Problem", inputs: Sequence[tuple]) -> tuple:
    """A kernel's input arguments in a form with ``host_descriptors`` = ``count``: each (tensor, its (batch, head,
    row, column) strides, heads, sequence length, box rows, the count from which it is a descriptor) of ``inputs`` as
    its ``host_descriptor`` when ``count`` reaches that, else the tensor itself."""
    return tuple(host_descriptor(t, strides, problem.batch, heads, seqlen, rows, problem.head_dim) if count >= needs
                 else t for t, strides, heads, seqlen, rows, needs in inputs)


@functools.lru_cache(maxsize=None)
def _host_box_layout(dtype: torch.dtype, rows: int, head_dim: int) -> tuple:
    """(box shape, shared layout) of ``host_descriptor``'s [1, 1, rows, head_dim] boxes: made once per dtype and
    box (about 10 µs of Python a descriptor otherwise, measured on a CI-class CPU; three per forward launch)."""
    from triton.experimental.gluon import language as gl

    element = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}[dtype]
    block = (1, 1, rows, head_dim)
    return block, gl.NVMMASharedLayout.get_default_for(list(block), element)


def host_descriptor_form(config: TileConfig, strides: Sequence[tuple[int, int, int, int]]) -> TileConfig:
    """``config``, or its form with in-kernel descriptors (``host_descriptors=0``) for inputs with a (batch, head, row)
    stride of 0 (a dimension broadcast by ``expand``): the host descriptors have not run over such a dimension, while
    the per-head in-kernel descriptors never see the batch and head strides. (B, H, N, D) and (B, N, H, D)
    inputs both take the host descriptors (checked on the H200: v0.44 and v0.45)."""
    if config.host_descriptors and not all(b > 0 and h > 0 and n > 0 for b, h, n, _ in strides):
        return replace(config, host_descriptors=0)
    return config


def _tma_scratch(size: int, alignment: int, stream) -> torch.Tensor:
    """Global scratch memory for in-kernel tensor descriptors (Triton asks for it at launch)."""
    return torch.empty(size, device="cuda", dtype=torch.int8)


def _ensure_tma_allocator() -> None:
    """In-kernel tensor descriptors need scratch memory from a Triton allocator. Triton keeps the
    allocator in a context variable, which is per thread: PyTorch runs backward passes on its own
    autograd threads, so the check is made on every call (a context-variable read), not once. An
    allocator the user has set is kept."""
    if isinstance(_triton_allocation._allocator.get(), _triton_allocation.NullAllocator):
        triton.set_allocator(_tma_scratch)


def _descriptor_kernels_allowed(forced: Optional[str], q: torch.Tensor) -> bool:
    """Whether a tensor-descriptor kernel may run (inputs permitting): forced through ``FLASHIO_*_PATH``, or,
    with nothing forced, in the tuned choice on Hopper (sm_90) and newer."""
    if forced is not None:
        return forced != "pointer"
    return q.is_cuda and device_capability(q.device)[0] >= 9


def _ws_verified(q: torch.Tensor) -> bool:
    """Whether the warp-specialised kernels join the tuned choice on this device: Hopper (sm_90), the only
    architecture they have been checked on (Triton 3.6 partitions them differently on Blackwell). Forcing
    them (FLASHIO_*_PATH=ws) works wherever tensor descriptors do."""
    return q.is_cuda and device_capability(q.device) == (9, 0)


def fused_backward_eligible(problem: Problem, dtype: torch.dtype, capability: tuple[int, int], *,
                            descriptors_ok: bool, varlen: bool, deterministic: bool, lse_row_stride: int) -> bool:
    """Whether the fused five-product backward (``kernels/backward_gluon.py``) can take these inputs:
    Hopper (sm_90: its warpgroup MMAs exist nowhere else), 16-bit inputs the tensor-descriptor kernels take
    (``descriptors_ok``: no dropout or block mask, power-of-two head dim, aligned strides), a head dim it has
    candidates for, fixed lengths, unit LSE row stride, and no request for bitwise-deterministic gradients
    (its dQ is summed by reduce-adds in arrival order); and the Triton release its Gluon was written for."""
    return (GLUON_AVAILABLE and capability == (9, 0) and descriptors_ok and not varlen and not deterministic
            and dtype in (torch.float16, torch.bfloat16) and lse_row_stride == 1
            and problem.block_d in configs.BACKWARD_FUSED_CANDIDATES)


def _forced_config(problem: Problem, q: torch.Tensor, forced: str, interpreter_default: TileConfig,
                   candidates_by_path: dict) -> TileConfig:
    """The configuration used when ``FLASHIO_*_PATH`` forces a descriptor kernel: the first candidate of
    that path (under the interpreter, the fixed interpreter tiles on that path)."""
    first = candidates_by_path[forced][configs.head_dim_bucket(problem.block_d)][0]
    if not q.is_cuda:  # the interpreter's small tiles, with the kernel form (passes, grid) of the GPU candidate
        return replace(interpreter_default, path=forced, passes=first.passes, persistent=first.persistent,
                       balanced_schedule=first.balanced_schedule)
    return first


def attention_forward(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *,
    layout: str, softmax_scale: float, causal: bool, dropout_p: float, seed: int,
    varlen: Optional[VarlenInfo] = None, sparse: Optional[BlockSparseIndex] = None,
    backward_follows: Optional[dict] = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Launch the forward kernel; return (out, lse) with out in the query's layout.

    lse is float32, (batch, heads, seqlen_q), or (heads, total_q) for packed batches, in natural log.
    A call on inputs seen before (same shapes, strides, dtypes, alignment and options; fixed lengths, no
    dropout or block mask) replays the launches recorded from the first (``launch_plans``).
    ``backward_follows`` (the autograd function, when an input requires grad: the backward's own options,
    ``deterministic``): with ``launch_plans.COMPILE_BACKWARD_WITH_FORWARD`` on, a first call that compiles its
    candidates compiles the backward's in the same batch (``_backward_compile_jobs``).
    """
    key = None
    if varlen is None and sparse is None and dropout_p == 0 and launch_plans.enabled(q):
        key = ("forward", layout, softmax_scale, causal, *_plan_fields(q, k, v), configs.forced_path("forward"),
               configs.autotune_enabled(), configs.choices_generation())
    call = lambda: _launch_forward(q, k, v, layout=layout, softmax_scale=softmax_scale, causal=causal,
                                   dropout_p=dropout_p, seed=seed, varlen=varlen, sparse=sparse,
                                   backward_follows=backward_follows)
    return launch_plans.run(key, (q, k, v), call)


def _plan_fields(*tensors: torch.Tensor) -> tuple:
    """The tensors' part of a launch plan's key: device (and the current one, which Triton compiles and
    launches for), the current stream and whether it is being captured into a CUDA graph (a plan holds the claim
    counters of the stream it was recorded on, ``_claim_counters``), and per tensor shape, strides, dtype and
    address modulo 16."""
    first = tensors[0]
    if first.is_cuda:
        current = torch.cuda.current_device()
        # The stream as Triton launches on it (its driver's raw handle: no Stream object made per call).
        fields = [first.device, current, launch_plans.stream_handle(current), torch.cuda.is_current_stream_capturing()]
    else:
        fields = [first.device, -1]
    for tensor in tensors:
        fields += (tensor.shape, tensor.stride(), tensor.dtype, launch_plans.alignment(tensor))
    return tuple(fields)


def _launch_forward(q, k, v, *, layout, softmax_scale, causal, dropout_p, seed, varlen, sparse,
                    backward_follows=None):
    problem = describe(q, k, layout, varlen)
    out = launch_plans.empty(q.shape, device=q.device, dtype=q.dtype)
    lse = _new_row_stats(problem, q)
    if q.numel() == 0:
        return out, lse
    backward_compiles = None  # the first backward's compiles, joining the forward's batch
    if backward_follows is not None and launch_plans.COMPILE_BACKWARD_WITH_FORWARD and q.is_cuda:
        backward_compiles = functools.partial(_backward_compile_jobs, q, k, v, out, lse, layout=layout,
                                              softmax_scale=softmax_scale, causal=causal, dropout_p=dropout_p,
                                              seed=seed, varlen=varlen, sparse=sparse, **backward_follows)
    cu_q, cu_k, fixed_q, fixed_k = _varlen_args(problem, q)
    drop_threshold, drop_rescale = _dropout_args(dropout_p)
    sparse_args = _sparse_args(sparse, by_rows=True, q=q)
    flags = dict(
        BLOCK_D=problem.block_d, IS_CAUSAL=causal, IS_VARLEN=varlen is not None,
        HAS_DROPOUT=dropout_p > 0, BLOCK_SPARSE=sparse is not None,
        SPARSE_BLOCK_M=sparse_args[-2], SPARSE_BLOCK_N=sparse_args[-1],
        EVEN_D=problem.head_dim == problem.block_d, DOT_PRECISION=_dot_precision(q.dtype),
    )

    tensor_strides = tuple(strides_bhnd(t, layout) for t in (q, k, v, out))
    stats_strides = _row_stats_strides(lse, layout)

    def launch(config: TileConfig):
        grid = (cdiv(problem.seqlen_q, config.block_m), problem.num_heads, problem.batch)
        if config.path == "gluon":
            _ensure_tma_allocator()
            config = host_descriptor_form(config, tensor_strides[:3])
            tile = gluon_forward_constants(config, problem.head_dim)
            # host_descriptors: Q (1), and K and V (3) in boxes of a consumer's rows and of a key block.
            loaded = host_descriptor_inputs(config.host_descriptors, problem, (
                (q, tensor_strides[0], problem.num_heads, problem.seqlen_q, tile["ROWS"], 1),
                (k, tensor_strides[1], problem.num_kv_heads, problem.seqlen_k, config.block_n, 3),
                (v, tensor_strides[2], problem.num_kv_heads, problem.seqlen_k, config.block_n, 3)))
            arguments = (*loaded, out, lse, *(s for strides in tensor_strides for s in strides[:3]), *stats_strides,
                         problem.seqlen_q, problem.seqlen_k, problem.group_size, softmax_scale)
            constants = dict(IS_CAUSAL=causal, num_warps=config.num_warps, **tile,
                             **({"maxnreg": config.max_registers} if config.max_registers else {}))
            kernel, gluon_grid, trailing, listed = gluon_forward_launch(config, problem, causal, q.device)
            if listed.get("SPLIT_TAIL"):  # the last round's tiles in pieces, merged after the kernel
                partials, combines = split_tail_partials(config, problem, gluon_grid[0], q.device)
                launch_plans.launch(kernel, gluon_grid, *arguments, *trailing, **constants, **listed,
                                    partials=partials)
                combine_split_tail(partials, combines, out, lse, tensor_strides[3], stats_strides, problem,
                                   config.block_m)
                return
            launch_plans.launch(kernel, gluon_grid, *arguments, *trailing, **constants, **listed)
            return
        if config.path == "ws":
            if q.is_cuda:
                _ensure_tma_allocator()
            arguments = (q, k, v, out, lse, *(s for strides in tensor_strides for s in strides[:3]), *stats_strides,
                         problem.seqlen_q, problem.seqlen_k)
            constants = dict(BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=problem.head_dim,
                             IS_CAUSAL=causal, MAY_MASK=causal or problem.seqlen_k % config.block_n != 0,
                             **config.launch_options())
            if config.persistent:
                # Causal tiles are handed out in pairs of equal work (kernels/forward_ws.py says why).
                num_tiles = (cdiv(grid[0], 2) if causal else grid[0]) * grid[1] * grid[2]
                # One 12-warp program fits per multiprocessor (registers: 12 warps x 168 on entry).
                programs = min(num_tiles, persistent_programs(q.device))
                schedule, listed = persistent_schedule(config, problem, causal, programs, q.device)
                launch_plans.launch(
                    forward_ws_kernels.attention_forward_ws_persistent_kernel, (programs,),
                    *arguments, problem.num_heads, problem.group_size, softmax_scale, 0, num_tiles, schedule,
                    **constants, **listed)
            else:
                launch_plans.launch(
                    forward_ws_kernels.attention_forward_ws_kernel, grid,
                    *arguments, problem.group_size, softmax_scale, 0, **constants)
            return
        if config.path == "tma":
            if q.is_cuda:
                _ensure_tma_allocator()
            launch_plans.launch(
                forward_tma_kernels.attention_forward_tma_kernel, grid,
                q, k, v, out, lse,
                *(s for strides in tensor_strides for s in strides[:3]), *stats_strides,
                cu_q, cu_k, fixed_q, fixed_k, problem.group_size, softmax_scale,
                BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=problem.head_dim,
                IS_CAUSAL=causal, IS_VARLEN=varlen is not None,
                **config.launch_options(),
            )
            return
        launch_plans.launch(
            forward_kernels.attention_forward_kernel, grid,
            q, k, v, out, lse,
            *(s for strides in tensor_strides for s in strides), *stats_strides,
            cu_q, cu_k, fixed_q, fixed_k,
            problem.group_size, problem.num_heads, problem.head_dim, softmax_scale,
            seed, drop_threshold, drop_rescale,
            *sparse_args[:-2],
            BLOCK_M=config.block_m, BLOCK_N=config.block_n, **config.launch_options(), **flags,
        )

    forced = configs.forced_path("forward")
    # The tensor-descriptor kernels are candidates for inputs they take when forced, or tuned: the plain one
    # on Hopper and newer, the warp-specialised one on Hopper (``_ws_verified``).
    descriptors_ok = _descriptor_kernels_allowed(forced, q) and q.dtype != torch.float32 and \
        _tma_eligible(problem, (q, k, v, out), tensor_strides, dropout_p, sparse)
    descriptor_candidates = {"tma": configs.FORWARD_TMA_CANDIDATES, "ws": configs.FORWARD_WS_CANDIDATES}
    # The warp-specialised kernel takes fixed-length batches only (kernels/forward_ws.py says why).
    ws_ok = descriptors_ok and varlen is None and (forced == "ws" or _ws_verified(q))
    # The Gluon forward: Hopper only (warpgroup MMAs), fixed lengths with at least one key (its descriptors
    # are built in the kernel), the Triton release of its Gluon.
    gluon_ok = descriptors_ok and varlen is None and GLUON_AVAILABLE and q.is_cuda and problem.seqlen_k > 0 and \
        device_capability(q.device) == (9, 0) and problem.block_d in configs.FORWARD_GLUON_CANDIDATES
    if gluon_ok:
        descriptor_candidates["gluon"] = configs.FORWARD_GLUON_CANDIDATES
    if forced == "ws" and descriptors_ok and not ws_ok:
        forced = "tma"
    if forced in descriptor_candidates and descriptors_ok:
        config = _forced_config(problem, q, forced, configs.INTERPRETER_FORWARD, descriptor_candidates)
    else:
        extra = None
        if descriptors_ok:
            extra = {bucket: configs.FORWARD_TMA_CANDIDATES[bucket]
                     + (configs.FORWARD_WS_CANDIDATES[bucket]
                        if ws_ok and bucket in configs.WS_TUNED_BUCKETS["forward"] else ())
                     + (configs.FORWARD_GLUON_CANDIDATES.get(bucket, ()) if gluon_ok else ())
                     for bucket in configs.FORWARD_TMA_CANDIDATES}
        # Whether the descriptor kernels may run is part of the key: a choice made for aligned, contiguous
        # inputs must not be reused for inputs those kernels cannot take.
        config = _pick("forward", problem, q, configs.INTERPRETER_FORWARD, configs.FORWARD_CANDIDATES,
                       launch, (causal, dropout_p > 0, varlen is not None, sparse is not None,
                                extra is not None, gluon_ok), sparse, extra_candidates=extra,
                       hopper_regime=gluon_ok and configs.in_hopper_grid(problem.seqlen_q, problem.seqlen_k),
                       also_compile=backward_compiles, causal=causal)
    launch(config)
    return out, lse


def _backward_compile_jobs(q, k, v, out, lse, *, deterministic: bool = False, **options) -> list:
    """The compile jobs of the first backward that will follow this forward (the forward's compile batch takes them):
    ``_launch_backward`` run with nothing launched, its allocations placeholders on the meta device
    (``launch_plans.gathering_compiles``), ``out`` standing in for the output gradient (same shape, dtype and
    strides as autograd's usual one; if the real one differs, its kernels compile again at the backward). Empty
    when the backward's strategy is already chosen in this process."""
    with launch_plans.gathering_compiles(placeholders=True) as jobs:
        try:
            _launch_backward(out, q, k, v, out, lse, deterministic=deterministic, **options)
        except Exception:  # noqa: BLE001 - the backward compiles its own kernels when it runs
            return []
    return jobs


def attention_backward(
    grad_out: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
    out: torch.Tensor, lse: torch.Tensor, *,
    layout: str, softmax_scale: float, causal: bool, dropout_p: float, seed: int,
    varlen: Optional[VarlenInfo] = None, sparse: Optional[BlockSparseIndex] = None,
    deterministic: bool = False,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Launch the backward kernels; return (dq, dk, dv) in the layouts of (q, k, v).

    After the preprocess kernel (D = rowsum(dO o O)), dQ is either accumulated with float32 atomic adds
    inside the dK/dV kernel, computed by its own kernel (no atomics: bitwise identical across runs), or,
    on Hopper, the whole backward is one fused five-product kernel (Gluon) that reduce-adds dQ tiles in
    bulk. ``deterministic=True`` forces the separate kernel; otherwise the fastest strategy for the shape
    is timed on first use and cached (atomics under the interpreter). Calls on inputs seen before replay
    the launches recorded from the first, as in ``attention_forward``.
    """
    key = None
    if varlen is None and sparse is None and dropout_p == 0 and launch_plans.enabled(q):
        key = ("backward", layout, softmax_scale, causal, deterministic, *_plan_fields(grad_out, q, k, v, out, lse),
               configs.forced_path("backward"), configs.autotune_enabled(), configs.choices_generation())
    return launch_plans.run(key, (grad_out, q, k, v, out, lse), lambda: _launch_backward(
        grad_out, q, k, v, out, lse, layout=layout, softmax_scale=softmax_scale, causal=causal,
        dropout_p=dropout_p, seed=seed, varlen=varlen, sparse=sparse, deterministic=deterministic))


def _launch_backward(grad_out, q, k, v, out, lse, *, layout, softmax_scale, causal, dropout_p, seed, varlen,
                     sparse, deterministic):
    problem = describe(q, k, layout, varlen)
    dq = launch_plans.empty_like(q)
    dk = launch_plans.empty_like(k)
    dv = launch_plans.empty_like(v)
    if q.numel() == 0 or k.numel() == 0:
        return launch_plans.zero_(dq), launch_plans.zero_(dk), launch_plans.zero_(dv)
    cu_q, cu_k, fixed_q, fixed_k = _varlen_args(problem, q)
    drop_threshold, drop_rescale = _dropout_args(dropout_p)
    stats_strides = _row_stats_strides(lse, layout)

    delta = launch_plans.empty_like(lse)
    preprocess_block = 64 if q.is_cuda else 32

    def launch_preprocess() -> None:
        """D_i = rowsum(dO_i * O_i) into ``delta``."""
        launch_plans.launch(
            backward_kernels.attention_backward_preprocess_kernel,
            (cdiv(problem.seqlen_q, preprocess_block), problem.num_heads, problem.batch),
            out, grad_out, delta,
            *strides_bhnd(out, layout), *strides_bhnd(grad_out, layout), *stats_strides,
            cu_q, fixed_q, problem.head_dim,
            BLOCK_M=preprocess_block, BLOCK_D=problem.block_d, IS_VARLEN=varlen is not None,
        )

    common = dict(
        BLOCK_D=problem.block_d, IS_CAUSAL=causal, IS_VARLEN=varlen is not None,
        HAS_DROPOUT=dropout_p > 0, BLOCK_SPARSE=sparse is not None,
        EVEN_D=problem.head_dim == problem.block_d, DOT_PRECISION=_dot_precision(q.dtype),
    )
    scalars = (cu_q, cu_k, fixed_q, fixed_k, problem.group_size, problem.num_heads, problem.head_dim,
               softmax_scale, seed, drop_threshold, drop_rescale)
    col_sparse = _sparse_args(sparse, by_rows=False, q=q)
    row_sparse = _sparse_args(sparse, by_rows=True, q=q)

    tensor_strides = {name: strides_bhnd(t, layout) for name, t in
                      (("q", q), ("k", k), ("v", v), ("do", grad_out), ("dq", dq), ("dk", dk), ("dv", dv))}
    # The plain tensor-descriptor backward runs only when forced (see configs.BACKWARD_DKDV_TMA_CANDIDATES);
    # the warp-specialised dK/dV kernel (kernels/backward_ws.py: fixed lengths, one query head per KV head)
    # and dQ kernel (fixed lengths) compete in the tuned choice of the two-kernel scheme on sm_90
    # (``_ws_verified``) in the head-dim buckets of configs.WS_TUNED_BUCKETS, or are forced.
    forced = configs.forced_path("backward")
    bucket = configs.head_dim_bucket(problem.block_d)
    descriptors_ok = _descriptor_kernels_allowed(forced, q) and q.dtype != torch.float32 and \
        _tma_eligible(problem, (q, k, v, grad_out, dq, dk, dv), tuple(tensor_strides.values()), dropout_p, sparse)
    ws_allowed = descriptors_ok and varlen is None and (forced == "ws" or (forced is None and _ws_verified(q)))
    ws_ok = ws_allowed and problem.group_size == 1
    # The warp-specialised dQ kernel reads LSE and D rows through one-dimensional descriptors: each head's
    # rows must start 16-byte aligned (unit row stride, seqlen_q a multiple of 4 floats); none at d=256.
    ws_dq_ok = ws_allowed and bucket in configs.BACKWARD_DQ_WS_CANDIDATES and lse.is_contiguous() and \
        problem.seqlen_q % 4 == 0 and lse.data_ptr() % 16 == 0
    fused_ok = q.is_cuda and fused_backward_eligible(
        problem, q.dtype, device_capability(q.device), descriptors_ok=descriptors_ok, varlen=varlen is not None,
        deterministic=deterministic, lse_row_stride=stats_strides[2])
    use_tma = descriptors_ok and forced == "tma"
    forced_ws = ws_ok and forced == "ws"
    forced_ws_dq = ws_dq_ok and forced == "ws"
    # Whether the warp-specialised kernels may run is part of the tuning keys (as for the forward).
    base_flags = (causal, dropout_p > 0, varlen is not None, sparse is not None, ws_ok, ws_dq_ok)
    # Inputs of the kind the H200 grids timed: configs.HOPPER_UNTIMED's candidates are left out of the timing.
    grid_lengths = configs.in_hopper_grid(problem.seqlen_q, problem.seqlen_k)
    hopper_regime = fused_ok and grid_lengths

    def run_fused() -> None:
        """Fill dq, dk, dv with the fused five-product kernel: dQ reduce-added into a float32 accumulator."""
        dq_accumulator = launch_plans.empty(q.shape, device=q.device, dtype=torch.float32)

        def launch_fused(config: TileConfig):
            launch_plans.zero_(dq_accumulator)
            _ensure_tma_allocator()
            config = host_descriptor_form(config, [tensor_strides[name] for name in ("q", "k", "v", "do")])
            grid, persistent_arguments, listed = fused_backward_launch(config, problem, q.device, causal)
            kernel, constants = fused_backward_kernel(config, problem.head_dim)
            parts = None
            if listed.get("SPLIT_TAIL"):  # the last round's partial dK/dV sums (schedules.split_tail_schedule)
                first_tile, slots = split_tail_extent(config, problem, grid[0])
                parts = launch_plans.empty((slots, 2, config.block_n, problem.head_dim), device=q.device,
                                           dtype=torch.float32)
                launch_plans.zero_(parts)
                listed = dict(listed, KEY_GRADIENT_PARTS=parts)
            # host_descriptors: K, V (2) and Q, dO (4) as descriptors made here (launchers.host_descriptor).
            loaded = host_descriptor_inputs(config.host_descriptors, problem, (
                (q, tensor_strides["q"], problem.num_heads, problem.seqlen_q, config.block_m, 4),
                (k, tensor_strides["k"], problem.num_kv_heads, problem.seqlen_k, config.block_n, 2),
                (v, tensor_strides["v"], problem.num_kv_heads, problem.seqlen_k, config.block_n, 2),
                (grad_out, tensor_strides["do"], problem.num_heads, problem.seqlen_q, config.block_m, 4)))
            launch_plans.launch(
                kernel, grid, *loaded, lse, delta, dk, dv, dq_accumulator,
                *(tensor_strides[name][i] for name in ("q", "k", "v", "do") for i in range(3)), *stats_strides,
                *(tensor_strides[name][i] for name in ("dk", "dv") for i in range(3)),
                *strides_bhnd(dq_accumulator, layout)[:3],
                problem.seqlen_q, problem.seqlen_k, problem.group_size, softmax_scale, *persistent_arguments,
                IS_CAUSAL=causal, num_warps=config.num_warps, **constants, **listed,
            )
            if parts is not None:
                convert_key_gradient_parts(parts, dk, dv, tensor_strides["dk"], tensor_strides["dv"], first_tile,
                                           problem, config.block_n)

        if forced == "gluon":
            config = _forced_config(problem, q, forced, configs.INTERPRETER_BACKWARD_DKDV,
                                    {"gluon": configs.BACKWARD_FUSED_CANDIDATES})
        else:
            config = _pick("backward_fused", problem, q, configs.INTERPRETER_BACKWARD_DKDV,
                           configs.BACKWARD_FUSED_CANDIDATES, launch_fused, base_flags, None, causal=causal)
        launch_fused(config)
        launch_plans.copy_(dq, dq_accumulator)

    def run(atomic_dq: bool) -> None:
        """Fill dq, dk, dv: dQ by atomics in the dK/dV kernel, or by its own kernel."""
        dq_accumulator = launch_plans.empty(q.shape, device=q.device, dtype=torch.float32) if atomic_dq else dq
        dq_acc_strides = strides_bhnd(dq_accumulator, layout)

        def launch_dkdv(config: TileConfig):
            if atomic_dq:
                launch_plans.zero_(dq_accumulator)
            grid = (cdiv(problem.seqlen_k, config.block_n), problem.num_kv_heads, problem.batch)
            # One pass computes dK and dV together; two passes run dV first, then dK.
            passes = ((True, True),) if config.passes == 1 else ((False, True), (True, False))
            if config.path == "ws":
                if q.is_cuda:
                    _ensure_tma_allocator()
                arguments = (q, k, v, grad_out, lse, delta, dk, dv,
                             *(tensor_strides[name][i] for name in ("q", "k", "v", "do") for i in range(3)),
                             *stats_strides, *(tensor_strides[name][i] for name in ("dk", "dv") for i in range(3)),
                             problem.seqlen_q, problem.seqlen_k)
                num_tiles = grid[0] * grid[1] * grid[2]
                programs = persistent_programs(q.device)
                for compute_dk, compute_dv in passes:
                    constants = dict(BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=problem.head_dim,
                                     IS_CAUSAL=causal, COMPUTE_DK=compute_dk, COMPUTE_DV=compute_dv,
                                     **config.launch_options())
                    if config.persistent:
                        launch_plans.launch(
                            backward_ws_kernels.attention_backward_dkdv_ws_persistent_kernel,
                            (min(num_tiles, programs),),
                            *arguments, problem.num_heads, softmax_scale, 0, num_tiles, **constants)
                    else:
                        launch_plans.launch(
                            backward_ws_kernels.attention_backward_dkdv_ws_kernel, grid,
                            *arguments, softmax_scale, 0, **constants)
                return
            if config.path == "tma":
                if q.is_cuda:
                    _ensure_tma_allocator()
                launch_plans.launch(
                    backward_tma_kernels.attention_backward_dkdv_tma_kernel, grid,
                    q, k, v, grad_out, lse, delta, dk, dv, dq_accumulator,
                    *(tensor_strides[name][i] for name in ("q", "k", "v", "do") for i in range(3)),
                    *stats_strides,
                    *(tensor_strides[name][i] for name in ("dk", "dv") for i in range(3)), *dq_acc_strides[:3],
                    cu_q, cu_k, fixed_q, fixed_k, problem.group_size, softmax_scale,
                    BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=problem.head_dim,
                    IS_CAUSAL=causal, IS_VARLEN=varlen is not None, ATOMIC_DQ=atomic_dq,
                    **config.launch_options(),
                )
                return
            for compute_dk, compute_dv in passes:  # the dQ atomics, if any, in the dK pass
                launch_plans.launch(
                    backward_kernels.attention_backward_dkdv_kernel, grid,
                    q, k, v, grad_out, lse, delta, dk, dv, dq_accumulator,
                    *tensor_strides["q"], *tensor_strides["k"], *tensor_strides["v"],
                    *tensor_strides["do"], *stats_strides,
                    *tensor_strides["dk"], *tensor_strides["dv"], *dq_acc_strides,
                    *scalars, *col_sparse[:-2],
                    BLOCK_M=config.block_m, BLOCK_N=config.block_n,
                    SPARSE_BLOCK_M=col_sparse[-2], SPARSE_BLOCK_N=col_sparse[-1], ATOMIC_DQ=atomic_dq,
                    COMPUTE_DK=compute_dk, COMPUTE_DV=compute_dv, **config.launch_options(), **common,
                )

        def launch_dq(config: TileConfig):
            grid = (cdiv(problem.seqlen_q, config.block_m), problem.num_heads, problem.batch)
            if config.path == "ws":
                if q.is_cuda:
                    _ensure_tma_allocator()
                launch_plans.launch(
                    backward_ws_kernels.attention_backward_dq_ws_kernel, grid,
                    q, k, v, grad_out, lse, delta, dq,
                    *(tensor_strides[name][i] for name in ("q", "k", "v", "do") for i in range(3)),
                    *stats_strides[:2], *tensor_strides["dq"][:3],
                    problem.seqlen_q, problem.seqlen_k, problem.group_size, softmax_scale, 0,
                    BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=problem.head_dim,
                    IS_CAUSAL=causal, **config.launch_options(),
                )
                return
            if config.path == "tma":
                if q.is_cuda:
                    _ensure_tma_allocator()
                launch_plans.launch(
                    backward_tma_kernels.attention_backward_dq_tma_kernel, grid,
                    q, k, v, grad_out, lse, delta, dq,
                    *(tensor_strides[name][i] for name in ("q", "k", "v", "do") for i in range(3)),
                    *stats_strides, *tensor_strides["dq"][:3],
                    cu_q, cu_k, fixed_q, fixed_k, problem.group_size, softmax_scale,
                    BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=problem.head_dim,
                    IS_CAUSAL=causal, IS_VARLEN=varlen is not None,
                    **config.launch_options(),
                )
                return
            launch_plans.launch(
                backward_kernels.attention_backward_dq_kernel, grid,
                q, k, v, grad_out, lse, delta, dq,
                *tensor_strides["q"], *tensor_strides["k"], *tensor_strides["v"],
                *tensor_strides["do"], *stats_strides, *tensor_strides["dq"],
                *scalars, *row_sparse[:-2],
                BLOCK_M=config.block_m, BLOCK_N=config.block_n,
                SPARSE_BLOCK_M=row_sparse[-2], SPARSE_BLOCK_N=row_sparse[-1],
                **config.launch_options(), **common,
            )

        # The warp-specialised dK/dV kernel computes no dQ: it joins the choice of the two-kernel scheme only.
        ws_here = ws_ok and not atomic_dq and bucket in configs.WS_TUNED_BUCKETS["backward_dkdv"]
        if use_tma or forced_ws:
            dkdv_config = _forced_config(problem, q, forced, configs.INTERPRETER_BACKWARD_DKDV,
                                         {"tma": configs.BACKWARD_DKDV_TMA_CANDIDATES,
                                          "ws": configs.BACKWARD_DKDV_WS_CANDIDATES})
        else:
            dkdv_config = _pick("backward_dkdv", problem, q, configs.INTERPRETER_BACKWARD_DKDV,
                                configs.BACKWARD_DKDV_CANDIDATES, launch_dkdv, (*base_flags, atomic_dq), sparse,
                                extra_candidates=configs.BACKWARD_DKDV_WS_CANDIDATES if ws_here else None,
                                hopper_regime=hopper_regime)
        launch_dkdv(dkdv_config)
        if atomic_dq:
            launch_plans.copy_(dq, dq_accumulator)
            return
        if use_tma or forced_ws_dq:
            dq_config = _forced_config(problem, q, forced, configs.INTERPRETER_BACKWARD_DQ,
                                       {"tma": configs.BACKWARD_DQ_TMA_CANDIDATES,
                                        "ws": configs.BACKWARD_DQ_WS_CANDIDATES})
        else:
            ws_dq_here = ws_dq_ok and bucket in configs.WS_TUNED_BUCKETS["backward_dq"]
            dq_config = _pick("backward_dq", problem, q, configs.INTERPRETER_BACKWARD_DQ,
                              configs.BACKWARD_DQ_CANDIDATES, launch_dq, base_flags, sparse,
                              extra_candidates=configs.BACKWARD_DQ_WS_CANDIDATES if ws_dq_here else None,
                              hopper_regime=hopper_regime)
        launch_dq(dq_config)

    if fused_ok and forced == "gluon":
        launch_preprocess()
        run_fused()
    elif deterministic or forced_ws or forced_ws_dq:
        launch_preprocess()
        run(atomic_dq=False)
    elif not q.is_cuda:
        launch_preprocess()
        run(atomic_dq=True)
    else:
        # Which dQ strategy wins depends on the shape, so where more than one has won it is tuned and cached
        # like a tile shape (configs.dq_strategies says where and why); elsewhere only the separate dQ
        # kernel runs. The first strategy is the default without autotuning.
        strategies = configs.dq_strategies(bucket, fused_ok and forced is None, grid_lengths)
        runners = {"atomic": lambda: run(atomic_dq=True), "separate": lambda: run(atomic_dq=False),
                   "fused": run_fused}
        strategy_key = _tune_key("backward_dq_strategy", problem, q, *base_flags, use_tma, fused_ok)
        if configs.cached_choice(strategy_key) is None:
            pending = configs.candidates_to_compile(strategy_key, strategies)
            if len(pending) > 1:
                _refuse_in_capture(q.device, "time the backward's dQ strategies")
            _compile_first_backward(launch_preprocess, [runners[option] for option in pending])
        if launch_plans.gathered() is not None:  # a forward's first call collecting this backward's compiles
            return dq, dk, dv
        launch_preprocess()
        runs = lambda options: [runners[option] for option in options]
        timed_run = _timed_runs(lambda option: runners[option]())
        strategy = configs.choose_config(strategy_key, strategies, lambda option: _time_ms(timed_run(option)),
                                         warm_up=lambda timed: _warm_up_gpu(runs(timed)),
                                         time_alternately=lambda leaders: _time_alternately_ms(
                                             [timed_run(option) for option in leaders]))
        runners[strategy]()
    return dq, dk, dv


def _compile_first_backward(launch_preprocess: Callable[[], None], runners: list) -> None:
    """Compile, in one concurrent batch (``launch_plans.compile_concurrently``), every kernel a first backward is
    about to time or run: the preprocess kernel and each candidate of each tuned kernel of each dQ strategy,
    gathered by running the strategies with nothing launched (``launch_plans.gathering_compiles``). Without it
    each tuned kernel compiles its own batch when it is first timed, one after the other, each waiting for its
    slowest compile (v0.29, d=64 causal 1k on the H200: three batches, 4.7-4.9 s in all, became one of
    2.4-2.7 s). The jobs keep the buffers the strategies allocated (the fused and atomic strategies' float32 dQ
    accumulators) until the batch is done. A runner that fails is passed over: its timing meets the same
    error. Inside a gathering already (a forward's first call collecting its backward's compiles,
    ``_backward_compile_jobs``) the jobs join that one's list, for the forward's batch, and nothing compiles here."""
    outer = launch_plans.gathered()
    with contextlib.nullcontext(outer) if outer is not None else launch_plans.gathering_compiles() as jobs:
        jobs.append(launch_preprocess)
        for runner in runners:
            try:
                runner()
            except Exception:  # noqa: BLE001 - timed later, where its error is reported
                pass
    if outer is None:
        launch_plans.compile_concurrently(jobs)


def dropout_keep_mask(batch: int, num_heads: int, seqlen_q: int, seqlen_k: int, dropout_p: float,
                      seed: int, device: torch.device) -> torch.Tensor:
    """The keep-mask (bool, (batch, heads, seqlen_q, seqlen_k)) that the kernels draw for ``seed``.

    For packed batches, rows and columns are positions inside each sequence, so the mask of sequence b
    is the top-left (len_q, len_k) corner of ``mask[b]``.
    """
    keep = torch.empty((batch, num_heads, seqlen_q, seqlen_k), device=device, dtype=torch.int8)
    if keep.numel() == 0:
        return keep.bool()
    threshold, _ = _dropout_args(dropout_p)
    block_m, block_n = (64, 64) if keep.is_cuda else (32, 32)
    backward_kernels.dropout_mask_kernel[(cdiv(seqlen_q, block_m), num_heads, batch)](
        keep, *keep.stride(), seqlen_q, seqlen_k, num_heads, seed, threshold,
        BLOCK_M=block_m, BLOCK_N=block_n,
    )
    return keep.bool()
