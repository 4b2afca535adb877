"""Why the persistent Gluon forward's consumer warpgroups cannot share one copy of their code (v0.51; CPU only).

Each consumer partition of ``kernels/forward_gluon.py`` is a copy of its own code, and at short sequences those copies
compete for the instruction caches (v0.49: 13-16% of d=128 causal 1k's working stall samples on instruction fetch).
This script compiles two small Hopper kernels for sm_90a with Triton 3.6's Gluon, on the CPU, and prints what stops
each way of sharing the code:

1. ``call``: two consumer partitions calling one ``noinline`` function (a score product, a softmax-like update and an
   mbarrier handshake per key block). Gluon emits the function once per calling context (the default partition's and
   the workers' ``_NW4``), its barriers are the whole program's (``bar.sync 0;``), and ptxas serialises every
   warpgroup MMA (its C7510 message: the wgmma pipeline crosses a function call).
2. ``eight-warps``: one consumer partition of eight warps whose loop only waits and arrives on mbarriers: each wait
   and each arrive comes with a partition-wide ``bar.sync 0, 256``, so the two warpgroups would run in lockstep.

Run: ``python benchmarks/experiments/forward_short/shared_consumer_code.py`` (with ``TRITON_INTERPRET`` unset).
"""

import os
import re
import subprocess
import sys
import tempfile

import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, warpgroup_mma, warpgroup_mma_wait

ROWS, KEYS, HEAD_DIM = 64, 128, 128
BIN = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")


@gluon.jit(noinline=True)
def _consumer_body(q_smem, k_smem, ready, empty, out, half, ROWS: gl.constexpr, KEYS: gl.constexpr):
    """Sixteen key blocks of one consumer: S = Q K^T, a running maximum and sum of exp2, an arrive per block."""
    layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, KEYS, 16])
    total = gl.zeros([ROWS, KEYS], gl.float32, layout)
    m = gl.full([ROWS], -1e30, gl.float32, gl.SliceLayout(1, layout))
    for i in range(16):
        mbarrier.wait(ready.index(half), i & 1)
        s = warpgroup_mma(q_smem.index(half), k_smem.permute((1, 0)), gl.zeros([ROWS, KEYS], gl.float32, layout),
                          use_acc=False, is_async=True)
        s = warpgroup_mma_wait(num_outstanding=0, deps=[s])
        m = gl.maximum(m, gl.max(s, 1))
        total = total + gl.exp2(s - m[:, None])
        mbarrier.arrive(empty.index(half))
    gl.store(out + half * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, layout)), gl.sum(total, 1))


@gluon.jit
def _consumer(q_smem, k_smem, ready, empty, out, half, ROWS: gl.constexpr, KEYS: gl.constexpr):
    _consumer_body(q_smem, k_smem, ready, empty, out, half, ROWS, KEYS)


@gluon.jit
def _producer(ready, empty):
    for i in range(16):
        for half in gl.static_range(2):
            mbarrier.wait(empty.index(half), (i & 1) ^ 1)
            mbarrier.arrive(ready.index(half))


@gluon.jit
def call_kernel(out, one, ROWS: gl.constexpr, KEYS: gl.constexpr, HEAD_DIM: gl.constexpr):
    q_smem = gl.allocate_shared_memory(gl.bfloat16, [2, ROWS, HEAD_DIM],
                                       gl.NVMMASharedLayout.get_default_for([ROWS, HEAD_DIM], gl.bfloat16))
    k_smem = gl.allocate_shared_memory(gl.bfloat16, [KEYS, HEAD_DIM],
                                       gl.NVMMASharedLayout.get_default_for([KEYS, HEAD_DIM], gl.bfloat16))
    ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for half in gl.static_range(2):
        mbarrier.init(ready.index(half), count=1)
        mbarrier.init(empty.index(half), count=1)
    gl.warp_specialize([(_consumer, (q_smem, k_smem, ready, empty, out, one - 1, ROWS, KEYS)),
                        (_consumer, (q_smem, k_smem, ready, empty, out, one, ROWS, KEYS)),
                        (_producer, (ready, empty))], [4, 1], [240, 24])


@gluon.jit
def _eight_warp_consumer(ready, empty, out, ROWS: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [8], [0])
    total = gl.zeros([ROWS], gl.float32, layout)
    for i in range(4):
        mbarrier.wait(ready.index(0), i & 1)
        total = total + 1.0
        mbarrier.arrive(empty.index(0))
    gl.store(out + gl.arange(0, ROWS, layout=layout), total)


@gluon.jit
def _one_producer(ready, empty):
    for i in range(4):
        mbarrier.wait(empty.index(0), (i & 1) ^ 1)
        mbarrier.arrive(ready.index(0))


@gluon.jit
def eight_warp_kernel(out, ROWS: gl.constexpr):
    ready = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
    mbarrier.init(ready.index(0), count=1)
    mbarrier.init(empty.index(0), count=1)
    gl.warp_specialize([(_eight_warp_consumer, (ready, empty, out, ROWS)), (_one_producer, (ready, empty))], [1], [24])


def _compile(kernel, signature, constexprs, num_warps):
    source = GluonASTSource(fn=kernel, signature=signature, constexprs=constexprs)
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})


def _ptxas_notes(ptx: str) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "kernel.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        done = subprocess.run([os.path.join(BIN, "ptxas"), "-arch=sm_90a", "-v", path, "-o", path + ".cubin"],
                              capture_output=True, text=True, check=True)
    return [line for line in done.stderr.splitlines() if re.search(r"\(C75\d\d\)", line)]


def main() -> int:
    if os.environ.get("TRITON_INTERPRET"):
        print("unset TRITON_INTERPRET: this script compiles for sm_90a", file=sys.stderr)
        return 2
    compiled = _compile(call_kernel, {"out": "*fp32", "one": "i32", "ROWS": "constexpr", "KEYS": "constexpr",
                                      "HEAD_DIM": "constexpr"}, {(2,): ROWS, (3,): KEYS, (4,): HEAD_DIM}, 4)
    ptx = compiled.asm["ptx"]
    definitions = re.findall(r"^\.func (\S*_consumer_body\S*)\($", ptx, flags=re.MULTILINE)
    print(f"call: {len(definitions)} definitions of the shared function: "
          + ", ".join(name[-20:] for name in definitions))
    barriers = sorted(set(re.findall(r"\bbar(?:rier)?\.sync\s+[^;]*;", ptx)))
    print(f"call: barriers in the PTX: {barriers}")
    for note in _ptxas_notes(ptx):
        print(f"call: ptxas: {note.split('info    : ', 1)[-1]}")
    compiled = _compile(eight_warp_kernel, {"out": "*fp32", "ROWS": "constexpr"}, {(1,): 256}, 8)
    lines = compiled.asm["ptx"].splitlines()
    synced = sum(1 for i, line in enumerate(lines) if re.search(r"mbarrier\.(try_wait|arrive)", line)
                 and any("bar.sync \t0, 256" in before for before in lines[max(0, i - 8):i]))
    waits_arrives = sum(1 for line in lines if re.search(r"mbarrier\.(try_wait|arrive)", line))
    print(f"eight-warps: {synced} of {waits_arrives} mbarrier waits and arrives in the PTX follow a "
          f"'bar.sync 0, 256' within 8 lines (the others are the one-warp producer's)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
