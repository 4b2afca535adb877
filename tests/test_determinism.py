"""deterministic=True: a bitwise-identical backward across runs (dQ without atomics), still correct; the
default (atomic dQ) backward is correct too."""

import pytest
import torch

import flashio
from helpers import check_against_reference, random_qkv, run_with_grads


@pytest.mark.parametrize("kv_heads,causal,dropout_p", [(4, False, 0.0), (2, True, 0.0), (1, True, 0.2)],
                         ids=["mha-full", "gqa-causal", "mqa-causal-dropout"])
def test_deterministic_backward_is_bitwise_identical_across_runs(kv_heads, causal, dropout_p):
    q, k, v = random_qkv(1, 4, kv_heads, 40, 56, 16, torch.float16)

    def run(q, k, v):
        return flashio.attention(q, k, v, dropout_p=dropout_p, is_causal=causal, deterministic=True)

    torch.manual_seed(3)  # the dropout seed
    first, dout = run_with_grads(run, q, k, v)
    torch.manual_seed(3)
    second, _ = run_with_grads(run, q, k, v, dout)
    assert torch.equal(first.out, second.out)
    for name, a, b in zip(("dq", "dk", "dv"), first.grads, second.grads):
        assert torch.equal(a, b), f"{name} differs between two deterministic runs"


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic_dq", "deterministic"])
@pytest.mark.parametrize("kv_heads", [2, 1], ids=["gqa", "mqa"])
@pytest.mark.parametrize("seqlen_q,seqlen_k", [(50, 35), (35, 50)])
def test_both_backward_modes_match_reference(deterministic, kv_heads, seqlen_q, seqlen_k):
    q, k, v = random_qkv(1, 2, kv_heads, seqlen_q, seqlen_k, 32, torch.bfloat16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=True, deterministic=deterministic),
                            q, k, v, causal=True)
