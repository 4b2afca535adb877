"""The public API: flashio.attention as a drop-in for F.scaled_dot_product_attention, and the
flash-attn-compatible functions (layouts, packed variants, return conventions, S_dmask)."""

import inspect
import math

import pytest
import torch
import torch.nn.functional as F

import flashio
from flashio.reference import causal_visibility
from helpers import DEVICE, random_qkv, run_with_grads

# float32 inputs run flashio's exact float32 path; against PyTorch's float32 SDPA only the summation
# order differs (see helpers.default_floor): 1e-5 absolute at unit-variance magnitudes.
FP32_TOLERANCE = dict(rtol=0, atol=1e-5)


def assert_same_results(a, b, **tolerance):
    torch.testing.assert_close(a.out, b.out, **tolerance)
    for x, y in zip(a.grads, b.grads):
        torch.testing.assert_close(x, y, **tolerance)


@pytest.mark.parametrize("is_causal", [False, True], ids=["full", "causal"])
def test_attention_is_a_drop_in_for_scaled_dot_product_attention(is_causal):
    q, k, v = random_qkv(2, 2, 2, 48, 48, 32, torch.float32)
    # The same positional arguments: (query, key, value, attn_mask, dropout_p, is_causal).
    ours, dout = run_with_grads(lambda q, k, v: flashio.attention(q, k, v, None, 0.0, is_causal), q, k, v)
    sdpa, _ = run_with_grads(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, None, 0.0, is_causal),
                             q, k, v, dout)
    assert_same_results(ours, sdpa, **FP32_TOLERANCE)


def test_attention_scale_and_enable_gqa_match_scaled_dot_product_attention():
    q, k, v = random_qkv(1, 4, 2, 40, 56, 16, torch.float32)
    ours, dout = run_with_grads(lambda q, k, v: flashio.attention(q, k, v, scale=0.3, enable_gqa=True), q, k, v)
    sdpa, _ = run_with_grads(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.3, enable_gqa=True),
                             q, k, v, dout)
    assert_same_results(ours, sdpa, **FP32_TOLERANCE)


def test_causal_keyword_is_is_causal():
    q, k, v = random_qkv(1, 2, 2, 30, 40, 16, torch.float16, requires_grad=False)
    assert torch.equal(flashio.attention(q, k, v, causal=True), flashio.attention(q, k, v, is_causal=True))


def test_default_scale_is_one_over_square_root_of_head_dim():
    q, k, v = random_qkv(1, 2, 2, 30, 40, 24, torch.float16, requires_grad=False)
    assert torch.equal(flashio.attention(q, k, v), flashio.attention(q, k, v, scale=1 / math.sqrt(24)))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
def test_outputs_keep_the_input_dtype_and_lse_is_float32_batch_heads_seqlen(dtype):
    q, k, v = random_qkv(2, 2, 1, 20, 30, 16, dtype, requires_grad=False)
    out, lse = flashio.attention(q, k, v, return_lse=True)
    assert out.dtype == dtype and out.shape == q.shape
    assert lse.dtype == torch.float32 and lse.shape == (2, 2, 20)
    single = flashio.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
    assert isinstance(single, torch.Tensor) and single.shape == (2, 20, 2, 16)


def test_flash_attn_func_takes_batch_seqlen_heads_layout():
    q, k, v = random_qkv(2, 2, 1, 33, 47, 16, torch.float16)
    ours, dout = run_with_grads(
        lambda q, k, v: flashio.flash_attn_func(q, k, v, softmax_scale=0.2, causal=True, deterministic=True),
        *(t.detach().transpose(1, 2).contiguous().requires_grad_() for t in (q, k, v)))
    sdpa_layout, _ = run_with_grads(
        lambda q, k, v: flashio.attention(q, k, v, scale=0.2, is_causal=True, deterministic=True).transpose(1, 2),
        q, k, v, dout)
    # The same values through the same kernels in two layouts: bitwise equal.
    assert torch.equal(ours.out, sdpa_layout.out)
    for a, b in zip(ours.grads, sdpa_layout.grads):
        assert torch.equal(a, b.transpose(1, 2))


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_qkvpacked_func_equals_flash_attn_func(causal):
    qkv = torch.randn(2, 37, 3, 2, 16, device=DEVICE).to(torch.float16).requires_grad_()
    out = flashio.flash_attn_qkvpacked_func(qkv, causal=causal, deterministic=True)
    dout = torch.randn_like(out)
    (dqkv,) = torch.autograd.grad(out, (qkv,), dout)
    split, _ = run_with_grads(
        lambda q, k, v: flashio.flash_attn_func(q, k, v, causal=causal, deterministic=True),
        *(qkv.detach()[:, :, i].clone().requires_grad_() for i in range(3)), dout)
    # Only the strides differ: bitwise equal.
    assert torch.equal(out, split.out)
    assert torch.equal(dqkv, torch.stack(split.grads, dim=2))


