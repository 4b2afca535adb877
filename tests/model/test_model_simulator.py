"""The simulator's HBM counts equal the analytic counts exactly, and its outputs equal the reference."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from flashio.model.counts import (
    BACKWARD_TILES,
    AttentionProblem,
    BlockSparsity,
    analytic_io,
    paper_blocking,
)
from flashio.model.simulator import SRAM, SRAMOverflowError, dropout_keep, simulate, with_sparsity_grid

# fp32 arithmetic against a float64 reference on unit-normal inputs of ≤ 100 keys: errors are a few
# ulps of fp32 accumulated over ≤ 100 terms (~1e-6); 2e-5 leaves a margin of 10 without hiding a bug
# (a wrong mask or a missed rescale gives errors of order 0.1).
FP32_TOLERANCE = 2e-5

VARIANTS = {
    "plain": dict(),
    "causal": dict(causal=True),
    "dropout": dict(dropout_p=0.2),
    "key_padding": dict(key_valid=61),
    "block_sparse": dict(sparsity=BlockSparsity(0.5, seed=3)),
    "all": dict(causal=True, dropout_p=0.1, key_valid=50, sparsity=BlockSparsity(0.6, seed=1)),
}
SRAM_BYTES = 2048  # d=16: B_c = B_r = 16 forward, 8 backward; N=100 leaves ragged last blocks


def _problem(variant: str, seqlen: int = 100, head_dim: int = 16) -> AttentionProblem:
    problem = AttentionProblem(seqlen, head_dim, **VARIANTS[variant])
    return with_sparsity_grid(problem, paper_blocking(SRAM_BYTES, head_dim))


@pytest.mark.parametrize("kernel,variant,pass_",
                         list(itertools.product(("standard", "fa1", "fa2"), VARIANTS, ("fwd", "bwd", "fwdbwd"))))
def test_simulated_counts_equal_analytic_counts_per_tensor(kernel, variant, pass_):
    problem = _problem(variant)
    result = simulate(kernel, problem, SRAM_BYTES, pass_, seed=7)
    assert result.io == analytic_io(kernel, problem, SRAM_BYTES, pass_)


@pytest.mark.parametrize("kernel,variant", list(itertools.product(("standard", "fa1", "fa2"), VARIANTS)))
def test_simulated_outputs_and_gradients_match_reference(kernel, variant):
    result = simulate(kernel, _problem(variant), SRAM_BYTES, "fwdbwd", seed=11)
    assert set(result.outputs) == {"O", "dQ", "dK", "dV"}
    assert result.max_abs_error < FP32_TOLERANCE


@pytest.mark.parametrize("kernel", ["fa1", "fa2"])
def test_tiled_kernels_never_exceed_the_sram(kernel):
    result = simulate(kernel, _problem("plain"), SRAM_BYTES, "fwdbwd", seed=0)
    assert 0 < result.peak_sram_bytes <= SRAM_BYTES


def test_sram_refuses_a_tile_beyond_capacity():
    sram = SRAM(capacity_bytes=1024, element_bytes=2)
    sram.hold("a", np.zeros(400, np.float32))  # 800 bytes
    with pytest.raises(SRAMOverflowError):
        sram.hold("b", np.zeros(200, np.float32))  # 400 more bytes > 1024


def test_fully_padded_rows_output_zero():
    problem = AttentionProblem(40, 8, key_valid=0)
    result = simulate("fa2", problem, 1024, "fwdbwd", seed=2)
    for name in ("O", "dQ", "dK", "dV"):
        assert np.all(result.outputs[name] == 0.0)


def test_dropout_mask_drops_fraction_p():
    # 512×512 = 262144 Bernoulli draws: the standard error of the dropped fraction is ~1e-3, so 0.01
    # (the flash-attn rule of algorithm.md) is 10 standard errors.
    keep = dropout_keep(5, np.arange(512), np.arange(512), 0.3, 512)
    assert abs((1.0 - keep.mean()) - 0.3) < 0.01


def test_backward_blocks_follow_eight_tile_rule():
    result = simulate("fa1", _problem("plain"), SRAM_BYTES, "bwd", seed=0)
    assert result.backward_blocking == paper_blocking(SRAM_BYTES, 16, tiles=BACKWARD_TILES)
