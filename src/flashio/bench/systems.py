"""The attention implementations a benchmark compares, behind one interface.

Each system takes the same inputs (a ``Inputs`` bundle made once per point) and returns the output in
(batch, heads, seqlen, head_dim) order, or says why it cannot run a configuration (``unsupported``) —
a reason that goes into the results instead of a crash.

Key padding (the paper's "masking" benchmark: each sequence has its own length, keys beyond it are
padding) reaches each system in its own form: flashio and flash-attn take packed variable-length
batches (no compute on padding), standard attention and SDPA a boolean key mask, FlexAttention a
``mask_mod``.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from typing import Callable, Optional

import torch
import torch.nn.functional as F


@dataclass
class Inputs:
    """Tensors of one benchmark point, shared by every system (created once per point)."""

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    causal: bool
    dropout_p: float
    lengths: Optional[list[int]] = None  # per-sequence key/query lengths when padded
    cache: dict = field(default_factory=dict)  # per-system derived inputs (packed tensors, masks)

    @property
    def key_padding_mask(self) -> Optional[torch.Tensor]:
        """Bool (batch, seqlen): True for real tokens."""
        if self.lengths is None:
            return None
        if "key_padding_mask" not in self.cache:
            positions = torch.arange(self.q.shape[2], device=self.q.device)
            lengths = torch.tensor(self.lengths, device=self.q.device)
            self.cache["key_padding_mask"] = positions[None, :] < lengths[:, None]
        return self.cache["key_padding_mask"]


@dataclass(frozen=True)
class System:
    name: str
    description: str
    run: Callable[[Inputs], torch.Tensor]
    needs_cuda: bool = True
    availability: Callable[[], Optional[str]] = lambda: None
    unsupported: Callable[[Inputs], Optional[str]] = lambda inputs: None

    def reason_not_runnable(self, inputs: Inputs) -> Optional[str]:
        if self.needs_cuda and not inputs.q.is_cuda:
            return "needs a CUDA GPU"
        return self.availability() or self.unsupported(inputs)


# ---------------------------------------------------------------------------------------------
# flashio
# ---------------------------------------------------------------------------------------------

def _packed(inputs: Inputs):
    """(q, k, v, cu_seqlens, max_len) packed by sequence length, made once per point."""
    if "packed" not in inputs.cache:
        cu = [0]
        for n in inputs.lengths:
            cu.append(cu[-1] + n)
        pack = lambda x: torch.cat([x[b, :, :n].transpose(0, 1) for b, n in enumerate(inputs.lengths)]) \
            .detach().requires_grad_(x.requires_grad)
        cu_seqlens = torch.tensor(cu, device=inputs.q.device, dtype=torch.int32)
        inputs.cache["packed"] = (pack(inputs.q), pack(inputs.k), pack(inputs.v), cu_seqlens, max(inputs.lengths))
    return inputs.cache["packed"]


def _unpack(out: torch.Tensor, inputs: Inputs) -> torch.Tensor:
    """Packed (total, H, d) back to padded (B, H, N, d), zeros on padding."""
    batch, heads, seqlen, dim = inputs.q.shape
    padded = out.new_zeros((batch, heads, seqlen, dim))
    start = 0
    for b, n in enumerate(inputs.lengths):
        padded[b, :, :n] = out[start:start + n].transpose(0, 1)
        start += n
    return padded


def _flashio(inputs: Inputs) -> torch.Tensor:
    import flashio

    if inputs.lengths is None:
        return flashio.attention(inputs.q, inputs.k, inputs.v, causal=inputs.causal, dropout_p=inputs.dropout_p)
    q, k, v, cu, longest = _packed(inputs)
    out = flashio.flash_attn_varlen_func(q, k, v, cu, cu, longest, longest, dropout_p=inputs.dropout_p,
                                         causal=inputs.causal)
    return out  # packed; the error check unpacks it


def _flashio_deterministic(inputs: Inputs) -> torch.Tensor:
    import flashio

    if inputs.lengths is None:
        return flashio.attention(inputs.q, inputs.k, inputs.v, causal=inputs.causal, dropout_p=inputs.dropout_p,
                                 deterministic=True)
    q, k, v, cu, longest = _packed(inputs)
    return flashio.flash_attn_varlen_func(q, k, v, cu, cu, longest, longest, dropout_p=inputs.dropout_p,
                                          causal=inputs.causal, deterministic=True)


def _flash_attn_package(inputs: Inputs) -> torch.Tensor:
    from flash_attn import flash_attn_func, flash_attn_varlen_func

    if inputs.lengths is None:
        return flash_attn_func(inputs.q.transpose(1, 2), inputs.k.transpose(1, 2), inputs.v.transpose(1, 2),
                               dropout_p=inputs.dropout_p, causal=inputs.causal).transpose(1, 2)
    q, k, v, cu, longest = _packed(inputs)
    return flash_attn_varlen_func(q, k, v, cu, cu, longest, longest, dropout_p=inputs.dropout_p,
                                  causal=inputs.causal)


# ---------------------------------------------------------------------------------------------
# standard attention and SDPA
# ---------------------------------------------------------------------------------------------

def _standard(inputs: Inputs) -> torch.Tensor:
    from flashio.reference import attention_reference

    # The paper's Algorithm 0 op chain (scores scaled after Q·Kᵀ), which the IO model counts.
    return attention_reference(inputs.q, inputs.k, inputs.v, causal=inputs.causal, dropout_p=inputs.dropout_p,
                               key_padding_mask=inputs.key_padding_mask, upcast=False, scale_scores=True)


def _sdpa_mask(inputs: Inputs) -> Optional[torch.Tensor]:
    """SDPA's boolean mask (True = attend) combining key padding and causality, or None."""
    if inputs.lengths is None:
        return None
    mask = inputs.key_padding_mask[:, None, None, :]
    if inputs.causal:
        n = inputs.q.shape[2]
        mask = mask & torch.ones((n, n), dtype=torch.bool, device=inputs.q.device).tril()
    return mask


