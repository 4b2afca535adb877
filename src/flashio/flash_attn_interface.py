"""flash-attn-compatible functions: same names, argument names, defaults, layouts and returns.

Code written for ``flash_attn`` runs by changing its import to ``from flashio import flash_attn_func``
(and friends). Layouts are flash-attn's: (batch, seqlen, heads, head_dim) for fixed-length batches and
(total_tokens, heads, head_dim) with ``cu_seqlens`` (int32, batch+1) for packed variable-length ones.
Packed q/k/v tensors are split into views, never copied.

Returns: ``out``; with ``return_attn_probs=True``, ``(out, softmax_lse, S_dmask)`` where softmax_lse is
float32 (batch, heads, seqlen_q) — (heads, total_q) for varlen — and S_dmask holds the attention
probabilities (batch, heads, seqlen_q, seqlen_k), entries removed by dropout negated (testing only:
it materialises N x N).

Arguments flashio does not support yet (``window_size`` other than (-1, -1), ``softcap``,
``alibi_slopes``, ``block_table``) raise ``NotImplementedError`` naming them. flashio extensions,
keyword-only: ``block_mask`` and ``block_size`` (block-sparse attention).
"""

from __future__ import annotations

from typing import Optional

import torch

from flashio import validation
from flashio.api import run_attention


def _finish(result, return_attn_probs: bool):
    if return_attn_probs:
        return result
    return result[0]


def _split_packed(name: str, packed, rank: int, axis: int, parts: int, layout_doc: str):
    if not isinstance(packed, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(packed).__name__}")
    if packed.dim() != rank or packed.shape[axis] != parts:
        raise ValueError(f"{name}: expected shape {layout_doc}, got {tuple(packed.shape)}")
    return packed.unbind(dim=axis)


def flash_attn_func(
    q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
    alibi_slopes=None, deterministic=False, return_attn_probs=False, *, block_mask=None,
    block_size=(128, 128),
):
    """q: (batch, seqlen_q, nheads, d); k, v: (batch, seqlen_k, nheads_k, d); nheads % nheads_k == 0."""
    validation.reject_unsupported(window_size=window_size, softcap=softcap, alibi_slopes=alibi_slopes)
    result = run_attention(
        q, k, v, layout="bnhd", softmax_scale=softmax_scale, causal=causal, dropout_p=dropout_p,
        deterministic=deterministic, block_mask=block_mask,
        block_size=validation.check_block_size(block_size) if block_mask is not None else (128, 128),
        return_probs=return_attn_probs,
    )
    return _finish(result, return_attn_probs)


def flash_attn_qkvpacked_func(
    qkv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
    alibi_slopes=None, deterministic=False, return_attn_probs=False,
):
    """qkv: (batch, seqlen, 3, nheads, d)."""
    validation.reject_unsupported(window_size=window_size, softcap=softcap, alibi_slopes=alibi_slopes)
    q, k, v = _split_packed("qkv", qkv, 5, 2, 3, "(batch, seqlen, 3, nheads, head_dim)")
    result = run_attention(
        q, k, v, layout="bnhd", names=("qkv[:, :, 0]", "qkv[:, :, 1]", "qkv[:, :, 2]"),
        softmax_scale=softmax_scale, causal=causal, dropout_p=dropout_p, deterministic=deterministic,
        return_probs=return_attn_probs,
    )
    return _finish(result, return_attn_probs)


def flash_attn_kvpacked_func(
    q, kv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
    alibi_slopes=None, deterministic=False, return_attn_probs=False,
):
    """q: (batch, seqlen_q, nheads, d); kv: (batch, seqlen_k, 2, nheads_k, d)."""
    validation.reject_unsupported(window_size=window_size, softcap=softcap, alibi_slopes=alibi_slopes)
    k, v = _split_packed("kv", kv, 5, 2, 2, "(batch, seqlen_k, 2, nheads_k, head_dim)")
    result = run_attention(
        q, k, v, layout="bnhd", names=("q", "kv[:, :, 0]", "kv[:, :, 1]"),
        softmax_scale=softmax_scale, causal=causal, dropout_p=dropout_p, deterministic=deterministic,
        return_probs=return_attn_probs,
    )
    return _finish(result, return_attn_probs)


def flash_attn_varlen_func(
    q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0, softmax_scale=None,
    causal=False, window_size=(-1, -1), softcap=0.0, alibi_slopes=None, deterministic=False,
    return_attn_probs=False, block_table=None, *, block_mask=None, block_size=(128, 128),
):
    """q: (total_q, nheads, d); k, v: (total_k, nheads_k, d); cu_seqlens_*: int32 (batch+1,)."""
    validation.reject_unsupported(window_size=window_size, softcap=softcap, alibi_slopes=alibi_slopes,
                                  block_table=block_table)
    result = run_attention(
        q, k, v, layout="thd", softmax_scale=softmax_scale, causal=causal, dropout_p=dropout_p,
        deterministic=deterministic, cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
        max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k, block_mask=block_mask,
        block_size=validation.check_block_size(block_size) if block_mask is not None else (128, 128),
        return_probs=return_attn_probs,
    )
    return _finish(result, return_attn_probs)


def flash_attn_varlen_qkvpacked_func(
    qkv, cu_seqlens, max_seqlen, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
    softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False,
):
    """qkv: (total, 3, nheads, d); cu_seqlens: int32 (batch+1,)."""
    validation.reject_unsupported(window_size=window_size, softcap=softcap, alibi_slopes=alibi_slopes)
    q, k, v = _split_packed("qkv", qkv, 4, 1, 3, "(total_tokens, 3, nheads, head_dim)")
    result = run_attention(
        q, k, v, layout="thd", names=("qkv[:, 0]", "qkv[:, 1]", "qkv[:, 2]"),
        softmax_scale=softmax_scale, causal=causal, dropout_p=dropout_p, deterministic=deterministic,
        cu_seqlens_q=cu_seqlens, cu_seqlens_k=cu_seqlens, max_seqlen_q=max_seqlen, max_seqlen_k=max_seqlen,
        return_probs=return_attn_probs,
    )
    return _finish(result, return_attn_probs)


def flash_attn_varlen_kvpacked_func(
    q, kv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0, softmax_scale=None,
    causal=False, window_size=(-1, -1), softcap=0.0, alibi_slopes=None, deterministic=False,
    return_attn_probs=False,
):
    """q: (total_q, nheads, d); kv: (total_k, 2, nheads_k, d)."""
    validation.reject_unsupported(window_size=window_size, softcap=softcap, alibi_slopes=alibi_slopes)
    k, v = _split_packed("kv", kv, 4, 1, 2, "(total_k, 2, nheads_k, head_dim)")
    result = run_attention(
        q, k, v, layout="thd", names=("q", "kv[:, 0]", "kv[:, 1]"),
        softmax_scale=softmax_scale, causal=causal, dropout_p=dropout_p, deterministic=deterministic,
        cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k, max_seqlen_q=max_seqlen_q,
        max_seqlen_k=max_seqlen_k, return_probs=return_attn_probs,
    )
    return _finish(result, return_attn_probs)
