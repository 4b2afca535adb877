"""Packed variable-length batches (cu_seqlens): equal to attending within each sequence separately,
through all three varlen functions; zero-length sequences; the packed LSE layout."""

import pytest
import torch

import flashio
from helpers import (
    DEVICE, LOW_PRECISION, assert_result_close, cu_seqlens, random_packed, run_with_grads, sequence_bhnd,
    varlen_references,
)

# Lengths that are not multiples of any tile size, a sequence of length 0 and one of length 1.
LENGTHS_Q = [37, 0, 16, 1, 29]
LENGTHS_K = [45, 9, 16, 20, 3]


def varlen(cu_q, cu_k, max_q, max_k, **kwargs):
    return lambda q, k, v: flashio.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max_q, max_k, **kwargs)


def check_varlen(lengths_q, lengths_k, heads, kv_heads, dtype, causal, head_dim=32):
    q = random_packed(lengths_q, heads, head_dim, dtype)
    k, v = (random_packed(lengths_k, kv_heads, head_dim, dtype) for _ in range(2))
    cu_q, cu_k = cu_seqlens(lengths_q), cu_seqlens(lengths_k)
    result, dout = run_with_grads(varlen(cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal), q, k, v)
    ref32, ref_lp = varlen_references(q, k, v, dout, cu_q, cu_k, causal=causal)
    assert_result_close(result, ref32, ref_lp)
    return result


@pytest.mark.parametrize("dtype", LOW_PRECISION, ids=str)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_varlen_equals_attention_within_each_sequence(dtype, causal):
    check_varlen(LENGTHS_Q, LENGTHS_K, 2, 2, dtype, causal)


@pytest.mark.parametrize("kv_heads", [2, 1], ids=["gqa", "mqa"])
def test_varlen_with_grouped_query_heads_equals_attention_within_each_sequence(kv_heads):
    check_varlen(LENGTHS_Q, LENGTHS_K, 4, kv_heads, torch.float16, causal=True)


def test_varlen_sequence_with_no_keys_outputs_zero_with_lse_minus_inf_and_zero_gradients():
    lengths_q, lengths_k = [7, 12, 5], [10, 0, 6]
    q = random_packed(lengths_q, 2, 16, torch.float16)
    k, v = (random_packed(lengths_k, 2, 16, torch.float16) for _ in range(2))
    cu_q, cu_k = cu_seqlens(lengths_q), cu_seqlens(lengths_k)
    out, lse, _ = flashio.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 12, 10, return_attn_probs=True)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), torch.randn_like(out))
    rows = slice(7, 19)  # the second sequence
    assert torch.equal(out[rows], torch.zeros_like(out[rows]))
    assert torch.isneginf(lse[:, rows]).all()
    assert torch.equal(dq[rows], torch.zeros_like(dq[rows]))
    for t in (out, dq, dk, dv, lse[:, :7], lse[:, 19:]):
        assert torch.isfinite(t).all()


def test_varlen_batch_without_any_keys_outputs_zero():
    q = random_packed([4, 6], 2, 16, torch.float16)
    k, v = (random_packed([0, 0], 2, 16, torch.float16) for _ in range(2))
    out, lse, _ = flashio.flash_attn_varlen_func(q, k, v, cu_seqlens([4, 6]), cu_seqlens([0, 0]), 6, 0,
                                                 return_attn_probs=True)
    (dq,) = torch.autograd.grad(out, (q,), torch.randn_like(out))
    assert torch.equal(out, torch.zeros_like(out))
    assert torch.isneginf(lse).all()
    assert torch.equal(dq, torch.zeros_like(dq))


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_varlen_lse_is_heads_by_total_tokens_and_equals_each_sequence_lse(causal):
    q = random_packed(LENGTHS_Q, 2, 32, torch.float16, requires_grad=False)
    k, v = (random_packed(LENGTHS_K, 2, 32, torch.float16, requires_grad=False) for _ in range(2))
    cu_q, cu_k = cu_seqlens(LENGTHS_Q), cu_seqlens(LENGTHS_K)
    _, lse, _ = flashio.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(LENGTHS_Q), max(LENGTHS_K),
                                               causal=causal, return_attn_probs=True)
    assert lse.dtype == torch.float32 and lse.shape == (2, sum(LENGTHS_Q))
    for b in range(len(LENGTHS_Q)):
        _, ref_lse = flashio.attention_reference(sequence_bhnd(q, cu_q, b), sequence_bhnd(k, cu_k, b),
                                                 sequence_bhnd(v, cu_k, b), causal=causal, return_lse=True)
        # float32 LSE from the same inputs; only the summation order and exp2/log2 differ (~1e-6 relative).
        torch.testing.assert_close(lse[:, cu_q[b]:cu_q[b + 1]], ref_lse[0], rtol=1e-5, atol=1e-5)


