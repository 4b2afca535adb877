"""flashio: IO-aware exact attention (FlashAttention) in Triton, with IO accounting and a performance model.

Public API:
- ``flashio.attention``: exact attention in PyTorch SDPA's (batch, heads, seqlen, head_dim) layout.
- flash-attn-compatible functions (``flash_attn_func``, ``flash_attn_varlen_func``, ...).
- ``flashio.attention_reference``: standard, materialising attention (the test oracle and baseline).

Importing flashio never queries the GPU; kernels are compiled on first use. On a machine without a GPU,
set ``TRITON_INTERPRET=1`` before the import to run the kernels on CPU tensors through Triton's
interpreter (slow; for tests).
"""

from flashio.api import attention
from flashio.flash_attn_interface import (
    flash_attn_func,
    flash_attn_kvpacked_func,
    flash_attn_qkvpacked_func,
    flash_attn_varlen_func,
    flash_attn_varlen_kvpacked_func,
    flash_attn_varlen_qkvpacked_func,
)
from flashio.reference import attention_reference

__version__ = "0.1.0"

__all__ = [
    "attention",
    "attention_reference",
    "flash_attn_func",
    "flash_attn_kvpacked_func",
    "flash_attn_qkvpacked_func",
    "flash_attn_varlen_func",
    "flash_attn_varlen_kvpacked_func",
    "flash_attn_varlen_qkvpacked_func",
    "__version__",
]
