"""Helpers shared by the kernel and API tests: random inputs, the two references, flash-attn's rule.

flash-attn's correctness rule (../shared/reference/algorithm.md): from the same low-precision inputs build
``ref32`` (inputs upcast to float32, computed in float32) and ``ref_lp`` (computed in the input precision,
as plain PyTorch would); then require

    max|out - ref32| <= factor * max|ref_lp - ref32| + floor,

factor 2 for outputs and 3 for gradients. The kernel must be at most a small multiple as far from the exact
answer as the obvious low-precision implementation is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import torch

from flashio import attention_reference

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
DTYPES = (torch.float16, torch.bfloat16, torch.float32)
LOW_PRECISION = (torch.float16, torch.bfloat16)
OUTPUT_FACTOR = 2
GRAD_FACTOR = 3


def rounding_step(dtype: torch.dtype, magnitude: float) -> float:
    """The spacing of representable numbers of ``dtype`` at ``magnitude`` (one unit in the last place)."""
    return torch.finfo(dtype).eps * 2.0 ** math.floor(math.log2(magnitude))


def default_floor(dtype: torch.dtype, ref32: torch.Tensor) -> float:
    """The additive floor of the rule for results stored in ``dtype``.

    Low precision: two rounding steps of ``dtype`` at the magnitude of the results (at least 1, since the
    inputs have unit variance and outputs/gradients are O(1)). Results are stored in ``dtype``, so even an
    exactly computed value is off by up to half a step, and two correct computations in different orders
    differ by a step or two; without this floor the rule would fail whenever ``ref_lp`` happens to be exact
    (e.g. one key, where the output is a copy of v).

    float32: ``ref_lp`` equals ``ref32`` (both compute in float32), so only the floor remains. The kernels
    sum in a different order than the materialising reference (tiles, exp2 with log2(e) folded into the
    scale); for the sums of at most a few thousand terms in these tests that changes results by about
    1e-6 relative (float32 eps is 1.2e-7). 1e-5 relative to the magnitude keeps a 10x margin and is still
    100x tighter than float16 rounding.
    """
    magnitude = max(1.0, ref32.detach().abs().max().item()) if ref32.numel() else 1.0
    if dtype == torch.float32:
        return 1e-5 * magnitude
    return 2 * rounding_step(dtype, magnitude)


def assert_close_to_reference(out: torch.Tensor, ref32: torch.Tensor, ref_lp: torch.Tensor, factor: float,
                              floor: Optional[float] = None, name: str = "out") -> None:
    """flash-attn's rule: max|out - ref32| <= factor * max|ref_lp - ref32| + floor (no NaN/inf allowed)."""
    assert out.shape == ref32.shape == ref_lp.shape, f"{name}: shapes {out.shape}, {ref32.shape}, {ref_lp.shape}"
    if out.numel() == 0:
        return
    assert torch.isfinite(out).all(), f"{name}: contains NaN or inf"
    if floor is None:
        floor = default_floor(out.dtype, ref32)
    error = (out.float() - ref32.float()).abs().max().item()
    lp_error = (ref_lp.float() - ref32.float()).abs().max().item()
    bound = factor * lp_error + floor
    assert error <= bound, (f"{name}: max|out - ref32| = {error:.3g} > {factor} * max|ref_lp - ref32| "
                            f"({lp_error:.3g}) + floor ({floor:.3g})")


@dataclass
class Result:
    """An attention output and its gradients (dq, dk, dv) for one upstream gradient."""

    out: torch.Tensor
    grads: tuple[torch.Tensor, torch.Tensor, torch.Tensor]


def assert_result_close(result: Result, ref32: Result, ref_lp: Result) -> None:
    """The rule for the output (factor 2) and the three gradients (factor 3)."""
    assert_close_to_reference(result.out, ref32.out, ref_lp.out, OUTPUT_FACTOR, name="out")
    for name, grad, grad32, grad_lp in zip(("dq", "dk", "dv"), result.grads, ref32.grads, ref_lp.grads):
        assert_close_to_reference(grad, grad32, grad_lp, GRAD_FACTOR, name=name)


def random_qkv(batch: int, heads: int, kv_heads: int, seqlen_q: int, seqlen_k: int, head_dim: int,
               dtype: torch.dtype, requires_grad: bool = True):
    """Unit-variance q (B, H, Nq, d) and k, v (B, Hkv, Nk, d) on the test device."""
    def make(h, n):
        t = torch.randn(batch, h, n, head_dim, device=DEVICE).to(dtype)
        return t.requires_grad_(requires_grad)
    return make(heads, seqlen_q), make(kv_heads, seqlen_k), make(kv_heads, seqlen_k)


def flash_attn_bhnd(**kwargs) -> Callable:
    """``flashio.flash_attn_func`` applied to (B, H, N, d) tensors through transposed views (its layout is
    (B, N, H, d)); returns out as (B, H, N, d), so that it compares directly with the reference."""
    from flashio import flash_attn_func

    return lambda q, k, v: flash_attn_func(
        q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), **kwargs).transpose(1, 2)


def run_with_grads(fn: Callable, q, k, v, dout: Optional[torch.Tensor] = None) -> tuple[Result, torch.Tensor]:
    """out = fn(q, k, v) and its gradients for ``dout`` (random, in the output dtype, when None)."""
    out = fn(q, k, v)
    if dout is None:
        dout = torch.randn(out.shape, device=out.device).to(out.dtype)
    grads = torch.autograd.grad(out, (q, k, v), dout)
    return Result(out.detach(), grads), dout


