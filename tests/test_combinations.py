"""Features combined: causal x GQA x varlen x dropout x block-sparse x deterministic backward.

Six cases cover every pair of features on and off (a pairwise covering array), including all of them at
once; each is checked forward and backward against the reference given the same block mask and the
dropout keep-mask the kernels report."""

import pytest
import torch

import flashio
from helpers import (
    DEVICE, assert_result_close, cu_seqlens, keep_mask_from_probs, random_packed, random_qkv,
    references, run_with_grads, varlen_references,
)

FEATURES = ("causal", "gqa", "varlen", "dropout", "block_sparse", "deterministic")
CASES = [
    (1, 1, 1, 1, 1, 1),
    (0, 0, 0, 0, 0, 0),
    (0, 0, 0, 1, 1, 1),
    (0, 1, 1, 0, 0, 1),
    (1, 0, 1, 0, 1, 0),
    (1, 1, 0, 1, 0, 0),
]


def case_id(case):
    return "-".join(name for name, on in zip(FEATURES, case) if on) or "plain"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_feature_combination_matches_reference(case):
    causal, gqa, varlen, dropout, block_sparse, deterministic = map(bool, case)
    heads, kv_heads, head_dim, dtype = 2, (1 if gqa else 2), 32, torch.float16
    # Packed: three sequences, one without queries, one with more queries than keys; fixed: 2 x (40, 50).
    lengths_q, lengths_k = [40, 0, 23], [33, 7, 50]
    batch, max_q, max_k = (len(lengths_q) if varlen else 2), 40, 50
    block_size = (16, 32)
    mask = None
    if block_sparse:
        mask = torch.rand(batch, heads, -(-max_q // 16), -(-max_k // 32), device=DEVICE) < 0.6
    p = 0.2 if dropout else 0.0
    options = dict(dropout_p=p, causal=causal, deterministic=deterministic, return_attn_probs=True,
                   block_mask=mask, block_size=block_size)
    reported = {}

    if varlen:
        q = random_packed(lengths_q, heads, head_dim, dtype)
        k, v = (random_packed(lengths_k, kv_heads, head_dim, dtype) for _ in range(2))
        cu_q, cu_k = cu_seqlens(lengths_q), cu_seqlens(lengths_k)

        def run(q, k, v):
            out, _, reported["probs"] = flashio.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max_q, max_k, **options)
            return out
    else:
        q, k, v = random_qkv(batch, heads, kv_heads, max_q, max_k, head_dim, dtype)

        def run(q, k, v):  # flash-attn's (B, N, H, d) layout through transposed views
            out, _, reported["probs"] = flashio.flash_attn_func(
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), **options)
            return out.transpose(1, 2)

    result, dout = run_with_grads(run, q, k, v)
    keep = keep_mask_from_probs(reported["probs"]) if dropout else None
    if varlen:
        ref32, ref_lp = varlen_references(q, k, v, dout, cu_q, cu_k, causal=causal, dropout_p=p, keep=keep,
                                          block_mask=mask, block_size=block_size)
    else:
        ref32, ref_lp = references(q, k, v, dout, causal=causal, dropout_p=p, dropout_mask=keep,
                                   block_mask=mask, block_size=block_size)
    assert_result_close(result, ref32, ref_lp)
