"""The Python part of an eager training step, on a CPU: flashio's forward and backward launchers replaced by stubs
that only allocate their outputs (no kernel, no CUDA), so that what is timed is the public API, the autograd function
and PyTorch's autograd engine. Per call, µs: a forward + backward step (``torch.autograd.grad``), a forward alone, and
a backward on one saved forward (``retain_graph``). v0.47: on the H200's host a step cost 375 µs more than its forward
and such a backward together (``step_sync.py``); this says how much of that the Python layers can be.

    TRITON_INTERPRET=1 PYTHONPATH=src python3 benchmarks/experiments/host_overhead/step_python_cpu.py

Outcome (v0.47, this session's 2-CPU machine, three runs with nothing beside them): step 74.5 / 74.8 / 106.3 µs,
forward 22.4 / 21.7 / 31.7, backward 33.0 / 32.3 / 37.1: ~20 µs of a step (37 in the noisy third run) are neither,
against the H200's 375 µs. (Beside a CI run the same script gave 198 / 43 / 44: its numbers need a quiet machine.)
"""

import time

import torch

import flashio
from flashio import launchers


def stub_forward(q, k, v, **options):
    batch, heads, seqlen, _ = q.shape
    return torch.empty_like(q), torch.empty(batch, heads, seqlen, dtype=torch.float32)


def stub_backward(grad_out, q, k, v, out, lse, **options):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def per_call_us(fn, calls: int = 2000) -> float:
    for _ in range(200):
        fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    launchers.attention_forward = stub_forward
    launchers.attention_backward = stub_backward
    q, k, v = (torch.randn(2, 4, 64, 64, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    dout = torch.randn_like(q)
    saved = flashio.attention(q, k, v, causal=True)

    def step():
        out = flashio.attention(q, k, v, causal=True)
        return torch.autograd.grad(out, (q, k, v), dout)

    calls = {"forward + backward step": step,
             "forward": lambda: flashio.attention(q, k, v, causal=True),
             "backward (one saved forward, retain_graph)":
                 lambda: torch.autograd.grad(saved, (q, k, v), dout, retain_graph=True)}
    print("| call (launchers stubbed) | µs a call |")
    print("|---|---|")
    for name, fn in calls.items():
        print(f"| {name} | {per_call_us(fn):.1f} |")


if __name__ == "__main__":
    main()
