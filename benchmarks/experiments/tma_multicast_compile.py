"""Does Triton's Gluon emit a TMA multicast load (``cp.async.bulk.tensor ... .multicast::cluster``) for a tile that a
shared layout replicates over the CTAs of a cluster? Compiles a one-tile copy kernel for sm_90a on the CPU (no GPU
needed) with ``num_ctas=2`` and each CGA layout given, and prints the PTX's bulk-tensor copies.

    PYTHONPATH=src python benchmarks/experiments/tma_multicast_compile.py "[[0, 0]]" "[[1, 0]]" "[]"

A CGA basis [0, 0] maps the cluster's second CTA onto the first one's tile (the tile replicated: what a multicast
would serve with one L2 read); [1, 0] gives it the next rows; [] is no CGA layout. v0.29 (Triton 3.6.0): in all
three the load is ``cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`` without the
``.multicast::cluster`` qualifier (and its CTA mask) that a multicast load carries. So a cluster's K/V multicast
(one L2 read of a head's K/V for several multiprocessors) is not reachable through Gluon 3.6's layouts either;
benchmarks/PERFORMANCE.md v0.29.
"""

import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma


@gluon.jit
def copy_tile_kernel(X, Y, n, CGA_LAYOUT: gl.constexpr, BLOCK: gl.constexpr):
    """Y[:BLOCK] = X[:BLOCK] through shared memory, by TMA, with the tile's layout spread over the CTAs by
    ``CGA_LAYOUT``."""
    layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK, 64], gl.bfloat16, cga_layout=CGA_LAYOUT)
    x_desc = tma.make_tensor_descriptor(X, shape=[n, 64], strides=[64, 1], block_shape=[BLOCK, 64], layout=layout)
    y_desc = tma.make_tensor_descriptor(Y, shape=[n, 64], strides=[64, 1], block_shape=[BLOCK, 64], layout=layout)
    tile = gl.allocate_shared_memory(gl.bfloat16, [BLOCK, 64], layout)
    ready = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
    mbarrier.init(ready.index(0), count=1)
    mbarrier.expect(ready.index(0), BLOCK * 64 * 2)
    tma.async_copy_global_to_shared(x_desc, [0, 0], ready.index(0), tile)
    mbarrier.wait(ready.index(0), 0)
    tma.async_copy_shared_to_global(y_desc, [0, 0], tile)
    tma.store_wait(0)


def bulk_copies(cga_layout: list) -> list[str]:
    """The PTX lines of the bulk-tensor copies of ``copy_tile_kernel`` compiled for sm_90a, two CTAs a cluster."""
    source = GluonASTSource(fn=copy_tile_kernel,
                            signature={"X": "*bf16", "Y": "*bf16", "n": "i32", "CGA_LAYOUT": "constexpr",
                                       "BLOCK": "constexpr"},
                            constexprs={(3,): gl.constexpr(cga_layout), (4,): 64})
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options=dict(num_warps=4, num_ctas=2))
    return [line.strip() for line in compiled.asm["ptx"].splitlines() if "cp.async.bulk.tensor" in line]


def main(argv: list[str]) -> int:
    for text in argv or ["[[0, 0]]", "[[1, 0]]", "[]"]:
        lines = bulk_copies(eval(text, {}))  # a list literal of bases
        print(f"cga_layout={text}: multicast={any('multicast' in line for line in lines)}")
        for line in lines:
            print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
