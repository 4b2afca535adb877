"""``torch.autograd.Function`` binding the forward and backward launchers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

from flashio import launchers
from flashio.block_sparse import BlockSparseIndex
from flashio.launchers import VarlenInfo


@dataclass(frozen=True)
class AttentionOptions:
    """Everything but the tensors: fixed for one call, saved for the backward."""

    layout: str
    softmax_scale: float
    causal: bool
    dropout_p: float
    deterministic: bool
    varlen: Optional[VarlenInfo] = None
    sparse: Optional[BlockSparseIndex] = None


def draw_dropout_seed() -> int:
    """A Philox key from torch's default CPU generator, so that ``torch.manual_seed`` governs dropout."""
    return int(torch.randint(0, 2**62, (1,), dtype=torch.int64).item())


class FlashAttentionFunction(torch.autograd.Function):
    """out, lse = attention(q, k, v); the backward recomputes P from (q, k, lse) and regenerates dropout."""

    @staticmethod
    def forward(ctx, q, k, v, options: AttentionOptions, seed: int):
        # A backward follows when an input requires grad: a first call compiles its kernels in the forward's batch
        # (launch_plans.COMPILE_BACKWARD_WITH_FORWARD).
        backward_follows = {"deterministic": options.deterministic} if any(ctx.needs_input_grad[:3]) else None
        out, lse = launchers.attention_forward(
            q, k, v, layout=options.layout, softmax_scale=options.softmax_scale, causal=options.causal,
            dropout_p=options.dropout_p, seed=seed, varlen=options.varlen, sparse=options.sparse,
            backward_follows=backward_follows,
        )
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.options = options
        ctx.seed = seed
        ctx.mark_non_differentiable(lse)
        # LSE takes no gradient: without this autograd would fill a zero tensor for it at every backward.
        ctx.set_materialize_grads(False)
        return out, lse

    @staticmethod
    def backward(ctx, grad_out, _grad_lse):
        if grad_out is None:  # no gradient reached the output (grads are not materialised as zeros)
            return None, None, None, None, None
        q, k, v, out, lse = ctx.saved_tensors
        options: AttentionOptions = ctx.options
        dq, dk, dv = launchers.attention_backward(
            grad_out, q, k, v, out, lse, layout=options.layout, softmax_scale=options.softmax_scale,
            causal=options.causal, dropout_p=options.dropout_p, seed=ctx.seed, varlen=options.varlen,
            sparse=options.sparse, deterministic=options.deterministic,
        )
        return dq, dk, dv, None, None
