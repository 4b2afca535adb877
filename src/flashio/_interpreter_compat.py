"""A fix for Triton 3.6's CPU interpreter, applied only when kernels run under it.

The interpreter stores bfloat16 tensors as raw uint16 bit patterns and its ``tl.dot`` multiplies those
integers directly, so every bfloat16 matrix product comes out as garbage (float16 and float32 are fine).
Widening a bfloat16 operand to float32 first is exact (bfloat16 is the top half of a float32), and a
product of two widened operands is what the GPU's tensor cores compute before their float32
accumulation, so the patched dot has the GPU's numerics. The GPU path is untouched.
"""

from __future__ import annotations

_patched = False


def ensure_interpreter_bf16_dot() -> None:
    """Patch the interpreter's dot once so that bfloat16 operands are widened to float32."""
    global _patched
    if _patched:
        return
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    builder_class = interpreter.InterpreterBuilder
    original_dot = builder_class.create_dot

    def widen(handle):
        if handle.dtype.scalar != tl.bfloat16:
            return handle
        as_float = (handle.data.astype(np.uint32) << 16).view(np.float32)
        return interpreter.TensorHandle(as_float, tl.float32)

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        return original_dot(self, widen(a), widen(b), d, input_precision, max_num_imprecise_acc)

    builder_class.create_dot = create_dot
    _patched = True
