"""The Python part of an eager training step, on a CPU: flashio's forward and backward launchers replaced by stubs
that only allocate their outputs (no kernel, no CUDA), so that what is timed is the public API, the autograd function
and PyTorch's autograd engine. Per call, µs: a forward + backward step (``torch.autograd.grad``), a forward alone, and
a backward on one saved forward (``retain_graph``). v0.47: on the H200's host a step cost 375 µs more than its forward
and such a backward together (``step_sync.py``); this says how much of that the Python layers can be.

    TRITON_INTERPRET=1 PYTHONPATH=src python3 benchmarks/experiments/host_overhead/step_python_cpu.py

Outcome (v0.47, this session's 2-CPU machine, eight runs of this code): the three quietest gave step 65.2 / 66.9 /
68.4 µs, forward 19.4 / 19.0 / 19.6, backward 28.3 / 30.5 / 30.9: ~18 µs of a step are neither, against the H200's 375
µs. The runs spread to a step of 125 µs (forward 19-31, backward 28-46): the machine's other work shows in them.
"""

import os
import sys

import torch

from flashio import launchers

sys.path.insert(0, os.path.dirname(__file__))
from plan_key_cost import per_call_us  # noqa: E402 - this folder's per-call timer
from step_sync import step_calls  # noqa: E402 - this folder's three step calls


def stub_forward(q, k, v, **options):
    batch, heads, seqlen, _ = q.shape
    return torch.empty_like(q), torch.empty(batch, heads, seqlen, dtype=torch.float32)


def stub_backward(grad_out, q, k, v, out, lse, **options):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def main() -> None:
    launchers.attention_forward = stub_forward
    launchers.attention_backward = stub_backward
    q, k, v = (torch.randn(2, 4, 64, 64, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    dout = torch.randn_like(q)
    print("| call (launchers stubbed) | µs a call |")
    print("|---|---|")
    for name, fn in step_calls(q, k, v, dout).items():
        print(f"| {name} | {per_call_us(fn, calls=2000):.1f} |")


if __name__ == "__main__":
    main()
