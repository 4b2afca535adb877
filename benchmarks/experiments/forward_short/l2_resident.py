"""How much of the short-sequence gap is HBM traffic: the tuned forward (or backward) timed with its Q, its K/V, or
all three read from one head's worth of memory (stride-0 batch and head dimensions: every tile's loads hit the
L2), beside the ordinary inputs, in the same process, bf16, batch*N = 16k tokens, hidden 2048.

Why (benchmarks/PERFORMANCE.md, v0.24-v0.26): at d=128 non-causal 1k a tile of the persistent forward spends
~3.6 us at its boundary against cuDNN's ~1.1, much of it the consumers waiting for the next tile's Q (fetched
once, from HBM) and then for its first K/V blocks. Prefetching Q into the L2 a tile ahead did not help (v0.24),
which says the wait is not HBM latency that an earlier fetch hides; this measures it directly. Each variant
does the same work on the same shapes (the tuned kernel, chosen once on the ordinary inputs and cached, is
reused: the tuning key has no strides), only the bytes that come from HBM differ. If "Q in L2" is no faster
than the ordinary inputs, the Q wait is the load's own latency from the L2 (or the boundary's order), not HBM.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/l2_resident.py [--backward]

Prints, per point, each variant's ms per call and TFLOP/s (median of interleaved rounds, each after a warm-up of
its own, calls back to back) and its ratio to the ordinary inputs. ``--backward`` times the backward launcher the
same way (dQ, dK, dV from dO and the forward's O and LSE; dO shared with Q in the variants that share Q); its
TFLOP/s count the five products (2.5x the forward's FLOPs). Not part of the test suite (needs a CUDA GPU).

Run in v0.28 (H200, results/2026-12-01_h200_v0.28_probes/l2_resident.txt, l2_resident_backward.txt): with every
load an L2 hit, both passes run 4-8% faster at 1k (forward d=128 non-causal 1.046, causal 1.069; backward 1.045,
1.069; d=64 1.04-1.08) and no faster at 16k; Q alone 0-3% (-0.4 to +7% with dO in the backward), K/V alone 2-5%.
"""

import argparse
import statistics

import torch

import flashio
from flashio import configs, launchers
from flashio.bench import sweep

VARIANTS = ("ordinary", "Q in L2", "K/V in L2", "Q, K, V in L2")
# The backward's: "Q in L2" shares dO too (the query-side rows every key tile of a head reads).
BACKWARD_NAMES = {"Q in L2": "Q, dO in L2", "Q, K, V in L2": "Q, K, V, dO in L2"}


def inputs(batch: int, heads: int, seqlen: int, head_dim: int, variant: str) -> tuple[torch.Tensor, ...]:
    """(q, k, v, do) of the variant: a shared tensor is one (1, 1, N, d) head expanded to (batch, heads, N, d)
    (dO shared with Q)."""
    def tensor(shared: bool) -> torch.Tensor:
        if shared:
            return torch.randn(1, 1, seqlen, head_dim, device="cuda", dtype=torch.bfloat16).expand(
                batch, heads, seqlen, head_dim)
        return torch.randn(batch, heads, seqlen, head_dim, device="cuda", dtype=torch.bfloat16)

    q_shared = variant in ("Q in L2", "Q, K, V in L2")
    kv_shared = variant in ("K/V in L2", "Q, K, V in L2")
    return tensor(q_shared), tensor(kv_shared), tensor(kv_shared), tensor(q_shared)


def backward_call(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, do: torch.Tensor, causal: bool):
    """The backward launcher on (q, k, v, dO) and the forward's O and LSE, as a call without arguments."""
    scale = q.shape[-1] ** -0.5
    out, lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal, dropout_p=0.0,
                                           seed=0)
    return lambda: launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd", softmax_scale=scale,
                                                causal=causal, dropout_p=0.0, seed=0)


def time_calls(timer, run, calls: int, warmup_calls: int) -> float:
    """ms per call of ``calls`` back-to-back calls after ``warmup_calls`` of them (the bench's sustained runs:
    ``sweep._CudaEventTimer.time_run``)."""
    timer.time_run(run, [], warmup_calls)
    return timer.read([timer.time_run(run, [], calls)])[0] / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", nargs="+", default=["128:nc:1024", "128:c:1024", "128:nc:16384",
                                                          "64:nc:1024", "64:c:1024"],
                        help="D:nc|c:N")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backward", action="store_true",
                        help="time the backward launcher (dQ, dK, dV from dO and the forward's O and LSE) instead")
    args = parser.parse_args()
    timer = sweep._CudaEventTimer()
    for point in args.points:
        head_dim, mask, seqlen = point.split(":")
        head_dim, seqlen, causal = int(head_dim), int(seqlen), mask == "c"
        batch, heads = 16384 // seqlen, 2048 // head_dim
        flops = 4 * batch * heads * seqlen * seqlen * head_dim * (0.5 if causal else 1.0)
        tensors = {variant: inputs(batch, heads, seqlen, head_dim, variant) for variant in VARIANTS}
        if args.backward:
            flops *= 2.5  # five products to the forward's two
            runs = {variant: backward_call(*t, causal) for variant, t in tensors.items()}
        else:
            runs = {variant: (lambda t=t: flashio.attention(*t[:3], is_causal=causal)) for variant, t in tensors.items()}
        for run in runs.values():  # tunes on the ordinary inputs first; the others reuse the choice
            run()
        torch.cuda.synchronize()
        estimate = time_calls(timer, runs["ordinary"], 20, 5)
        calls = max(20, round(20 / estimate))
        warmup = max(20, round(300 / estimate))
        times = {variant: [] for variant in VARIANTS}
        for _ in range(args.rounds):
            for variant in VARIANTS:
                times[variant].append(time_calls(timer, runs[variant], calls, warmup))
        kind = "backward" if args.backward else "forward"
        choices = [f"{key[0]}={choice}" for key, choice in configs.cached_choices().items()
                   if key[0].startswith(kind) and key[4] == head_dim]
        print(f"== {kind} d={head_dim} {'causal' if causal else 'non-causal'} N={seqlen} (batch {batch}, heads "
              f"{heads}); {kind} choices cached: {len(choices)}")
        base = statistics.median(times["ordinary"])
        for variant in VARIANTS:
            ms = statistics.median(times[variant])
            name = BACKWARD_NAMES.get(variant, variant) if args.backward else variant
            print(f"   {name:18s} {ms:.4f} ms ({', '.join(f'{t:.4f}' for t in times[variant])})  "
                  f"{flops / ms / 1e9:6.1f} TFLOP/s  x{base / ms:.3f}")
        for choice in choices:
            print(f"   {choice}")


if __name__ == "__main__":
    main()
