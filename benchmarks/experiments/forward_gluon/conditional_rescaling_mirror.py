"""A float32 PyTorch mirror of the forward's key-loop softmax, block by block, in its two forms: the online
softmax (``_online_softmax``) and conditional rescaling (FlashAttention-4's; v0.24-v0.25's ``lazy_rescale``,
``_lazy_online_softmax``, measured 5-19% slower on the H200 and removed, results/2026-12-01_h200_v0.25_probes/
conditional_rescaling.patch: exponentials
against the running maximum, which moves only when a block's maximum exceeds it by more than 2^8; block 0 as the
kernel's prologue, exact), against ``flashio.reference.attention_reference`` in float64. It checks the
recurrence's algebra on the CPU: threshold, rows without visible keys, a late band of 6x keys. Gluon has no
interpreter, so the kernel was checked only on the GPU (its forced check path, 17 of 17 PASS in v0.25). Here the rescaling decision covers all rows at once; the kernel's covers a warpgroup's
64, which rescales a subset: also exact.

    PYTHONPATH=src python3 benchmarks/experiments/forward_gluon/conditional_rescaling_mirror.py

Outcome (v0.24): both forms match the float64 reference to 8e-6 in O and LSE on every case, with the same rows
at -inf.
"""

import math

import torch

from flashio.reference import attention_reference, causal_visibility

LOG2E = 1.4426950408889634
BLOCK_N = 128
RESCALE_THRESHOLD = 8.0  # log2 units: P stays below 2^8, as in the kernel


def _finite_or_zero(m: torch.Tensor) -> torch.Tensor:
    return torch.where(m == -math.inf, torch.zeros_like(m), m)


def blockwise_attention(q, k, v, causal: bool, conditional: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(O, LSE) of one head, (Nq, d) and (Nk, d) float32 inputs, the scores taken BLOCK_N keys at a time with the
    kernel's recurrence: m, l and O relative to the running maximum m (base 2)."""
    qk_scale = q.shape[1] ** -0.5 * LOG2E
    scores = q @ k.T
    visible = causal_visibility(q.shape[0], k.shape[0]) if causal else torch.ones_like(scores, dtype=torch.bool)
    m = torch.full((q.shape[0],), -math.inf)
    l = torch.zeros(q.shape[0])
    acc = torch.zeros(q.shape[0], v.shape[1])
    for block, start in enumerate(range(0, k.shape[0], BLOCK_N)):
        keys = slice(start, start + BLOCK_N)
        s = torch.where(visible[:, keys], scores[:, keys], torch.tensor(-math.inf)) * qk_scale
        m_block = s.max(1).values
        rescale = (m_block > _finite_or_zero(m) + RESCALE_THRESHOLD) | ((m == -math.inf) & (m_block > -math.inf))
        if block == 0 or not conditional or bool(rescale.any()):  # the online softmax's step
            m_new = torch.maximum(m, m_block)
        else:  # exponentials against the running maximum, which stays
            m_new = m
        p = torch.exp2(s - _finite_or_zero(m_new)[:, None])
        alpha = torch.exp2(m - _finite_or_zero(m_new))
        l = l * alpha + p.sum(1)
        acc = acc * alpha[:, None] + p @ v[keys]
        m = m_new
    empty = l == 0
    l_safe = torch.where(empty, torch.ones_like(l), l)
    lse = torch.where(empty, torch.tensor(-math.inf), (m + torch.log2(l_safe)) / LOG2E)
    return acc / l_safe[:, None], lse


def main() -> None:
    torch.manual_seed(0)
    head_dim = 64
    print("| Nq | Nk | causal | key spikes | form | max |O err| | max |LSE err| | same -inf rows |")
    print("|---|---|---|---|---|---|---|---|")
    for seqlen_q, seqlen_k, causal, spikes in ((512, 1024, False, True), (1024, 1024, True, True),
                                               (1500, 1000, True, False), (300, 1000, True, True),
                                               (1000, 1000, False, False)):
        q, k, v = (torch.randn(n, head_dim, dtype=torch.float64) for n in (seqlen_q, seqlen_k, seqlen_k))
        if spikes:  # as flashio.check's key_spikes cases
            k[seqlen_k * 5 // 8:seqlen_k * 5 // 8 + 96] *= 6
        reference, reference_lse = attention_reference(q[None, None], k[None, None], v[None, None], causal=causal,
                                                       upcast=False, return_lse=True)
        reference, reference_lse = reference[0, 0], reference_lse[0, 0]
        finite = torch.isfinite(reference_lse)
        for conditional in (False, True):
            out, lse = blockwise_attention(q.float(), k.float(), v.float(), causal, conditional)
            out_error = (out.double() - reference).abs().max().item()
            lse_error = (lse.double()[finite] - reference_lse[finite]).abs().max().item()
            same_empty = bool((torch.isinf(lse) == torch.isinf(reference_lse)).all())
            print(f"| {seqlen_q} | {seqlen_k} | {causal} | {spikes} | {'conditional' if conditional else 'online'} | "
                  f"{out_error:.1e} | {lse_error:.1e} | {same_empty} |")


if __name__ == "__main__":
    main()
