"""flashio.attention forward and backward against the references, with flash-attn's rule (helpers.py):
dtypes, odd shapes, odd head dims, causal masking (bottom-right aligned), GQA/MQA, the softmax scale, LSE."""

import pytest
import torch
import torch.nn.functional as F

import flashio
from helpers import (
    DTYPES, LOW_PRECISION, OUTPUT_FACTOR, assert_close_to_reference, check_against_reference,
    random_qkv, run_with_grads,
)

ODD_SHAPES = [(113, 203), (1, 1), (203, 113), (17, 1), (1, 64)]


def attention(**kwargs):
    return lambda q, k, v: flashio.attention(q, k, v, **kwargs)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("seqlen_q,seqlen_k", ODD_SHAPES)
def test_forward_and_backward_match_reference_for_any_sequence_lengths(dtype, seqlen_q, seqlen_k):
    q, k, v = random_qkv(1, 1, 1, seqlen_q, seqlen_k, 32, dtype)
    check_against_reference(attention(), q, k, v)


@pytest.mark.parametrize("head_dim,dtype", [
    (1, torch.float16), (40, torch.float16), (59, torch.float16), (80, torch.float16), (96, torch.float16),
    (111, torch.float16), (160, torch.float16), (192, torch.float16), (256, torch.float16),
    (256, torch.bfloat16), (111, torch.float32),
], ids=str)
def test_forward_and_backward_match_reference_for_any_head_dim(head_dim, dtype):
    q, k, v = random_qkv(1, 1, 1, 37, 45, head_dim, dtype)
    check_against_reference(attention(), q, k, v)


@pytest.mark.parametrize("dtype", LOW_PRECISION, ids=str)
@pytest.mark.parametrize("seqlen_q,seqlen_k", [(64, 64), (40, 87), (87, 40), (17, 1), (1, 17)])
def test_causal_forward_and_backward_match_reference(dtype, seqlen_q, seqlen_k):
    q, k, v = random_qkv(1, 2, 2, seqlen_q, seqlen_k, 32, dtype)
    check_against_reference(attention(is_causal=True), q, k, v, causal=True)


@pytest.mark.parametrize("seqlen_q,seqlen_k", [(5, 9), (9, 5)])
def test_causal_mask_is_aligned_to_the_bottom_right_corner(seqlen_q, seqlen_k):
    # Independent of flashio's reference: query i attends exactly to keys j <= i + Nk - Nq, i.e. row i
    # equals unmasked attention over that prefix of the keys (or is zero when the prefix is empty).
    q, k, v = random_qkv(1, 1, 1, seqlen_q, seqlen_k, 16, torch.float32, requires_grad=False)
    out = flashio.attention(q, k, v, is_causal=True)
    for i in range(seqlen_q):
        visible = i + seqlen_k - seqlen_q + 1
        if visible <= 0:
            expected = torch.zeros_like(out[:, :, i])
        else:
            expected = F.scaled_dot_product_attention(q[:, :, i:i + 1], k[:, :, :visible], v[:, :, :visible])[:, :, 0]
        # float32 path: only the summation order differs (see helpers.default_floor).
        torch.testing.assert_close(out[:, :, i], expected, rtol=0, atol=1e-5)


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic_dq", "deterministic"])
def test_causal_rows_that_see_no_key_output_zero_with_lse_minus_inf_and_zero_gradients(deterministic):
    seqlen_q, seqlen_k = 70, 20
    empty = seqlen_q - seqlen_k  # rows 0 .. empty-1 see no key when Nq > Nk (bottom-right alignment)
    q, k, v = random_qkv(1, 2, 2, seqlen_q, seqlen_k, 32, torch.float16)
    out, lse = flashio.attention(q, k, v, is_causal=True, deterministic=deterministic, return_lse=True)
    dout = torch.randn_like(out)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), dout)
    assert torch.equal(out[:, :, :empty], torch.zeros_like(out[:, :, :empty]))
    assert torch.isneginf(lse[:, :, :empty]).all()
    assert torch.equal(dq[:, :, :empty], torch.zeros_like(dq[:, :, :empty]))
    for t in (out, lse[:, :, empty:], dq, dk, dv):
        assert torch.isfinite(t).all()


