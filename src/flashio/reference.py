"""Standard attention in pure PyTorch: the oracle for tests and the baseline for benchmarks.

This is the paper's Algorithm 0: it materialises the N x N score and probability matrices,
S = tau Q K^T -> mask -> P = softmax(S) -> dropout -> O = P V, each step a separate PyTorch operation
(hence each one a trip of an N x N matrix through HBM on a GPU). Autograd gives its backward
(Algorithm 3).

Conventions shared with the kernels:
* layout (batch, heads, seqlen, head_dim), like ``F.scaled_dot_product_attention``;
* key/value heads may divide the query heads (MQA/GQA); here they are repeated, the kernels never copy;
* causal masking is aligned to the bottom-right corner: query i sees key j iff j <= i + Nk - Nq;
* a query row that sees no key outputs zeros and has log-sum-exp -inf.

``upcast`` and ``reorder_ops`` follow flash-attn's test reference: ``upcast=True`` computes in float32
(the high-precision reference), ``upcast=False`` in the input precision (what plain PyTorch would do);
``reorder_ops=True`` scales K instead of Q, to measure the rounding a different but equivalent order gives.
"""

from __future__ import annotations

import math
from typing import Optional

import torch

from flashio.block_sparse import expand_block_mask


def causal_visibility(seqlen_q: int, seqlen_k: int, device=None) -> torch.Tensor:
    """Bool (seqlen_q, seqlen_k): True where query i may see key j, i.e. j <= i + seqlen_k - seqlen_q."""
    rows = torch.arange(seqlen_q, device=device)[:, None]
    cols = torch.arange(seqlen_k, device=device)[None, :]
    return cols <= rows + (seqlen_k - seqlen_q)


def attention_reference(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    causal: bool = False,
    scale: Optional[float] = None,
    dropout_p: float = 0.0,
    dropout_mask: Optional[torch.Tensor] = None,
    block_mask: Optional[torch.Tensor] = None,
    block_size: tuple[int, int] = (128, 128),
    key_padding_mask: Optional[torch.Tensor] = None,
    upcast: bool = True,
    reorder_ops: bool = False,
    scale_scores: bool = False,
    return_lse: bool = False,
):
    """Materialising attention on (B, H, N, d) tensors.

    Args:
        q: (B, H, Nq, d); k, v: (B, Hkv, Nk, d) with H a multiple of Hkv.
        causal: bottom-right aligned causal mask.
        scale: tau, default 1/sqrt(d).
        dropout_p: probability of dropping an attention weight. With ``dropout_mask`` (bool, True = keep,
            broadcastable to (B, H, Nq, Nk)) that exact mask is used, else one is drawn with torch's RNG.
        block_mask: 0/1 (B|1, H|1, ceil(Nq/bm), ceil(Nk/bn)) block-sparse mask with ``block_size=(bm, bn)``.
        key_padding_mask: bool (B, Nk), True for real keys.
        upcast: compute in float32 (True) or in the input dtype (False).
        reorder_ops: scale K rather than Q (a different rounding of the same function).
        scale_scores: multiply the N×N scores by tau after Q Kᵀ, as the paper's Algorithm 0 does (one more
            pass over N×N on a GPU): the benchmarks' baseline, and the op chain the IO model counts.
        return_lse: also return the row log-sum-exp (B, H, Nq) in float32.
    Returns:
        out (B, H, Nq, d) in the input dtype, and lse if ``return_lse``.
    """
    dtype = q.dtype
    if upcast:
        q, k, v = q.float(), k.float(), v.float()
    heads, kv_heads = q.shape[1], k.shape[1]
    if heads != kv_heads:
        k = k.repeat_interleave(heads // kv_heads, dim=1)
        v = v.repeat_interleave(heads // kv_heads, dim=1)
    seqlen_q, seqlen_k, head_dim = q.shape[2], k.shape[2], q.shape[3]
    tau = 1.0 / math.sqrt(head_dim) if scale is None else scale
    if scale_scores:
        scores = (q @ k.transpose(-1, -2)) * tau
    elif reorder_ops:
        scores = q @ (k * tau).transpose(-1, -2)
    else:
        scores = (q * tau) @ k.transpose(-1, -2)

    # Build a mask only when there is one: the unmasked path is exactly the plain PyTorch sequence
    # matmul -> softmax -> matmul that benchmarks compare against.
    visible = None
    some_row_may_be_empty = False
    if causal:
        visible = causal_visibility(seqlen_q, seqlen_k, q.device)[None, None]
        some_row_may_be_empty = seqlen_q > seqlen_k
    if block_mask is not None:
        blocks = expand_block_mask(block_mask.to(q.device), *block_size, seqlen_q, seqlen_k)
        visible = blocks if visible is None else visible & blocks
        some_row_may_be_empty = True
    if key_padding_mask is not None:
        keys = key_padding_mask.to(device=q.device, dtype=torch.bool)[:, None, None, :]
        visible = keys if visible is None else visible & keys
        some_row_may_be_empty = True
    if visible is not None:
        scores = scores.masked_fill(~visible, float("-inf"))

    lse = torch.logsumexp(scores.float(), dim=-1) if return_lse else None
    probs = torch.softmax(scores, dim=-1)
    if some_row_may_be_empty:
        # Rows with no visible key give softmax(-inf, ..., -inf) = NaN: they attend to nothing. (A causal
        # row i sees key 0 whenever seqlen_q <= seqlen_k: no extra pass over P is needed then.)
        probs = probs.masked_fill(~visible.any(dim=-1, keepdim=True), 0.0)
    if dropout_p > 0.0:
        keep = dropout_mask if dropout_mask is not None else (torch.rand_like(probs, dtype=torch.float32) >= dropout_p)
        probs = probs.masked_fill(~keep, 0.0) / (1.0 - dropout_p)
    out = (probs.to(v.dtype) @ v).to(dtype)
    if return_lse:
        return out, lse
    return out
