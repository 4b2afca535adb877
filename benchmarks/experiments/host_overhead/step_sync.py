"""Does a flashio training step wait for the GPU on the host? (v0.47 call 5, ``plan_key_cost.py``: 100 forward +
backward steps back to back at d=128 bf16 causal 1k took 739 µs of host time a step against 743 µs of GPU time, and
the same step replayed from a CUDA graph 709.5 µs of GPU time. Host time equal to GPU time is what a host that
synchronises every step shows, and also one that is just as slow as the GPU.)

Here the GPU is first given a long sleep (``torch.cuda._sleep``, ~50 ms), then the host enqueues 20 steps (or
forwards, or backwards of one saved forward) while the GPU still sleeps, timed on the host. A step that synchronises
waits for the sleep (host time ~ the sleep); one that does not returns after its own Python and launches. Then the
host's time per step without the GPU in the way.

    PYTHONPATH=src python3 benchmarks/experiments/host_overhead/step_sync.py

Prediction (v0.47, before call 6): no synchronisation: the host enqueues a step in 250-450 µs (forward ~77 µs as
measured in call 5, the backward's launcher with plans ~130-200, the autograd engine), well under the 50 ms sleep,
so the eager step of call 5 was host-bound, not synchronised.

Outcome (v0.47 call 6, H200, results/2026-12-03_h200_v0.47/call6/step_sync.txt): host µs a call behind a 51-62 ms
sleep: the step 719.5, the forward 97.9, a backward on a saved forward 246.1; 20 steps took 0.23 of the sleep. No
synchronisation (right), but the step costs 375 µs of host time more than its forward and a backward together (the
prediction's 250-450 wrong): at d=128 causal 1k an eager training step's attention is host-bound (720 µs host, 743
GPU), and a CUDA graph takes its GPU time to 709.5 µs. Where the 375 µs go (the autograd graph made and released each
step, the engine's hand-off to its device thread) is not measured yet.

v0.48 call 1 (H200, results/2026-12-03_h200_v0.48/call1/step_sync.txt), after the autograd function stopped
materialising gradients (no zero tensor made for LSE's unused gradient at each backward): the step 478.8 µs, the
forward 127.1, the backward on a saved forward 234.3 (118 µs more than the two together, against 375). Another machine
than call 6's (its forward 30% slower), so now both functions are timed in one process, alternately (prediction, v0.48
call 3: the materialising function's step 10-30 µs slower, one zeros kernel's launch and allocation, the forward
and the saved-forward backward level; so most of 720 -> 479 µs would be the machine).
Outcome (v0.48 call 3, results/2026-12-03_h200_v0.48/call3/step_sync.txt): step 448 / 523 µs (v0.48's function) against
542 / 544 (materialising), the forward alone 85-157 µs across turns of the same code: the host's noise is as large as
the difference, not decided.
"""

import contextlib
import time

import torch

import flashio
from flashio import autograd


def host_us_while_gpu_sleeps(fn, calls: int = 20, sleep_cycles: int = 100_000_000) -> tuple[float, float]:
    """(host µs a call to enqueue ``calls`` calls behind a GPU sleep, the sleep's ms as the GPU ran it)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(sleep_cycles)
    end.record()
    host_start = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - host_start) / calls * 1e6
    torch.cuda.synchronize()
    return host, start.elapsed_time(end)


def step_calls(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, dout: torch.Tensor) -> dict:
    """The three calls this folder's step experiments time, by name: a causal forward + backward step
    (``torch.autograd.grad``), a forward alone, and a backward on one forward saved here (``retain_graph``)."""
    saved = flashio.attention(q, k, v, causal=True)

    def step():
        out = flashio.attention(q, k, v, causal=True)
        return torch.autograd.grad(out, (q, k, v), dout)

    return {"forward + backward step": step,
            "forward": lambda: flashio.attention(q, k, v, causal=True),
            "backward (one saved forward, retain_graph)":
                lambda: torch.autograd.grad(saved, (q, k, v), dout, retain_graph=True)}


@contextlib.contextmanager
def lse_gradient_materialised():
    """The autograd function as it was before v0.48: gradients materialised, so that every backward is handed a zero
    tensor made for LSE's (unused) gradient."""
    forward = autograd.FlashAttentionFunction.forward

    def materialising(ctx, *args):
        outputs = forward(ctx, *args)
        ctx.set_materialize_grads(True)
        return outputs
    autograd.FlashAttentionFunction.forward = staticmethod(materialising)
    try:
        yield
    finally:
        autograd.FlashAttentionFunction.forward = staticmethod(forward)


def main() -> None:
    q, k, v = (torch.randn(16, 16, 1024, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    dout = torch.randn_like(q)
    print("d=128 bf16 causal 1k, (B, H, N, D) = (16, 16, 1024, 128); 20 calls enqueued behind a GPU sleep")
    print("| autograd function | call | host µs a call | the sleep, ms (GPU) | host total ÷ sleep |")
    print("|---|---|---|---|---|")
    # Alternately, twice each: v0.48's function (LSE's gradient not materialised) and the one before.
    for turn in range(2):
        for label, context in (("v0.48", contextlib.nullcontext), ("LSE gradient materialised", lse_gradient_materialised)):
            with context():
                for name, fn in step_calls(q, k, v, dout).items():
                    host, sleep_ms = host_us_while_gpu_sleeps(fn)
                    print(f"| {label} | {name} | {host:.1f} | {sleep_ms:.1f} | {host * 20 / 1e3 / sleep_ms:.2f} |",
                          flush=True)


if __name__ == "__main__":
    main()
