"""Where ptxas puts the wait for an in-flight P V product, read from the sm_90a SASS of a minimal one-warpgroup
Gluon kernel compiled on the CPU (no GPU needed).

Why (benchmarks/PERFORMANCE.md, v0.24): the forward's pipelined loop (kernels/forward_gluon.py,
``_pipelined_step``) issues S_j = Q K_j^T and O += P_{j-1} V_{j-1}, waits for S_j, computes the softmax's
exponentials and only then waits for the P V product, so that the exponentials run while the product is
on the tensor cores (FlashAttention-3, section 3.2). The PTX keeps that order. In the SASS of the tuned d=128
form the second wait (``WARPGROUP.DEPBAR.LE gsb0, 0x0``) follows the row maximum, and every ``MUFU.EX2`` comes
after it. This kernel has the same two products and 64 exponentials per thread between the waits, in a loop
of eight steps, in three forms:
- P from registers (the forward's form);
- P from shared memory;
- the P V product issued after S_j's row maximum instead of beside S_j.

and, with P from registers, two softmax orders: each block's row maximum before its exponentials (the online
softmax), or the previous blocks' maximum in the exponentials (this block's kept for the next).
Each row prints the order of the waits, the closing warpgroup MMA of each group and the exponentials, run
together (``MUFU.EX2x18``: 18 in a row).

    PYTHONPATH=src python3 benchmarks/experiments/forward_gluon/wait_placement.py

Outcome (v0.24, first step of the eight shown):

    P from registers: MMAx2 wait(0x1) MUFU.EX2x18 wait(0x0) MUFU.EX2x46
    P from shared memory: MMAx2 wait(0x1) MUFU.EX2x17 wait(0x0) MUFU.EX2x47
    P V issued after the row maximum: MMA wait(0x0) MUFU.EX2x24 MMA wait(0x0) MUFU.EX2x40

    row maximum, then exponentials: MMAx2 wait(0x1) wait(0x0) MUFU.EX2x64
    exponentials with the previous maximum: MMAx2 wait(0x1) MUFU.EX2x17 wait(0x0) MUFU.EX2x47

ptxas leaves a share of the exponentials before the wait and puts the rest after it. From registers, 18 of the
64 go before it; from shared memory, 17: so the register operand is not the cause. Issued after the row
maximum, the product's wait follows its issue at once, and 24 exponentials move up before the issue.

With each block's row maximum first, as the online softmax has it, no exponential goes before the wait: the
forward loop's order. The exponentials then depend on a reduction through warp shuffles, and ptxas fills the
shuffles' latency with the wait, which it seems to count as free. With the previous maximum they do not
depend on the shuffles, and 17 go before the wait again. So the dependency of the exponentials on the block's
maximum is what undoes the overlap. ``ptxas --help`` (CUDA 12.8) lists no option for this, and ptxas 12.9
places the wait the same way.
"""

import re

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, warpgroup_mma, warpgroup_mma_wait

from flashio.bench import resources
from flashio.configs import TileConfig


