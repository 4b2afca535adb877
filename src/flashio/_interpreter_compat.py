"""Two fixes for Triton 3.6's CPU interpreter, applied only when kernels run under it.

1. The interpreter stores bfloat16 tensors as raw uint16 bit patterns and its ``tl.dot`` multiplies those
   integers directly, so every bfloat16 matrix product comes out as garbage (float16 and float32 are
   fine). Widening a bfloat16 operand to float32 first is exact (bfloat16 is the top half of a float32),
   and a product of two widened operands is what the GPU's tensor cores compute before their float32
   accumulation, so the patched dot has the GPU's numerics.
2. The interpreter has no tensor-descriptor reduction (``desc.atomic_add``, a TMA ``cp.reduce.async.bulk``
   on Hopper), which the tensor-descriptor backward uses for dQ. The patch adds it for ADD as what the
   hardware does: an element-wise atomic add of the tile into the in-bounds part of the window.

The GPU path is untouched.
"""

from __future__ import annotations

_patched = False


def ensure_interpreter_fixes() -> None:
    """Patch the interpreter once (bfloat16 dot, descriptor reduce-add)."""
    global _patched
    if _patched:
        return
    import numpy as np
    import triton.language as tl
    from triton._C.libtriton import ir
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

    def create_descriptor_reduce(self, kind, desc, value, indices):
        if kind != ir.DESCRIPTOR_REDUCE_KIND.ADD:
            raise NotImplementedError(f"descriptor reduce {kind} is not emulated")
        ptrs, mask = desc.materialize_pointers(indices)
        return self.create_atomic_rmw(ir.ATOMIC_OP.FADD, ptrs, value, mask, ir.MEM_SEMANTIC.RELAXED,
                                      ir.MEM_SYNC_SCOPE.GPU)

    builder_class.create_dot = create_dot
    if not hasattr(builder_class, "create_descriptor_reduce"):
        builder_class.create_descriptor_reduce = create_descriptor_reduce
    _patched = True
