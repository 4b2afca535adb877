"""DRAM traffic after the L2 cache.

The paper counts accesses past the SRAM. On GPUs with a large L2 the blocks that several thread blocks
re-read at about the same time hit in L2, so DRAM sees less: on the H200 (60 MiB L2) ncu measured the
fused kernels at the compulsory minimum — Q, K, V read once, O written once — at the GPT-2 medium shape
(h200_anchors.md). This module turns per-kernel SRAM-level counts into DRAM bytes from the L2 size, the
number of thread blocks that run at once (SMs × occupancy) and the kernel's schedule.

Model (one kernel at a time):
- compulsory traffic: each tensor's distinct elements once (min(count, tensor size));
- re-reads/re-writes beyond that hit in L2 with probability h = min(1, L2_eff / footprint), where the
  footprint is the data the concurrently running thread blocks re-use: the re-read tensors of every
  head that has a thread block in flight. Thread blocks that start at different times sit at different
  points of their head's K/V stream, so the whole per-head re-read set must stay resident (an LRU
  argument), not just one tile.
- L2_eff = L2_USABLE_FRACTION × L2 size. The fraction is an assumption (not measurable from the H200
  anchors, which sit far below the limit): A100/H100-class L2s are split into two partitions, and lines
  used from both sides may be held twice, so half the capacity is counted.
Standard attention's N×N intermediates pass between kernels; the next kernel reads them from L2 only
when the whole intermediate fits in L2_eff (streaming larger matrices through an LRU cache hits nothing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from flashio.model.counts import IOCount, tensor_element_bytes

L2_USABLE_FRACTION = 0.5


@dataclass(frozen=True)
class DramTraffic:
    read_bytes: float
    write_bytes: float
    hit_rate: float  # of the re-use traffic beyond compulsory

    @property
    def total_bytes(self) -> float:
        return self.read_bytes + self.write_bytes


def reuse_hit_rate(footprint_bytes: float, l2_bytes: float) -> float:
    """Fraction of re-use traffic that hits: 1 while the re-used set fits in the usable L2, then
    L2_eff / footprint (each re-used line survives with the probability that it is still resident)."""
    usable = L2_USABLE_FRACTION * l2_bytes
    if footprint_bytes <= usable:
        return 1.0
    return usable / footprint_bytes


def concurrent_heads(ctas_per_head: int, concurrent_ctas: int, n_heads: int) -> int:
    """Heads with a thread block in flight when ``concurrent_ctas`` run at once, thread blocks launched
    head by head; one head more than the exact quotient for the staggered starts, capped at n_heads."""
    if ctas_per_head <= 0:
        return 0
    return int(min(n_heads, math.ceil(concurrent_ctas / ctas_per_head) + 1))


def dram_traffic(sram_counts: IOCount, tensor_elements: Mapping[str, int], heads: int,
                 reused: frozenset[str] | set[str], active_heads: int, l2_bytes: float,
                 input_bytes: int = 2) -> DramTraffic:
    """DRAM bytes of one kernel from its per-head SRAM-level counts.

    ``tensor_elements``: elements of each tensor per head (the compulsory unit). ``reused``: the tensors
    whose re-reads define the L2 footprint. ``active_heads``: heads in flight at once.
    """
    footprint = active_heads * sum(tensor_elements[name] * tensor_element_bytes(name, input_bytes)
                                   for name in reused if name in tensor_elements)
    hit = reuse_hit_rate(footprint, l2_bytes) if footprint > 0 else 1.0

    def after_l2(counts: Mapping[str, int]) -> float:
        total = 0.0
        for name, count in counts.items():
            size = tensor_elements.get(name, count)
            compulsory = min(count, size)
            total += (compulsory + (count - compulsory) * (1.0 - hit)) * tensor_element_bytes(name, input_bytes)
        return total * heads

    return DramTraffic(after_l2(sram_counts.reads), after_l2(sram_counts.writes), hit)


def intermediate_hits_l2(intermediate_bytes: float, l2_bytes: float) -> bool:
    """Whether an N×N intermediate (all heads) written by one kernel is still in L2 for the next."""
    return intermediate_bytes <= L2_USABLE_FRACTION * l2_bytes
