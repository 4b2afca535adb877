"""Dropout inside the kernels: the dropped fraction, reproducibility from torch's seed, and the same mask
in the forward and the backward (checked against the reference given the reported keep-mask)."""

import pytest
import torch

import flashio
from flashio.autograd import draw_dropout_seed
from flashio.launchers import dropout_keep_mask
from flashio.reference import causal_visibility
from helpers import (
    DEVICE, LOW_PRECISION, assert_result_close, flash_attn_bhnd, keep_mask_from_probs, random_qkv, references,
    run_with_grads,
)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropped_fraction_is_within_0_01_of_p(p):
    # 2 heads x 256 x 256 = 131072 draws; per head the standard deviation of the fraction is at most
    # sqrt(0.25 / 65536) = 0.002, so 0.01 is five standard deviations even for one head alone.
    keep = dropout_keep_mask(1, 2, 256, 256, p, seed=20240601, device=DEVICE)
    for head in range(2):
        dropped = 1.0 - keep[0, head].float().mean().item()
        assert abs(dropped - p) <= 0.01, f"head {head}: dropped fraction {dropped:.4f}, p = {p}"


def test_heads_and_batches_draw_independent_masks():
    keep = dropout_keep_mask(2, 2, 128, 128, 0.5, seed=7, device=DEVICE).float()
    # Two independent masks with p = 0.5 agree on half of the entries; 16384 entries per pair, so the
    # agreement has a standard deviation of 0.004 and 0.02 is five of them.
    pairs = [(keep[0, 0], keep[0, 1]), (keep[0, 0], keep[1, 0]), (keep[0, 1], keep[1, 1])]
    for a, b in pairs:
        assert abs((a == b).float().mean().item() - 0.5) <= 0.02


@pytest.mark.parametrize("other_seed", [8, 7 + 2**32, 7 + 2**61], ids=["low_bits", "bit_32", "bit_61"])
def test_different_seeds_draw_different_masks(other_seed):
    # Seeds are drawn from [0, 2**62): every bit of the seed must matter, not only the low 32.
    keep = dropout_keep_mask(1, 1, 64, 64, 0.5, seed=7, device=DEVICE)
    other = dropout_keep_mask(1, 1, 64, 64, 0.5, seed=other_seed, device=DEVICE)
    # Independent masks with p = 0.5 disagree on half of the 4096 entries (standard deviation 0.008).
    assert abs((keep != other).float().mean().item() - 0.5) <= 0.05


def test_same_torch_seed_gives_the_same_output_and_gradients():
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.float16)
    torch.manual_seed(11)
    first, dout = run_with_grads(flash_attn_bhnd(dropout_p=0.3, deterministic=True), q, k, v)
    torch.manual_seed(11)
    second, _ = run_with_grads(flash_attn_bhnd(dropout_p=0.3, deterministic=True), q, k, v, dout)
    assert torch.equal(first.out, second.out)
    for a, b in zip(first.grads, second.grads):
        assert torch.equal(a, b)


def test_different_torch_seeds_give_different_masks():
    q, k, v = (t.transpose(1, 2) for t in random_qkv(1, 2, 2, 40, 40, 32, torch.float16, requires_grad=False))
    torch.manual_seed(11)
    _, _, first = flashio.flash_attn_func(q, k, v, dropout_p=0.3, return_attn_probs=True)
    torch.manual_seed(12)
    _, _, second = flashio.flash_attn_func(q, k, v, dropout_p=0.3, return_attn_probs=True)
    disagree = (keep_mask_from_probs(first) != keep_mask_from_probs(second)).float().mean().item()
    # Independent masks with p = 0.3 disagree on 2 p (1 - p) = 42% of 3200 entries (standard deviation 0.9%).
    assert abs(disagree - 0.42) <= 0.05


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_reported_mask_is_dropout_keep_mask_for_the_seed_drawn_from_torch(causal):
    batch, heads, seqlen_q, seqlen_k, p = 2, 2, 33, 47, 0.25
    q, k, v = random_qkv(batch, heads, heads, seqlen_q, seqlen_k, 16, torch.float16, requires_grad=False)
    torch.manual_seed(5)
    seed = draw_dropout_seed()
    torch.manual_seed(5)
    _, _, s_dmask = flashio.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                            dropout_p=p, causal=causal, return_attn_probs=True)
    expected = dropout_keep_mask(batch, heads, seqlen_q, seqlen_k, p, seed, DEVICE)
    visible = causal_visibility(seqlen_q, seqlen_k, DEVICE) if causal else torch.ones_like(expected[0, 0])
    assert torch.equal(keep_mask_from_probs(s_dmask)[..., visible], expected[..., visible])


@pytest.mark.parametrize("dtype", LOW_PRECISION, ids=str)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic_dq", "deterministic"])
def test_forward_and_backward_use_the_reported_mask(dtype, causal, deterministic):
    # With the keep-mask reported in S_dmask, the reference given that exact mask must match the
    # output and all three gradients: the backward regenerated the forward's mask.
    p = 0.2
    q, k, v = random_qkv(1, 2, 2, 45, 60, 32, dtype)
    outputs = {}

    def run(q, k, v):
        out, _, s_dmask = flashio.flash_attn_func(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), dropout_p=p, causal=causal,
            deterministic=deterministic, return_attn_probs=True)
        outputs["keep"] = keep_mask_from_probs(s_dmask)
        return out.transpose(1, 2)

    result, dout = run_with_grads(run, q, k, v)
    ref32, ref_lp = references(q, k, v, dout, causal=causal, dropout_p=p, dropout_mask=outputs["keep"])
    assert_result_close(result, ref32, ref_lp)


def test_zero_dropout_is_no_dropout():
    q, k, v = random_qkv(1, 2, 2, 30, 30, 16, torch.float16, requires_grad=False)
    assert torch.equal(flashio.attention(q, k, v, dropout_p=0.0), flashio.attention(q, k, v))