def test_a_single_query_under_causal_masking_sees_every_key():
    q, k, v = random_qkv(2, 2, 2, 1, 64, 32, torch.float16, requires_grad=False)
    out = flashio.attention(q, k, v, is_causal=True)
    ref32 = flashio.attention_reference(q.float(), k.float(), v.float(), causal=False)
    ref_lp = flashio.attention_reference(q, k, v, causal=False, upcast=False)
    assert_close_to_reference(out, ref32, ref_lp, OUTPUT_FACTOR)


@pytest.mark.parametrize("kv_heads", [2, 1], ids=["gqa", "mqa"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_grouped_and_multi_query_attention_match_reference(kv_heads, causal):
    q, k, v = random_qkv(2, 4, kv_heads, 48, 56, 32, torch.float16)
    check_against_reference(attention(is_causal=causal), q, k, v, causal=causal)


def test_gqa_key_value_gradients_are_sums_over_the_query_group():
    # GQA must equal MHA with each K/V head repeated for its group; dK, dV are then the sums over the group.
    q, k, v = random_qkv(1, 4, 2, 32, 32, 16, torch.float32)
    gqa, dout = run_with_grads(attention(is_causal=True), q, k, v)
    repeated = [t.detach().repeat_interleave(2, dim=1).requires_grad_() for t in (k, v)]
    mha, _ = run_with_grads(attention(is_causal=True), q, *repeated, dout=dout)
    # float32 path: same numbers summed in a different order (see helpers.default_floor).
    torch.testing.assert_close(gqa.out, mha.out, rtol=0, atol=1e-5)
    torch.testing.assert_close(gqa.grads[0], mha.grads[0], rtol=0, atol=1e-5)
    for grad_gqa, grad_mha in zip(gqa.grads[1:], mha.grads[1:]):
        torch.testing.assert_close(grad_gqa, grad_mha.unflatten(1, (2, 2)).sum(2), rtol=0, atol=1e-5)


@pytest.mark.parametrize("scale", [0.05, 0.5, 2.0])
def test_softmax_scale_matches_reference(scale):
    q, k, v = random_qkv(1, 2, 2, 40, 56, 32, torch.float16)
    check_against_reference(attention(scale=scale, is_causal=True), q, k, v, causal=True, scale=scale)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_return_lse_equals_reference_logsumexp(dtype, causal):
    q, k, v = random_qkv(2, 2, 2, 50, 30, 32, dtype, requires_grad=False)
    _, lse = flashio.attention(q, k, v, is_causal=causal, return_lse=True)
    _, ref_lse = flashio.attention_reference(q, k, v, causal=causal, return_lse=True)
    assert lse.dtype == torch.float32 and lse.shape == (2, 2, 50)
    # The LSE is float32 from the same inputs in both; only the summation order and exp2/log2 with
    # log2(e) folded in differ: ~1e-6 relative at |lse| ~ 3 (float32 eps 1.2e-7). -inf rows must match.
    torch.testing.assert_close(lse, ref_lse, rtol=1e-5, atol=1e-5)


# Causal, so that the interpreter runs half the tiles; both directions of the bottom-right alignment.
@pytest.mark.parametrize("seqlen_q,seqlen_k,causal", [(1023, 1024, True), (1024, 1023, True)])
def test_forward_matches_reference_at_a_thousand_tokens(seqlen_q, seqlen_k, causal):
    q, k, v = random_qkv(1, 1, 1, seqlen_q, seqlen_k, 16, torch.float16, requires_grad=False)
    out = flashio.attention(q, k, v, is_causal=causal)
    ref32 = flashio.attention_reference(q.float(), k.float(), v.float(), causal=causal)
    ref_lp = flashio.attention_reference(q, k, v, causal=causal, upcast=False)
    assert_close_to_reference(out, ref32, ref_lp, OUTPUT_FACTOR)
