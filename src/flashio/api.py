"""Public API: ``flashio.attention`` (PyTorch SDPA's layout) and the shared entry behind the
flash-attn-compatible functions (``flashio.flash_attn_interface``).

Every public function validates its arguments (``flashio.validation``), then calls one autograd function
whose kernels read any layout through strides: no input is copied or made contiguous.
"""

from __future__ import annotations

from typing import Optional

import torch

from flashio import launchers, validation
from flashio.autograd import AttentionOptions, FlashAttentionFunction, draw_dropout_seed
from flashio.block_sparse import BlockSparseIndex, expand_block_mask
from flashio.launchers import VarlenInfo
from flashio.reference import causal_visibility

_LAYOUT_DOCS = {
    "bhnd": ("(batch, heads, seqlen, head_dim)", 4),
    "bnhd": ("(batch, seqlen, heads, head_dim)", 4),
    "thd": ("(total_tokens, heads, head_dim)", 3),
}


def _axes(layout: str) -> dict[str, int]:
    """Which dimension holds batch / seqlen / heads / head_dim in a layout."""
    return {"bhnd": dict(batch=0, heads=1, seqlen=2, dim=3),
            "bnhd": dict(batch=0, seqlen=1, heads=2, dim=3),
            "thd": dict(seqlen=0, heads=1, dim=2)}[layout]


def run_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *,
    layout: str,
    names: tuple[str, str, str] = ("q", "k", "v"),
    softmax_scale: Optional[float] = None,
    scale_name: str = "softmax_scale",
    causal: bool = False,
    dropout_p: float = 0.0,
    deterministic: bool = False,
    cu_seqlens_q: Optional[torch.Tensor] = None,
    cu_seqlens_k: Optional[torch.Tensor] = None,
    max_seqlen_q: Optional[int] = None,
    max_seqlen_k: Optional[int] = None,
    block_mask: Optional[torch.Tensor] = None,
    block_size: tuple[int, int] = (128, 128),
    return_probs: bool = False,
):
    """Validate, then run exact attention. Returns (out, lse) or (out, lse, probs) with ``return_probs``.

    ``probs`` holds the attention probabilities softmax(tau Q K^T + mask) as (batch, heads, Nq, Nk)
    (padded to the maxima for packed batches), with the entries dropout removed negated.
    """
    layout_doc, rank = _LAYOUT_DOCS[layout]
    for name, t in zip(names, (q, k, v)):
        validation.check_tensor(name, t, rank, layout_doc)
    validation.check_same_dtype_and_device(list(zip(names, (q, k, v))))
    interpreter = launchers.interpreter_enabled()
    validation.check_runnable_device(names[0], q, interpreter)
    ax = _axes(layout)
    if k.shape != v.shape:
        raise ValueError(f"{names[2]}: expected the shape of {names[1]} {tuple(k.shape)}, got {tuple(v.shape)}")
    validation.check_head_dims(names[0], q.shape[ax["dim"]], [(names[1], k.shape[ax["dim"]])])
    validation.check_heads(q.shape[ax["heads"]], k.shape[ax["heads"]], names[1])
    if layout != "thd" and q.shape[0] != k.shape[0]:
        raise ValueError(f"{names[1]}: expected batch size {q.shape[0]} (as {names[0]}), got {k.shape[0]}")
    validation.check_bool("causal", causal)
    validation.check_bool("deterministic", deterministic)
    dropout_p = validation.check_dropout(dropout_p)
    scale = validation.check_scale(softmax_scale, q.shape[ax["dim"]], scale_name)

    varlen = None
    if layout == "thd":
        batch = validation.check_cu_seqlens("cu_seqlens_q", cu_seqlens_q, q.shape[0], None, q.device,
                                            max_seqlen_q, "max_seqlen_q")
        validation.check_cu_seqlens("cu_seqlens_k", cu_seqlens_k, k.shape[0], batch, q.device,
                                    max_seqlen_k, "max_seqlen_k")
        # The kernels read cu_seqlens[b] at offset b: a strided view is made contiguous (B+1 ints).
        varlen = VarlenInfo(cu_seqlens_q.contiguous(), cu_seqlens_k.contiguous(), int(max_seqlen_q),
                            int(max_seqlen_k))
        seqlen_q, seqlen_k = varlen.max_seqlen_q, varlen.max_seqlen_k
    else:
        batch = q.shape[0]
        seqlen_q, seqlen_k = q.shape[ax["seqlen"]], k.shape[ax["seqlen"]]

    sparse = None
    if block_mask is not None:
        block_m, block_n = validation.check_block_mask(block_mask, block_size, batch, q.shape[ax["heads"]],
                                                        seqlen_q, seqlen_k, q.device)
        shift = None if (varlen is not None or not causal) else seqlen_k - seqlen_q
        sparse = BlockSparseIndex.from_mask(block_mask, block_m, block_n, causal_shift=shift)

    options = AttentionOptions(layout, scale, causal, dropout_p, deterministic, varlen, sparse)
    seed = draw_dropout_seed() if dropout_p > 0 else 0
    if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
        out, lse = FlashAttentionFunction.apply(q, k, v, options, seed)
    else:
        # Inference: no graph to record, so skip autograd's per-call bookkeeping.
        out, lse = launchers.attention_forward(
            q, k, v, layout=layout, softmax_scale=scale, causal=causal, dropout_p=dropout_p, seed=seed,
            varlen=varlen, sparse=sparse)
    if not return_probs:
        return out, lse
    probs = _attention_probabilities(q, k, lse, options, seed, block_mask, block_size)
    return out, lse, probs