def _sdpa_system(name: str, backend_name: Optional[str], description: str) -> System:
    def run(inputs: Inputs) -> torch.Tensor:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        mask = _sdpa_mask(inputs)
        causal = inputs.causal and mask is None
        if backend_name is None:
            return F.scaled_dot_product_attention(inputs.q, inputs.k, inputs.v, attn_mask=mask,
                                                  dropout_p=inputs.dropout_p, is_causal=causal)
        with sdpa_kernel(getattr(SDPBackend, backend_name)):
            return F.scaled_dot_product_attention(inputs.q, inputs.k, inputs.v, attn_mask=mask,
                                                  dropout_p=inputs.dropout_p, is_causal=causal)

    def unsupported(inputs: Inputs) -> Optional[str]:
        if backend_name == "FLASH_ATTENTION" and inputs.lengths is not None:
            return "SDPA's FLASH_ATTENTION backend takes no attention mask (key padding)"
        return None

    return System(name, description, run, needs_cuda=backend_name not in (None, "MATH"), unsupported=unsupported)


# ---------------------------------------------------------------------------------------------
# FlexAttention
# ---------------------------------------------------------------------------------------------

_FLEX_COMPILED = {}


def _flex_compiled():
    """flex_attention compiled once; per-shape recompiles are allowed up to a raised limit, and hitting
    the limit raises instead of silently falling back to the unfused path (about 50x slower)."""
    if "fn" not in _FLEX_COMPILED:
        import torch._dynamo
        from torch.nn.attention.flex_attention import flex_attention

        torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 512)
        if hasattr(torch._dynamo.config, "accumulated_cache_size_limit"):
            torch._dynamo.config.accumulated_cache_size_limit = max(
                torch._dynamo.config.accumulated_cache_size_limit, 4096)
        if hasattr(torch._dynamo.config, "fail_on_cache_limit_hit"):
            torch._dynamo.config.fail_on_cache_limit_hit = True
        _FLEX_COMPILED["fn"] = torch.compile(flex_attention, dynamic=False)
    return _FLEX_COMPILED["fn"]


def _flex(inputs: Inputs) -> torch.Tensor:
    from torch.nn.attention.flex_attention import create_block_mask

    if "flex_block_mask" not in inputs.cache:
        batch, _, n, _ = inputs.q.shape
        mask_mod = None
        if inputs.lengths is not None:
            lengths = torch.tensor(inputs.lengths, device=inputs.q.device)
            if inputs.causal:
                mask_mod = lambda b, h, qi, ki: (ki < lengths[b]) & (ki <= qi)
            else:
                mask_mod = lambda b, h, qi, ki: ki < lengths[b]
            inputs.cache["flex_block_mask"] = create_block_mask(mask_mod, batch, None, n, n, device=inputs.q.device)
        elif inputs.causal:
            inputs.cache["flex_block_mask"] = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, n, n,
                                                                device=inputs.q.device)
        else:
            inputs.cache["flex_block_mask"] = None
    return _flex_compiled()(inputs.q, inputs.k, inputs.v, block_mask=inputs.cache["flex_block_mask"])


def _flex_available() -> Optional[str]:
    try:
        from torch.nn.attention import flex_attention  # noqa: F401
    except ImportError:
        return f"torch {torch.__version__} has no FlexAttention"
    return None


def _flash_attn_available() -> Optional[str]:
    if importlib.util.find_spec("flash_attn") is None:
        return "the flash-attn package is not installed"
    return None


SYSTEMS: dict[str, System] = {
    system.name: system for system in (
        System("flashio", "flashio's Triton kernels", _flashio, needs_cuda=False),
        System("flashio_deterministic", "flashio with deterministic=True (dQ without atomics)",
               _flashio_deterministic, needs_cuda=False),
        System("standard", "materialising attention in PyTorch (the paper's baseline)", _standard, needs_cuda=False),
        _sdpa_system("sdpa_math", "MATH", "PyTorch SDPA, MATH backend (unfused)"),
        _sdpa_system("sdpa_flash", "FLASH_ATTENTION", "PyTorch SDPA, FLASH_ATTENTION backend (FlashAttention-2)"),
        _sdpa_system("sdpa_efficient", "EFFICIENT_ATTENTION", "PyTorch SDPA, EFFICIENT_ATTENTION backend"),
        _sdpa_system("sdpa_cudnn", "CUDNN_ATTENTION", "PyTorch SDPA, CUDNN_ATTENTION backend (cuDNN)"),
        System("flex", "FlexAttention (torch.compile'd, one compile per shape)", _flex,
               availability=_flex_available,
               unsupported=lambda inputs: "FlexAttention has no dropout" if inputs.dropout_p > 0 else None),
        System("flash_attn", "the flash-attn package", _flash_attn_package, availability=_flash_attn_available),
    )
}