def test_kvpacked_func_with_grouped_heads_equals_flash_attn_func():
    q = torch.randn(2, 29, 4, 16, device=DEVICE).to(torch.bfloat16).requires_grad_()
    kv = torch.randn(2, 41, 2, 1, 16, device=DEVICE).to(torch.bfloat16).requires_grad_()
    out = flashio.flash_attn_kvpacked_func(q, kv, causal=True, deterministic=True)
    dout = torch.randn_like(out)
    dq, dkv = torch.autograd.grad(out, (q, kv), dout)
    split, _ = run_with_grads(
        lambda q, k, v: flashio.flash_attn_func(q, k, v, causal=True, deterministic=True),
        q, *(kv.detach()[:, :, i].clone().requires_grad_() for i in range(2)), dout)
    # Only the strides differ: bitwise equal.
    assert torch.equal(out, split.out)
    assert torch.equal(dq, split.grads[0])
    assert torch.equal(dkv, torch.stack(split.grads[1:], dim=2))


@pytest.mark.parametrize("dropout_p", [0.0, 0.3], ids=["no_dropout", "dropout"])
def test_return_attn_probs_gives_out_lse_and_probabilities_whose_rows_sum_to_one(dropout_p):
    batch, heads, seqlen_q, seqlen_k = 2, 2, 40, 25  # causal: the first 15 rows see no key
    q, k, v = random_qkv(batch, heads, heads, seqlen_q, seqlen_k, 16, torch.float16, requires_grad=False)
    out, lse, s_dmask = flashio.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                dropout_p=dropout_p, causal=True, return_attn_probs=True)
    assert out.shape == (batch, seqlen_q, heads, 16)
    assert lse.shape == (batch, heads, seqlen_q) and lse.dtype == torch.float32
    assert s_dmask.shape == (batch, heads, seqlen_q, seqlen_k)
    visible = causal_visibility(seqlen_q, seqlen_k, DEVICE)
    assert torch.equal(s_dmask[..., ~visible], torch.zeros_like(s_dmask[..., ~visible]))
    row_sums = s_dmask.float().abs().sum(-1)
    seen = visible.any(-1)
    # Each entry is a probability rounded to float16 (relative error <= 2**-11 = eps/2), so a row of
    # positive entries summing to 1 sums to within eps/2 of 1; 1e-5 more for the float32 exp and LSE.
    tolerance = torch.finfo(torch.float16).eps / 2 + 1e-5
    assert (row_sums[..., seen] - 1).abs().max().item() <= tolerance
    assert torch.equal(row_sums[..., ~seen], torch.zeros_like(row_sums[..., ~seen]))


def test_probabilities_without_dropout_are_the_softmax_of_the_scores():
    q, k, v = random_qkv(1, 2, 2, 30, 45, 16, torch.float32, requires_grad=False)
    _, _, s_dmask = flashio.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                            causal=True, return_attn_probs=True)
    scores = (q @ k.transpose(-1, -2)) / 4.0
    expected = scores.masked_fill(~causal_visibility(30, 45, DEVICE), float("-inf")).softmax(-1)
    torch.testing.assert_close(s_dmask, expected, **FP32_TOLERANCE)


def test_varlen_attention_probabilities_are_padded_to_the_maximum_lengths():
    lengths_q, lengths_k = [5, 12], [9, 3]
    q = torch.randn(17, 2, 16, device=DEVICE).to(torch.float16)
    k, v = (torch.randn(12, 2, 16, device=DEVICE).to(torch.float16) for _ in range(2))
    cu_q = torch.tensor([0, 5, 17], dtype=torch.int32, device=DEVICE)
    cu_k = torch.tensor([0, 9, 12], dtype=torch.int32, device=DEVICE)
    out, lse, s_dmask = flashio.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 12, 9, return_attn_probs=True)
    assert out.shape == q.shape and lse.shape == (2, 17) and s_dmask.shape == (2, 2, 12, 9)
    for b, (len_q, len_k) in enumerate(zip(lengths_q, lengths_k)):
        inside = s_dmask[b, :, :len_q, :len_k]
        # Probabilities rounded to float16: a row sums to within eps/2 of 1 (see the test above).
        assert (inside.float().sum(-1) - 1).abs().max().item() <= torch.finfo(torch.float16).eps / 2 + 1e-5
        assert s_dmask[b, :, len_q:].abs().sum() == 0 and s_dmask[b, :, :, len_k:].abs().sum() == 0