def _padded_bhnd(x: torch.Tensor, layout: str, varlen: Optional[VarlenInfo], which: str) -> torch.Tensor:
    """x as (batch, heads, seqlen, dim), zero-padded to the maximum length for packed batches."""
    if layout == "bhnd":
        return x
    if layout == "bnhd":
        return x.transpose(1, 2)
    cu = (varlen.cu_seqlens_q if which == "q" else varlen.cu_seqlens_k).tolist()
    longest = varlen.max_seqlen_q if which == "q" else varlen.max_seqlen_k
    padded = x.new_zeros((len(cu) - 1, x.shape[1], longest, x.shape[2]))
    for b in range(len(cu) - 1):
        padded[b, :, : cu[b + 1] - cu[b]] = x[cu[b]: cu[b + 1]].transpose(0, 1)
    return padded


def _attention_probabilities(q, k, lse, options: AttentionOptions, seed: int, block_mask, block_size):
    """Materialise P = exp(tau Q K^T - LSE) with the kernels' masks and dropout draw (small sizes only)."""
    with torch.no_grad():
        qb = _padded_bhnd(q, options.layout, options.varlen, "q").float()
        kb = _padded_bhnd(k, options.layout, options.varlen, "k").float()
        group = qb.shape[1] // kb.shape[1]
        kb = kb.repeat_interleave(group, dim=1)
        batch, heads, seqlen_q, seqlen_k = qb.shape[0], qb.shape[1], qb.shape[2], kb.shape[2]
        if options.varlen is None:
            lse_b = lse
            lengths_q = [seqlen_q] * batch
            lengths_k = [seqlen_k] * batch
        else:
            cu_q, cu_k = options.varlen.cu_seqlens_q.tolist(), options.varlen.cu_seqlens_k.tolist()
            lengths_q = [b - a for a, b in zip(cu_q[:-1], cu_q[1:])]
            lengths_k = [b - a for a, b in zip(cu_k[:-1], cu_k[1:])]
            lse_b = lse.new_full((batch, heads, seqlen_q), float("inf"))
            for b in range(batch):
                lse_b[b, :, : lengths_q[b]] = lse[:, cu_q[b]: cu_q[b + 1]]
        scores = options.softmax_scale * (qb @ kb.transpose(-1, -2))
        visible = torch.zeros((batch, 1, seqlen_q, seqlen_k), dtype=torch.bool, device=q.device)
        for b in range(batch):
            seen = torch.ones((lengths_q[b], lengths_k[b]), dtype=torch.bool, device=q.device)
            if options.causal:
                seen &= causal_visibility(lengths_q[b], lengths_k[b], q.device)
            visible[b, 0, : lengths_q[b], : lengths_k[b]] = seen
        if block_mask is not None:
            visible = visible & expand_block_mask(block_mask, *block_size, seqlen_q, seqlen_k)
        finite_lse = torch.where(torch.isfinite(lse_b), lse_b, torch.full_like(lse_b, float("inf")))
        probs = torch.exp(scores - finite_lse[..., None]).masked_fill(~visible, 0.0)
        if options.dropout_p > 0:
            keep = launchers.dropout_keep_mask(batch, heads, seqlen_q, seqlen_k, options.dropout_p, seed, q.device)
            probs = torch.where(keep, probs, -probs)
        return probs.to(q.dtype)


def attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attn_mask: None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: Optional[float] = None,
    enable_gqa: bool = False,
    *,
    causal: Optional[bool] = None,
    block_mask: Optional[torch.Tensor] = None,
    block_size: tuple[int, int] = (128, 128),
    deterministic: bool = False,
    return_lse: bool = False,
):
    """Exact attention softmax(scale * Q K^T + mask) V, IO-aware (FlashAttention), in SDPA's layout.

    A drop-in for the common use of ``torch.nn.functional.scaled_dot_product_attention``: the same
    positional arguments and names (``attn_mask`` must be None: use ``causal``/``is_causal`` or a
    ``block_mask``). Query heads may be any multiple of the key/value heads (MQA/GQA) whatever
    ``enable_gqa`` says; K and V are never copied.

    Args:
        query: (batch, heads, seqlen_q, head_dim), float16/bfloat16 (float32 runs a slower exact path).
        key, value: (batch, kv_heads, seqlen_k, head_dim).
        dropout_p: probability of dropping each attention weight (Philox RNG regenerated in backward).
        is_causal / causal: causal mask, aligned to the bottom-right corner when seqlen_q != seqlen_k.
        scale: softmax scale, default 1/sqrt(head_dim).
        block_mask: 0/1 tensor (batch|1, heads|1, ceil(Nq/bm), ceil(Nk/bn)) with ``block_size=(bm, bn)``;
            zero blocks are skipped entirely.
        deterministic: bitwise-reproducible backward (dQ without atomics).
        return_lse: also return the row log-sum-exp, float32 (batch, heads, seqlen_q).
    Returns:
        out (batch, heads, seqlen_q, head_dim), and lse if ``return_lse``.
    """
    if attn_mask is not None:
        raise NotImplementedError("attn_mask: dense masks are not supported; pass causal=True or a block_mask")
    validation.check_bool("enable_gqa", enable_gqa)
    validation.check_bool("is_causal", is_causal)
    if causal is not None:
        validation.check_bool("causal", causal)
    validation.check_bool("return_lse", return_lse)
    out, lse = run_attention(
        query, key, value, layout="bhnd", names=("query", "key", "value"), softmax_scale=scale,
        scale_name="scale", causal=is_causal or bool(causal), dropout_p=dropout_p, deterministic=deterministic,
        block_mask=block_mask, block_size=validation.check_block_size(block_size) if block_mask is not None
        else (128, 128),
    )
    return (out, lse) if return_lse else out
