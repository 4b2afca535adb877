"""Argument checks for the public functions.

Every check raises ``TypeError`` (wrong kind or dtype) or ``ValueError`` (wrong shape, range, device)
with a message that names the argument, says what was expected and what came, so that bad input never
reaches a kernel.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import torch

from flashio.block_sparse import ALLOWED_BLOCK_SIZES

SUPPORTED_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
MAX_HEAD_DIM = 256


def check_tensor(name: str, t, rank: int, layout_doc: str) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"{name}: expected dtype float16, bfloat16 or float32, got {t.dtype}")
    if t.dim() != rank:
        raise ValueError(f"{name}: expected a {rank}-D tensor {layout_doc}, got shape {tuple(t.shape)}")


def check_same_dtype_and_device(named: Sequence[tuple[str, torch.Tensor]]) -> None:
    first_name, first = named[0]
    for name, t in named[1:]:
        if t.dtype != first.dtype:
            raise TypeError(f"{name}: expected the same dtype as {first_name} ({first.dtype}), got {t.dtype}")
        if t.device != first.device:
            raise ValueError(f"{name}: expected the same device as {first_name} ({first.device}), got {t.device}")


def check_runnable_device(name: str, t: torch.Tensor, interpreter: bool) -> None:
    if t.is_cuda:
        return
    if t.device.type == "cpu" and interpreter:
        return
    if t.device.type == "cpu":
        raise ValueError(
            f"{name}: expected a CUDA tensor, got a tensor on {t.device}; CPU tensors run only under the "
            "Triton interpreter (set TRITON_INTERPRET=1 before importing flashio)"
        )
    raise ValueError(f"{name}: expected a CUDA tensor, got a tensor on {t.device}")


def check_head_dims(q_name: str, q_dim: int, others: Sequence[tuple[str, int]]) -> None:
    if not 1 <= q_dim <= MAX_HEAD_DIM:
        raise ValueError(f"{q_name}: expected head_dim between 1 and {MAX_HEAD_DIM}, got {q_dim}")
    for name, dim in others:
        if dim != q_dim:
            raise ValueError(f"{name}: expected head_dim {q_dim} (as {q_name}), got {dim}")


def check_heads(num_heads: int, num_kv_heads: int, kv_name: str) -> None:
    if num_kv_heads < 1 or num_heads % num_kv_heads != 0:
        raise ValueError(
            f"{kv_name}: expected a number of heads that divides the query's {num_heads} heads (MQA/GQA), "
            f"got {num_kv_heads}"
        )


def check_dropout(dropout_p) -> float:
    if isinstance(dropout_p, bool) or not isinstance(dropout_p, (int, float)):
        raise TypeError(f"dropout_p: expected a float in [0, 1), got {type(dropout_p).__name__}")
    if not (0.0 <= float(dropout_p) < 1.0):
        raise ValueError(f"dropout_p: expected a float in [0, 1), got {dropout_p}")
    return float(dropout_p)


def check_scale(scale, head_dim: int, name: str = "softmax_scale") -> float:
    if scale is None:
        return 1.0 / math.sqrt(head_dim)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"{name}: expected a positive float or None, got {type(scale).__name__}")
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"{name}: expected a positive finite float or None, got {scale}")
    return float(scale)


def check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name}: expected a bool, got {type(value).__name__}")
    return value


def check_block_size(block_size) -> tuple[int, int]:
    if (not isinstance(block_size, (tuple, list)) or len(block_size) != 2
            or any(isinstance(b, bool) or b not in ALLOWED_BLOCK_SIZES for b in block_size)):
        raise ValueError(f"block_size: expected a pair of values from {ALLOWED_BLOCK_SIZES}, got {block_size!r}")
    return int(block_size[0]), int(block_size[1])


def check_cu_seqlens(name: str, cu_seqlens, total: int, batch: Optional[int], device: torch.device,
                     max_seqlen, max_name: str) -> int:
    """Validate cumulative sequence lengths; return the batch size."""
    if not isinstance(cu_seqlens, torch.Tensor):
        raise TypeError(f"{name}: expected an int32 torch.Tensor, got {type(cu_seqlens).__name__}")
    if cu_seqlens.dtype != torch.int32:
        raise TypeError(f"{name}: expected dtype torch.int32, got {cu_seqlens.dtype}")
    if cu_seqlens.dim() != 1 or cu_seqlens.numel() < 1:
        raise ValueError(f"{name}: expected a 1-D tensor of length batch+1, got shape {tuple(cu_seqlens.shape)}")
    if cu_seqlens.device != device:
        raise ValueError(f"{name}: expected the device of the inputs ({device}), got {cu_seqlens.device}")
    if batch is not None and cu_seqlens.numel() != batch + 1:
        raise ValueError(f"{name}: expected length {batch + 1} (batch+1, as cu_seqlens_q), got {cu_seqlens.numel()}")
    values = cu_seqlens.tolist()
    if values[0] != 0:
        raise ValueError(f"{name}: expected to start at 0, got {values[0]}")
    lengths = [b - a for a, b in zip(values[:-1], values[1:])]
    if any(length < 0 for length in lengths):
        raise ValueError(f"{name}: expected non-decreasing values, got {values}")
    if values[-1] != total:
        raise ValueError(f"{name}: expected to end at the number of packed tokens ({total}), got {values[-1]}")
    if isinstance(max_seqlen, bool) or not isinstance(max_seqlen, int):
        raise TypeError(f"{max_name}: expected an int, got {type(max_seqlen).__name__}")
    longest = max(lengths, default=0)
    if max_seqlen < longest:
        raise ValueError(f"{max_name}: expected at least the longest sequence in {name} ({longest}), got {max_seqlen}")
    return len(lengths)


def check_block_mask(block_mask, block_size, batch: int, heads: int, seqlen_q: int, seqlen_k: int,
                     device: torch.device) -> tuple[int, int]:
    """Validate a block-sparse mask and its block size; return (block_m, block_n)."""
    if not isinstance(block_mask, torch.Tensor):
        raise TypeError(f"block_mask: expected a torch.Tensor of 0/1 or bool, got {type(block_mask).__name__}")
    if block_mask.dtype.is_floating_point or block_mask.dtype.is_complex:
        raise TypeError(f"block_mask: expected a bool or integer tensor, got {block_mask.dtype}")
    block_m, block_n = check_block_size(block_size)
    rows, cols = -(-seqlen_q // block_m), -(-seqlen_k // block_n)
    if block_mask.dim() != 4:
        raise ValueError(
            f"block_mask: expected a 4-D tensor (batch|1, heads|1, {rows}, {cols}), got shape {tuple(block_mask.shape)}")
    b, h, r, c = block_mask.shape
    if b not in (1, batch) or h not in (1, heads) or (r, c) != (rows, cols):
        raise ValueError(
            f"block_mask: expected shape ({batch} or 1, {heads} or 1, {rows}, {cols}) for block_size "
            f"{(block_m, block_n)}, got {tuple(block_mask.shape)}")
    if block_mask.device != device:
        raise ValueError(f"block_mask: expected the device of the inputs ({device}), got {block_mask.device}")
    return block_m, block_n


def reject_unsupported(**arguments) -> None:
    """Raise NotImplementedError for a flash-attn argument set to something flashio does not support yet."""
    window_size = arguments.get("window_size", (-1, -1))
    if window_size is not None and tuple(window_size) != (-1, -1):
        raise NotImplementedError(f"window_size: sliding-window attention is not supported yet (got {window_size!r}; "
                                  "only (-1, -1) is)")
    softcap = arguments.get("softcap", 0.0)
    if softcap not in (None, 0, 0.0):
        raise NotImplementedError(f"softcap: soft-capping of scores is not supported yet (got {softcap!r}; only 0.0 is)")
    if arguments.get("alibi_slopes") is not None:
        raise NotImplementedError("alibi_slopes: ALiBi biases are not supported yet (only None is)")
    if arguments.get("block_table") is not None:
        raise NotImplementedError("block_table: paged KV caches are not supported yet (only None is)")