_FLASH_OPTIONS = [("dropout_p", 0.0), ("softmax_scale", None), ("causal", False), ("window_size", (-1, -1)),
                  ("softcap", 0.0), ("alibi_slopes", None), ("deterministic", False), ("return_attn_probs", False)]
_REQUIRED = inspect.Parameter.empty
FLASH_ATTN_SIGNATURES = {  # flash-attn 2.x: names, order and defaults of the positional-or-keyword parameters
    "flash_attn_func": [("q", _REQUIRED), ("k", _REQUIRED), ("v", _REQUIRED)] + _FLASH_OPTIONS,
    "flash_attn_qkvpacked_func": [("qkv", _REQUIRED)] + _FLASH_OPTIONS,
    "flash_attn_kvpacked_func": [("q", _REQUIRED), ("kv", _REQUIRED)] + _FLASH_OPTIONS,
    "flash_attn_varlen_func": [(n, _REQUIRED) for n in ("q", "k", "v", "cu_seqlens_q", "cu_seqlens_k",
                                                        "max_seqlen_q", "max_seqlen_k")]
    + _FLASH_OPTIONS + [("block_table", None)],
    "flash_attn_varlen_qkvpacked_func": [(n, _REQUIRED) for n in ("qkv", "cu_seqlens", "max_seqlen")]
    + _FLASH_OPTIONS,
    "flash_attn_varlen_kvpacked_func": [(n, _REQUIRED) for n in ("q", "kv", "cu_seqlens_q", "cu_seqlens_k",
                                                                 "max_seqlen_q", "max_seqlen_k")] + _FLASH_OPTIONS,
}


def _positional(function):
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()
            if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD]


@pytest.mark.parametrize("name", sorted(FLASH_ATTN_SIGNATURES))
def test_flash_attn_functions_have_flash_attn_argument_names_order_and_defaults(name):
    assert _positional(getattr(flashio, name)) == FLASH_ATTN_SIGNATURES[name]


def test_attention_has_scaled_dot_product_attention_positional_arguments():
    assert _positional(flashio.attention) == [
        ("query", _REQUIRED), ("key", _REQUIRED), ("value", _REQUIRED), ("attn_mask", None), ("dropout_p", 0.0),
        ("is_causal", False), ("scale", None), ("enable_gqa", False)]


def test_reference_with_scores_scaled_after_the_product_computes_the_same_attention():
    # Algorithm 0's order (scale the N×N scores) versus scaling Q first: the same function, different
    # rounding; in float32 they agree to float32 rounding of values of magnitude ~1.
    q, k, v = (torch.randn(2, 3, 37, 16) for _ in range(3))
    scaled_after = flashio.attention_reference(q, k, v, causal=True, scale_scores=True)
    scaled_before = flashio.attention_reference(q, k, v, causal=True)
    assert torch.allclose(scaled_after, scaled_before, atol=1e-5, rtol=0)


@pytest.mark.parametrize("requires_grad", [True, False])
def test_the_forward_tells_the_launcher_whether_a_backward_follows(monkeypatch, requires_grad):
    # A first call may compile the backward's kernels with its own (launch_plans.COMPILE_BACKWARD_WITH_FORWARD),
    # but only when an input requires grad: inference calls never compile a backward.
    from flashio import launchers

    seen = []
    forward = launchers.attention_forward

    def recording(*args, **options):
        seen.append(options.get("backward_follows"))
        return forward(*args, **options)

    monkeypatch.setattr(launchers, "attention_forward", recording)
    q, k, v = (torch.randn(1, 2, 16, 8, requires_grad=requires_grad) for _ in range(3))
    flashio.attention(q, k, v)
    assert seen == [{"deterministic": False} if requires_grad else None]


def test_the_backward_is_given_no_zero_gradient_for_the_log_sum_exp(monkeypatch):
    # LSE takes no gradient (non-differentiable): autograd would otherwise fill a zero tensor for it every backward.
    from flashio import autograd

    received = []
    backward = autograd.FlashAttentionFunction.backward

    def recording(ctx, grad_out, grad_lse):
        received.append(grad_lse)
        return backward(ctx, grad_out, grad_lse)

    monkeypatch.setattr(autograd.FlashAttentionFunction, "backward", staticmethod(recording))
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 16, 8, requires_grad=True) for _ in range(3))
    flashio.attention(q, k, v).sum().backward()
    assert received == [None] and q.grad is not None


def test_a_backward_that_reaches_no_output_gradient_returns_no_input_gradients():
    from flashio import autograd

    assert autograd.FlashAttentionFunction.backward(None, None, None) == (None,) * 5
