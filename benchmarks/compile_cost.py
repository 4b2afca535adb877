"""First-call compilation cost: how long Triton takes to compile, for sm_90a, every candidate kernel that
a first forward + backward call times for one shape bucket (bf16, non-causal, no dropout/varlen/mask),
with an empty Triton cache, on this machine's CPU (no GPU needed).

    PYTHONPATH=src python3 benchmarks/compile_cost.py 128

A first call on a GPU pays this (Triton compiles serially) plus the timing of each candidate; later
processes find the kernels in Triton's disk cache and the choices in flashio's tuning cache.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # before Triton is imported: nothing is reused

from flashio import configs  # noqa: E402
from flashio.bench import resources  # noqa: E402
from flashio.kernels import backward, backward_gluon, backward_ws, forward, forward_tma, forward_ws  # noqa: E402


def main(d: int) -> int:
    seconds: dict[str, float] = {}

    def compile_one(label, kernel, constants, config):
        start = time.perf_counter()
        try:
            resources.compile_for_hopper(kernel, constants, config)
        except Exception:  # a candidate that does not compile costs its attempt too
            pass
        seconds[label] = seconds.get(label, 0.0) + time.perf_counter() - start

    descriptor = lambda c, **extra: dict(BLOCK_M=c.block_m, BLOCK_N=c.block_n, HEAD_DIM=d, IS_CAUSAL=False, **extra)
    for c in configs.FORWARD_CANDIDATES[d]:
        compile_one("forward, portable", forward.attention_forward_kernel, resources._portable_constants(c, d), c)
    for c in configs.FORWARD_TMA_CANDIDATES[d]:
        compile_one("forward, tensor descriptors", forward_tma.attention_forward_tma_kernel,
                    descriptor(c, IS_VARLEN=False), c)
    if d in configs.WS_TUNED_BUCKETS["forward"]:
        for c in configs.FORWARD_WS_CANDIDATES[d]:
            kernel = forward_ws.attention_forward_ws_persistent_kernel if c.persistent else \
                forward_ws.attention_forward_ws_kernel
            compile_one("forward, warp-specialised", kernel, descriptor(c, MAY_MASK=False), c)
    for atomic in (True, False) if d in configs.ATOMIC_DQ_TUNED_BUCKETS else (False,):
        for c in configs.BACKWARD_DKDV_CANDIDATES[d]:
            for dk, dv in ((True, True),) if c.passes == 1 else ((False, True), (True, False)):
                compile_one("backward dK/dV, portable", backward.attention_backward_dkdv_kernel,
                            resources._portable_constants(c, d, ATOMIC_DQ=atomic, COMPUTE_DK=dk, COMPUTE_DV=dv), c)
    if d in configs.WS_TUNED_BUCKETS["backward_dkdv"]:
        for c in configs.BACKWARD_DKDV_WS_CANDIDATES[d]:
            kernel = backward_ws.attention_backward_dkdv_ws_persistent_kernel if c.persistent else \
                backward_ws.attention_backward_dkdv_ws_kernel
            for dk, dv in ((True, True),) if c.passes == 1 else ((False, True), (True, False)):
                compile_one("backward dK/dV, warp-specialised", kernel, descriptor(c, COMPUTE_DK=dk, COMPUTE_DV=dv), c)
    for c in configs.BACKWARD_DQ_CANDIDATES[d]:
        compile_one("backward dQ", backward.attention_backward_dq_kernel, resources._portable_constants(c, d), c)
    if d in configs.WS_TUNED_BUCKETS["backward_dq"]:
        for c in configs.BACKWARD_DQ_WS_CANDIDATES[d]:
            compile_one("backward dQ, warp-specialised", backward_ws.attention_backward_dq_ws_kernel, descriptor(c), c)
    if d in configs.FUSED_TUNED_BUCKETS:
        for c in configs.BACKWARD_FUSED_CANDIDATES[d]:
            compile_one("backward, fused five-product (Gluon)", backward_gluon.attention_backward_fused_kernel,
                        descriptor(c, NUM_STAGES=c.num_stages, WARPS=c.num_warps, DQ_CHUNKS=c.dq_chunks,
                                   DQ_BUFFERS=c.dq_buffers), c)
    for label, value in seconds.items():
        print(f"d={d} {label}: {value:.1f} s")
    print(f"d={d} total: {sum(seconds.values()):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 128))
