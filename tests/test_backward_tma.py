"""The tensor-descriptor backward kernels (kernels/backward_tma.py) give the reference's gradients: the
dK/dV kernel with dQ reduce-added through a descriptor (the default strategy under the interpreter) and
the dK/dV + dQ kernel pair without atomics (``deterministic=True``). On a GPU they compete with the
portable kernels in the tuned choice; here FLASHIO_BACKWARD_PATH=tma forces them and the interpreter
emulates the descriptors (the reduce-add through flashio's interpreter shim)."""

import pytest
import torch

import flashio
from helpers import (check_against_reference, cu_seqlens, random_packed, random_qkv, run_with_grads,
                     assert_result_close, varlen_references)


@pytest.fixture(autouse=True)
def force_tma_backward(monkeypatch):
    monkeypatch.setenv("FLASHIO_BACKWARD_PATH", "tma")


@pytest.mark.parametrize("deterministic", [False, True], ids=["reduce_add_dq", "separate_dq"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("seqlen_q,seqlen_k", [(45, 70), (70, 45), (64, 64)])
def test_tma_backward_matches_reference_with_gqa(deterministic, causal, seqlen_q, seqlen_k):
    torch.manual_seed(4)
    q, k, v = random_qkv(2, 4, 2, seqlen_q, seqlen_k, 32, torch.bfloat16)
    check_against_reference(
        lambda q, k, v: flashio.attention(q, k, v, is_causal=causal, enable_gqa=True, deterministic=deterministic),
        q, k, v, causal=causal)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_tma_backward_matches_reference_for_each_half_precision(dtype):
    torch.manual_seed(5)
    q, k, v = random_qkv(1, 2, 2, 50, 50, 16, dtype)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=True), q, k, v, causal=True)


@pytest.mark.parametrize("deterministic", [False, True], ids=["reduce_add_dq", "separate_dq"])
def test_tma_backward_handles_packed_sequences_with_an_empty_one(deterministic):
    torch.manual_seed(6)
    lengths = [5, 0, 33, 17]
    cu = cu_seqlens(lengths)
    q, k, v = (random_packed(lengths, heads, 32, torch.float16) for heads in (4, 2, 2))

    def run(q, k, v):
        return flashio.flash_attn_varlen_func(q, k, v, cu, cu, max(lengths), max(lengths), causal=True,
                                              deterministic=deterministic)

    result, dout = run_with_grads(run, q, k, v)
    ref32, ref_lp = varlen_references(q, k, v, dout, cu, cu, causal=True)
    assert_result_close(result, ref32, ref_lp)
