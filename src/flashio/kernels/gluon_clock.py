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
