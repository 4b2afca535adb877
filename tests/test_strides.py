"""Inputs with arbitrary strides (views of larger tensors, transposed layouts, expanded tensors) give the
same results as contiguous copies, and memory outside the views is never read.

Same values through the same kernels: only the addresses differ, so results are compared bitwise
(deterministic=True, so that dQ has a fixed summation order on every device)."""

import pytest
import torch

import flashio
from helpers import DEVICE, Result, random_qkv, run_with_grads


def attention(**kwargs):
    return lambda q, k, v: flashio.attention(q, k, v, deterministic=True, **kwargs)


def contiguous_leaves(*tensors):
    return [t.detach().contiguous().requires_grad_() for t in tensors]


def assert_same(a: Result, b: Result) -> None:
    assert torch.equal(a.out, b.out)
    for name, x, y in zip(("dq", "dk", "dv"), a.grads, b.grads):
        assert torch.equal(x, y), f"{name} differs"


def test_query_sliced_from_a_larger_tensor_equals_a_contiguous_copy():
    big = torch.randn(3, 4, 50, 40, device=DEVICE).to(torch.float16)
    q = big[1:3, 1:3, 7:37, 8:40].requires_grad_()  # strides of the big tensor, offset storage
    k, v = random_qkv(2, 2, 2, 30, 27, 32, torch.float16)[1:]
    view, dout = run_with_grads(attention(is_causal=True), q, k, v)
    copy, _ = run_with_grads(attention(is_causal=True), *contiguous_leaves(q, k, v), dout)
    assert not q.is_contiguous()
    assert_same(view, copy)


@pytest.mark.parametrize("kv_heads", [2, 1], ids=["gqa", "mqa"])
def test_transposed_batch_seqlen_heads_views_equal_contiguous_copies(kv_heads):
    # (B, N, H, d) storage seen as (B, H, N, d): the flash-attn layout passed to the SDPA-layout function.
    q = torch.randn(2, 30, 2, 16, device=DEVICE).to(torch.bfloat16).transpose(1, 2).requires_grad_()
    k, v = (torch.randn(2, 23, kv_heads, 16, device=DEVICE).to(torch.bfloat16).transpose(1, 2).requires_grad_()
            for _ in range(2))
    view, dout = run_with_grads(attention(), q, k, v)
    copy, _ = run_with_grads(attention(), *contiguous_leaves(q, k, v), dout)
    assert_same(view, copy)


def test_head_dim_with_a_stride_other_than_one_equals_a_contiguous_copy():
    q, k, v = (torch.randn(1, 2, 24, n, device=DEVICE).to(torch.float16).transpose(-1, -2).requires_grad_()
               for n in (30, 36, 36))
    view, dout = run_with_grads(attention(is_causal=True), q, k, v)
    copy, _ = run_with_grads(attention(is_causal=True), *contiguous_leaves(q, k, v), dout)
    assert q.stride(-1) != 1
    assert_same(view, copy)


def test_expanded_grad_out_gives_the_same_gradients_as_a_contiguous_one():
    # out.sum().backward() hands the backward an expanded tensor of ones (stride 0 everywhere).
    q, k, v = random_qkv(1, 2, 2, 40, 40, 16, torch.float16)
    out = flashio.attention(q, k, v, is_causal=True, deterministic=True)
    expanded = torch.autograd.grad(out.sum(), (q, k, v))
    materialised = torch.autograd.grad(flashio.attention(q, k, v, is_causal=True, deterministic=True),
                                       (q, k, v), torch.ones_like(out))
    for name, a, b in zip(("dq", "dk", "dv"), expanded, materialised):
        assert torch.equal(a, b), f"{name} differs"


def test_key_value_broadcast_over_the_batch_equal_materialised_copies():
    q = random_qkv(3, 2, 2, 30, 30, 16, torch.float16)[0]
    k1, v1 = random_qkv(1, 2, 2, 30, 30, 16, torch.float16)[1:]

    def broadcast(q, k1, v1):
        return flashio.attention(q, k1.expand(3, -1, -1, -1), v1.expand(3, -1, -1, -1), deterministic=True)

    expanded, dout = run_with_grads(broadcast, q, k1, v1)
    materialised, _ = run_with_grads(
        lambda q, k1, v1: flashio.attention(q, k1.repeat(3, 1, 1, 1), v1.repeat(3, 1, 1, 1), deterministic=True),
        q, k1, v1, dout)
    assert_same(expanded, materialised)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_memory_outside_the_views_is_never_read(causal):
    # q, k, v are views into NaN-filled buffers: extra rows past the sequence ends, extra columns past an
    # odd head_dim (40, padded to a 64-wide tile) and extra heads. A load that is not masked to the view
    # would bring NaN into the results.
    seqlen_q, seqlen_k, head_dim = 37, 45, 40
    q, k, v = random_qkv(1, 2, 2, seqlen_q, seqlen_k, head_dim, torch.float16, requires_grad=False)

    def embed(t):
        buffer = torch.full((1, 3, t.shape[2] + 40, 64), float("nan"), device=DEVICE, dtype=t.dtype)
        buffer[:, :2, :t.shape[2], :head_dim] = t
        return buffer[:, :2, :t.shape[2], :head_dim].requires_grad_()

    views = [embed(t) for t in (q, k, v)]
    view, dout = run_with_grads(attention(is_causal=causal), *views)
    copy, _ = run_with_grads(attention(is_causal=causal), *contiguous_leaves(q, k, v), dout)
    assert_same(view, copy)
