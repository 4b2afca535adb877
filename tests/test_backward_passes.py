"""The dK/dV kernel run as two passes (a dV pass, then a dK pass that also adds dQ) gives the same
gradients as the one-pass kernel and the reference, with every feature that touches the backward:
causal masking, GQA, dropout (the mask regenerated identically in both passes), block-sparse lists,
packed sequences, and both dQ strategies. On a GPU the two-pass form competes in the tuned choice at d=256;
here the interpreter's fixed dK/dV configuration is switched to it."""

import dataclasses

import pytest
import torch

import flashio
from flashio import configs
from helpers import (assert_result_close, check_against_reference, cu_seqlens, keep_mask_from_probs,
                     random_packed, random_qkv, references, run_with_grads, varlen_references)


@pytest.fixture(autouse=True)
def two_pass_dkdv(monkeypatch):
    monkeypatch.setattr(configs, "INTERPRETER_BACKWARD_DKDV",
                        dataclasses.replace(configs.INTERPRETER_BACKWARD_DKDV, passes=2))


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic_dq", "separate_dq"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_two_pass_backward_matches_reference_with_gqa(deterministic, causal):
    torch.manual_seed(7)
    q, k, v = random_qkv(2, 4, 2, 45, 70, 32, torch.bfloat16)
    check_against_reference(
        lambda q, k, v: flashio.attention(q, k, v, is_causal=causal, enable_gqa=True, deterministic=deterministic),
        q, k, v, causal=causal)


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic_dq", "separate_dq"])
def test_two_pass_backward_regenerates_the_forward_dropout_mask_in_both_passes(deterministic):
    # The reference given the keep-mask the forward reported must match all three gradients: dV (first
    # pass) and dK, dQ (second pass) each regenerated the same mask.
    torch.manual_seed(8)
    q, k, v = random_qkv(1, 2, 2, 40, 56, 16, torch.float16)
    outputs = {}

    def run(q, k, v):
        out, _, s_dmask = flashio.flash_attn_func(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), dropout_p=0.3, causal=True,
            deterministic=deterministic, return_attn_probs=True)
        outputs["keep"] = keep_mask_from_probs(s_dmask)
        return out.transpose(1, 2)

    result, dout = run_with_grads(run, q, k, v)
    ref32, ref_lp = references(q, k, v, dout, causal=True, dropout_p=0.3, dropout_mask=outputs["keep"])
    assert_result_close(result, ref32, ref_lp)


def test_two_pass_backward_skips_zero_blocks_of_a_block_sparse_mask():
    torch.manual_seed(9)
    q, k, v = random_qkv(1, 2, 2, 64, 64, 16, torch.bfloat16)
    block_mask = torch.tensor([[1, 0], [1, 1]], dtype=torch.bool, device=q.device)[None, None]
    check_against_reference(
        lambda q, k, v: flashio.attention(q, k, v, block_mask=block_mask, block_size=(32, 32)),
        q, k, v, block_mask=block_mask, block_size=(32, 32))


def test_two_pass_backward_handles_packed_sequences_with_an_empty_one():
    torch.manual_seed(10)
    lengths = [5, 0, 33, 17]
    cu = cu_seqlens(lengths)
    q, k, v = (random_packed(lengths, heads, 32, torch.float16) for heads in (4, 2, 2))
    result, dout = run_with_grads(
        lambda q, k, v: flashio.flash_attn_varlen_func(q, k, v, cu, cu, max(lengths), max(lengths), causal=True),
        q, k, v)
    ref32, ref_lp = varlen_references(q, k, v, dout, cu, cu, causal=True)
    assert_result_close(result, ref32, ref_lp)
