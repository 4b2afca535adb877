"""Block-sparse attention: equal to the reference with the same block mask (causal and not, broadcast over
batch and heads), empty mask rows, and evidence that zero blocks are never loaded."""

import pytest
import torch

import flashio
from helpers import (
    DEVICE, assert_result_close, check_against_reference, cu_seqlens, random_packed, random_qkv,
    run_with_grads, varlen_references,
)


def random_block_mask(shape, density=0.5):
    return torch.rand(shape, device=DEVICE) < density


def blocks(seqlen, block):
    return -(-seqlen // block)


def sparse_attention(block_mask, block_size, **kwargs):
    return lambda q, k, v: flashio.attention(q, k, v, block_mask=block_mask, block_size=block_size, **kwargs)


@pytest.mark.parametrize("block_size,seqlen_q,seqlen_k,causal", [
    ((16, 16), 70, 70, False),
    ((16, 16), 70, 70, True),
    ((32, 16), 100, 75, True),
    ((16, 32), 75, 100, True),
    ((64, 32), 100, 90, False),
    ((128, 64), 130, 90, True),
], ids=str)
def test_block_sparse_matches_reference_with_the_same_mask(block_size, seqlen_q, seqlen_k, causal):
    q, k, v = random_qkv(1, 2, 2, seqlen_q, seqlen_k, 32, torch.float16)
    mask = random_block_mask((1, 2, blocks(seqlen_q, block_size[0]), blocks(seqlen_k, block_size[1])))
    check_against_reference(sparse_attention(mask, block_size, is_causal=causal), q, k, v,
                            causal=causal, block_mask=mask, block_size=block_size)


@pytest.mark.parametrize("mask_batch,mask_heads", [(1, 1), (2, 1), (1, 2), (2, 2)])
def test_block_mask_broadcasts_over_batch_and_heads(mask_batch, mask_heads):
    block_size = (16, 16)
    q, k, v = random_qkv(2, 2, 2, 40, 40, 16, torch.float16)
    mask = random_block_mask((mask_batch, mask_heads, 3, 3))
    check_against_reference(sparse_attention(mask, block_size), q, k, v, block_mask=mask, block_size=block_size)


def test_block_sparse_with_grouped_query_heads_matches_reference():
    block_size = (32, 16)
    q, k, v = random_qkv(1, 4, 2, 50, 60, 16, torch.float16)
    mask = random_block_mask((1, 4, 2, 4))
    check_against_reference(sparse_attention(mask, block_size, is_causal=True), q, k, v,
                            causal=True, block_mask=mask, block_size=block_size)


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic_dq", "deterministic"])
def test_query_blocks_without_any_key_block_output_zero_with_lse_minus_inf_and_zero_gradients(deterministic):
    block_size = (16, 16)
    q, k, v = random_qkv(1, 2, 2, 48, 48, 16, torch.float16)
    mask = random_block_mask((1, 2, 3, 3), density=1.0)
    mask[:, :, 1] = False  # query block 1 (rows 16..31) attends to nothing
    out, lse = flashio.attention(q, k, v, block_mask=mask, block_size=block_size, deterministic=deterministic,
                                 return_lse=True)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), torch.randn_like(out))
    rows = slice(16, 32)
    assert torch.equal(out[:, :, rows], torch.zeros_like(out[:, :, rows]))
    assert torch.isneginf(lse[:, :, rows]).all()
    assert torch.equal(dq[:, :, rows], torch.zeros_like(dq[:, :, rows]))
    for t in (out, dq, dk, dv, lse[:, :, :16], lse[:, :, 32:]):
        assert torch.isfinite(t).all()


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic_dq", "deterministic"])
def test_zero_blocks_are_never_loaded(causal, deterministic):
    # Key blocks that no query block attends to hold NaN in K and V, and query blocks that attend to no
    # key block hold NaN in Q and dO. Had any of them been loaded into a computed tile, NaN would spread
    # (0 * NaN = NaN); skipped, the results equal those with finite values there.
    block_size, seqlen = (16, 16), 64
    q, k, v = random_qkv(2, 2, 2, seqlen, seqlen, 16, torch.float16, requires_grad=False)
    mask = random_block_mask((1, 2, 4, 4), density=1.0)
    mask[..., 1] = False  # key block 1 is never attended to
    mask[..., 2, :] = False  # query block 2 attends to nothing
    dout = torch.randn_like(q)
    keys, rows = slice(16, 32), slice(32, 48)

    def run(q, k, v, dout):
        q, k, v = (t.clone().requires_grad_() for t in (q, k, v))
        out = flashio.attention(q, k, v, block_mask=mask, block_size=block_size, is_causal=causal,
                                deterministic=deterministic)
        return (out, *torch.autograd.grad(out, (q, k, v), dout))

    clean = run(q, k, v, dout)
    poisoned_q, poisoned_k, poisoned_v, poisoned_dout = (t.clone() for t in (q, k, v, dout))
    poisoned_k[:, :, keys] = float("nan")
    poisoned_v[:, :, keys] = float("nan")
    poisoned_q[:, :, rows] = float("nan")
    poisoned_dout[:, :, rows] = float("nan")
    poisoned = run(poisoned_q, poisoned_k, poisoned_v, poisoned_dout)
    for name, a, b in zip(("out", "dq", "dk", "dv"), clean, poisoned):
        assert torch.equal(a, b), f"{name} changed when skipped blocks hold NaN"
    out, dq, dk, dv = poisoned
    assert torch.equal(dk[:, :, keys], torch.zeros_like(dk[:, :, keys]))
    assert torch.equal(dv[:, :, keys], torch.zeros_like(dv[:, :, keys]))
    assert torch.equal(dq[:, :, rows], torch.zeros_like(dq[:, :, rows]))
    assert torch.equal(out[:, :, rows], torch.zeros_like(out[:, :, rows]))


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_block_sparse_varlen_uses_the_blocks_of_each_sequence(causal):
    # For packed batches, block (r, c) of mask[b] covers query rows r*bm.. and keys c*bn.. of sequence b.
    block_size = (16, 16)
    lengths_q, lengths_k = [37, 0, 20], [30, 9, 41]
    q = random_packed(lengths_q, 2, 16, torch.float16)
    k, v = (random_packed(lengths_k, 2, 16, torch.float16) for _ in range(2))
    cu_q, cu_k = cu_seqlens(lengths_q), cu_seqlens(lengths_k)
    mask = random_block_mask((3, 2, blocks(37, 16), blocks(41, 16)), density=0.6)
    result, dout = run_with_grads(
        lambda q, k, v: flashio.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 37, 41, causal=causal,
                                                       block_mask=mask, block_size=block_size), q, k, v)
    ref32, ref_lp = varlen_references(q, k, v, dout, cu_q, cu_k, causal=causal, block_mask=mask,
                                      block_size=block_size)
    assert_result_close(result, ref32, ref_lp)
