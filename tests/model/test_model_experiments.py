"""The paper's IO experiments in kind: Theorem 2 scaling and the block-size sweep (Figure 2 middle)."""

from __future__ import annotations

import numpy as np
import pytest

from flashio.model.counts import AttentionProblem
from flashio.model.experiments import block_size_sweep, theorem2_sweep
from flashio.model.gpus import get_gpu
from flashio.model.simulator import simulate
from flashio.model.timing import Workload

GPT2_MEDIUM = Workload(64, 16, 1024, 64, dtype="fp16")


def test_accesses_are_proportional_to_n2_d2_over_m():
    points = theorem2_sweep(4096, (16, 32, 64), (16384, 32768, 65536, 131072))
    ratios = np.array([p.accesses / p.n2d2_over_m for p in points])
    # The constant is ≈ 12 (Q read, O read and written, per pass: 3·N·d·T_c with T_c = 4Nd/M, plus the
    # ℓ, m statistics); ragged last blocks move it by a few percent, hence 10%.
    assert ratios.max() / ratios.min() < 1.10


def test_simulated_accesses_halve_when_sram_doubles():
    problem = AttentionProblem(256, 16)
    compulsory = 4 * 256 * 16
    small = simulate("fa1", problem, 1024, "fwd").io.total - compulsory
    large = simulate("fa1", problem, 2048, "fwd").io.total - compulsory
    assert small / large == pytest.approx(2.0, rel=0.05)  # exact up to the ℓ, m statistics' rounding


def test_block_size_sweep_accesses_fall_as_one_over_block_size():
    points = block_size_sweep(get_gpu("a100-40gb"), GPT2_MEDIUM)
    accesses = [p.hbm_accesses_gb for p in points]
    assert all(a > b for a, b in zip(accesses, accesses[1:]))
    # 64 → 512 is 8× larger blocks; compulsory traffic keeps the ratio below 8.
    assert 4.0 < accesses[0] / accesses[-1] < 8.0


def test_block_size_sweep_runtime_falls_then_flattens_on_a_memory_bound_gpu():
    times = [p.runtime_ms for p in block_size_sweep(get_gpu("t4"), GPT2_MEDIUM)]
    assert times[0] > times[1] > times[2]
    assert times[3] == pytest.approx(times[2], rel=0.05)  # compute-bound from B_c = 256 on
