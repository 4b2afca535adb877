"""A dynamic tile list's claims from inside a persistent Gluon program (only Gluon code here).

With a dynamic tile list (``TileConfig.dynamic_schedule``) one list (``flashio.schedules.claim_order``: the entry
count, then the tile ids) serves every program: program p takes entry p, then its loader warp claims entry
``num_programs + c`` for each count c it draws from an int32 counter in global memory (``claims[0]``), one tile at a
time, so that a program that ran fast takes more tiles. When a program's loader is done it counts itself in
``claims[1]``, and the last one sets both counters back to zero, so the launcher never clears them. The persistent
Gluon forward (kernels/forward_gluon.py, v0.36) and the persistent fused backward (kernels/backward_gluon.py, v0.37)
claim through these helpers; each publishes a claimed entry to its other partitions in shared memory.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def issue_claim(claims):
    """A claim's atomic: lane 0 of the loader's warp adds 1 to ``claims[0]`` (relaxed: only the count's atomicity
    matters) and receives the old count, the other lanes 0. Nothing reads it until ``claimed_count``, so with
    the forward's probe option CLAIM_AHEAD the loader goes on while the atomic travels."""
    return gl.inline_asm_elementwise(
        """{
        .reg .pred p;
        .reg .u32 lane;
        mov.u32 lane, %laneid;
        setp.eq.u32 p, lane, 0;
        mov.u32 $0, 0;
        @p atom.relaxed.gpu.global.add.u32 $0, [$1], 1;
        }""", "=r,l", [claims], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def claimed_count(issued):
    """The count an ``issue_claim`` returned to lane 0, for every lane."""
    return gl.inline_asm_elementwise("shfl.sync.idx.b32 $0, $1, 0, 0x1f, 0xffffffff;", "=r,r", [issued],
                                     dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def claim_entry(claims):
    """The next claimed count of a dynamic tile list (DYNAMIC), in every lane of the loader's warp."""
    return claimed_count(issue_claim(claims))


@gluon.jit
def release_claims(claims, last):
    """A program's loader is done claiming (DYNAMIC): lane 0 counts it in ``claims[1]`` (acquire-release, so the
    last one sees every other program's last claim before it), and the last of the ``last`` + 1 programs sets both
    counters back to 0 for the next launch, which then needs no clearing."""
    return gl.inline_asm_elementwise(
        """{
        .reg .pred p, q;
        .reg .u32 lane, old;
        mov.u32 lane, %laneid;
        setp.eq.u32 p, lane, 0;
        mov.u32 old, 0xffffffff;
        @p atom.acq_rel.gpu.global.add.u32 old, [$1+4], 1;
        setp.eq.u32 q, old, $2;
        @q st.relaxed.gpu.global.u32 [$1], 0;
        @q st.relaxed.gpu.global.u32 [$1+4], 0;
        mov.u32 $0, old;
        }""", "=r,l,r", [claims, last], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def claimed_tile(schedule, index):
    """The tile id ``head_batch * num_blocks + block`` of entry ``index`` of a dynamic tile list
    (``flashio.schedules.claim_order``: the entry count, then the ids)."""
    return gl.load(schedule + 1 + index)


@gluon.jit
def tile_block(tile, num_blocks, num_heads):
    """(block, head, batch) of tile id ``tile`` (``claimed_tile``)."""
    head_batch = tile // num_blocks
    return tile % num_blocks, head_batch % num_heads, head_batch // num_heads


@gluon.jit
def claimed_block(schedule, index, num_blocks, num_heads):
    """(block, head, batch) of entry ``index`` of a dynamic tile list."""
    return tile_block(claimed_tile(schedule, index), num_blocks, num_heads)