def references(q, k, v, dout, **kwargs) -> tuple[Result, Result]:
    """(ref32, ref_lp): the reference in float32 on upcast copies of the inputs, and in the input dtype;
    both with their gradients for the same ``dout``. ``kwargs`` go to ``flashio.attention_reference``."""
    leaves32 = [t.detach().float().clone().requires_grad_() for t in (q, k, v)]
    out32 = attention_reference(*leaves32, upcast=True, **kwargs)
    ref32 = Result(out32.detach(), torch.autograd.grad(out32, leaves32, dout.float()))
    leaves_lp = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    out_lp = attention_reference(*leaves_lp, upcast=False, **kwargs)
    ref_lp = Result(out_lp.detach(), torch.autograd.grad(out_lp, leaves_lp, dout))
    return ref32, ref_lp


def check_against_reference(fn: Callable, q, k, v, **reference_kwargs) -> Result:
    """Run ``fn`` (on (B, H, N, d) tensors) forward and backward and apply the rule against the
    references built with ``reference_kwargs``; return flashio's result for further checks."""
    result, dout = run_with_grads(fn, q, k, v)
    ref32, ref_lp = references(q, k, v, dout, **reference_kwargs)
    assert_result_close(result, ref32, ref_lp)
    return result


# ----------------------------------------------------------------------------------------------------------
# Packed variable-length batches
# ----------------------------------------------------------------------------------------------------------

def cu_seqlens(lengths: Sequence[int]) -> torch.Tensor:
    """Cumulative sequence lengths (int32, batch + 1) starting at 0."""
    values = [0]
    for length in lengths:
        values.append(values[-1] + length)
    return torch.tensor(values, dtype=torch.int32, device=DEVICE)


def random_packed(lengths: Sequence[int], heads: int, head_dim: int, dtype: torch.dtype,
                  requires_grad: bool = True) -> torch.Tensor:
    """A unit-variance packed tensor (sum(lengths), heads, head_dim)."""
    t = torch.randn(sum(lengths), heads, head_dim, device=DEVICE).to(dtype)
    return t.requires_grad_(requires_grad)


def sequence_bhnd(packed: torch.Tensor, cu: torch.Tensor, b: int) -> torch.Tensor:
    """Sequence ``b`` of a packed (total, H, d) tensor as (1, H, n, d)."""
    start, end = cu[b].item(), cu[b + 1].item()
    return packed[start:end].transpose(0, 1).unsqueeze(0)


def varlen_references(q, k, v, dout, cu_q, cu_k, *, keep: Optional[torch.Tensor] = None,
                      block_mask: Optional[torch.Tensor] = None, block_size=(128, 128),
                      **kwargs) -> tuple[Result, Result]:
    """The references of a packed batch, computed sequence by sequence and packed again.

    ``keep``: the (B, H, max_q, max_k) dropout keep-mask; sequence b uses its top-left corner.
    ``block_mask``: (B|1, H|1, R, C); sequence b uses the blocks that cover its own positions.
    A sequence with no keys outputs zeros and has zero gradients.
    """
    batch = cu_q.numel() - 1
    parts32 = {"out": [], "dq": [], "dk": [], "dv": []}
    parts_lp = {"out": [], "dq": [], "dk": [], "dv": []}
    for b in range(batch):
        qb, kb, vb = (sequence_bhnd(t, cu, b) for t, cu in ((q, cu_q), (k, cu_k), (v, cu_k)))
        dob = sequence_bhnd(dout, cu_q, b)
        len_q, len_k = qb.shape[2], kb.shape[2]
        if len_q == 0 or len_k == 0:
            ref32 = Result(torch.zeros(qb.shape, device=q.device), (torch.zeros(qb.shape, device=q.device),
                           torch.zeros(kb.shape, device=q.device), torch.zeros(vb.shape, device=q.device)))
            ref_lp = Result(torch.zeros_like(qb), (torch.zeros_like(qb), torch.zeros_like(kb), torch.zeros_like(vb)))
        else:
            extra = dict(kwargs)
            if keep is not None:
                extra["dropout_mask"] = keep[b:b + 1, :, :len_q, :len_k]
            if block_mask is not None:
                rows, cols = -(-len_q // block_size[0]), -(-len_k // block_size[1])
                mask_b = block_mask[b:b + 1] if block_mask.shape[0] > 1 else block_mask
                extra["block_mask"] = mask_b[:, :, :rows, :cols]
                extra["block_size"] = block_size
            ref32, ref_lp = references(qb, kb, vb, dob, **extra)
        for parts, ref in ((parts32, ref32), (parts_lp, ref_lp)):
            parts["out"].append(ref.out[0].transpose(0, 1))
            for name, grad in zip(("dq", "dk", "dv"), ref.grads):
                parts[name].append(grad[0].transpose(0, 1))

    def packed(parts):
        return Result(torch.cat(parts["out"]), tuple(torch.cat(parts[n]) for n in ("dq", "dk", "dv")))
    return packed(parts32), packed(parts_lp)


def keep_mask_from_probs(s_dmask: torch.Tensor) -> torch.Tensor:
    """The dropout keep-mask that ``return_attn_probs`` reports: dropped entries are negated, so their sign
    bit is set (``signbit`` also catches probabilities that underflowed to -0.0)."""
    return ~torch.signbit(s_dmask)


def record_grids(monkeypatch, module, name: str) -> list:
    """Wrap the Triton kernel ``module.name`` so that each launch records its grid, then launches: a test
    can check which kernel ran (a silent fallback to another would leave it checking nothing new)."""
    grids = []
    kernel = getattr(module, name)

    class Recording:
        def __getitem__(self, grid):
            grids.append(grid)
            return kernel[grid]

    monkeypatch.setattr(module, name, Recording())
    return grids
