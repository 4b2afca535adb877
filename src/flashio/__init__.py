"""flashio: IO-aware exact attention (FlashAttention) in Triton, with IO accounting and a performance model.

Public API:
- ``flashio.attention``: exact attention in PyTorch SDPA's (batch, heads, seqlen, head_dim) layout.
- flash-attn-compatible functions (``flash_attn_func``, ``flash_attn_varlen_func``, ...).
- ``flashio.attention_reference``: standard, materialising attention (the test oracle and baseline).

Importing flashio never queries the GPU and imports neither torch nor Triton: the names above load on
first use. Triton decides when it is first imported whether kernels are compiled or interpreted, so on a
machine without a GPU set ``TRITON_INTERPRET=1`` before the first use to run the kernels on CPU tensors
through Triton's interpreter (slow; for tests). The ``flashio`` command does this by itself.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "attention": "flashio.api",
    "attention_reference": "flashio.reference",
    "flash_attn_func": "flashio.flash_attn_interface",
    "flash_attn_kvpacked_func": "flashio.flash_attn_interface",
    "flash_attn_qkvpacked_func": "flashio.flash_attn_interface",
    "flash_attn_varlen_func": "flashio.flash_attn_interface",
    "flash_attn_varlen_kvpacked_func": "flashio.flash_attn_interface",
    "flash_attn_varlen_qkvpacked_func": "flashio.flash_attn_interface",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'flashio' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
