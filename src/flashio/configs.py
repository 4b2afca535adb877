"""Tile configurations as data, and the cached choice among them.

A configuration fixes the tile shape and the launch parameters of one kernel. On a GPU each kernel has
a short list of candidates per head-dimension bucket; the first call for a given key (kernel, device,
dtype, head-dim bucket, features, power-of-two buckets of the sequence lengths) times the candidates once
and caches the fastest, so a new sequence length inside the same bucket does not retune. Under the
Triton CPU interpreter a fixed small configuration is used (timing the interpreter means nothing).
Set ``FLASHIO_AUTOTUNE=0`` to skip timing and take each list's first entry (the analytic default).

Choices also persist across processes in a JSON file (``FLASHIO_TUNING_CACHE``: a path, or ``off``;
default ``~/.cache/flashio/``), named after a fingerprint of the kernel sources and the candidate lists
and the Triton version, so that a change to either starts a fresh file: the next process pays only
Triton's compile (itself cached on disk), not the timing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import statistics
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Hashable, Optional, Sequence, TypeVar


@dataclass(frozen=True)
class TileConfig:
    """Tile shape and launch parameters of one kernel.

    ``block_m``: query rows per tile; ``block_n``: keys per tile; ``num_warps``: warps per program;
    ``num_stages``: depth of the software pipeline over the streamed loop; ``path``: which kernel of the
    pass (``"pointer"``, the portable kernel, ``"tma"``, the tensor-descriptor kernel of Hopper and
    newer, ``"ws"``, the warp-specialised tensor-descriptor kernels, or ``"gluon"``, the fused five-product
    backward of ``kernels/backward_gluon.py``); ``max_registers``: a per-thread register cap handed to the
    compiler (``maxnreg``), so that two programs fit on one multiprocessor; None leaves the choice to the
    compiler; ``passes`` (dK/dV kernel): 1 computes dK and dV together, 2 runs a dV pass then a dK pass,
    one float32 accumulator live at a time (a fifth matrix product per tile for no register spills at
    d=256); ``persistent`` (warp-specialised forward and dK/dV kernels, Gluon forward, specialised fused
    backward): one program per multiprocessor looping over the tiles instead of one program per tile;
    ``dq_chunks`` and ``dq_buffers`` (fused backward): the dQ_i product in that many column chunks (fewer
    live registers), and that many float32 dQ tiles in shared memory (a reduce-add may still be reading one
    while the next is written);
    ``warp_specialised`` (fused backward): a TMA loader warp and a dQ reduce-add warp beside the MMA warps;
    ``kv_in_registers`` (fused backward): K_j and V_j held in registers as the A operands of the two score
    products, halving their shared-memory traffic; ``split_roles`` (fused backward, d=256,
    ``kernels/backward_gluon_split.py``): the probabilities/dV and the score-gradients/dK roles on two MMA
    warpgroups of ``num_warps`` = 4 each, ``num_stages`` Q slots, dQ in ``dq_chunks`` chunks over both;
    ``pipelined`` (Gluon forward): the next key block's scores are computed while this block's softmax runs
    (FlashAttention-3's intra-warpgroup overlap; needs three K/V slots to keep the loader ahead, or
    ``split_kv``: K and V slots with their own barriers, K_j's freed once S_j is computed); ``pingpong``
    (pipelined Gluon forward): the two consumers take turns issuing their products, so that one's softmax
    runs while the other's products do (FlashAttention-3's inter-warpgroup schedule); ``stats_in_shared``
    (specialised fused backward): the loader warp puts each query block's LSE and D rows in shared memory,
    where the MMA warps read them when needed instead of holding them in registers across the score products;
    ``output_from_registers`` (Gluon forward): the consumers store their output tile from registers
    instead of staging it through their Q buffer and storing it by TMA; in the persistent kernel they then
    hand Q back when their key loop ends and the loader fetches the next tile's first K/V blocks, then its
    Q, while they finish the tile; ``output_buffer``
    (persistent Gluon forward): the same hand-back with the output tile staged in a shared buffer of its own
    and stored by TMA, the store waited for at the next tile's epilogue (32 KB more shared memory at d=128:
    two K/V slots, so with ``split_kv``); ``q_buffers`` (persistent Gluon forward): 2 gives the consumers two
    sets of Q buffers, tiles alternating between them, so that the loader fetches the next tile's Q while
    they compute this one (16 KB more shared memory per set at d=128: with ``split_kv`` there);
    ``early_q_release`` (persistent pipelined Gluon forward storing its output from registers or its own
    buffer): Q handed back once the tile's last score product has read it, before that block's softmax,
    its P V product and the epilogue; ``half_diagonal``
    (pipelined Gluon forward, causal): a consumer whose rows see only the first half of their last key
    block (the first consumer's diagonal block with 64-row consumers and 128-key blocks) computes that
    block's two products over the half; ``balanced_schedule`` (persistent forward, warp-specialised or
    Gluon, and persistent fused backward; causal): the programs take their tiles (query blocks; key blocks in
    the backward) from a host-made list (``flashio.schedules``) that keeps
    the pairs of equal work but hands the last rounds' tiles out one by one, costliest first, instead of
    round-robin; ``q_in_registers`` (persistent pipelined Gluon forward whose Q buffer does not stage the
    output): each consumer loads its Q rows into registers as the score products' A operand and hands the
    buffer back at once, so that the next tile's Q is fetched during this one; ``ds_buffers`` (specialised
    fused backward): 2 gives dS^T two shared tiles used in turn, so that each query block needs one barrier
    over the MMA warps instead of two (its dQ tile and Q/dO slot handed on at the next block's barrier;
    16 KB more shared memory at d=128; needs ``num_stages`` >= 2); ``split_rows`` (persistent specialised
    fused backward, ``kernels/backward_gluon_rows.py``): the 128 key rows of a block on two 4-warp MMA
    warpgroups that are partitions of their own (``num_warps`` = 4), meeting only where the dQ product needs
    both halves of dS^T, each handing its Q/dO slot and dQ half back when it is done with them;
    ``late_key_gradient_wait`` (specialised fused backward with ``ds_buffers`` = 2, dQ in one piece): the
    MMA warps no longer wait for a query block's dV and dK products at the block's end; the next block's
    wait for its S^T product covers them (warpgroup MMAs retire in issue order), so a warp takes its next
    Q/dO slot and LSE/D rows with them still on the tensor cores; ``split_tail`` (persistent specialised fused
    backward, non-causal calls): the last, partial round of key blocks cut along the query blocks into one
    run per program (``schedules.split_tail_schedule``), the pieces' dK/dV added in float32 and converted
    after the kernel; in the persistent Gluon forward (v0.38, prepared: not yet a candidate) the last, partial
    round of query blocks cut along the key blocks (``schedules.split_tail_forward_schedule``), each piece's O and
    LSE in a float32 slot merged after the kernel; causal calls are unaffected; ``wide_stores`` (Gluon forward
    storing its output from registers, 64-row consumers; persistent warp-specialised fused backward, its dK and
    dV): the words exchanged between the four lanes of each row by warp shuffles so that each thread stores 16
    contiguous bytes instead of 4 (no shared memory; ``kernels/gluon_stores.py``); ``do_stages`` (role-split fused
    backward): the dO_i ring's slots (1 or 2; ``num_stages`` is the Q_i ring's), so that the next dO_i can be
    fetched while both warpgroups still read this one; ``spread_dq_stores`` (persistent warp-specialised fused backward
    with dQ in one chunk, role-split fused backward): the float32 dQ tiles written into shared memory without bank
    conflicts (odd rows store the column block 16 columns over through a view of the tile that flips that column bit on
    odd rows; ``kernels/gluon_stores.store_float32_spread``); ``early_lse`` (persistent warp-specialised fused backward
    with LSE/D rows in shared memory): each block's LSE row read from shared memory right after its S^T and dP^T
    products are issued, not after the wait for S^T, so that the read's latency runs under the product;
    ``dynamic_schedule`` (persistent Gluon forward, persistent warp-specialised fused backward, both with
    ``balanced_schedule``; causal): the programs claim their tiles (the backward: key blocks) one at a time from one
    list (``schedules.claim_order``) through a counter in global memory, instead of each taking its own static list;
    ``noncausal_claims`` (persistent Gluon forward, persistent warp-specialised fused backward, both without
    ``split_tail``; non-causal): the same kernel form (``DYNAMIC``) for non-causal calls, the list being every tile
    in order (forward: a head's query blocks one after another, the round-robin's order; backward: a KV head's key
    blocks), so that a program that runs slower takes fewer tiles (v0.39 forward, v0.40 backward). ``split_tail``
    and ``noncausal_claims`` shape non-causal calls only: a causal call runs ``causal_form()``. ``kv_slots``
    (persistent warp-specialised fused backward, head dim <= 64): 2 gives K_j and V_j two shared slots each, so that
    the loader requests a key block's K/V while the MMA warps still work on the previous block (v0.41; 32 KB more
    shared memory at d=64). ``queries_first`` (persistent warp-specialised fused backward with one K/V slot; v0.42):
    the loader requests a key block's first query blocks (Q_i, dO_i, LSE/D rows) and writes its K/V descriptors
    before it waits for the MMA warps to release the slot, instead of after. ``host_descriptors`` (role-split fused
    backward, one key block per program; v0.44): how many of the loaded tensors reach the kernel as tensor
    descriptors that the launcher made on the host (``launchers.host_descriptor``) instead of descriptors that each
    program's loader writes to global memory and fences before its first load: 0, 2 (K and V) or 4 (Q, K, V, dO);
    in the persistent Gluon forward (v0.46) 0, 1 (Q) or 3 (Q, K and V: the loader then writes no descriptor and waits
    for no earlier load at a tile's start); inputs with a batch or head dimension broadcast (stride 0) run the form
    with 0 (``launchers.host_descriptor_form``). ``mask_by_branch`` (persistent pipelined Gluon forward; v0.49): the
    masked key blocks (causal diagonal, end of the keys) run the unmasked blocks' step, the mask applied under a
    run-time branch, instead of a copy of the step of their own: the consumer partitions' code is shorter and a
    tile's diagonal step runs code already fetched into the instruction cache. ``mask_every_block`` (the same forward,
    without ``mask_by_branch``; v0.49): the same single step, its mask computed in every key block without a branch
    (each row's last visible key, past every key in the unmasked blocks): ptxas keeps the step's softmax overlapping
    the previous block's P V product, which it does not across the branch; on the H200 (v0.49, probe run 58) correct
    and 3-24% slower than either, so a forced check path only. ``overlap_tiles`` (persistent pipelined Gluon forward
    storing its output from registers, claiming its tiles: ``dynamic_schedule``, and for non-causal calls
    ``noncausal_claims``, without which they run the plain loop; v0.50): each consumer issues a tile's first score
    product, stores the previous tile's output while it runs, then waits for it and runs the tile's key loop
    (``kernels/forward_gluon._overlapped_consumer``); on the H200 (v0.50, probe run 59) correct and no faster (a tile's
    two consumers run 1.5-2.3 µs apart, so neither's boundary idles the tensor cores), so a forced check path only.
    ``published_coordinates`` (persistent Gluon forward claiming its tiles; v0.51): the loader publishes each claimed
    tile's (query block, head, batch) packed in one int64 instead of its id, so that the consumers skip the id's
    decode (two integer divisions by run-time counts) between tiles; the launcher leaves it off for shapes whose
    block or head count reaches 2^20 or whose batch reaches 2^23 (``launchers.gluon_forward_launch``).
    ``row_sum_mma`` (persistent pipelined Gluon forward with 64- or 128-key blocks, without ping-pong; v0.53, the half
    diagonal block v0.54): each consumer sums its rows of P on the tensor cores, P times a [64, 8] block of ones in
    shared memory (one a program; 128-key P in two pieces) issued beside the P V product (l then a [rows, 8]
    accumulator rescaled with O), instead of 64 additions and two shuffles per thread and key block on the CUDA cores;
    l is then the sum of P as rounded to 16 bits, the values the P V product multiplies. On the H200 it pays where
    the forms are bound by issue (d=64's four-consumer forms at causal 1k: +7%) and costs 3-12% at d=128, nearer the
    tensor cores' bound (v0.54 probe run 67).
    """

    block_m: int
    block_n: int
    num_warps: int = 4
    num_stages: int = 2
    path: str = "pointer"
    max_registers: Optional[int] = None
    passes: int = 1
    persistent: bool = False
    dq_chunks: int = 1
    dq_buffers: int = 2
    warp_specialised: bool = False
    kv_in_registers: bool = False
    split_roles: bool = False
    pipelined: bool = False
    split_kv: bool = False
    pingpong: bool = False
    stats_in_shared: bool = False
    output_from_registers: bool = False
    output_buffer: bool = False
    q_buffers: int = 1
    early_q_release: bool = False
    half_diagonal: bool = False
    balanced_schedule: bool = False
    q_in_registers: bool = False
    ds_buffers: int = 1
    split_rows: bool = False
    late_key_gradient_wait: bool = False
    split_tail: bool = False
    wide_stores: bool = False
    do_stages: int = 1
    spread_dq_stores: bool = False
    early_lse: bool = False
    dynamic_schedule: bool = False
    noncausal_claims: bool = False
    kv_slots: int = 1
    queries_first: bool = False
    host_descriptors: int = 0
    mask_by_branch: bool = False
    mask_every_block: bool = False
    overlap_tiles: bool = False
    published_coordinates: bool = False
    row_sum_mma: bool = False

    def causal_form(self) -> "TileConfig":
        """The configuration a causal call of this one runs: the options read by non-causal calls only
        (``split_tail``, ``noncausal_claims``) off. Two candidates with the same causal form are one kernel for a
        causal call, timed once (``launchers._pick``)."""
        return replace(self, split_tail=False, noncausal_claims=False)

    def claims_form(self) -> "TileConfig":
        """This persistent form with its non-causal tiles claimed one at a time, in order (``noncausal_claims``),
        in place of the split tail; its causal form is unchanged."""
        return replace(self, split_tail=False, noncausal_claims=True)

    def launch_options(self) -> dict:
        """Keyword arguments of a Triton launch for this configuration."""
        options = dict(num_warps=self.num_warps, num_stages=self.num_stages)
        if self.max_registers is not None:
            options["maxnreg"] = self.max_registers
        return options

    def clipped(self, max_block_m: int, max_block_n: int) -> "TileConfig":
        """The same configuration with tiles no larger than the given limits (powers of two)."""
        return replace(self, block_m=min(self.block_m, max_block_m), block_n=min(self.block_n, max_block_n))


# Under the interpreter: unequal tile sides so that tests exercise the diagonal logic of both loops.
INTERPRETER_FORWARD = TileConfig(block_m=32, block_n=16)
INTERPRETER_BACKWARD_DKDV = TileConfig(block_m=16, block_n=32)
INTERPRETER_BACKWARD_DQ = TileConfig(block_m=32, block_n=16)

# GPU candidates, first entry = analytic default. Shared memory per stage is roughly
# (block_m + 2*block_n) * d * 2 bytes for the forward; larger d needs smaller tiles or fewer stages.
# On sm_90a ptxas serialises the portable forward's warpgroup MMAs (warning C7515, read from the compile in
# v0.20: its P V product is waited for at the loop exit, where the path that skips the loop zero-fills the
# accumulator); its 64x64 tile is nonetheless the tuned d=64 causal 1k choice. Forward probe run 18 (v0.21)
# measured the two unserialised alternatives slower: that tile with its masked loop unpipelined (an option
# removed in v0.21) and the descriptor kernel's 64x64 tile.
FORWARD_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (
        TileConfig(128, 64, 4, 3), TileConfig(128, 128, 8, 3), TileConfig(128, 64, 4, 4),
        TileConfig(128, 128, 4, 3), TileConfig(64, 64, 4, 3),
    ),
    128: (
        TileConfig(128, 64, 8, 3), TileConfig(128, 128, 8, 3), TileConfig(128, 64, 4, 3),
        TileConfig(128, 128, 8, 2), TileConfig(64, 64, 4, 3),
        # 128 registers per thread and 96 KB of shared memory: two programs per multiprocessor, so one
        # program's prologue and epilogue overlap another's loop (+13% at N=1k, v0.5).
        TileConfig(128, 64, 8, 2, max_registers=128),
    ),
    256: (
        TileConfig(64, 64, 4, 2), TileConfig(128, 64, 8, 2), TileConfig(64, 32, 4, 2),
        TileConfig(128, 32, 8, 2),
    ),
}
# The tensor-descriptor forward (Hopper and newer; see kernels/forward_tma.py).
FORWARD_TMA_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (TileConfig(128, 128, 8, 3, "tma"), TileConfig(128, 64, 4, 3, "tma")),
    128: (
        TileConfig(128, 128, 8, 3, "tma"), TileConfig(128, 64, 4, 3, "tma"),
        TileConfig(128, 64, 8, 2, "tma", max_registers=128),
    ),
    256: (
        TileConfig(64, 64, 4, 2, "tma"), TileConfig(128, 64, 8, 2, "tma"),
    ),
}
# Head-dimension buckets where the backward times dQ by float32 atomics in the dK/dV kernel against the
# separate dQ kernel. Every choice recorded on the H200 (v0.5-v0.6 variant runs, the v0.6 d=64 grid: 34
# points at d=64, 14 at d=256) took the separate kernel except 2 of 14 at d=128; timing the atomic form
# compiles a second set of dK/dV kernels (a first call's compilation for sm_90a, forward and backward,
# `benchmarks/compile_cost.py` on a 2-core CPU: 37.5 -> 27.3 s at d=64, 95.9 -> 58.1 s at d=256 without
# it), so elsewhere the separate kernel runs untimed (and the backward is bitwise deterministic there).
ATOMIC_DQ_TUNED_BUCKETS = (128,)
# Head-dimension buckets where the warp-specialised kernels join the tuned choice. At d=64 they lost to the
# other kernels at every point measured on the H200 (v0.6: forward 0.7-1.0x the best other kernel, dK/dV
# 0.7-0.96x; v0.7: the persistent forward 0.84-0.95x cuDNN below the portable kernels, the dQ kernel
# 0.69-0.94x the portable one), so there they run only when forced (FLASHIO_FORWARD_PATH /
# FLASHIO_BACKWARD_PATH=ws). The dQ kernel has no d=256 candidate (shared memory).
WS_TUNED_BUCKETS = {"forward": (128, 256), "backward_dkdv": (128, 256), "backward_dq": (128,)}
# The fused five-product backward (kernels/backward_gluon.py, Gluon, sm_90 only): dK, dV and the dQ
# contributions in one kernel, dQ reduce-added in bulk by TMA. num_warps = the MMA warps, 16 key rows each.
# d=64: 64x64 tiles with 4 warps (two programs share a multiprocessor, so their exponentials and matrix
# products overlap) or the warp-specialised form with 64x128 tiles; on the H200 (v0.9 probe, bf16, same
# process) 64x64: 392 TFLOP/s at N=16k, 300 at 1k, the specialised 64x128: 395-397 and 280-281, so both
# compete.
# d=128: the warp-specialised form (a loader warp and a dQ reduce-add warp beside 8 MMA warps, dQ in one
# product, two dQ buffers): 487 TFLOP/s at N=16k and 513 causal 16k, against 475 / 467 for the
# non-specialised 64x128 tile and 447-458 for the two-kernel scheme (v0.7). At d=256 the accumulators and
# tiles of these kernels do not fit. v0.9 also measured a form that queues the next block's S^T and dP^T
# behind dK (P^T and dS^T from shared memory): 18-25% slower (the S^T/dP^T products read both operands
# from shared memory at 64 query columns, which already fills its bandwidth), not kept.
# d=256: the role-split kernel (kernels/backward_gluon_split.py; two MMA warpgroups, one accumulator each,
# a loader warp and a dQ warp per warpgroup): on the H200 (v0.10 probe, bf16) 335-455 TFLOP/s with one Q
# slot and 64-column dQ chunks, 1.03-1.21x cuDNN's backward in the same process, against 204-263 for the
# tuned two-kernel scheme (v0.7 grid); two Q slots with 32-column chunks 4-11% slower.
# K/V in registers at d=64 (v0.10 probe, bf16, same process): the 64x64 tile +2-4% at N <= 4k (-4% at 16k
# non-causal), the specialised 64x128 tile +3-9% at every point measured; those forms replace the plain ones.
# The persistent specialised form (one program per multiprocessor, pairs of key blocks; v0.12 probe, bf16,
# whole backward, same process): at d=128 -1% to +4.5% (causal 4k 402 -> 420 TFLOP/s, 16k 490 -> 488), so
# it competes there; at d=64 0 to -8% (16k 410 -> 387), not a candidate (until v0.19, below).
# LSE/D rows in shared memory (``stats_in_shared``; v0.13 probe, bf16, whole backward, same process,
# results/2026-11-30_h200_v0.13_probes/probe_stats.txt): the register forms spill the D rows across the
# products at d=128 (88 B of stack); without that, d=128 +12-20% non-causal (16k 487 -> 556 TFLOP/s, 2k
# 405 -> 484; cuDNN 565 / 524) and +5-11% causal, d=64 +6-13% (no spills there: the rows' registers freed for
# the products' pipelining), so every specialised candidate takes it.
# v0.18: the persistent d=128 form takes its causal key blocks from a balanced tile list (flashio.schedules;
# probe run 3, bf16, median of 3 rounds: causal 1k / 2k / 4k / 16k 270 -> 274, 360 -> 376, 429 -> 447, 503 ->
# 512 TFLOP/s; non-causal the same kernel, which measured -1% to +3% between its two columns: the noise).
FUSED_TUNED_BUCKETS = (64, 128, 256)
# v0.19: two dS^T tiles (``ds_buffers=2``: one barrier over the MMA warps per query block instead of two, the
# block's Q/dO slot handed back at the next block's barrier; probe runs 4-5, bf16, median of 3 rounds,
# results/2026-12-01_h200_v0.19_probes/). With two Q/dO slots the late hand-back starves the loader: d=128
# -2% to -21%, d=64 -9% to -19%. With three slots at d=64 (the d=128 tiles leave no room for a third: 226 of
# 227 KB) +2-6% over the specialised form, of which the third slot alone +1-2%; the persistent form with
# the list, three slots and two dS tiles +3-10% (non-causal 1k / 2k / 16k 314 -> 328, 375 -> 408, 444 -> 477,
# causal 1k / 2k / 4k / 16k 223 -> 240, 300 -> 329, 363 -> 396, 432 -> 446 TFLOP/s), so it replaces the
# specialised form at d=64. At d=128 three slots fit only with one dQ tile: -1% to -6% with two dS^T tiles;
# with one (run 6, cut short) +1-3.5% over the tuned persistent form at the five points measured, not yet listed
# (its grid is not measured).
# In the v0.19 d=64 grid (bf16 and fp16, 20 points each) the two 64x64 tiles trailed it at all 40 points by
# 7-27% (tuner timings in results/2026-12-01_h200_v0.19_grid/d64_*_il.json), so they are no longer timed.
# v0.20 (probe run 7, bf16, median of 3 rounds, results/2026-12-01_h200_v0.20_probes/): at d=128 three Q/dO
# slots with one dQ tile +0.5-7% over the two-slot persistent form at all seven points (non-causal 2k 451 ->
# 464, causal 2k / 4k / 16k 365 -> 381, 433 -> 464, 506 -> 526 TFLOP/s), so it replaces that form; at d=64 a
# fourth Q/dO slot +0.9-2.1% except non-causal 16k (-0.6%), so it is timed beside the three-slot form. The key
# rows on two MMA partitions (``split_rows``) were level or slower at every point (d=128 0 to -3%, d=64 -1% to -8%):
# not a candidate. The same three slots and one dQ tile on the non-persistent kernel, timed as a third d=128
# candidate in a second d=128 grid (results/2026-12-01_h200_v0.20_grid/with_nonpersistent_three_slots/), was
# within 2% of the fastest non-causal and 1-4% behind the persistent form causal in the tuner's timings (chosen
# at 5 of 20) and moved no point beyond that run's noise (-2% to +3%): not kept.
# v0.23 (probe run 11, bf16, median of 3 rounds, results/2026-12-01_h200_v0.23_probes/probe_bwd_run11.txt): the
# persistent forms with a split tail (``split_tail``: the non-causal round-robin's last, partial round cut into one
# run of query blocks per program) at non-causal 1k / 2k / 4k / 16k: d=64 329 -> 351, 398 -> 423, 451 -> 464,
# 482 -> 493 TFLOP/s, d=128 383 -> 407, 467 -> 490, 517 -> 541, 563 -> 577 (cuDNN 373 / 427 / 441 / 451 and
# 438 / 507 / 531 / 549); causal calls run the same kernel as before (the balanced list). Every persistent
# candidate takes it.
# v0.32 (probe run 15, bf16, median of 3 rounds, results/2026-12-01_h200_v0.32_probes/probe_bwd_run15.txt): the
# tuned persistent forms storing dK and dV 16 bytes at a time (``wide_stores``), non-causal 1k / 2k / 16k, causal 1k
# / 2k / 16k: d=128 395 -> 430, 481 -> 506, 572 -> 580, 278 -> 305, 384 -> 413, 539 -> 545 (cuDNN 451 / 505 / 550,
# 317 / 407 / 532); d=64 (three slots) 349 -> 365, 417 -> 431, 496 -> 491, 240 -> 262, 327 -> 352, 458 -> 473 (cuDNN
# 370 / 425 / 456, 251 / 326 / 439). Both take it; d=64's four-slot form keeps its 4-byte stores until its own form
# with them has passed the GPU check (not run: no device time left in v0.32).
# v0.33 (GPU check path "16-byte dK/dV stores, four slots at d=64" 17/17 PASS; probe run 17, bf16, median of 3 rounds,
# results/2026-12-02_h200_v0.33_probes/probe_bwd_run17.txt): the four-slot form with them, non-causal 1k / 2k / 16k,
# causal 1k / 2k / 16k 351 -> 375, 416 -> 430, 478 -> 489, 243 -> 262, 327 -> 347, 449 -> 452 TFLOP/s; it replaces
# its 4-byte form. d=256's role-split tiles with them (``WIDE_STORES`` in kernels/backward_gluon_split.py; check path
# "role split at d=256, 16-byte dK/dV stores" 17/17 PASS; probe run 16): one Q slot 324 -> 346, 374 -> 395, 429 -> 423,
# 243 -> 269, 309 -> 338, 427 -> 433; two Q slots 306 -> 330, 350 -> 366, 396 -> 395, 232 -> 248, 292 -> 311,
# 392 -> 396 (cuDNN 307 / 350 / 356, 257 / 322 / 377); both take them.
# v0.33: d=256's second tile (two Q slots, 32-column dQ chunks) is no longer timed. It trailed the one-slot tile at
# every point of the v0.10 probe and of probe run 16 (4-11%) and in the tuner's timings at 19 of the v0.33 grid's 20
# d=256 points (3-11%); the tuner took it at none of the 120 d=256 backward points of the v0.14-v0.32 grids, and once
# in v0.33's, on one timing each (bf16 causal 4k, 1.90 against 2.13 ms, where fp16's one-slot tile took 1.82): 349
# TFLOP/s, 0.95x cuDNN, the grid's lowest backward point.
# v0.35 (GPU check path "dQ stored without bank conflicts" 17/17 PASS; probe run 22, bf16, median of 3 rounds,
# results/2026-12-02_h200_v0.35_probes/probe_bwd_run22.txt): the float32 dQ tile stored without bank conflicts
# (``spread_dq_stores``), non-causal 1k / 2k / 16k, causal 1k / 2k / 16k: d=128's persistent form 415 -> 430,
# 486 -> 510, 570 -> 575, 305 -> 308, 406 -> 408, 539 -> 548 TFLOP/s (cuDNN 443 / 498 / 546, 317 / 399 / 531): it
# takes them. d=64's four-slot form 376 -> 375, 444 -> 436, 496 -> 494, 261 -> 260, 349 -> 348, 463 -> 458 and d=256's
# role-split tile 354 -> 314, 408 -> 353, 447 -> 391, 277 -> 255, 350 -> 318, 459 -> 402: neither does (d=256's Q and
# dO loads then land later, ncu run 16). The LSE row read before the S^T wait (``early_lse``; probe run 23): d=128
# +0.6% to +2.6% at N <= 2k and -0.9% to -2.1% at 16k, d=64 -0.4% to -1.6%, within the probe's spread: not a candidate.
# v0.37 (GPU check path "persistent, dynamic tile list" 17/17 PASS; probe run 25, bf16, median of 3 rounds,
# results/2026-12-02_h200_v0.37/call5_probe_bwd_run25.txt): the persistent forms claiming their causal key blocks one
# at a time from one list (``dynamic_schedule``; non-causal calls run them unchanged), causal 1k / 2k / 4k / 16k:
# d=128 308 -> 317, 401 -> 413, 474 -> 482, 544 -> 542 TFLOP/s (cuDNN 319 / 391 / 441 / 532): it takes it. d=64's
# four-slot form 262 -> 262, 347 -> 347, 409 -> 407, 459 -> 458 and three-slot form 263 -> 263, 348 -> 349,
# 409 -> 410, 462 -> 462: level, neither does.
# v0.40 (GPU check path "backward: fused five-product (Gluon), non-causal claims" 17/17 PASS; probe run 26, bf16,
# median of 3 rounds, results/2026-12-02_h200_v0.40/call1_probe_bwd_run26.txt): the persistent forms claiming their
# non-causal key blocks in order (``noncausal_claims``) instead of the split tail, non-causal 1k / 2k / 16k: d=128
# 424 -> 441, 501 -> 506, 578 -> 565 TFLOP/s (cuDNN 429 / 490 / 549): a candidate beside the split tail, the tuner
# choosing by length. d=64's three-slot form 374 -> 360, 436 -> 422, 500 -> 482: not.
# v0.41 (GPU check paths "two K/V slots at d=64" and its claimed key blocks, 17/17 PASS each; probe run 28, bf16,
# median of 3 rounds, results/2026-12-02_h200_v0.41/call5_probe_bwd_run28.txt): d=64's forms with two K/V slots
# (``kv_slots=2``: the next key block's K/V requested while the MMA warps work on this one), non-causal 1k / 2k / 16k,
# causal 1k / 2k / 16k: four Q/dO slots 375 -> 406, 436 -> 452, 491 -> 491, 261 -> 300, 346 -> 369, 460 -> 467
# TFLOP/s; three 364 -> 385, 419 -> 446, 484 -> 491, 262 -> 288, 344 -> 365, 465 -> 458 (cuDNN 372 / 416 / 451,
# 252 / 322 / 432). Both take them.
# v0.42 (GPU check paths "queries first at d=128" and its claimed key blocks, 17/17 PASS each; probe runs 30-31, bf16,
# median of 3 / 5 rounds, results/2026-12-02_h200_v0.42/call1_probe_bwd_run30.txt, call2_probe_bwd_run31.txt): d=128's
# loader requests a key block's first two query blocks and writes its K/V descriptors before it waits for the one K/V
# slot (``queries_first``). The split-tail form, non-causal 1k / 2k / 4k / 16k: 425 -> 442 and 422 -> 439, 500 -> 509
# and 495 -> 505, 549 -> 549, 567 -> 577 and 576 -> 575; causal 1k / 2k / 4k / 16k (four samples of the same kernels
# at 1k-2k and 16k, two at 4k): +1.6% to +1.9%, 0 to +2.4%, -1.6% and +0.6%, -0.4% to +0.4%. The claims form
# non-causal: 432 -> 428, 497 -> 499, 533 -> 538, 565 -> 560, level. Both forms take it (one causal kernel).
BACKWARD_FUSED_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (TileConfig(64, 128, 8, 3, "gluon", dq_chunks=1, dq_buffers=2, warp_specialised=True, kv_in_registers=True,
                    persistent=True, stats_in_shared=True, balanced_schedule=True, ds_buffers=2, split_tail=True,
                    wide_stores=True, kv_slots=2),
         TileConfig(64, 128, 8, 4, "gluon", dq_chunks=1, dq_buffers=2, warp_specialised=True, kv_in_registers=True,
                    persistent=True, stats_in_shared=True, balanced_schedule=True, ds_buffers=2, split_tail=True,
                    wide_stores=True, kv_slots=2)),
    128: (TileConfig(64, 128, 8, 2, "gluon", dq_chunks=1, dq_buffers=2, warp_specialised=True, stats_in_shared=True),
          TileConfig(64, 128, 8, 3, "gluon", dq_chunks=1, dq_buffers=1, warp_specialised=True, persistent=True,
                     stats_in_shared=True, balanced_schedule=True, split_tail=True, wide_stores=True,
                     spread_dq_stores=True, dynamic_schedule=True, queries_first=True)),
          # v0.40-v0.42 also listed the same form claiming its non-causal key blocks in order (``noncausal_claims``)
          # in place of the split tail, timed by non-causal calls only. v0.43 dropped it: the tuner took it at none of
          # the 20 d=128 non-causal points of the v0.42 and v0.43 grids (bf16 and fp16, 1k-16k), and by the rematch's
          # own timings (taken alternately; the first timing left out) it trailed the split tail at 18 of them by
          # 1.4-5.5% (0.5% ahead at 4k in v0.43's two dtypes). The check paths, the resources survey and the probes
          # build it as ``<the form above>.claims_form()``.
    256: (TileConfig(64, 64, 4, 1, "gluon", dq_chunks=4, dq_buffers=2, warp_specialised=True, split_roles=True,
                     wide_stores=True, host_descriptors=2),),
    # v0.44 (probe runs 32-33, bf16, median of 5 rounds): K_j and V_j through descriptors made on the host
    # (host_descriptors=2) start a program's first product 1.25 µs sooner (program_starts.py, non-causal 1k: K/V landed
    # 3.14 -> 1.57 µs after entry, the first S^T 4.32 -> 3.07 µs; block loop 44.93 µs both) and took the whole
    # backward 355 -> 361 / 410 -> 412 / 448 -> 459 TFLOP/s non-causal 1k / 2k / 16k, 278 -> 285 / 353 -> 359 / 458 ->
    # 464 causal. Q and dO through them too (4) ran every block loop 25% longer (44.9 -> 56.4 µs; the whole backward
    # 8-17% slower): not a candidate.
}
# The Gluon forward (Hopper; kernels/forward_gluon.py): block_m = the rows of both consumer warpgroups
# (64 each), num_warps = one consumer's, stages = the K/V ring. Its causal loop masks only the diagonal
# blocks. On the H200 (v0.10 probe, bf16, same process; benchmarks/experiments/forward_gluon) at d=256:
# 541-636 TFLOP/s, 0.86-0.99x cuDNN, against 451-623 for the tuned Triton kernels in that run at N >= 2k; at d=128 it
# wins only causal at N >= 4k (537-542 against 489 at 16k), so it joins the tuned choice at both.
# The pipelined form (``pipelined=True``: S_j's product issued beside P_{j-1} V_{j-1}, the softmax of S_j
# overlapping the latter) was compiled for sm_90a after the v0.10 grid (no spills; the SASS keeps one
# product in flight across the softmax) and first run on the GPU by ``flashio.check`` (forced path
# "forward: Gluon", which takes the first tile) and benchmarks/experiments/forward_gluon/probe.py.
# v0.11 probe (results/2026-11-30_h200_v0.11_probes/probe3.txt, bf16, same process, TFLOP/s): three forms
# prepared in v0.10 ran correctly on their first run and join the choice where they led a point:
# - persistent (one program per multiprocessor, the loader fetching the next tile's Q and K/V while the
#   consumers finish one): d=128 non-causal 1k 524 against 444 for the pipelined tile (cuDNN 605); d=256
#   with separate K/V slots non-causal 1k 620 (cuDNN 627);
# - separate K and V barriers (``split_kv``: K_j's slot freed after S_j, V_j's after P_j V_j, so the
#   pipelined loop runs in two slots): d=256 pipelined 697-698 at 4k-16k non-causal against 611-633 plain
#   (cuDNN 729-749), causal 16k 678 (cuDNN 653); d=128 16k non-causal 634 against 604;
# - ping-pong (``pingpong``: the consumers take turns at issuing their products): d=128 causal 16k 605
#   against 566.
# The plain d=128 tile is dropped (the pipelined one led it at every v0.10 point by 8-20%); the plain d=256
# tile stays (causal 2k: level with separate K/V slots).
# v0.13: the persistent kernel's causal tiles go in pairs of query blocks, head by head (they went heaviest
# first over all heads): d=128 causal 1k-8k +9-19% (2k 386 -> 459 TFLOP/s, v0.11 -> v0.13 probe), past the
# Triton persistent forward from 2k on; the persistent ping-pong and separate-K/V forms ran correctly and
# 0-9% behind the plain persistent one (most at d=64 causal 4k-8k; results/2026-11-30_h200_v0.13_probes/
# probe_fwd_short.txt), not listed.
FORWARD_GLUON_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    # v0.46 (probe runs 51-52, bf16, median of 3 rounds): each tuned persistent form with Q, K and V through
    # descriptors made on the host (``host_descriptors=3``: the loader writes no descriptor and waits for no earlier
    # load at a tile's start) as one more candidate of its head dim, the last ones of each list (d=64: its persistent
    # form; d=128: both persistent forms storing from registers; d=256: the one storing from registers). Against the
    # form without: d=64 causal 1k / 2k 269 -> 295, 375 -> 385, non-causal 1k 423 -> 430, but causal 16k 482 -> 457,
    # non-causal 2k 454 -> 441; d=128 causal 1k 387 -> 415 and 391 -> 416 (two runs), causal 2k 524 -> 538,
    # non-causal 1k with Q in registers 567 -> 588, 2k 590 -> 616, causal 16k 686 -> 645 and 645 -> 623; d=256
    # non-causal 1k / 2k 598 -> 639, 659 -> 673, causal 1k / 2k / 16k 430 -> 480, 541 -> 579, 678 -> 685 TFLOP/s.
    # Ahead at 1k-2k, behind at 16k but at d=256 (the spread there is ~6%: the same form ran 686 and 645 in the two
    # runs), so candidates the tuner takes where they lead.
    # d=64: correct in the v0.11 probe (all three forms), rates first measured by the v0.11 grid. The
    # persistent form stores its output from registers (v0.14 forward probe, bf16: +2-10% over the form that
    # stages it through Q's buffer at every point measured, N = 1k-8k).
    # v0.15 probes (runs 4-5, bf16, TFLOP/s): the persistent form with two sets of Q buffers led the one with
    # one set at every point (+0-4%: non-causal 1k 373 -> 386, causal 2k 332 -> 340) and replaces it; the
    # register-capped plain loop with 64-key blocks, two programs per multiprocessor (80 registers per
    # thread), led every Gluon form at N <= 4k (non-causal 1k 418, causal 1k 299, 2k 377, 4k 403); the same
    # storing its output from registers measured -2% to +3% against it (run 6): both are candidates. In the
    # v0.15 grid the tuner took one of them at 18 of 20 d=64 points (the portable 64x64 kernel at causal 1k).
    # v0.18 (probe run 12, bf16, median of 3 rounds): the persistent form with the half diagonal block and
    # the balanced tile list, causal 1k / 2k / 4k / 8k 258 -> 261, 346 -> 359, 385 -> 410, 424 -> 448 TFLOP/s;
    # non-causal the same kernel (neither option applies there).
    # v0.19 (probe run 17, bf16, median of 3 rounds): the same with Q in registers (its buffer handed back
    # once loaded), non-causal 1k 387 -> 388, causal 1k / 2k / 4k / 8k 258 -> 262, 355 -> 361, 399 -> 414,
    # 431 -> 454 TFLOP/s; it replaces it (at d=128 the same option was 2-5% slower, run 15).
    # v0.32 (probe run 36, bf16, median of 5 rounds): the same storing its output 16 bytes at a time
    # (``wide_stores``), non-causal 1k / 2k / 16k 389 -> 397, 436 -> 447, 473 -> 475, causal 1k / 2k 265 -> 272,
    # 360 -> 377 TFLOP/s; it replaces it. Run 37 (median of 3 rounds): the register-capped form storing from
    # registers, likewise, non-causal 1k / 2k / 4k / 16k 393 -> 416, 434 -> 448, 453 -> 462, 477 -> 477, causal 2k
    # 370 -> 390 (the capped plain loop, its output by TMA: 409, 443, 463, 475, 374); it replaces it.
    # v0.39 (probe run 47, bf16, median of 3 rounds): the persistent form claiming its non-causal tiles one at a time
    # (``noncausal_claims``), non-causal 1k 394 -> 423 TFLOP/s (cuDNN 438); it replaces it.
    64: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True),
         TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                    q_buffers=2, half_diagonal=True, balanced_schedule=True, q_in_registers=True, wide_stores=True,
                    noncausal_claims=True),
         TileConfig(128, 128, 4, 2, "gluon", pipelined=True, split_kv=True),
         TileConfig(128, 64, 4, 3, "gluon", max_registers=80),
         TileConfig(128, 64, 4, 3, "gluon", max_registers=80, output_from_registers=True, wide_stores=True),
         TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                    q_buffers=2, half_diagonal=True, balanced_schedule=True, q_in_registers=True, wide_stores=True,
                    noncausal_claims=True, host_descriptors=3),
         # v0.48 (probe run 53, bf16, median of 3 rounds): the form above with three consumer warpgroups (a 192-row
         # tile; without the half diagonal, a two-consumer option, and without Q in registers, which spills at 160
         # registers per thread): non-causal 1k / 4k / 16k 440 -> 441, 476 -> 512, 479 -> 513, causal 1k / 4k /
         # 16k 297 -> 185, 442 -> 427, 473 -> 502 TFLOP/s. A seventh candidate. Probe run 55: the same claiming its
         # causal tiles one at a time (``dynamic_schedule``), causal 2k / 4k / 8k / 16k 314 -> 339, 426 -> 443, 488 ->
         # 497, 507 -> 508 (non-causal the same kernel: 2k 503 / 489, the probe's noise); the candidate has it.
         # v0.51 (probe run 60, bf16, median of 3 rounds): each claimed tile's (block, head, batch) published packed
         # by the loader (``published_coordinates``), causal 1k / 2k / 4k 208 -> 218, 337 -> 357, 443 -> 451,
         # non-causal 1k / 2k / 4k 435 -> 440, 482 -> 482, 502 -> 502 TFLOP/s; the candidate has it.
         TileConfig(192, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                    q_buffers=2, balanced_schedule=True, wide_stores=True, dynamic_schedule=True, noncausal_claims=True,
                    host_descriptors=3, published_coordinates=True),
         # v0.52 (probe run 62, bf16, median of 3 rounds): the seventh with four consumer warpgroups (256-row tiles,
         # which divide the grid's lengths) and 64-key blocks (a 64 x 128 score block does not fit in a fourth
         # consumer's 112 registers), causal 1k / 2k / 4k / 16k 217 -> 310, 353 -> 423, 454 -> 469, 516 -> 512 (the tuned
         # v0.51 grid: 314, 395, 460, 538), non-causal 1k / 2k / 16k 454 -> 442, 502 -> 456, 526 -> 479 TFLOP/s: ahead at
         # causal 2k-4k. An eighth candidate, and its twin with masks by branch (``mask_by_branch``) a ninth, for the
         # tuner to take where each leads: v0.52 call 3's grids took the eighth at causal 2k-4k, the ninth at causal 1k
         # (and at fp16 non-causal 1k, a tie with the sixth), both dtypes; causal 1k / 2k / 4k 314 -> 329, 395 -> 426,
         # 460 -> 487 TFLOP/s bf16 against v0.51's grid.
         TileConfig(256, 64, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                    q_buffers=2, balanced_schedule=True, wide_stores=True, dynamic_schedule=True, noncausal_claims=True,
                    host_descriptors=3, published_coordinates=True),
         TileConfig(256, 64, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                    q_buffers=2, balanced_schedule=True, wide_stores=True, dynamic_schedule=True, noncausal_claims=True,
                    host_descriptors=3, published_coordinates=True, mask_by_branch=True),
         # v0.53 (probe run 66, bf16, median of 3 rounds): the ninth with its row sums on the tensor cores
         # (``row_sum_mma``; its step 391 -> 346 instructions causal), causal 1k / 2k / 4k 332 -> 355, 417 -> 418, 451 ->
         # 452, non-causal 1k / 2k / 16k 441 -> 445, 462 -> 463, 478 -> 475 TFLOP/s (cuDNN 337 at causal 1k): a tenth
         # candidate, for the tuner to take at causal 1k. (The seventh and eighth with it: mixed, -4% to +8%, within
         # the probe's noise at most points; not candidates.)
         TileConfig(256, 64, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                    q_buffers=2, balanced_schedule=True, wide_stores=True, dynamic_schedule=True, noncausal_claims=True,
                    host_descriptors=3, published_coordinates=True, mask_by_branch=True, row_sum_mma=True),
         # v0.49 (probe run 57, bf16, median of 3 rounds): the sixth candidate with its masked key blocks through the
         # unmasked step's code (``mask_by_branch``; 6,824 -> 5,136 instructions causal), causal 1k / 2k / 4k / 16k
         # 299 -> 318, 393 -> 386, 442 -> 440, 486 -> 471, non-causal 1k / 16k 439 -> 433, 489 -> 473 TFLOP/s: faster
         # where a tile's once-run code is fetched cold at every tile, slower where ptxas's wait for the P V product
         # right after the branch's join costs the step its overlap. As an eighth candidate in v0.49 call 3's grids it
         # tied the two-program 128x64 form at causal 1k (0.2189 against 0.2181 ms, bf16) and was taken at none of
         # the 20 d=64 points, so it was dropped (a forced check path's form). Probe run 58: the same single step with
         # its mask computed in every block, no branch (``mask_every_block``), causal 1k / 2k / 4k / 16k 298 -> 289,
         # 396 -> 353, 450 -> 386, 490 -> 424, non-causal 1k 444 -> 367 TFLOP/s: not a candidate either.
         ),
    # d=128: both persistent forms; the one storing from registers led at non-causal 1k (531 against 507
    # TFLOP/s) and causal 8k (576 / 541), the other at non-causal 2k (554 / 536) and causal 2k (469 / 440).
    # v0.18 (probe run 11, bf16, median of 3 rounds): the form storing from registers with the half diagonal
    # block and the balanced tile list +4-5% causal (1k 353 -> 371, 2k 470 -> 494, 4k 548 -> 577, 8k 598 ->
    # 623; its causal stack 40 -> 8 B); non-causal it compiles to the same kernel (neither option applies).
    # The paired form with them measured -1% to +1% (not changed).
    # v0.32 (probe run 36, bf16, median of 5 rounds): the form storing from registers with 16-byte stores
    # (``wide_stores``), non-causal 1k / 2k / 16k 505 -> 537, 573 -> 596, 629 -> 627, causal 1k / 2k 370 -> 397,
    # 483 -> 495 TFLOP/s; it replaces it.
    # v0.36 (probe runs 40-41, bf16, median of 3 rounds): the same claiming its causal tiles one at a time from one
    # list (``dynamic_schedule``; non-causal calls run it unchanged), causal 1k / 2k / 4k / 8k / 16k 386 -> 388,
    # 498 -> 519, 564 -> 581, 609 -> 626, 631 -> 647 TFLOP/s (run 41); its programs then end within ~8 µs of each
    # other at causal 1k, against ~25 (round_times.py); it replaces it.
    # v0.39 (probe run 47, bf16, median of 3 rounds): the same claiming its non-causal tiles too
    # (``noncausal_claims``; at non-causal 1k the round-robin's programs with 16 tiles ended 15 µs apart, call 7),
    # non-causal 1k / 2k / 4k / 16k 544 -> 568, 595 -> 611, 617 -> 621, 652 -> 650 TFLOP/s; it replaces it. (d=256's
    # persistent form lost 1-3% at 1k-2k with it.)
    # v0.45: the same with Q in registers (``q_in_registers``: the consumers load their Q rows into registers once
    # per tile and hand the buffer back at once) as a sixth candidate: probe runs 48 and 50 (bf16, median of 3
    # rounds) put it at +0.5-5% non-causal, -2% to -10% causal against the form above. v0.45 call 3's grids took it
    # at all ten non-causal d=128 forward points (0.7-4.2% ahead of the next form in the tuner's own medians; the
    # forwards +1.5-4.3% against v0.44's grid) and at no causal one (1.7-4.1% behind).
    128: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True),
          TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True),
          TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                     half_diagonal=True, balanced_schedule=True, wide_stores=True, dynamic_schedule=True,
                     noncausal_claims=True),
          TileConfig(128, 128, 4, 2, "gluon", pipelined=True, split_kv=True),
          TileConfig(128, 128, 4, 3, "gluon", pipelined=True, pingpong=True),
          TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                     half_diagonal=True, balanced_schedule=True, wide_stores=True, dynamic_schedule=True,
                     noncausal_claims=True, q_in_registers=True),
          TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                     half_diagonal=True, balanced_schedule=True, wide_stores=True, dynamic_schedule=True,
                     noncausal_claims=True, host_descriptors=3),
          TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                     half_diagonal=True, balanced_schedule=True, wide_stores=True, dynamic_schedule=True,
                     noncausal_claims=True, q_in_registers=True, host_descriptors=3),
          # v0.49 (probe run 57, bf16, median of 3 rounds): the seventh candidate (form 6) with ``mask_by_branch``
          # (7,376 -> 5,672 instructions causal; the "no instruction" stall samples at causal 1k 2,091 -> 1,698),
          # causal 1k / 2k / 4k / 16k 414 -> 428, 555 -> 512, 608 -> 544, 645 -> 599, non-causal 1k / 16k 570 -> 573,
          # 651 -> 647 TFLOP/s: a ninth candidate, for the tuner to take at causal 1k. v0.51 (probe run 60): with each
          # claimed tile's coordinates published packed by the loader (``published_coordinates``), causal 1k / 2k / 16k
          # 420 -> 429, 503 -> 512, 601 -> 619, non-causal 1k / 16k 554 -> 563, 620 -> 622 TFLOP/s (cuDNN 427 at causal
          # 1k); the candidate has it. (Forms 6 and 7 with it: causal 1k +2.2% / +2.5%, but form 6 -3% at causal 2k-16k
          # and non-causal 16k, form 7 -1.7% at non-causal 1k, where each is the tuned choice; run 61 reproduced form
          # 6's causal 16k loss, -3.2%, the rest within noise: not changed.) v0.54 (probe run 71, bf16, median of 5
          # rounds): without the half diagonal block, causal 1k / 2k / 4k 441 -> 449, 536 -> 546, 592 -> 609 TFLOP/s
          # (form 6 at 2k / 4k 534 / 596; form 6 itself without it 415 -> 406, 534 -> 532, 596 -> 594): the first
          # consumer computes its whole diagonal block, with one copy of the step's code and no serialised half
          # products; the candidate drops it.
          TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                     balanced_schedule=True, wide_stores=True, dynamic_schedule=True,
                     noncausal_claims=True, host_descriptors=3, mask_by_branch=True, published_coordinates=True),
          # v0.49 (probe run 58, bf16, median of 3 rounds): form 6 with its single step's mask computed in every block,
          # no branch (``mask_every_block``), against form 6 (and with the branch): causal 1k 420 -> 375 (432), 2k 546
          # -> 448 (515), 4k 606 -> 473 (559), 16k 669 -> 511 (592), non-causal 1k / 16k 588 -> 513, 653 -> 585
          # TFLOP/s: the compare and select per score cost more than the branch's wait. Not a candidate (a forced
          # check path); in v0.49 call 4's d=128 bf16 grid, with it a tenth candidate, the tuner took it nowhere.
          ),
    # v0.45 (probe run 49, bf16, median of 3 rounds): the persistent form storing its output from registers, 16 bytes
    # at a time (``output_from_registers``, ``wide_stores``; Q handed back when the key loop ends, the next tile's
    # first key block loaded before its Q), against the persistent form above: non-causal 1k / 2k / 16k 601 -> 615,
    # 665 -> 664, 732 -> 693, causal 1k / 2k / 16k 447 -> 434, 557 -> 551, 680 -> 689 TFLOP/s. Mixed, so a fourth
    # candidate beside it: v0.45's d=256 grids took it at 14 of 20 forward points (causal 4k / 8k 3.5-5% ahead of the
    # persistent form in the tuner's own timings), the persistent form at causal 1k.
    256: (TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True),
          TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True, persistent=True),
          TileConfig(128, 64, 4, 2, "gluon"),
          TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True, persistent=True, output_from_registers=True,
                     wide_stores=True),
          TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True, persistent=True, output_from_registers=True,
                     wide_stores=True, host_descriptors=3)),
}
# The warp-specialised forward (Hopper and newer; kernels/forward_ws.py): num_warps is per consumer
# warpgroup (Triton adds the producer and the second consumer: 12 warps run), block_m is split between the
# two consumers, and the stages are the depth of the K/V buffer ring. Rings of three buffers gave NaNs on
# the H200 with Triton 3.6 (v0.6), so none is listed.
# The persistent form (``persistent=True``) keeps one program per multiprocessor and loops over the query
# tiles, so the producer prefetches the next tile while the consumers finish one: on the H200 (v0.7) +15-18%
# at d=128 N=1k and +11-18% at d=256 non-causal, causal +27% (d=128 1k) to -12% (d=256 16k), level or
# slower at d=128 N >= 4k non-causal; the tuner keeps it where it wins. v0.18: at d=128 its causal tiles come
# from the balanced list (flashio.schedules): +1 / +3.5 / +7 / +7% at causal 1k / 2k / 4k / 8k (probe run 11,
# bf16; 373 -> 377 TFLOP/s at 1k, where it is the tuned kernel).
FORWARD_WS_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (TileConfig(128, 128, 4, 2, "ws"),),
    128: (TileConfig(128, 128, 4, 2, "ws"), TileConfig(128, 64, 4, 2, "ws"),
          TileConfig(128, 128, 4, 2, "ws", persistent=True, balanced_schedule=True)),
    256: (TileConfig(128, 64, 4, 1, "ws"), TileConfig(128, 32, 4, 2, "ws"),
          TileConfig(128, 64, 4, 1, "ws", persistent=True)),
}
BACKWARD_DKDV_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (
        TileConfig(64, 128, 8, 3), TileConfig(32, 128, 4, 3), TileConfig(64, 64, 4, 3),
        TileConfig(32, 64, 4, 4), TileConfig(64, 128, 8, 2),
    ),
    128: (
        TileConfig(64, 128, 8, 2), TileConfig(32, 128, 8, 3), TileConfig(64, 64, 4, 3),
        TileConfig(32, 64, 4, 3), TileConfig(64, 128, 8, 3),
    ),
    256: (
        # First (the default without tuning): the two-pass 32x64 tile, the tuner's choice at 7 of 10 points
        # per dtype of the v0.7 H200 grid (the others: the warp-specialised two-pass tile). With the one-pass
        # 32x64 tile first, the untuned two-kernel backward ran at 81-100 TFLOP/s (v0.10 probe) against 204-263
        # tuned.
        TileConfig(32, 64, 4, 2, passes=2), TileConfig(32, 64, 4, 2), TileConfig(64, 64, 8, 1),
        TileConfig(16, 64, 4, 2), TileConfig(32, 32, 4, 2), TileConfig(32, 64, 8, 2), TileConfig(64, 32, 8, 2),
        # Separate dV and dK passes: both on the warpgroup MMA without spills at 64x64 (the one-pass
        # 64x64 tile spills ~1 KB per thread; flashio.bench.resources).
        TileConfig(64, 64, 8, 2, passes=2), TileConfig(64, 64, 8, 1, passes=2),
    ),
}
# The tensor-descriptor backward kernels (kernels/backward_tma.py), used when FLASHIO_BACKWARD_PATH=tma.
# They do not join the tuned choice: on the H200 (v0.5) the best of them was at best level with the portable
# kernels (within noise) and the bulk reduce-add dQ 10-40% slower than the two-kernel scheme, so timing them on
# every first call would only add latency.
BACKWARD_DKDV_TMA_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (TileConfig(64, 64, 4, 3, "tma"),),
    128: (TileConfig(64, 128, 8, 2, "tma"),),
    256: (TileConfig(64, 64, 8, 1, "tma"),),
}
BACKWARD_DQ_TMA_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (TileConfig(128, 64, 8, 3, "tma"),),
    128: (TileConfig(128, 64, 8, 2, "tma"),),
    256: (TileConfig(64, 32, 4, 2, "tma"),),
}
# The warp-specialised dK/dV kernel (Hopper and newer; kernels/backward_ws.py; fixed lengths, one query head
# per KV head; paired with a dQ kernel): the keys split between two consumer warpgroups. At d=256 one pass
# spills ~1 KB per thread; two passes on 32x128 tiles do not (one buffer: the dK pass holds K and V, 225 KB
# of shared memory); on the H200 (v0.7) they are level with the portable two passes at long sequences
# (+4% causal 16k) and 3-9% slower at N <= 4k, which the tuner sorts out. The persistent grid won only at
# N=1k (+5% at d=128) and lost up to 24% on long causal sequences (its static tile order is unbalanced).
BACKWARD_DKDV_WS_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (TileConfig(64, 128, 4, 2, "ws"),),
    128: (TileConfig(64, 128, 4, 2, "ws"), TileConfig(64, 128, 4, 2, "ws", persistent=True)),
    256: (TileConfig(32, 128, 4, 1, "ws", passes=2), TileConfig(32, 128, 4, 1, "ws", passes=2, persistent=True)),
}
# The warp-specialised dQ kernel (kernels/backward_ws.py; fixed lengths, LSE/D rows 16-byte aligned): the query
# rows split between two consumer warpgroups, K and V through the producer's ring. None at d=256: the resident
# 128x256 Q and dO tiles alone take 128 KB, and with the K/V ring it needs 258 KB of shared memory (compiled
# for sm_90a on the CPU), more than a multiprocessor has.
BACKWARD_DQ_WS_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (TileConfig(128, 64, 4, 2, "ws"), TileConfig(128, 128, 4, 2, "ws")),
    128: (TileConfig(128, 128, 4, 2, "ws"), TileConfig(128, 64, 4, 2, "ws")),
}
BACKWARD_DQ_CANDIDATES: dict[int, tuple[TileConfig, ...]] = {
    64: (
        TileConfig(128, 64, 8, 3), TileConfig(64, 64, 4, 3), TileConfig(128, 128, 8, 2),
        TileConfig(64, 128, 4, 3),
    ),
    128: (
        TileConfig(128, 64, 8, 2), TileConfig(64, 64, 4, 3), TileConfig(128, 128, 8, 2),
        TileConfig(64, 128, 8, 2),
    ),
    256: (  # first: the tuner's choice at all 10 points per dtype of the v0.7 H200 grid
        TileConfig(128, 32, 8, 2), TileConfig(64, 32, 4, 2), TileConfig(64, 64, 8, 1), TileConfig(32, 64, 4, 2),
        TileConfig(64, 64, 8, 2),
    ),
}


# What a first call on Hopper does not time. A first call for a shape bucket compiles every candidate it
# times, serially in Triton, and the H200 grids showed most of them never winning: in the bench files of
# v0.19-v0.26 (`benchmarks/results/`, bf16 and fp16, causal and not, N = 1k-16k, the tuner's own timings
# of every candidate at every point; `benchmarks/tuning_survey.py`, its output for those files in
# results/2026-12-01_h200_v0.27_probes/tuning_survey_v0.19-v0.26.txt) none of the candidates below came
# within 10% of the point's fastest at any of the 44-118 points per pass and head dim. 10%: the tuner's close-call margin (8%, CLOSE_CALL) plus room for a clock that moved between two
# runs. They are skipped on sm_90 only where those grids were timed: fixed-length 16-bit inputs that the
# Gluon kernels take (the launcher's ``gluon_ok`` forward, ``fused_ok`` backward), no dropout or block mask,
# both lengths in the 1k bucket or longer (``in_hopper_grid``).
# Elsewhere (Ampere, dropout, packed batches) and with FLASHIO_TUNE_ALL=1 (another Hopper part, an H100 PCIe
# or H20, whose ranking may differ) every candidate is timed. The lists themselves are unchanged: the first
# entry stays the default without autotuning, and forced paths still take their own lists.
HOPPER_UNTIMED: dict[str, dict[int, frozenset]] = {
    "forward": {
        # four of the Triton pointer and descriptor tiles (closest: pointer 128x64 s4 1.16x, n=118)
        64: frozenset({TileConfig(128, 64, 4, 3), TileConfig(128, 64, 4, 4), TileConfig(128, 128, 8, 3),
                       TileConfig(128, 128, 8, 3, "tma")}),
        # every pointer and descriptor tile and the 64-key specialised one (closest 1.12x, n=71): at d=128
        # only the Gluon forms and the two specialised 128x128 ones are timed (1.02x at worst)
        128: frozenset({*FORWARD_CANDIDATES[128], *FORWARD_TMA_CANDIDATES[128], TileConfig(128, 64, 4, 2, "ws")}),
        # every pointer and descriptor tile and the two non-persistent specialised ones (closest 1.13x, n=44)
        256: frozenset({*FORWARD_CANDIDATES[256], *FORWARD_TMA_CANDIDATES[256], TileConfig(128, 64, 4, 1, "ws"),
                        TileConfig(128, 32, 4, 2, "ws")}),
    },
    # The two-kernel scheme's tiles, timed at d=64 against the fused backward (n=118): dK/dV 64x128 (1.18x,
    # 1.24x) and 64x64 (1.11x), dQ 128x128 (1.19x).
    "backward_dkdv": {64: frozenset({TileConfig(64, 128, 8, 2), TileConfig(64, 128, 8, 3), TileConfig(64, 64, 4, 3)})},
    "backward_dq": {64: frozenset({TileConfig(128, 128, 8, 2)})},
}
# Candidates a non-causal call does not time in that regime either: d=64's four-consumer forms (v0.52), which v0.52
# call 3's grids took at no non-causal point but one tie (fp16 1k: 0.3247 against 0.3251 ms for the sixth candidate),
# 3-9% behind three consumers at 2k-16k (probe run 62), and whose two compiles made a first non-causal call at d=64 4k
# 15.9 s against v0.48's 11.3 (call 4, ``benchmarks/first_call.py``).
HOPPER_CAUSAL_ONLY: dict[str, dict[int, frozenset]] = {
    "forward": {64: frozenset(config for config in FORWARD_GLUON_CANDIDATES[64] if config.block_m == 256)},
}
# The shortest length bucket those grids timed (N = 1k): for shorter calls (512 tokens, decoding's few queries)
# the ranking was not measured, so every candidate is timed there.
HOPPER_GRID_MIN_LENGTH = 1024


def in_hopper_grid(seqlen_q: int, seqlen_k: int) -> bool:
    """Whether both lengths fall in the length buckets the H200 grids timed (1k and up)."""
    return length_bucket(min(seqlen_q, seqlen_k)) >= HOPPER_GRID_MIN_LENGTH


# Head-dimension buckets where, on Hopper with the fused backward eligible, it is the only dQ strategy timed:
# the two-kernel scheme ran 1.09x its time or more at all 71 d=128 points (float32 atomics 1.21x) and 1.44x
# at all 44 d=256 points, and timing it compiles every tile of the two-kernel scheme (at d=128 with and
# without dQ atomics). At d=64 the two are close at 1k (the separate kernels won 10 of 118 points, all at 1k,
# by at most 3%), so both are timed.
HOPPER_FUSED_ONLY_BUCKETS = (128, 256)


def tune_all() -> bool:
    """``FLASHIO_TUNE_ALL=1``: time every candidate, HOPPER_UNTIMED and HOPPER_FUSED_ONLY_BUCKETS included."""
    return os.environ.get("FLASHIO_TUNE_ALL", "0") not in ("0", "", "false", "False", "no", "off")


def timed_candidates(kernel: str, bucket: int, options: Sequence[Option], hopper_regime: bool, *,
                     causal: bool) -> list:
    """The options a first call times: all of them, or, in the regime the H200 grids measured
    (``hopper_regime``: the launcher's Gluon eligibility and ``in_hopper_grid``), those HOPPER_UNTIMED does not
    list, nor, for a non-``causal`` call, HOPPER_CAUSAL_ONLY (never fewer than one)."""
    if not hopper_regime or tune_all():
        return list(options)
    untimed = HOPPER_UNTIMED.get(kernel, {}).get(bucket, frozenset())
    if not causal:
        untimed = untimed | HOPPER_CAUSAL_ONLY.get(kernel, {}).get(bucket, frozenset())
    return [option for option in options if option not in untimed] or list(options)


def dq_strategies(bucket: int, fused_eligible: bool, grid_lengths: bool = True) -> tuple[str, ...]:
    """The backward's dQ strategies timed for a head-dim bucket, the untuned default first: ``fused`` (the
    five-product kernel, where eligible), ``atomic`` (float32 atomics in the dK/dV kernel, ATOMIC_DQ_TUNED_BUCKETS)
    and ``separate`` (its own kernel). ``grid_lengths``: the call's lengths are ones the H200 grids timed
    (``in_hopper_grid``), where HOPPER_FUSED_ONLY_BUCKETS applies."""
    strategies = ("atomic", "separate") if bucket in ATOMIC_DQ_TUNED_BUCKETS else ("separate",)
    if fused_eligible and bucket in FUSED_TUNED_BUCKETS:
        if bucket in HOPPER_FUSED_ONLY_BUCKETS and grid_lengths and not tune_all():
            return ("fused",)
        strategies = ("fused",) + strategies
    return strategies


def distinct_for_causal(options: Sequence[TileConfig]) -> list[TileConfig]:
    """``options`` less those whose ``causal_form`` an earlier one has: what a causal call times (the others would
    run the same kernel again)."""
    return list({option.causal_form(): option for option in reversed(options)}.values())[::-1]


def head_dim_bucket(block_d: int) -> int:
    """The candidate list a padded head dimension uses: 64 (d <= 64), 128 (d <= 128) or 256."""
    if block_d <= 64:
        return 64
    if block_d <= 128:
        return 128
    return 256


def length_bucket(n: int) -> int:
    """Next power of two of a sequence length (at least 128): the autotuning cache's length key."""
    bucket = 128
    while bucket < n:
        bucket *= 2
    return bucket


KERNEL_PATHS = {"forward": ("pointer", "tma", "ws", "gluon"), "backward": ("pointer", "tma", "ws", "gluon")}


def forced_path(kernel_pass: str) -> str | None:
    """``FLASHIO_FORWARD_PATH`` / ``FLASHIO_BACKWARD_PATH`` = ``pointer``, ``tma``, ``ws`` or ``gluon`` (the
    Gluon forward of ``kernels/forward_gluon.py``, the fused five-product backward) forces a kernel family
    where the inputs allow it (tests and experiments); unset, the path is part of the tuned choice. Any other
    value is an error naming the variable."""
    variable = f"FLASHIO_{kernel_pass.upper()}_PATH"
    value = os.environ.get(variable) or None
    if value is not None and value not in KERNEL_PATHS[kernel_pass]:
        expected = " or ".join(repr(path) for path in KERNEL_PATHS[kernel_pass])
        raise ValueError(f"{variable} must be {expected}, got {value!r}")
    return value


def autotune_enabled() -> bool:
    return os.environ.get("FLASHIO_AUTOTUNE", "1") not in ("0", "false", "False", "no")


Option = TypeVar("Option", bound=Hashable)
_CHOICES: dict[Hashable, Hashable] = {}
_COUNTERS = {"measurements": 0, "generation": 0}


def tuning_measurements() -> int:
    """How many candidates have been timed in this process (a launch plan is recorded only from a call that
    timed none: a call that tuned also ran the candidates that lost)."""
    return _COUNTERS["measurements"]


def choices_generation() -> int:
    """Bumped whenever the cached choices are forgotten; part of every launch plan's key."""
    return _COUNTERS["generation"]


def tuning_cache_path() -> Optional[Path]:
    """The file that keeps tuned choices across processes, or None when ``FLASHIO_TUNING_CACHE=off``.

    The name carries a fingerprint of the kernel sources and of this module (the candidate lists) and the
    Triton version: choices timed for other code are never reused."""
    setting = os.environ.get("FLASHIO_TUNING_CACHE", "")
    if setting.lower() in ("off", "0", "false", "no"):
        return None
    folder = Path(setting) if setting else Path.home() / ".cache" / "flashio"
    return folder / f"tuned-{_code_fingerprint()}.json"


_FINGERPRINT: list[str] = []


def _code_fingerprint() -> str:
    if not _FINGERPRINT:
        import triton

        digest = hashlib.sha256(triton.__version__.encode())
        here = Path(__file__).resolve().parent
        for source in [here / "configs.py", *sorted((here / "kernels").glob("*.py"))]:
            digest.update(source.read_bytes())
        _FINGERPRINT.append(digest.hexdigest()[:16])
    return _FINGERPRINT[0]


def _encode(option: Hashable):
    if isinstance(option, TileConfig):
        return {"tile": dataclasses.asdict(option)}
    return {"value": option}


def _decode(entry) -> Hashable:
    if "tile" in entry:
        return TileConfig(**entry["tile"])
    return entry["value"]


def _read_cache(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}  # no file yet, or one cut short by a crash: start afresh


def _remembered(key: Hashable, candidates: Sequence[Option]) -> Optional[Option]:
    """The choice another process timed for ``key``, if it is still one of ``candidates``."""
    path = tuning_cache_path()
    if path is None:
        return None
    entry = _read_cache(path).get(repr(key))
    if entry is None:
        return None
    try:
        option = _decode(entry)
    except (TypeError, KeyError):
        return None
    return option if option in candidates else None


def _remember(key: Hashable, option: Hashable) -> None:
    """Add a timed choice to the cache file (read-merge-replace, so concurrent processes lose nothing
    but a race's last writer; a file that cannot be written is skipped: the cache is an optimisation)."""
    path = tuning_cache_path()
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = _read_cache(path)
        data[repr(key)] = _encode(option)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as f:
            json.dump(data, f, indent=0, sort_keys=True)
        os.replace(f.name, path)
    except OSError:
        pass


# Candidates whose ranking timings (the first, or the lower of two after a second look, ``SLOW_WINDOW``) are within
# this fraction of the fastest (at most ``REMATCH_LEADERS`` of them) are timed again, alternately. One timing each
# misjudged forms on the H200: at bf16 d=128 non-causal 16k two runs chose forms the bench then measured 7% apart
# (v0.13, 631 and 585 TFLOP/s); at bf16 d=64 2k-4k the bench's tuning chose the Triton 64x64 kernel (380 / 397
# TFLOP/s afterwards) where the persistent Gluon form ran at 404-427 in the run before and led it by 6% in the
# tuner's timings of another process (v0.14). Drifts of the clocks of that size between runs are why the margin is
# wider than the 3% of v0.13.
CLOSE_CALL = 0.08
# Four since v0.40: in its grid (d=128 bf16 causal 16k) a near miss's second look (``NEAR_MISS``) lifted the
# ping-pong form into third place and the persistent form, 4.5% behind on its one timing, was not rematched (the
# one-tile-per-program form taken, 679 TFLOP/s, against 706 with the persistent one in v0.37). In the tuning
# records of the 40 bench.json files under benchmarks/results, 60 of 808 tuned keys had four or more candidates
# within ``CLOSE_CALL`` (17 five or more): two more timings at those keys.
REMATCH_LEADERS = 4
# Three since v0.43, when the rematch stopped counting the first timings (``_rematch`` says why): a median of three
# alternate timings, as before, but all from one stretch of time.
REMATCH_ROUNDS = 3
# Candidates whose first timing is more than this fraction behind the fastest are timed once more, and the lower of
# their two timings ranks them, so that one slow window (of the clocks, of the machine) does not drop a candidate
# for the process's life. Measured on the H200 (v0.31 call 2, d=128 fp16 causal 1k, v0.30's cross-head causal lists
# restored, fresh processes): in 1 of 4 processes a listed form's first timing was 0.253 ms against 0.183 for the
# fastest, its second 0.184, and it went on to the rematch. In the other 3 both timings were slow (0.32-0.42 ms):
# that rule's launcher built its pair list on every call (129 us of Python on a 2-core CPU), and a timing here runs
# the launcher for every call, with an L2 clear between calls, so (by inference) a launcher slower than the GPU made
# the timing the host's; through launch plans the same kernels ran at 0.184-0.212 ms in 6 of 6 processes (call 6).
# The library's launchers are not that slow: the chosen candidates' timings here are within 3% of the bench's
# plan-replayed times at every 1k point of the v0.31 grids. In those grids (60 points) 33 candidates got a second
# look, ~50 ms each; 32 were slow again (slower forms), and one, the persistent forward at d=256 bf16 non-causal 16k
# (3.88 ms, then 2.99 against the fastest's 2.89), entered the rematch and won it (medians 3.22 against 3.31 ms). A
# first call's timings: 39 -> 41 at d=64 causal 1k, 19 -> 19 at d=128 non-causal 4k (v0.31 call 1). Past 1.08x there
# are ~1.4 candidates a key (the v0.30 grids' records), too many to re-time them all.
SLOW_WINDOW = 0.3
# Candidates whose first timing is past ``CLOSE_CALL`` but within this fraction of the fastest are also timed once
# more (a near miss), and the lower of their two timings ranks them: one timing is noisier than ``CLOSE_CALL``
# allows for. In the tuning records of the 34 bench.json files under benchmarks/results (1,292 keys, to v0.39) the
# 2,339 candidates timed more than once spread (max / min of their timings) 3.3% at the median, 10.9% at the 90th
# percentile, 16.3% at the 95th; v0.39's call 9 lost the persistent forward at d=128 causal 16k in both dtypes to
# a first timing 9% slow (706 -> 673 and 687 -> 660 TFLOP/s in the grid). In those records the near misses are
# 0.59 candidates a key (~30 ms of a first call).
NEAR_MISS = 0.15
# Before its first timing of a key the tuner keeps the GPU busy for this long, running a candidate untimed, unless
# it timed something less than ``TUNING_IDLE_S`` ago. A first call compiles its candidates before it times them, so
# the GPU has been idle for seconds, and the H200 runs above its power-limited clock for its first ~100-250 ms of
# work (v0.16's drift.py: the power limit is reached within 50-100 ms of a busy start). The tuner's records showed it
# (v0.43, the forward rows of the v0.40-v0.42 grids, ``benchmarks/tuner_warmup.py``): a candidate's first timing
# against the median of its later (rematch) timings was 0.90 for the first candidate timed, 0.93 / 0.96 / 0.97 for
# the second to fourth (each timing ~55 ms), 0.99-1.01 from the fifth on; the fused backward's first candidate 0.96
# at d=128. Early candidates thus entered the rematch with a low timing, which the median of three keeps: at d=128
# bf16 non-causal 4k (v0.42 call 4) the one-tile-per-program forward (third timed) won on 0.879 / 0.964 / 0.892 ms
# against the persistent form's 0.894 / 0.904 / 0.912, and the bench then measured it 7% slower (v0.43 call 1, the
# forms' first do_bench 876.7 µs then 936-944 with the tuner's own timer). 250 ms: the fifth candidate's start.
# With it (v0.43 call 2, six grids) the first four positions' ratios moved to 0.95-1.08 (d=256's second to fourth
# 1.07: the clock after 250 ms of work is not yet the later one either), so the rematch no longer counts first
# timings at all (``_rematch``); the warm-up stays so that the first pass, which picks the leaders, is timed nearer
# the clock the bench sees (its first call's cost: 0.26 s at d=128 non-causal 4k, one warm-up).
TUNING_WARMUP_MS = 250
# Timings less than this far apart need no warm-up between them: a backward's keys are timed one after the other
# (its kernels compiled in one batch before), a few milliseconds of host time apart.
TUNING_IDLE_S = 0.1
_TIMINGS: dict[Hashable, tuple[tuple[Hashable, tuple[float, ...]], ...]] = {}


def _rematch(leaders: Sequence[tuple[float, int]], candidates: Sequence, time_config: Callable,
             time_alternately: Optional[Callable] = None) -> tuple[int, dict]:
    """Index of the fastest of close candidates ((ranking time, index) pairs, fastest first), and the
    rematch's timings of each: every leader timed ``REMATCH_ROUNDS`` more times, alternately (so that a drift
    of the clocks or of the GPU's temperature falls on all of them), compared by the median of those timings; a tie
    keeps the ranking's order. Median, not the lowest timing: at the 17 points of the v0.40 grids where the two
    statistics chose different forms, the median's form was the faster one at 12 when both were timed again
    alternately (v0.41 call 3, benchmarks/tuner_statistic.py). The ranking time (the first timing, or the lower of
    two) is left out since v0.43: it was taken at another moment for each candidate, and the GPU's clock moves over
    a first call's timings (``TUNING_WARMUP_MS``), so it carried each candidate's place in the timing order into the
    comparison. In the v0.42 and v0.43 grids' records the median of three and the mean of the two rematch
    timings of then chose differently at 22 of 174 rematches.

    With ``time_alternately`` (the launchers', since v0.43) a round times the leaders call by call in a shuffled
    turn (``time_alternately(options)`` -> one time per option, in ms) instead of each alone back to back: each call
    then follows another kernel, as in a model's step and the bench's interleaved timing. Back to back, the tuner
    ranked d=256's one-tile-per-program forward within 1% of the persistent one where the bench's turn put it 3.5%
    behind (v0.43 call 1, d=256 bf16 non-causal 2k: 429.6 / 426.5 µs alone, 443.7 / 428.3 in turn)."""
    ranked = {index: time for time, index in leaders}
    rematched = {index: [] for index in ranked}
    time_round = time_alternately or (lambda options: [time_config(option) for option in options])
    for _ in range(REMATCH_ROUNDS):
        for index, ms in zip(rematched, time_round([candidates[index] for index in rematched])):
            rematched[index].append(ms)
    _COUNTERS["measurements"] += REMATCH_ROUNDS * len(rematched)
    best = min(ranked, key=lambda index: statistics.median(rematched[index]))
    return best, rematched


def _second_look(timings: dict, candidates: Sequence, time_config: Callable) -> None:
    """Time once more, slowest first, each candidate whose first timing in ``timings`` (index -> list of ms)
    is more than ``SLOW_WINDOW`` behind the fastest, or a near miss (past ``CLOSE_CALL``, within
    ``NEAR_MISS``), and then the fastest (since v0.43) and every candidate within ``CLOSE_CALL`` of it (since v0.44),
    the fastest last, appending to their lists; nothing when none is looked at again."""
    fastest = min(times[0] for times in timings.values())

    def looked_at_again(first: float) -> bool:
        if first == float("inf"):
            return False
        return first > fastest * (1 + SLOW_WINDOW) or fastest * (1 + CLOSE_CALL) < first <= fastest * (1 + NEAR_MISS)

    slow = sorted((index for index, times in timings.items() if looked_at_again(times[0])),
                  key=lambda index: -timings[index][0])
    if slow:
        # The fastest is timed again too, last: a second look is taken later than the fastest's one timing, and the
        # GPU's clock moves over a first call (configs.TUNING_WARMUP_MS), so a second look compared with that timing
        # alone favours the second look. v0.43 call 4, d=256 fp16 non-causal 2k: the persistent forward's one timing
        # 0.501 ms, taken right after the warm-up; the one-tile form's near miss 0.541, then 0.461, 8% ahead, so it
        # won without a rematch, where the same forms' rematch timings elsewhere in that grid put the persistent one
        # 2-5% ahead (bf16 2k: 0.415 against 0.432 ms), and the bench measured the one-tile form at 0.988x cuDNN
        # (the persistent form 1.028-1.048x in calls 2-3).
        # v0.44 call 3, the same point: the one-tile form's first timing 0.509 ms, the persistent form's 0.511 (0.4%
        # behind, a close call: not looked at again), both on the slow clock after the warm-up; the second looks
        # then timed the one-tile form again, 0.451, which left the persistent form's one timing 13% behind, outside
        # the rematch's margin, and the one-tile form won unmatched (0.99x cuDNN in the bench). So the close ones are
        # timed again with it, and all enter the ranking with a timing from the same later moment.
        close = sorted((index for index, times in timings.items() if times[0] <= fastest * (1 + CLOSE_CALL)),
                       key=lambda index: -timings[index][0])
        slow.extend(close)
    for index in slow:
        timings[index].append(time_config(candidates[index]))
    _COUNTERS["measurements"] += len(slow)


def choose_config(
    key: Hashable,
    candidates: Sequence[Option],
    time_config: Callable[[Option], float],
    prepare: Optional[Callable[[Sequence[Option]], None]] = None,
    warm_up: Optional[Callable[[Sequence[Option]], None]] = None,
    time_alternately: Optional[Callable[[Sequence[Option]], Sequence[float]]] = None,
) -> Option:
    """Return the cached choice for ``key``, timing ``candidates`` on the first call.

    Candidates are tile configurations, or any other option of a kernel (the backward's dQ strategy).
    ``time_config(option)`` runs the kernel with ``option`` and returns its time in milliseconds, or
    ``float('inf')`` when it does not fit the device (out of shared memory, registers). ``prepare``, if
    given, is called with the candidates just before they are timed, and only then (the launchers compile
    them concurrently there). ``warm_up``, if given, is called with them after ``prepare`` and before the first
    timing (the launchers run one untimed for ``TUNING_WARMUP_MS``: a GPU that has been idle runs faster for its
    first few hundred milliseconds, which favoured the candidates timed first). ``time_alternately``, if given,
    times the rematch's rounds (``_rematch``). Each candidate is timed once; one more time if that is more than
    ``SLOW_WINDOW`` behind the fastest or a near miss (``NEAR_MISS``; the lower ranks it); the close leaders
    (at most ``REMATCH_LEADERS``) ``REMATCH_ROUNDS`` more times (``CLOSE_CALL``). A choice timed by an earlier process (``tuning_cache_path``) is taken without
    timing. The timings behind a choice made in this process are kept for ``tuning_timings``.
    """
    chosen = _CHOICES.get(key)
    if chosen is None:
        pending = candidates_to_compile(key, candidates)  # one option when nothing needs timing
        chosen = pending[0] if len(pending) == 1 else _timed_choice(key, candidates, time_config, prepare, warm_up,
                                                                      time_alternately)
        _CHOICES[key] = chosen
    return chosen


def _timed_choice(key: Hashable, candidates: Sequence[Option], time_config: Callable[[Option], float],
                  prepare: Optional[Callable[[Sequence[Option]], None]],
                  warm_up: Optional[Callable[[Sequence[Option]], None]] = None,
                  time_alternately: Optional[Callable[[Sequence[Option]], Sequence[float]]] = None) -> Option:
    """``choose_config``'s timing: a warm-up, every candidate once, a second look at the slow ones, a rematch of the
    close leaders; the timings kept for ``tuning_timings`` and the choice written to the tuning file."""
    if prepare is not None:
        prepare(candidates)
    if warm_up is not None:
        warm_up(candidates)
    _COUNTERS["measurements"] += len(candidates)
    all_times = {index: [time_config(config)] for index, config in enumerate(candidates)}
    if min(times[0] for times in all_times.values()) == float("inf"):
        raise RuntimeError(f"flashio: no tile configuration fits this device for {key!r}")
    _second_look(all_times, candidates, time_config)
    ranking = sorted((min(times), index) for index, times in all_times.items())
    best_time, best_index = ranking[0]
    leaders = [(time, index) for time, index in ranking[:REMATCH_LEADERS] if time <= best_time * (1 + CLOSE_CALL)]
    if len(leaders) > 1:
        best_index, rematched = _rematch(leaders, candidates, time_config, time_alternately)
        for index, times in rematched.items():
            all_times[index] += times
    chosen = candidates[best_index]
    _TIMINGS[key] = tuple((candidates[index], tuple(times)) for index, times in sorted(all_times.items()))
    _remember(key, chosen)
    return chosen


def tuning_timings(key: Hashable) -> tuple[tuple[Hashable, tuple[float, ...]], ...]:
    """The timings (ms, in the order taken) of each candidate behind the choice for ``key``, in candidate
    order; empty when the choice was not timed in this process (a single candidate, autotuning off, or a
    choice taken from the tuning cache)."""
    return _TIMINGS.get(key, ())


def candidates_to_compile(key: Hashable, candidates: Sequence[Option]) -> list[Option]:
    """The options ``choose_config(key, candidates, ...)`` would run on its next call: its cached choice; the
    first candidate without autotuning or with one candidate; a choice timed by an earlier process; else every
    candidate (the backward compiles them all in one batch before it times any, ``launch_plans.gathering_compiles``)."""
    chosen = _CHOICES.get(key)
    if chosen is not None:
        return [chosen]
    if not autotune_enabled() or len(candidates) == 1:
        return [candidates[0]]
    remembered = _remembered(key, candidates)
    return [remembered] if remembered is not None else list(candidates)


def cached_choice(key: Hashable):
    """The choice cached for ``key``, or None before the first call."""
    return _CHOICES.get(key)


def clear_choices() -> None:
    """Forget every cached choice (the next call of each kernel times its candidates again) and, through
    the generation in their keys, every launch plan."""
    _CHOICES.clear()
    _TIMINGS.clear()
    _COUNTERS["generation"] += 1


def cached_choices() -> dict[Hashable, Hashable]:
    """A copy of the configurations chosen so far (for benchmarks and the performance log)."""
    return dict(_CHOICES)
