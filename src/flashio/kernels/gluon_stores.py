"""Storing tiles from the Hopper warpgroup-MMA accumulator layout: 16-bit tiles to global memory 16 bytes at a time,
float32 tiles to shared memory without bank conflicts (only Gluon code here).

In the wgmma accumulator layout a thread holds, per row, the column pairs (words) 4 g + c, c its lane among the
row's four, so a plain store moves 4 bytes (one word) per instruction: 64 of them per thread for a 64 x 128 tile
stored by a 4-warp warpgroup. ``store_rows_wide`` exchanges words between the four lanes of each row with warp
shuffles so that each thread holds four consecutive words, and stores them with one 16-byte instruction each, with
no shared memory. Used by the Gluon forward's output stored from registers (v0.32: +2-7% at N <= 2k on the H200)
and by the fused backward's dK and dV (``WIDE_STORES``; tuned in every fused-backward candidate since v0.33).

``store_float32_spread`` stores a float32 accumulator tile into a shared tile that TMA reads (the fused backward's dQ
tiles) without bank conflicts: the same 8-byte stores, odd rows taking the column block 16 columns over
(``SPREAD_DQ``; v0.34; d=128's tuned backward since v0.35: +0.5-5% on the H200, slower at d=64 and d=256).
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.constexpr_function
def _word_layout(rows, head_dim):
    """The layout ``store_rows_wide`` stores from: ``rows`` x ``head_dim / 2`` words (two 16-bit elements each)
    with four consecutive words per thread, so that each store moves 16 bytes. Rows as in the wgmma accumulator
    of ``rows / 16`` warps stacked along the rows (a warp's 16 rows: lanes / 4 and + 8 in registers; warp w
    from row 16 w), word columns: bits 0-1 in registers, 2-3 in the lane, the rest in registers."""
    registers = [[0, 1], [0, 2], [8, 0]]
    column = 16
    while column < head_dim // 2:
        registers.append([0, column])
        column *= 2
    warps = []
    row = 16
    while row < rows:
        warps.append([row, 0])
        row *= 2
    return gl.DistributedLinearLayout(reg_bases=registers, lane_bases=[[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                                      warp_bases=warps, block_bases=[], shape=[rows, head_dim // 2])


@gluon.jit
def _lane_id(like):
    """Each element's lane (``%laneid``), in ``like``'s layout."""
    return gl.inline_asm_elementwise("mov.u32 $0, %laneid;", "=r,r", [like], dtype=gl.int32, is_pure=True,
                                     pack=1)


@gluon.jit
def _exchange_with_lane(x0, x1, lane_bit, MASK: gl.constexpr):
    """One step of a transpose between a register bit and a lane bit: ``x0`` / ``x1`` are a thread's words
    with that register bit 0 / 1, ``lane_bit`` its lane's bit ``MASK``. A lane with the bit 0 keeps ``x0`` and
    sends ``x1``; its partner (lane ^ MASK) keeps ``x1`` and sends ``x0``: one warp shuffle and three
    selects per word pair."""
    low = lane_bit == 0
    received = gl.inline_asm_elementwise(f"shfl.sync.bfly.b32 $0, $1, {MASK}, 0x1f, -1;", "=r,r",
                                         [gl.where(low, x1, x0)], dtype=gl.int32, is_pure=True, pack=1)
    return gl.where(low, x0, received), gl.where(low, received, x1)


@gluon.jit
def store_rows_wide(base, first, stride_row, tile, seqlen, ROWS: gl.constexpr, HEAD_DIM: gl.constexpr):
    """Store ``tile`` (``ROWS`` x ``HEAD_DIM``, 16-bit, in the wgmma accumulator layout of ``ROWS / 16`` warps) to
    rows ``first`` .. ``first + ROWS - 1`` of ``base`` (row stride ``stride_row`` elements), rows from ``seqlen`` on
    left unwritten, with 16-byte stores. A thread holds, per row, words 4 g + c (g = 0 .. HEAD_DIM / 8 - 1); two
    butterfly steps (lane bit 0 with the word bit 2, lane bit 1 with the word bit 3) leave each lane words
    16 G + 4 c + 0..3, and relabelling the two bit pairs makes the tensor the tile in natural order, four
    consecutive words per thread (``_word_layout``; a register renaming, asserted trivial). Needs an even row
    stride and a 16-byte aligned ``base`` (the launchers' fresh outputs: strides are multiples of HEAD_DIM)."""
    gl.static_assert(ROWS % 64 == 0 and HEAD_DIM % 32 == 0, "whole warpgroups' rows, 16-word column groups")
    low, high = gl.split(tile.reshape([ROWS, HEAD_DIM // 2, 2]))
    words = gl.inline_asm_elementwise("mov.b32 $0, {$1, $2};", "=r,h,h", [low, high], dtype=gl.int32,
                                      is_pure=True, pack=1)
    x = words.reshape([ROWS, HEAD_DIM // 32, 2, 2, 2, 2])  # word 16 G + 8 h1 + 4 h0 + 2 c1 + c0
    x0, x1 = gl.split(x.permute((0, 1, 2, 4, 5, 3)))  # (row, G, h1, c1, c0) for h0 = 0, 1
    x0, x1 = _exchange_with_lane(x0, x1, _lane_id(x0) & 1, 1)
    x = gl.join(x0, x1).permute((0, 1, 2, 5, 3, 4))  # (row, G, h1, h0, c1, c0)
    x0, x1 = gl.split(x.permute((0, 1, 3, 4, 5, 2)))  # (row, G, h0, c1, c0) for h1 = 0, 1
    x0, x1 = _exchange_with_lane(x0, x1, (_lane_id(x0) >> 1) & 1, 2)
    x = gl.join(x0, x1).permute((0, 1, 5, 2, 3, 4))  # (row, G, h1, h0, c1, c0): lane c now holds 16 G + 4 c + h
    WORDS: gl.constexpr = _word_layout(ROWS, HEAD_DIM)
    natural = gl.convert_layout(x.permute((0, 1, 4, 5, 2, 3)).reshape([ROWS, HEAD_DIM // 2]), WORDS,
                                assert_trivial=True)
    rows = first + gl.arange(0, ROWS, layout=gl.SliceLayout(1, WORDS))
    columns = gl.arange(0, HEAD_DIM // 2, layout=gl.SliceLayout(0, WORDS))
    words_base = base.to(gl.pointer_type(gl.int32), bitcast=True)
    gl.store(words_base + rows.to(gl.int64)[:, None] * (stride_row // 2) + columns[None, :], natural,
             mask=(rows < seqlen)[:, None])


@gluon.constexpr_function
def _float32_spread_view(rows, cols, flip=True):
    """The ``rows`` x ``cols`` float32 tile of ``NVMMASharedLayout.get_default_for`` (128-byte swizzle: 32-column slabs
    of ``rows`` x 128 bytes one after the other, each row's 16-byte chunks XORed with row % 8), as a shared linear
    layout (physical offset bit -> logical coordinate), addressed with column bit 4 flipped on odd rows: the bases
    of row bit 0 carry column 16 as well. (``flip=False``: the NVMMA tile itself; its stores compile to the NVMMA
    layout's own, instruction for instruction, tests/bench/test_gluon_stores.py.)"""
    bases = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4 + (16 if flip else 0)], [2, 8], [4, 16]]
    row = 8
    while row < rows:
        bases.append([row, 0])
        row *= 2
    column = 32
    while column < cols:
        bases.append([0, column])
        column *= 2
    return gl.SharedLinearLayout(offset_bases=bases)


@gluon.jit
def store_float32_spread(tile, values, ROWS: gl.constexpr, COLS: gl.constexpr):
    """Store ``values`` (float32, ``ROWS`` x ``COLS``, in a wgmma accumulator layout) into ``tile`` (a shared tile of
    that shape in the default 128-byte-swizzled NVMMA layout, which TMA reads) with no shared-memory bank conflicts.

    A warpgroup accumulator gives each thread, per row, pairs of columns (8-byte stores); a half-warp stores four rows
    (lane / 4) x 32 bytes, and in the swizzled tile rows 2k and 2k + 1 put those 32 bytes on the same banks, so a
    plain store takes twice the ideal wavefronts (v0.34, ncu run 14). Here odd rows store their column block
    c ^ 16 in the instruction that stores block c on even rows: a register renaming (the swap is in registers,
    asserted trivial), one select per register, and a view of the tile whose addresses flip column bit 4 on odd rows
    (``_float32_spread_view``), so every element lands where the plain store puts it."""
    gl.static_assert(COLS % 32 == 0 and ROWS % 8 == 0, "32-column slabs of whole 8-row swizzle groups")
    quads = gl.permute(gl.reshape(values, [ROWS, COLS // 32, 2, 16]), [0, 1, 3, 2])
    low, high = gl.split(quads)
    swapped = gl.reshape(gl.permute(gl.join(high, low), [0, 1, 3, 2]), [ROWS, COLS])
    swapped = gl.convert_layout(swapped, values.type.layout, assert_trivial=True)
    rows = gl.arange(0, ROWS, layout=gl.SliceLayout(1, values.type.layout))
    spread = gl.where((rows % 2 == 1)[:, None], swapped, values)
    tile._reinterpret(gl.float32, [ROWS, COLS], _float32_spread_view(ROWS, COLS)).store(spread)
