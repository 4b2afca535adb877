"""What the launch plans' key pays for knowing the stream and the capture (v0.47), and what a CUDA graph saves a
training step's attention on the host.

v0.47 keyed the plans by the current stream and whether it is being captured (a plan holds the claim counters of the
stream it was recorded on; captured launches get counters of their own). Measured here, on the GPU's host:
1. per call, µs, over 100,000 calls: ``torch.cuda.current_stream(device).cuda_stream`` (a Stream object per call),
   ``launch_plans.stream_handle`` (Triton's raw handle, what the key uses), ``torch.cuda.is_current_stream_capturing``
   and the whole ``launchers._plan_fields(q, k, v)``;
2. ``enqueue_rate.measure`` of the forward with plans (host µs to enqueue a call, GPU µs a call, 300 calls back to
   back), d=128 bf16 causal 1k and d=64 bf16 non-causal 1k (v0.46 call 5: 24-35 µs host with plans);
3. a forward + backward step (``torch.autograd.grad``) eager and replayed from a CUDA graph captured after it, host
   and GPU µs a step, 100 steps back to back.

    PYTHONPATH=src python3 benchmarks/experiments/host_overhead/plan_key_cost.py

Prediction (v0.47, before call 5): the two new fields cost under 1.5 µs a call together (the raw handle and the
capture query are single C calls), the Stream object ~2-4 µs (why the key does not use it); the forward's host time
with plans 24-40 µs as in v0.46 call 5; the graph step's GPU time within 2% of the eager step's (the same kernels)
and its host time a few µs against 100-250 eager.

Outcome (v0.47 call 5, H200, results/2026-12-03_h200_v0.47/call5/plan_key_cost.txt): per call 6.52 µs for the Stream
object, 0.33 for the raw handle, 0.63 for the capture query, 5.96 for the whole key's tensor fields of three inputs;
the forward with plans 77.1 µs host / 176.8 GPU (d=128 causal 1k) and 146.3 / 338.6 (d=64 non-causal 1k); the step
eager 738.7 µs host / 743.0 GPU, from the graph 5.5 / 709.5, its output bitwise equal to an eager step's and its
gradients within 4.9e-4 (dQ; dK and dV equal). Right on the key (under 1.5 µs) and the graph's host time; wrong on the
Stream object (6.5, not 2-4), on the forward's host time (v0.46 call 5 timed the launcher alone: through the public
API and the autograd function a call costs 77 µs, as ``enqueue_rate.py`` measured in v0.26) and on the eager step's
host time (739 µs: as long as its GPU time, which ``step_sync.py`` then looked into).
"""

import os
import sys
import time

import torch

import flashio
from flashio import launch_plans, launchers

sys.path.insert(0, os.path.dirname(__file__))
from enqueue_rate import measure  # noqa: E402 - this folder's host/GPU time of back-to-back calls


def per_call_us(fn, calls: int = 100_000) -> float:
    for _ in range(1000):
        fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    device = torch.device("cuda", torch.cuda.current_device())
    q, k, v = (torch.randn(16, 16, 1024, 128, device=device, dtype=torch.bfloat16) for _ in range(3))
    print("| what (per call) | µs |")
    print("|---|---|")
    for name, fn in (("torch.cuda.current_stream(device).cuda_stream", lambda: torch.cuda.current_stream(device).cuda_stream),
                     ("launch_plans.stream_handle(index)", lambda: launch_plans.stream_handle(device.index)),
                     ("torch.cuda.is_current_stream_capturing()", torch.cuda.is_current_stream_capturing),
                     ("launchers._plan_fields(q, k, v)", lambda: launchers._plan_fields(q, k, v))):
        print(f"| {name} | {per_call_us(fn):.2f} |", flush=True)

    print("\n| forward, plans on, 300 calls back to back | host µs a call | GPU µs a call |")
    print("|---|---|---|")
    for head_dim, causal in ((128, True), (64, False)):
        heads = 2048 // head_dim
        x = [torch.randn(16, heads, 1024, head_dim, device=device, dtype=torch.bfloat16) for _ in range(3)]
        host, gpu = measure(lambda: flashio.attention(*x, causal=causal), 300)
        print(f"| d={head_dim} bf16 {'causal' if causal else 'non-causal'} 1k | {host:.1f} | {gpu:.1f} |", flush=True)

    print("\n| forward + backward step, d=128 bf16 causal 1k, 100 back to back | host µs a step | GPU µs a step |")
    print("|---|---|---|")
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]
    dout = torch.randn_like(q)

    def step(tensors=leaves):
        out = flashio.attention(*tensors, causal=True)
        return out, torch.autograd.grad(out, tensors, dout)
    eager = measure(step, 100)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # PyTorch's warm-up on the capture side, then the capture
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        graph_leaves = [t.detach().requires_grad_() for t in leaves]
        out, grads = step(graph_leaves)
    replayed = measure(graph.replay, 100)
    reference_out, reference_grads = step()
    print(f"| eager | {eager[0]:.1f} | {eager[1]:.1f} |")
    print(f"| CUDA graph replay | {replayed[0]:.1f} | {replayed[1]:.1f} |")
    # The forward is deterministic; dQ is reduce-added in whatever order the tiles finish (not bitwise).
    print(f"\ngraph replay against an eager step: out bitwise equal {torch.equal(out, reference_out)}; grads max abs "
          f"difference " + ", ".join(f"{(a.float() - b.float()).abs().max().item():.2e}"
                                     for a, b in zip(grads, reference_grads)))


if __name__ == "__main__":
    main()
