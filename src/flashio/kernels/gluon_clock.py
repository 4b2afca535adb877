"""Per-tile timestamps from inside a persistent Gluon program, for probes only (only Gluon code here).

``mark_tile`` records the GPU's global timer (``%globaltimer``, nanoseconds, one clock for every
multiprocessor) and the multiprocessor's cycle counter (``%clock64``) into a probe's int64 buffer of shape
(programs, CLOCK_TILES + 1, partitions, 4): per slot and partition [global start, global end, cycles start,
cycles end]. Slot 0 is the program (its partition's entry and exit), slot t + 1 its t-th tile; tiles past
``CLOCK_TILES`` are not recorded. A kernel takes it only behind a constexpr ``CLOCK_TILES`` > 0, so with
the default 0 none of it is compiled (the tuned kernels' SASS is the same with or without this file).
Used by benchmarks/experiments/forward_short/round_times.py (v0.36): where the persistent forward's
cold-start time goes, tile by tile; the persistent fused backward's MMA warps take it too (one partition;
benchmarks/experiments/fused_backward_persistent/program_ends.py, prepared in v0.36).

``mark_program`` (v0.43) is the same for a kernel of one program per tile, whose grid has three axes: ``MARKS``
int64 values per program (its linear index over the grid), mark ``which`` the global timer, and ``mark_smid`` the
multiprocessor the program ran on, so that a probe can lay each multiprocessor's programs end to end (d=256's
role-split backward, benchmarks/experiments/fused_backward_d256/program_starts.py).
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def mark_tile(tile_clock, slot, partition, WHICH: gl.constexpr, PARTITIONS: gl.constexpr,
              CLOCK_TILES: gl.constexpr):
    """Store the global timer and the cycle counter as mark ``WHICH`` (0 start, 1 end) of ``slot`` (0: the
    program; t + 1: tile t) for ``partition`` of this program, if the slot is within the buffer. Both reads
    are volatile (``is_pure=False``), so they stay where they are among the partition's waits."""
    if slot < CLOCK_TILES + 1:
        base = ((gl.program_id(0) * (CLOCK_TILES + 1) + slot) * PARTITIONS + partition) * 4
        now = gl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=gl.int64, is_pure=False,
                                        pack=1)
        cycles = gl.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l", [], dtype=gl.int64, is_pure=False,
                                           pack=1)
        gl.store(tile_clock + base + WHICH, now)
        gl.store(tile_clock + base + 2 + WHICH, cycles)


@gluon.jit
def _program_slot(which, MARKS: gl.constexpr):
    """Index of mark ``which`` of this program in a (programs, MARKS) buffer, programs in the grid's linear order."""
    program = gl.program_id(0) + gl.num_programs(0) * (gl.program_id(1) + gl.num_programs(1) * gl.program_id(2))
    return program.to(gl.int64) * MARKS + which


@gluon.jit
def mark_program(program_clock, which, MARKS: gl.constexpr):
    """Store the global timer (ns) as mark ``which`` of this program (volatile read: it stays among the waits)."""
    now = gl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=gl.int64, is_pure=False, pack=1)
    gl.store(program_clock + _program_slot(which, MARKS), now)


@gluon.jit
def mark_smid(program_clock, which, MARKS: gl.constexpr):
    """Store the index of the multiprocessor running this program as mark ``which``."""
    smid = gl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=gl.int32, is_pure=False, pack=1)
    gl.store(program_clock + _program_slot(which, MARKS), smid.to(gl.int64))