@gluon.jit
def wait_placement_kernel(Q, K, V, O, LSE, N: gl.constexpr, D: gl.constexpr, P_SHARED: gl.constexpr,
                          STEPS: gl.constexpr, PV_AFTER_MAX: gl.constexpr = False, ROW_MAX: gl.constexpr = 0):
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, D, 16])
    lhs: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    blocked: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    rows = gl.arange(0, 64, layout=gl.SliceLayout(1, blocked))
    key_rows = gl.arange(0, N, layout=gl.SliceLayout(1, blocked))
    cols = gl.arange(0, D, layout=gl.SliceLayout(0, blocked))
    q_smem = gl.allocate_shared_memory(gl.bfloat16, [64, D], gl.NVMMASharedLayout.get_default_for([64, D], gl.bfloat16))
    k_smem = gl.allocate_shared_memory(gl.bfloat16, [N, D], gl.NVMMASharedLayout.get_default_for([N, D], gl.bfloat16))
    v_smem = gl.allocate_shared_memory(gl.bfloat16, [N, D], gl.NVMMASharedLayout.get_default_for([N, D], gl.bfloat16))
    p_smem = gl.allocate_shared_memory(gl.bfloat16, [64, N], gl.NVMMASharedLayout.get_default_for([64, N], gl.bfloat16))
    q_smem.store(gl.load(Q + rows[:, None] * D + cols[None, :]))
    k_smem.store(gl.load(K + key_rows[:, None] * D + cols[None, :]))
    v_smem.store(gl.load(V + key_rows[:, None] * D + cols[None, :]))
    fence_async_shared()
    acc = gl.zeros([64, D], gl.float32, o_layout)
    p = gl.zeros([64, N], gl.bfloat16, lhs)
    row_sums = gl.zeros([64], gl.float32, gl.SliceLayout(1, s_layout))
    m_prev = gl.full([64], -1.0e30, gl.float32, gl.SliceLayout(1, s_layout))
    for _ in range(STEPS):
        s = warpgroup_mma(q_smem, k_smem.permute((1, 0)), gl.zeros([64, N], gl.float32, s_layout), use_acc=False,
                          is_async=True)
        if PV_AFTER_MAX:
            s = warpgroup_mma_wait(num_outstanding=0, deps=[s])
            row_max = gl.max(s, axis=1)
            acc = warpgroup_mma(p, v_smem, acc, is_async=True)
            e = gl.exp2(s - row_max[:, None])
        else:
            if P_SHARED:
                acc = warpgroup_mma(p_smem, v_smem, acc, is_async=True)
            else:
                acc = warpgroup_mma(p, v_smem, acc, is_async=True)
            s = warpgroup_mma_wait(num_outstanding=1, deps=[s])
            if ROW_MAX == 1:  # the online softmax's order: this block's row maximum first
                m_prev = gl.maximum(m_prev, gl.max(s, axis=1))
                e = gl.exp2(s - m_prev[:, None])
            elif ROW_MAX == 2:  # the previous blocks' maximum in the exponentials, this block's for the next
                e = gl.exp2(s - m_prev[:, None])
                m_prev = gl.maximum(m_prev, gl.max(s, axis=1))
            else:
                e = gl.exp2(s)
        row_sums += gl.sum(e, axis=1)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=[acc])
        if P_SHARED:
            p_smem.store(e.to(gl.bfloat16))
            fence_async_shared()
        else:
            p = gl.convert_layout(e.to(gl.bfloat16), lhs)
    out_rows = gl.arange(0, 64, layout=gl.SliceLayout(1, o_layout))
    out_cols = gl.arange(0, D, layout=gl.SliceLayout(0, o_layout))
    gl.store(O + out_rows[:, None] * D + out_cols[None, :], acc.to(gl.bfloat16))
    gl.store(LSE + gl.arange(0, 64, layout=gl.SliceLayout(1, s_layout)), row_sums)


def sass_lines(compiled) -> list[str]:
    """The instruction text of a compiled kernel's SASS."""
    matches = (re.match(r"\s*/\*[0-9a-f]+\*/\s*(.*?;)", line)
               for line in resources.cuobjdump(compiled, "-sass").splitlines() if "/*" in line)
    return [re.sub(r"\s+", " ", match.group(1)) for match in matches if match]


def order(lines: list[str]) -> str:
    """Waits, group-closing warpgroup MMAs and exponentials in program order, runs of one kind counted."""
    kinds = []
    for line in lines:
        if line.startswith("WARPGROUP.DEPBAR"):
            kinds.append("wait(" + line.split(",")[-1].strip(" ;") + ")")
        elif line.startswith("HGMMA") and "gsb0" in line:
            kinds.append("MMA")
        elif line.startswith("MUFU.EX2"):
            kinds.append("MUFU.EX2")
    runs: list[list] = []
    for kind in kinds:
        if runs and runs[-1][0] == kind:
            runs[-1][1] += 1
        else:
            runs.append([kind, 1])
    return " ".join(f"{kind}x{count}" if count > 1 else kind for kind, count in runs)


def main() -> None:
    for label, options in (("P from registers", {}), ("P from shared memory", {"P_SHARED": True}),
                           ("P V issued after the row maximum", {"PV_AFTER_MAX": True}),
                           ("row maximum, then exponentials", {"ROW_MAX": 1}),
                           ("exponentials with the previous maximum", {"ROW_MAX": 2})):
        constants = {"N": 128, "D": 128, "P_SHARED": False, "STEPS": 8, **options}
        compiled = resources.compile_for_hopper(wait_placement_kernel, constants, TileConfig(64, 128, 4, 1))
        print(f"{label}: {order(sass_lines(compiled))[:160]}")


if __name__ == "__main__":
    main()
