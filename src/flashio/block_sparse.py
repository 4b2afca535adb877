"""Block-sparse attention masks (FlashAttention section 3.3).

A block mask is a 0/1 tensor of shape (batch or 1, heads or 1, ceil(Nq/block_m), ceil(Nk/block_n)):
entry (r, c) says whether query block r may attend to key block c. Inside a non-zero block every
entry is computed (plus the causal mask, if any); zero blocks are never loaded, so work and time fall
with the fraction of non-zero blocks.

The kernels do not read the 0/1 mask itself. ``BlockSparseIndex`` turns it into compact lists: for every
query block, how many key blocks it attends to and which (for the forward and dQ kernels), and for every
key block the query blocks that attend to it (for the dK/dV kernel).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

ALLOWED_BLOCK_SIZES = (16, 32, 64, 128)


@dataclass(frozen=True)
class BlockSparseIndex:
    """Compact lists of the non-zero blocks of a block mask, in both directions.

    ``row_counts``: (B', H', R) int32, the number of key blocks listed for each query block;
    ``row_indices``: (B', H', R, C) int32, their indices first (ascending), then padding;
    ``col_counts`` / ``col_indices``: the same for each key block, listing query blocks.
    B' and H' are 1 where the mask broadcasts over batch or heads.
    """

    block_m: int
    block_n: int
    row_counts: torch.Tensor
    row_indices: torch.Tensor
    col_counts: torch.Tensor
    col_indices: torch.Tensor

    @staticmethod
    def broadcast_strides(t: torch.Tensor) -> tuple[int, ...]:
        """Strides of ``t`` with 0 on a broadcast (size-1) batch or head dimension."""
        strides = list(t.stride())
        for dim in (0, 1):
            if t.shape[dim] == 1:
                strides[dim] = 0
        return tuple(strides)

    @classmethod
    def from_mask(cls, block_mask: torch.Tensor, block_m: int, block_n: int, *,
                  causal_shift: int | None = None) -> "BlockSparseIndex":
        """Build the lists from a 0/1 block mask on the kernels' device.

        With ``causal_shift = seqlen_k - seqlen_q`` (causal attention of fixed-length sequences),
        blocks that lie entirely above the causal diagonal are dropped as well: they hold no visible
        entry. Packed variable-length batches pass ``None``: their shift differs per sequence, and the
        kernels' element-wise causal mask covers it.
        """
        mask = block_mask.to(torch.bool)
        rows, cols = mask.shape[-2], mask.shape[-1]
        if causal_shift is not None:
            row_last = (torch.arange(rows, device=mask.device) + 1) * block_m - 1
            col_first = torch.arange(cols, device=mask.device) * block_n
            mask = mask & (col_first[None, :] <= row_last[:, None] + causal_shift)
        row_counts, row_indices = _listing(mask)
        col_counts, col_indices = _listing(mask.transpose(-1, -2))
        return cls(block_m, block_n, row_counts, row_indices, col_counts, col_indices)


def _listing(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For each row of a (B, H, R, C) bool mask: the count of true entries and their column indices
    first, in ascending order (a stable sort of the negated mask)."""
    counts = mask.sum(dim=-1, dtype=torch.int32).contiguous()
    order = torch.sort((~mask).to(torch.int8), dim=-1, stable=True).indices
    return counts, order.to(torch.int32).contiguous()


def expand_block_mask(block_mask: torch.Tensor, block_m: int, block_n: int, seqlen_q: int,
                      seqlen_k: int) -> torch.Tensor:
    """The element-level bool mask (B', H', seqlen_q, seqlen_k) that a block mask stands for."""
    mask = block_mask.to(torch.bool)
    mask = mask.repeat_interleave(block_m, dim=-2).repeat_interleave(block_n, dim=-1)
    return mask[..., :seqlen_q, :seqlen_k]