def test_varlen_max_seqlen_may_exceed_the_longest_sequence():
    # max_seqlen only bounds the grid: a larger one changes nothing (same tiles, same order: bitwise).
    lengths_q, lengths_k = [21, 0, 5], [17, 3, 9]
    q = random_packed(lengths_q, 2, 16, torch.float16)
    k, v = (random_packed(lengths_k, 1, 16, torch.float16) for _ in range(2))
    cu_q, cu_k = cu_seqlens(lengths_q), cu_seqlens(lengths_k)
    tight, dout = run_with_grads(varlen(cu_q, cu_k, 21, 17, causal=True, deterministic=True), q, k, v)
    loose, _ = run_with_grads(varlen(cu_q, cu_k, 70, 40, causal=True, deterministic=True), q, k, v, dout)
    assert torch.equal(tight.out, loose.out)
    for a, b in zip(tight.grads, loose.grads):
        assert torch.equal(a, b)


def test_varlen_with_equal_lengths_equals_the_fixed_length_function():
    # Same sequences through the packed and the (B, N, H, d) layouts: same tiles, same order, bitwise.
    batch, seqlen = 2, 24
    q = random_packed([seqlen] * batch, 2, 16, torch.float16)
    k, v = (random_packed([seqlen] * batch, 2, 16, torch.float16) for _ in range(2))
    cu = cu_seqlens([seqlen] * batch)
    packed, dout = run_with_grads(varlen(cu, cu, seqlen, seqlen, causal=True, deterministic=True), q, k, v)
    fixed, _ = run_with_grads(
        lambda q, k, v: flashio.flash_attn_func(
            *(t.unflatten(0, (batch, seqlen)) for t in (q, k, v)), causal=True, deterministic=True
        ).flatten(0, 1), q, k, v, dout)
    assert torch.equal(packed.out, fixed.out)
    for a, b in zip(packed.grads, fixed.grads):
        assert torch.equal(a, b)


def test_varlen_qkvpacked_equals_unpacked_varlen():
    lengths = [21, 0, 16, 1]
    qkv = torch.randn(sum(lengths), 3, 2, 16, device=DEVICE).to(torch.float16).requires_grad_()
    cu = cu_seqlens(lengths)
    out = flashio.flash_attn_varlen_qkvpacked_func(qkv, cu, 21, causal=True, deterministic=True)
    dout = torch.randn_like(out)
    (dqkv,) = torch.autograd.grad(out, (qkv,), dout)
    unpacked, _ = run_with_grads(varlen(cu, cu, 21, 21, causal=True, deterministic=True),
                                 *(qkv.detach()[:, i].clone().requires_grad_() for i in range(3)), dout)
    # The same values through the same kernels; only the strides differ: bitwise equal.
    assert torch.equal(out, unpacked.out)
    assert torch.equal(dqkv, torch.stack(unpacked.grads, dim=1))


def test_varlen_kvpacked_equals_unpacked_varlen():
    lengths_q, lengths_k = [21, 0, 5], [17, 3, 9]
    q = random_packed(lengths_q, 2, 16, torch.bfloat16)
    kv = torch.randn(sum(lengths_k), 2, 1, 16, device=DEVICE).to(torch.bfloat16).requires_grad_()
    cu_q, cu_k = cu_seqlens(lengths_q), cu_seqlens(lengths_k)
    out = flashio.flash_attn_varlen_kvpacked_func(q, kv, cu_q, cu_k, 21, 17, causal=True, deterministic=True)
    dout = torch.randn_like(out)
    dq, dkv = torch.autograd.grad(out, (q, kv), dout)
    unpacked, _ = run_with_grads(varlen(cu_q, cu_k, 21, 17, causal=True, deterministic=True),
                                 q, *(kv.detach()[:, i].clone().requires_grad_() for i in range(2)), dout)
    # The same values through the same kernels; only the strides differ: bitwise equal.
    assert torch.equal(out, unpacked.out)
    assert torch.equal(dq, unpacked.grads[0])
    assert torch.equal(dkv, torch.stack(unpacked.grads[1:], dim=1))


def test_cu_seqlens_given_as_a_strided_view_equals_a_contiguous_one():
    q = random_packed([4, 6], 2, 16, torch.float16, requires_grad=False)
    k, v = (random_packed([4, 6], 2, 16, torch.float16, requires_grad=False) for _ in range(2))
    contiguous = cu_seqlens([4, 6])
    strided = torch.stack([contiguous, torch.full_like(contiguous, 7)], dim=1).flatten()[::2]  # [0, 4, 10]
    assert torch.equal(strided, contiguous) and strided.stride() == (2,)
    expected = flashio.flash_attn_varlen_func(q, k, v, contiguous, contiguous, 6, 6)
    assert torch.equal(flashio.flash_attn_varlen_func(q, k, v, strided, strided, 6, 6), expected)
