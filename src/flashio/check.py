"""GPU check: correctness at realistic sizes, then timing against the anchors in the same run.

    python -m flashio.check                 # correctness + the issue's timing grid (bf16, d 64/128)
    python -m flashio.check --quick         # fewer sizes
    python -m flashio.check --skip-correctness --head-dims 64 --seqlens 4096
    python -m flashio.check --skip-timing   # correctness only, incl. every kernel path forced in turn

Correctness follows flash-attn's rule (algorithm.md): max|out - ref32| <= 2 max|ref_lp - ref32| + floor
for outputs, 3x for gradients, where ref32 is standard attention in float32 and ref_lp standard attention
in the input precision. Timing: median of ``triton.testing.do_bench`` (warm-up 25 ms, 100 ms of repeats),
backward = (forward+backward) - forward, FLOPs by the standard convention (forward 4·B·H·N²·d, halved
when causal; backward 2.5× forward), batch·N = 16384 tokens and hidden 2048 (the anchors' setup).
Extra memory = peak allocated during forward+backward minus what was allocated before.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import threading
import zlib
from dataclasses import asdict, dataclass, replace
from typing import Optional

import torch


# --------------------------------------------------------------------------------------------
# correctness
# --------------------------------------------------------------------------------------------

@dataclass
class CorrectnessCase:
    name: str
    batch: int
    heads: int
    kv_heads: int
    seqlen_q: int
    seqlen_k: int
    head_dim: int
    causal: bool = False
    dtype: torch.dtype = torch.bfloat16
    dropout_p: float = 0.0
    block_sparse: bool = False
    varlen: bool = False
    deterministic: bool = False
    key_spikes: bool = False  # a late band of keys 6x larger: rows' score maxima jump mid-sequence
    # "bnhd": Q, K, V and dO made as (batch, row, head, column) tensors (flash-attn's layout) and passed as their
    # (batch, head, row, column) views, so that the head stride is below the row stride.
    layout: str = "bhnd"


def _max_err(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a.float() - b.float()).abs().max().item() if a.numel() else 0.0


def _rounding_floor(dtype: torch.dtype) -> float:
    # Two rounding steps of the output dtype at magnitude ~1 (attention outputs are averages of V rows).
    return {torch.float16: 2 * 2**-11, torch.bfloat16: 2 * 2**-8, torch.float32: 1e-5}[dtype]


def _graph_replay(call):
    """``call()``'s (out, grads) from a CUDA graph: captured once (after the caller's eager calls, the warm-up
    PyTorch asks for), its outputs filled with NaN outside the graph, then replayed, so that only what the replay
    wrote can pass."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out, grads = call()
    for tensor in (out, *grads):
        tensor.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    return out, grads


def run_correctness_case(case: CorrectnessCase, device: str = "cuda") -> dict:
    import flashio
    from flashio import launchers

    torch.manual_seed(zlib.crc32(case.name.encode()))  # not hash(): Python salts str hashes per process
    if case.layout not in ("bhnd", "bnhd"):
        raise ValueError(f"CorrectnessCase.layout is 'bhnd' or 'bnhd', got {case.layout!r}")

    def randn(batch: int, heads: int, seqlen: int, requires_grad: bool = False) -> torch.Tensor:
        """A (batch, heads, seqlen, head_dim) tensor: contiguous, or the view of a contiguous (batch, seqlen, heads,
        head_dim) one (a leaf either way, so that gradients are taken with respect to it)."""
        if case.layout == "bnhd":
            x = torch.randn(batch, seqlen, heads, case.head_dim, device=device, dtype=case.dtype).transpose(1, 2)
        else:
            x = torch.randn(batch, heads, seqlen, case.head_dim, device=device, dtype=case.dtype)
        return x.requires_grad_(requires_grad)

    q = randn(case.batch, case.heads, case.seqlen_q, requires_grad=True)
    k = randn(case.batch, case.kv_heads, case.seqlen_k)
    if case.key_spikes:
        # A band of 96 keys five eighths along, scaled 6x: its scores (in log2 units, std ~8.7 at d=128) exceed
        # the rows' running maxima from the earlier blocks by far more than a conditionally rescaling softmax
        # lets pass without moving its maximum.
        band = slice(case.seqlen_k * 5 // 8, case.seqlen_k * 5 // 8 + 96)
        k[:, :, band] *= 6
    k.requires_grad_()
    v = randn(case.batch, case.kv_heads, case.seqlen_k, requires_grad=True)
    dout = randn(case.batch, case.heads, case.seqlen_q)
    block_mask = None
    block_size = (128, 128)
    if case.block_sparse:
        rows, cols = math.ceil(case.seqlen_q / 128), math.ceil(case.seqlen_k / 128)
        block_mask = torch.rand((case.batch, case.heads, rows, cols), device=device) < 0.4
    dropout_mask = None
    if case.varlen:
        # Pack the batch with per-sequence lengths drawn below the maximum (key-padding setting).
        lengths = torch.randint(max(1, case.seqlen_q - 300), case.seqlen_q + 1, (case.batch,)).tolist()
        cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), device=device, dtype=torch.int32)
        pack = lambda x: torch.cat([x[b, :, :n].transpose(0, 1) for b, n in enumerate(lengths)])
        qp, kp, vp, dp = (pack(t).detach().requires_grad_(t.requires_grad) for t in (q, k, v, dout))
        out_p = flashio.flash_attn_varlen_func(qp, kp, vp, cu, cu, max(lengths), max(lengths),
                                               causal=case.causal, deterministic=case.deterministic)
        grads_p = torch.autograd.grad(out_p, (qp, kp, vp), dp)
        pad = torch.tensor([[n > i for i in range(case.seqlen_q)] for n in lengths], device=device)
        out = torch.zeros_like(q)
        grads = [torch.zeros_like(t) for t in (q, k, v)]
        start = 0
        for b, n in enumerate(lengths):
            out[b, :, :n] = out_p[start:start + n].transpose(0, 1)
            for g, gp in zip(grads, grads_p):
                g[b, :, :n] = gp[start:start + n].transpose(0, 1)
            start += n
        # The reference sees the same sequences as padded batches: padded keys masked, padded rows ignored.
        row_mask = pad[:, None, :, None]
        dout = dout * row_mask
        key_padding_mask = pad
        runs = [(out, grads)]
    else:
        key_padding_mask = None
        row_mask = None
        seed = None
        if case.dropout_p > 0:
            torch.manual_seed(1234)
            out, _lse, probs = flashio.flash_attn_func(
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), dropout_p=case.dropout_p,
                causal=case.causal, return_attn_probs=True, deterministic=case.deterministic)
            out = out.transpose(1, 2)
            dropout_mask = probs >= 0
            del probs
            runs = [(out, torch.autograd.grad(out, (q, k, v), dout))]
        else:
            # Without a block mask, twice: the second call on the same inputs replays the launches recorded
            # from the first (flashio.launch_plans: fixed lengths, no dropout or block mask); both are checked.
            runs = []

            def forward_backward(q, k, v):
                out = flashio.attention(q, k, v, causal=case.causal, block_mask=block_mask, block_size=block_size,
                                        deterministic=case.deterministic)
                return out, torch.autograd.grad(out, (q, k, v), dout)
            for _ in range(2 if block_mask is None else 1):
                runs.append(forward_backward(q, k, v))
            if block_mask is None and device != "cpu":
                # Then captured into a CUDA graph (on PyTorch's capture stream, not the one the eager calls ran on)
                # and replayed: what a model step under torch.cuda.graph or torch.compile's cudagraphs runs. The
                # graph's leaves are made inside the capture: autograd accumulates a leaf's gradient on the stream
                # the leaf came from, and the inputs here came from the default stream, which a capture may not
                # wait on (cudaErrorStreamCaptureImplicit, v0.47 call 2).
                runs.append(_graph_replay(lambda: forward_backward(
                    *(t.detach().requires_grad_() for t in (q, k, v)))))

    def reference(upcast: bool):
        ref = flashio.attention_reference(q, k, v, causal=case.causal, dropout_p=case.dropout_p,
                                          dropout_mask=dropout_mask, block_mask=block_mask, block_size=block_size,
                                          key_padding_mask=key_padding_mask, upcast=upcast)
        ref_grads = torch.autograd.grad(ref, (q, k, v), dout)
        if row_mask is not None:
            ref = ref * row_mask
        return ref, ref_grads

    ref32, ref32_grads = reference(True)
    ref_lp, ref_lp_grads = reference(False)
    floor = _rounding_floor(case.dtype)
    runs_named = "first call, replay" + (" and CUDA graph" if len(runs) == 3 else "")
    result = {"case": case.name, "ok": True, "details": [] if len(runs) == 1 else [runs_named]}
    outs = [run_out * row_mask if row_mask is not None else run_out for run_out, _ in runs]
    for label, got, r32, rlp, factor in [("out", outs, ref32, ref_lp, 2.0)] + [
            (f"d{n}", [run_grads[i] for _, run_grads in runs], ref32_grads[i], ref_lp_grads[i], 3.0)
            for i, n in enumerate("qkv")]:
        err, base = max(_max_err(g, r32) for g in got), _max_err(rlp, r32)
        bound = factor * base + floor * (1.0 if label == "out" else max(1.0, r32.float().abs().max().item()))
        ok = err <= bound and math.isfinite(err)
        result["ok"] &= ok
        result["details"].append(f"{label}: err {err:.2e} bound {bound:.2e}")
    if case.deterministic:
        again = torch.autograd.grad(
            flashio.attention(q, k, v, causal=case.causal, deterministic=True), (q, k, v), dout)
        first = torch.autograd.grad(
            flashio.attention(q, k, v, causal=case.causal, deterministic=True), (q, k, v), dout)
        bitwise = all(torch.equal(a, b) for a, b in zip(again, first))
        result["ok"] &= bitwise
        result["details"].append(f"bitwise-deterministic: {bitwise}")
    return result


CORRECTNESS_CASES = [
    CorrectnessCase("d64 causal 2k bf16", 2, 16, 16, 2048, 2048, 64, causal=True),
    CorrectnessCase("d128 1k fp16", 2, 16, 16, 1024, 1024, 128, dtype=torch.float16),
    CorrectnessCase("d128 odd 1000x1777 causal", 2, 8, 8, 1000, 1777, 128, causal=True),
    CorrectnessCase("d256 causal 1k bf16", 1, 8, 8, 1024, 1024, 256, causal=True),
    CorrectnessCase("d80 GQA 8/2 1500 causal", 2, 8, 2, 1500, 1500, 80, causal=True),
    CorrectnessCase("d96 MQA 8/1 777x1024", 2, 8, 1, 777, 1024, 96),
    CorrectnessCase("d160 1k", 1, 8, 8, 1024, 1024, 160),
    CorrectnessCase("d192 causal 900", 1, 8, 8, 900, 900, 192, causal=True),
    CorrectnessCase("d64 dropout 0.1 1k", 2, 8, 8, 1024, 1024, 64, dropout_p=0.1),
    CorrectnessCase("d128 dropout 0.2 causal 1k", 1, 8, 8, 1024, 1024, 128, causal=True, dropout_p=0.2),
    CorrectnessCase("d64 block-sparse 2k", 2, 8, 8, 2048, 2048, 64, block_sparse=True),
    CorrectnessCase("d128 block-sparse causal 2k", 1, 8, 8, 2048, 2048, 128, causal=True, block_sparse=True),
    CorrectnessCase("d64 varlen causal 2k", 4, 8, 8, 2048, 2048, 64, causal=True, varlen=True),
    CorrectnessCase("d128 varlen 1k", 4, 8, 8, 1024, 1024, 128, varlen=True),
    CorrectnessCase("d128 deterministic causal 2k", 2, 8, 8, 2048, 2048, 128, causal=True, deterministic=True),
    CorrectnessCase("d64 deterministic GQA 1k", 2, 8, 2, 1024, 1024, 64, deterministic=True),
    # Grouped heads, lengths off the tile grid, fp16, on the kernels that take them on Hopper (the fused
    # backward loops over a KV head's query heads).
    CorrectnessCase("d64 GQA 8/2 1000x1500 causal fp16", 2, 8, 2, 1000, 1500, 64, causal=True, dtype=torch.float16),
    # One query block per head: the warp-specialised fused backward's loader rewrites a head's descriptors
    # right after issuing its only load (the v0.9 race: wrong rows until it waited for the loads to land).
    CorrectnessCase("d128 GQA 8/2 60x1000 causal", 2, 8, 2, 60, 1000, 128, causal=True),
    # An odd number of 128-key blocks: the persistent fused backward's middle block is a unit of its own.
    CorrectnessCase("d128 causal 640 (5 key blocks)", 2, 8, 8, 640, 640, 128, causal=True),
    # The d=256 Gluon kernels (the forward and the role-split fused backward) with grouped heads, more
    # queries than keys (rows that see no key) and fp16.
    CorrectnessCase("d256 GQA 8/2 1500x1000 causal fp16", 1, 8, 2, 1500, 1000, 256, causal=True,
                    dtype=torch.float16),
    # The benchmark grid's own shape at its shortest causal point (16k tokens, hidden 2048): every persistent
    # program runs many work units of uneven length back to back, which the small cases above do not reach.
    # v0.21: the alternating fused backward (removed since) passed every case above and returned gradients
    # 1.0-1.5 off here at d=64 (a race the small cases missed; probe run 8, check run 22).
    CorrectnessCase("d64 causal 1k, the grid's 16x32 heads", 16, 32, 32, 1024, 1024, 64, causal=True),
    CorrectnessCase("d128 causal 1k, the grid's 16x16 heads", 16, 16, 16, 1024, 1024, 128, causal=True),
    # The same shape without the mask: the persistent fused backward's round-robin pairs (not the causal
    # list), and the only non-causal d=64 case that reaches the fused backward (the others are deterministic,
    # dropout or block-sparse calls, which go to the Triton kernels).
    CorrectnessCase("d64 1k, the grid's 16x32 heads", 16, 32, 32, 1024, 1024, 64),
    # v0.23: non-causal shapes whose persistent fused backward leaves a partial last round (key blocks x KV heads
    # x batch not a multiple of the programs), which a split tail cuts into pieces: the grid's d=128 1k (2048 key
    # blocks on 132 programs, 68 in the last round) and uneven lengths with GQA (288 on 132: 24 left, each of
    # 16 query blocks, the last one partial).
    CorrectnessCase("d128 1k, the grid's 16x16 heads", 16, 16, 16, 1024, 1024, 128),
    CorrectnessCase("d128 GQA 8/2 1000x1500, 12 sequences", 12, 8, 2, 1000, 1500, 128),
    # v0.24: score maxima that jump in a late key block, with and without the causal mask (the softmax's
    # rescaling path: always taken by the online softmax, rarely by a conditionally rescaling one).
    CorrectnessCase("d128 1k, late key spikes", 2, 8, 8, 1024, 1024, 128, key_spikes=True),
    CorrectnessCase("d64 causal 2k, late key spikes", 2, 8, 8, 2048, 2048, 64, causal=True, key_spikes=True),
]


# Kernel paths and tile families that the tuner picks only for some shapes: each is forced (as the only
# candidate of its kernel, or through FLASHIO_*_PATH) and run on these cases, so that one check covers all
# of them whatever the tuner would choose on this GPU.
PATH_CASES = [case for case in CORRECTNESS_CASES if case.name in (
    "d64 causal 2k bf16", "d128 odd 1000x1777 causal", "d256 causal 1k bf16", "d80 GQA 8/2 1500 causal",
    "d128 varlen 1k", "d128 deterministic causal 2k", "d64 GQA 8/2 1000x1500 causal fp16",
    "d128 GQA 8/2 60x1000 causal", "d128 causal 640 (5 key blocks)", "d256 GQA 8/2 1500x1000 causal fp16",
    "d64 causal 1k, the grid's 16x32 heads", "d128 causal 1k, the grid's 16x16 heads",
    "d64 1k, the grid's 16x32 heads", "d128 1k, the grid's 16x16 heads", "d128 GQA 8/2 1000x1500, 12 sequences",
    "d128 1k, late key spikes", "d64 causal 2k, late key spikes")]

SPLIT_TAIL_FORWARD_PATH = "forward: Gluon, persistent, split tail"
# The grid's d=256 shape at 1k (several tiles or key blocks per program), which several paths add.
_GRID_D256_1K = CorrectnessCase("d256 1k, the grid's 16x8 heads", 16, 8, 8, 1024, 1024, 256)
# Cases a path runs after PATH_CASES: shapes that reach its kernel's new code, which no path case does. The split-tail
# forward's non-causal path cases with a partial last round (on the H200's 132 programs) are at d=64 (4 tiles cut into
# 32 one-block pieces) and d=128 (68 tiles in 170 pieces of 1-5 key blocks; 108 tiles in 216 pieces of 1-11 blocks,
# with a partial last query and key block and grouped heads); d=256's grid shape at 1k adds 100 tiles of 16 key blocks
# in 220 pieces of 1-13 blocks.
HOST_DESCRIPTORS_PATH = "backward: fused five-product (Gluon), role split at d=256, host descriptors"
KV_HOST_DESCRIPTORS_PATH = "backward: fused five-product (Gluon), role split at d=256, K/V host descriptors"
# The path cases' d=256 shapes are causal: the host descriptors' paths run the non-causal kernel too, with grouped heads
# and both lengths off the 64-row boxes (a head's last rows read as zeros through the descriptors' row dimension), and
# the grid's shape.
_NON_CAUSAL_D256_CASES = [CorrectnessCase("d256 GQA 8/2 1000x1500 fp16", 2, 8, 2, 1000, 1500, 256, dtype=torch.float16),
                          _GRID_D256_1K]
# v0.45: the same shapes (and a causal one) in flash-attn's (batch, row, head, column) layout, whose head stride is
# below its row stride: the host descriptors' boxes walk those strides in another order (both paths 3/3 PASS on the
# H200, v0.45 call 2).
_FLASH_ATTN_LAYOUT_D256_CASES = [
    replace(case, name=f"{case.name}, (B, N, H, D)", layout="bnhd") for case in _NON_CAUSAL_D256_CASES + [
        CorrectnessCase("d256 causal 1500x1000", 2, 8, 8, 1500, 1000, 256, causal=True)]]
D256_OUTPUT_FROM_REGISTERS_PATH = "forward: Gluon, persistent, d=256 output from registers, 16-byte stores"
D256_OUTPUT_FROM_REGISTERS_CLAIMS_PATH = ("forward: Gluon, persistent, d=256 output from registers, 16-byte stores, "
                                          "claims")
# The grid's d=256 shape at 1k, both masks: every program takes several tiles, so the Q hand-back at a tile's end and
# the next tile's loads run many times per program.
_GRID_D256_CASES = [_GRID_D256_1K, replace(_GRID_D256_1K, name="d256 causal 1k, the grid's 16x8 heads", causal=True)]
FORWARD_HOST_Q_PATH = "forward: Gluon, persistent, tuned options, Q host descriptor"
FORWARD_HOST_QKV_PATH = "forward: Gluon, persistent, tuned options, Q/K/V host descriptors"
THREE_CONSUMERS_TUNED_PATH = "forward: Gluon, persistent, three consumers, tuned host-descriptor options"
MASK_BY_BRANCH_PATH = "forward: Gluon, persistent, host-descriptor forms, masks by branch"
MASK_BY_BRANCH_THREE_CONSUMERS_PATH = "forward: Gluon, persistent, three consumers, masks by branch"
MASK_EVERY_BLOCK_PATH = "forward: Gluon, persistent, host-descriptor forms, mask in every block"
OVERLAP_TILES_PATH = "forward: Gluon, persistent, host-descriptor forms, overlapped tiles"
OVERLAP_TILES_BRANCH_PATH = "forward: Gluon, persistent, three consumers and masks by branch, overlapped tiles"
PUBLISHED_COORDINATES_PATH = "forward: Gluon, persistent, host-descriptor forms, published coordinates"
PUBLISHED_COORDINATES_BRANCH_PATH = "forward: Gluon, persistent, three consumers and masks by branch, published " \
    "coordinates"
FOUR_CONSUMERS_PATH = "forward: Gluon, persistent, four consumers, 64-key blocks"
FOUR_CONSUMERS_BRANCH_PATH = "forward: Gluon, persistent, four consumers, 64-key blocks, masks by branch"
ROW_SUM_MMA_PATH = "forward: Gluon, persistent, row sums on the tensor cores"
ROW_SUM_MMA_FOUR_CONSUMERS_PATH = "forward: Gluon, persistent, four consumers, row sums on the tensor cores"
# v0.52: a length whose last tile ends inside its fourth consumer's rows (1,000 = 3 x 256 + 232) and one that leaves
# three of its consumers without rows (800 = 3 x 256 + 32); PATH_CASES has the grid's d=64 1k shape, both masks.
_FOUR_CONSUMER_CASES = [CorrectnessCase("d64 causal 1000x1000", 3, 4, 4, 1000, 1000, 64, causal=True),
                        CorrectnessCase("d64 800x1200 fp16", 2, 4, 4, 800, 1200, 64, dtype=torch.float16)]
# v0.46: the forward's host descriptors address a box by (batch, head, row): the grid's d=128 1k shapes and a grouped,
# unequal-length d=64 one in flash-attn's layout, whose head stride is below its row stride; d=256's as above.
_FLASH_ATTN_LAYOUT_FORWARD_CASES = [
    replace(case, name=f"{case.name}, (B, N, H, D)", layout="bnhd") for case in (
        CorrectnessCase("d128 1k, the grid's 16x16 heads", 16, 16, 16, 1024, 1024, 128),
        CorrectnessCase("d128 causal 1k, the grid's 16x16 heads", 16, 16, 16, 1024, 1024, 128, causal=True),
        CorrectnessCase("d64 GQA 8/2 1000x1500 causal fp16", 2, 8, 2, 1000, 1500, 64, causal=True,
                        dtype=torch.float16))] + _FLASH_ATTN_LAYOUT_D256_CASES
PATH_EXTRA_CASES = {
    FORWARD_HOST_Q_PATH: _GRID_D256_CASES + _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    FORWARD_HOST_QKV_PATH: _GRID_D256_CASES + _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    SPLIT_TAIL_FORWARD_PATH: [_GRID_D256_1K],
    D256_OUTPUT_FROM_REGISTERS_PATH: _GRID_D256_CASES,
    D256_OUTPUT_FROM_REGISTERS_CLAIMS_PATH: _GRID_D256_CASES,
    HOST_DESCRIPTORS_PATH: _NON_CAUSAL_D256_CASES + _FLASH_ATTN_LAYOUT_D256_CASES,
    KV_HOST_DESCRIPTORS_PATH: _NON_CAUSAL_D256_CASES + _FLASH_ATTN_LAYOUT_D256_CASES,
    MASK_BY_BRANCH_PATH: _GRID_D256_CASES + _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    MASK_EVERY_BLOCK_PATH: _GRID_D256_CASES + _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    OVERLAP_TILES_PATH: _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    OVERLAP_TILES_BRANCH_PATH: _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    PUBLISHED_COORDINATES_PATH: _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    PUBLISHED_COORDINATES_BRANCH_PATH: _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    FOUR_CONSUMERS_PATH: _FOUR_CONSUMER_CASES + _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    FOUR_CONSUMERS_BRANCH_PATH: _FOUR_CONSUMER_CASES + _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    ROW_SUM_MMA_PATH: _FOUR_CONSUMER_CASES + _FLASH_ATTN_LAYOUT_FORWARD_CASES,
    ROW_SUM_MMA_FOUR_CONSUMERS_PATH: _FOUR_CONSUMER_CASES + _FLASH_ATTN_LAYOUT_FORWARD_CASES,
}


def forced_paths() -> dict:
    """name -> (environment variables, {candidate-list name in flashio.configs: replacement}) per path."""
    from flashio import configs
    from flashio.configs import TileConfig

    def gluon_forward(d64: TileConfig, d128: TileConfig, d256: TileConfig) -> tuple:
        return {"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {64: (d64,), 128: (d128,),
                                                                               256: (d256,)}}

    def fused_backward(d64: TileConfig, d128: TileConfig, d256: Optional[TileConfig] = None) -> tuple:
        return {"FLASHIO_BACKWARD_PATH": "gluon"}, {"BACKWARD_FUSED_CANDIDATES": {
            64: (d64,), 128: (d128,), 256: (d256,) if d256 is not None else split_d256}}

    def tuned_gluon_forward_with(**option) -> tuple:
        """The tuned persistent Gluon forms of d=64 and d=128 (those of configs.FORWARD_GLUON_CANDIDATES storing
        their output from registers) with ``option``; d=256's tuned persistent form as it is."""
        tuned = {d: next(config for config in configs.FORWARD_GLUON_CANDIDATES[d]
                         if config.persistent and config.output_from_registers) for d in (64, 128)}
        return gluon_forward(replace(tuned[64], **option), replace(tuned[128], **option), persistent_d256)

    split_d256 = (TileConfig(64, 64, 4, 1, "gluon", dq_chunks=4, warp_specialised=True, split_roles=True),)
    pipelined = TileConfig(128, 128, 4, 3, "gluon", pipelined=True)  # d=64 and d=128
    pipelined_d256 = TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True)
    persistent, persistent_d256 = replace(pipelined, persistent=True), replace(pipelined_d256, persistent=True)
    specialised = TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True)  # the fused backward, d=128
    specialised_d64 = replace(specialised, kv_in_registers=True)
    # The d=64 fused backward tuned since v0.19: persistent, listed, three Q/dO slots, two dS^T tiles.
    tuned_d64 = replace(specialised_d64, num_stages=3, persistent=True, stats_in_shared=True, balanced_schedule=True,
                        ds_buffers=2)
    # The d=128 persistent fused backward tuned since v0.20: listed, three Q/dO slots, one dQ tile.
    tuned_d128 = replace(specialised, num_stages=3, dq_buffers=1, persistent=True, stats_in_shared=True,
                         balanced_schedule=True)
    rows = TileConfig(64, 128, 4, 2, "gluon", warp_specialised=True, persistent=True, stats_in_shared=True,
                      balanced_schedule=True, split_rows=True)  # the fused backward's key rows on two partitions
    return {
        "forward: tensor descriptors": ({"FLASHIO_FORWARD_PATH": "tma"}, {}),
        "forward: warp-specialised": ({"FLASHIO_FORWARD_PATH": "ws"}, {}),
        # The descriptor kernel with 64x64 tiles at d=64: the portable kernel's tuned d=64 causal 1k tile without
        # its serialised warpgroup MMAs (v0.20; v0.21's forward probe run 18 measured it slower, not a candidate).
        "forward: tensor descriptors, 64x64 tiles": ({"FLASHIO_FORWARD_PATH": "tma"}, {"FORWARD_TMA_CANDIDATES": {
            64: (TileConfig(64, 64, 4, 3, "tma"),), 128: (TileConfig(128, 128, 8, 3, "tma"),),
            256: (TileConfig(64, 64, 4, 2, "tma"),)}}),
        "forward: warp-specialised, persistent grid": ({"FLASHIO_FORWARD_PATH": "ws"}, {"FORWARD_WS_CANDIDATES": {
            64: (TileConfig(128, 128, 4, 2, "ws", persistent=True),),
            128: (TileConfig(128, 64, 4, 2, "ws", persistent=True),),
            256: (TileConfig(128, 64, 4, 1, "ws", persistent=True),)}}),
        "forward: 128-register 128x64 tiles": ({}, {"FORWARD_CANDIDATES": {
            64: (TileConfig(128, 64, 8, 2, max_registers=128),),
            128: (TileConfig(128, 64, 8, 2, max_registers=128),),
            256: (TileConfig(64, 64, 4, 2),)}}),
        "forward: Gluon (d=64, 128, 256)": ({"FLASHIO_FORWARD_PATH": "gluon"}, {}),
        # The plain loop (not tuned at d=64 and d=128; at d=256 tuned but not the first tile).
        "forward: Gluon, other loops": gluon_forward(TileConfig(128, 128, 4, 3, "gluon"),
                                                     TileConfig(128, 128, 4, 3, "gluon"),
                                                     TileConfig(128, 64, 4, 2, "gluon")),
        # The persistent Gluon forward (v0.11: first run correct; the pipelined d=128 form is tuned, the plain
        # d=256 form here is not).
        "forward: Gluon, persistent": gluon_forward(persistent, persistent,
                                                    TileConfig(128, 64, 4, 2, "gluon", persistent=True)),
        # Separate K and V barriers, so that the pipelined loop runs with two slots (tuned since v0.11).
        "forward: Gluon, pipelined, separate K/V slots": gluon_forward(
            replace(pipelined, num_stages=2, split_kv=True), replace(pipelined, num_stages=2, split_kv=True),
            pipelined_d256),
        # The consumers taking turns to issue their products (tuned at d=128 since v0.11; the d=64 and d=256
        # forms here are not).
        "forward: Gluon, pipelined, ping-pong": gluon_forward(
            replace(pipelined, pingpong=True), replace(pipelined, pingpong=True),
            replace(pipelined_d256, pingpong=True)),
        # The persistent grid with the ping-pong and separate-K/V loops (v0.13: first run with causal tiles
        # in pairs of query blocks).
        "forward: Gluon, persistent, ping-pong": gluon_forward(
            replace(persistent, pingpong=True), replace(persistent, pingpong=True),
            replace(persistent_d256, pingpong=True)),
        "forward: Gluon, persistent, separate K/V slots": gluon_forward(
            replace(persistent, num_stages=2, split_kv=True), replace(persistent, num_stages=2, split_kv=True),
            persistent_d256),
        # The output stored from registers, or staged in a buffer of its own, so that Q is handed back when the
        # key loop ends (v0.14: first run correct; from registers tuned at d=64 and d=128; d=256 has no room
        # for the buffer: its tuned form there).
        "forward: Gluon, persistent, output from registers": gluon_forward(
            replace(persistent, output_from_registers=True), replace(persistent, output_from_registers=True),
            replace(persistent_d256, output_from_registers=True)),
        "forward: Gluon, persistent, output buffer": gluon_forward(
            replace(persistent, output_buffer=True),
            replace(persistent, num_stages=2, split_kv=True, output_buffer=True), persistent_d256),
        # 64-key blocks in the persistent pipelined loop (d=64 and 128; v0.14: first run correct, not tuned).
        "forward: Gluon, persistent, 64-key blocks": gluon_forward(
            replace(persistent, block_n=64, num_stages=4), replace(persistent, block_n=64), persistent_d256),
        # Three consumer warpgroups of 64 rows (a 192-row tile) at d=64 (v0.14: first run correct, level or
        # slower than two, not tuned); d=128 and d=256 keep their tuned persistent forms (a third
        # warpgroup's registers do not fit there).
        "forward: Gluon, persistent, three consumers": gluon_forward(
            replace(persistent, block_m=192, output_from_registers=True),
            replace(persistent, output_from_registers=True), persistent_d256),
        # v0.48: the same on d=64's tuned host-descriptor form (two Q sets, claims, 16-byte stores) without the options
        # a 192-row tile does not take (the half diagonal) or spills with (Q in registers: 88-104 B of stack at 160
        # registers, against 0-8 B without), d=64's seventh candidate; d=128 and d=256 their host-descriptor forms.
        THREE_CONSUMERS_TUNED_PATH: gluon_forward(
            configs.FORWARD_GLUON_CANDIDATES[64][6],
            configs.FORWARD_GLUON_CANDIDATES[128][6], replace(configs.FORWARD_GLUON_CANDIDATES[256][1],
                                                              host_descriptors=3)),
        # v0.49: the masked key blocks through the unmasked step's code, the mask under a run-time branch, on the
        # host-descriptor forms of d=64 (two consumers), d=128 and d=256, and on d=64's three-consumer form.
        MASK_BY_BRANCH_PATH: gluon_forward(*(replace(configs.FORWARD_GLUON_CANDIDATES[d][index], mask_by_branch=True)
                                             for d, index in ((64, 5), (128, 6), (256, 4)))),
        MASK_BY_BRANCH_THREE_CONSUMERS_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][6], mask_by_branch=True),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][6], mask_by_branch=True),
            replace(configs.FORWARD_GLUON_CANDIDATES[256][4], mask_by_branch=True)),
        # The same forms with that single step's mask computed in every block, without a branch (v0.49 call 4: 25 of 25
        # PASS; 10-24% slower than the forms without it at d=128, probe run 58).
        MASK_EVERY_BLOCK_PATH: gluon_forward(*(replace(configs.FORWARD_GLUON_CANDIDATES[d][index],
                                                       mask_every_block=True)
                                               for d, index in ((64, 5), (128, 6), (256, 4)))),
        # v0.50: each tile's output stored while the next tile's first score product runs (``overlap_tiles``): d=64's
        # two-consumer host form without Q in registers (which the option excludes), claiming its causal tiles, and its
        # three-consumer form, d=128's form 6 and its mask-by-branch twin; d=256 has no claiming form, so its host form
        # as it is.
        OVERLAP_TILES_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][5], q_in_registers=False, dynamic_schedule=True,
                    overlap_tiles=True),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][6], overlap_tiles=True),
            configs.FORWARD_GLUON_CANDIDATES[256][4]),
        OVERLAP_TILES_BRANCH_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][6], overlap_tiles=True, published_coordinates=False),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][8], overlap_tiles=True, published_coordinates=False),
            configs.FORWARD_GLUON_CANDIDATES[256][4]),
        # v0.51: each claimed tile's (block, head, batch) published packed by the loader (``published_coordinates``):
        # d=64's two-consumer host form (claiming its non-causal tiles; causal calls run its static list) and d=128's
        # form 6, then d=64's three-consumer form and d=128's mask-by-branch form (both claiming causal tiles too; the
        # candidates since v0.51 call 1, probe run 60); d=256 has no claiming form, so its host form as it is.
        PUBLISHED_COORDINATES_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][5], published_coordinates=True),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][6], published_coordinates=True),
            configs.FORWARD_GLUON_CANDIDATES[256][4]),
        PUBLISHED_COORDINATES_BRANCH_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][6], published_coordinates=True),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][8], published_coordinates=True),
            configs.FORWARD_GLUON_CANDIDATES[256][4]),
        # v0.52: d=64's eighth candidate, four consumer warpgroups of 64 rows (a 256-row tile, which divides the grid's
        # lengths) with 64-key blocks (a fourth consumer's registers hold no 64 x 128 score block: 112 per thread);
        # d=128 and d=256 their host-descriptor forms.
        FOUR_CONSUMERS_PATH: gluon_forward(
            configs.FORWARD_GLUON_CANDIDATES[64][7], configs.FORWARD_GLUON_CANDIDATES[128][6],
            configs.FORWARD_GLUON_CANDIDATES[256][4]),
        # Its twin with the masked key blocks through the unmasked step's code (d=64's ninth candidate, the tuned
        # choice at causal 1k in v0.52 call 3's grids); d=128 and d=256 their mask-by-branch forms (d=128's without
        # its half diagonal block since v0.54: 11 of 11 PASS on the H200, v0.54 call 6).
        FOUR_CONSUMERS_BRANCH_PATH: gluon_forward(
            configs.FORWARD_GLUON_CANDIDATES[64][8], configs.FORWARD_GLUON_CANDIDATES[128][8],
            replace(configs.FORWARD_GLUON_CANDIDATES[256][4], mask_by_branch=True)),
        # v0.53: each consumer's row sums on the tensor cores (``row_sum_mma``): d=64's three-consumer candidate (its
        # 128-key P summed in two pieces since v0.54), then its four-consumer mask-by-branch candidate; d=128's host
        # form (with its half diagonal block) and its mask-by-branch candidate (without, since v0.54) with them
        # (v0.54: one 64-key block of ones for both consumers); d=256's 64-key forms keep their sums on the CUDA cores
        # (not built for them).
        ROW_SUM_MMA_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][6], row_sum_mma=True),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][6], row_sum_mma=True), configs.FORWARD_GLUON_CANDIDATES[256][4]),
        ROW_SUM_MMA_FOUR_CONSUMERS_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][8], row_sum_mma=True),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][8], row_sum_mma=True),
            replace(configs.FORWARD_GLUON_CANDIDATES[256][4], mask_by_branch=True)),
        # The same with the plain loop (prepared after that run, not yet run).
        "forward: Gluon, persistent, three consumers, plain loop": gluon_forward(
            replace(persistent, block_m=192, pipelined=False, output_from_registers=True),
            replace(persistent, output_from_registers=True), persistent_d256),
        # Q handed back after the tile's last score product, and two sets of Q buffers (v0.15, prepared: the
        # next tile's Q fetched while the consumers finish this one). Two sets at d=128 fit beside two
        # K/V slots only (separate K/V barriers); d=256 has no room for them (its form with early release).
        "forward: Gluon, persistent, Q handed back early": gluon_forward(
            replace(persistent, output_from_registers=True, early_q_release=True),
            replace(persistent, output_from_registers=True, early_q_release=True),
            replace(persistent_d256, output_from_registers=True, early_q_release=True)),
        "forward: Gluon, persistent, two Q buffers": gluon_forward(
            replace(persistent, output_from_registers=True, q_buffers=2),
            replace(persistent, num_stages=2, split_kv=True, output_from_registers=True, q_buffers=2),
            replace(persistent_d256, output_from_registers=True, early_q_release=True)),
        "forward: Gluon, persistent, two Q buffers, Q handed back early": gluon_forward(
            replace(persistent, output_from_registers=True, q_buffers=2, early_q_release=True),
            replace(persistent, num_stages=2, split_kv=True, output_from_registers=True, q_buffers=2,
                    early_q_release=True),
            replace(persistent_d256, output_from_registers=True, early_q_release=True)),
        # Two programs per multiprocessor at d=64 (v0.15, prepared): 64-key blocks, 80 registers per thread
        # on entry, 104 per consumer thread, so that one program's tile boundaries (the first scores and
        # softmax, the last P V product, the epilogue) overlap the other's key loop. d=128 and d=256 do not
        # fit their accumulators in that budget: their tuned forms.
        "forward: Gluon, two programs per multiprocessor": gluon_forward(
            TileConfig(128, 64, 4, 3, "gluon", pipelined=True, max_registers=80), persistent, persistent_d256),
        "forward: Gluon, two programs per multiprocessor, plain loop": gluon_forward(
            TileConfig(128, 64, 4, 3, "gluon", max_registers=80), persistent, persistent_d256),
        "forward: Gluon, two programs per multiprocessor, output from registers": gluon_forward(
            TileConfig(128, 64, 4, 3, "gluon", max_registers=80, output_from_registers=True),
            replace(pipelined, output_from_registers=True), persistent_d256),
        # v0.18 (prepared): the first consumer's half-seen diagonal block computed over its first half, and
        # the persistent grids' tiles from a balanced list (flashio.schedules); d=256 has 64-key blocks (no
        # half block): its persistent form with the list.
        "forward: Gluon, persistent, half diagonal block, balanced schedule": gluon_forward(
            replace(persistent, output_from_registers=True, q_buffers=2, half_diagonal=True, balanced_schedule=True),
            replace(persistent, output_from_registers=True, half_diagonal=True, balanced_schedule=True),
            replace(persistent_d256, balanced_schedule=True)),
        "forward: Gluon, half diagonal block, ping-pong / separate K/V slots": gluon_forward(
            replace(pipelined, pingpong=True, half_diagonal=True),
            replace(pipelined, num_stages=2, split_kv=True, half_diagonal=True), pipelined_d256),
        "forward: Gluon, persistent, half diagonal block, Q handed back early": gluon_forward(
            replace(persistent, output_from_registers=True, early_q_release=True, half_diagonal=True),
            replace(persistent, output_from_registers=True, early_q_release=True, half_diagonal=True),
            persistent_d256),
        # Q loaded into registers and its buffer handed back at once (v0.18; tuned at d=64 since v0.19); d=256 has
        # no registers for it (its accumulator and Q would take 256 of them): its tuned persistent form.
        "forward: Gluon, persistent, Q in registers": gluon_forward(
            replace(persistent, output_from_registers=True, q_buffers=2, half_diagonal=True, balanced_schedule=True,
                    q_in_registers=True),
            replace(persistent, output_from_registers=True, half_diagonal=True, balanced_schedule=True,
                    q_in_registers=True),
            persistent_d256),
        # v0.42: the tuned persistent form of d=128 (dynamic lists, 16-byte output stores) with Q in registers, its
        # buffer handed back once loaded, so that the next tile's Q lands during this one (d=64's tuned form has it
        # since v0.19; the path above checks v0.18's d=128 form).
        "forward: Gluon, persistent, tuned options, Q in registers at d=128": tuned_gluon_forward_with(
            q_in_registers=True),
        # v0.25: the tuned persistent forms of d=64 and d=128 with ping-pong turns between their consumers
        # (forward probe run 25, v0.26: correct, 1-4% slower), with the 4-byte output stores they had then; d=256
        # keeps its tuned form.
        "forward: Gluon, persistent, tuned options, ping-pong": tuned_gluon_forward_with(pingpong=True,
                                                                                         wide_stores=False),
        # v0.36: the tuned persistent forms of d=64 and d=128 claiming their causal tiles one at a time from one list
        # (``dynamic_schedule``; non-causal calls run them unchanged); d=256 keeps its tuned form.
        "forward: Gluon, persistent, dynamic tile list": tuned_gluon_forward_with(dynamic_schedule=True),
        # v0.39: the tuned persistent forms as they are: d=64's and d=128's claim their non-causal tiles one at a time
        # in the round-robin's order (``noncausal_claims``; the causal dynamic list's kernel form compiled
        # non-causal), d=256's takes its round-robin.
        "forward: Gluon, persistent, non-causal claims": gluon_forward(
            configs.FORWARD_GLUON_CANDIDATES[64][1], configs.FORWARD_GLUON_CANDIDATES[128][2],
            configs.FORWARD_GLUON_CANDIDATES[256][1]),
        # v0.37 (prepared): d=256's tuned persistent form (separate K/V slots, round-robin pairs) claiming its causal
        # tiles from one list; d=64 and d=128 their tuned forms.
        "forward: Gluon, persistent, dynamic tile list at d=256": gluon_forward(
            configs.FORWARD_GLUON_CANDIDATES[64][1], configs.FORWARD_GLUON_CANDIDATES[128][2],
            replace(configs.FORWARD_GLUON_CANDIDATES[256][1], balanced_schedule=True, dynamic_schedule=True)),
        # v0.38 (prepared): the tuned persistent forms of d=64 and d=128 and d=256's persistent form with the
        # non-causal round-robin's last, partial round cut along its key blocks, the pieces merged after the kernel
        # (``split_tail``; causal calls run them unchanged). PATH_EXTRA_CASES adds the d=256 case that has a tail.
        SPLIT_TAIL_FORWARD_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][1], split_tail=True, noncausal_claims=False),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][2], split_tail=True, noncausal_claims=False),
            replace(configs.FORWARD_GLUON_CANDIDATES[256][1], split_tail=True)),
        # v0.45: d=256's persistent form storing its output from registers 16 bytes at a time (Q handed back when
        # the key loop ends; d=256's fourth tuner candidate), and the same claiming its tiles (the causal dynamic
        # list, non-causal claims; probe run 49: -4% to +6%, not a candidate); d=64 and d=128 their tuned forms.
        # PATH_EXTRA_CASES adds the grid's d=256 1k shape, both masks.
        D256_OUTPUT_FROM_REGISTERS_PATH: gluon_forward(
            configs.FORWARD_GLUON_CANDIDATES[64][1], configs.FORWARD_GLUON_CANDIDATES[128][2],
            replace(persistent_d256, output_from_registers=True, wide_stores=True)),
        # v0.45: d=128's tuned persistent form with separate K and V slots in its three-slot ring (probe run 50:
        # level to -10%, not a candidate).
        "forward: Gluon, persistent, d=128 tuned options, separate K/V slots": gluon_forward(
            configs.FORWARD_GLUON_CANDIDATES[64][1],
            replace(configs.FORWARD_GLUON_CANDIDATES[128][2], split_kv=True), configs.FORWARD_GLUON_CANDIDATES[256][1]),
        D256_OUTPUT_FROM_REGISTERS_CLAIMS_PATH: gluon_forward(
            configs.FORWARD_GLUON_CANDIDATES[64][1], configs.FORWARD_GLUON_CANDIDATES[128][2],
            replace(persistent_d256, output_from_registers=True, wide_stores=True, balanced_schedule=True,
                    dynamic_schedule=True, noncausal_claims=True)),
        # v0.46: the tuned persistent forms (d=64's, d=128's two, d=256's storing from registers) with Q's tile loads
        # through a descriptor made on the host (no per-tile descriptor written and fenced before Q's request), and
        # with Q's, K's and V's (no descriptor written at all, no wait for the previous tile's loads). d=128's form
        # with Q in registers takes the Q/K/V path.
        FORWARD_HOST_Q_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][1], host_descriptors=1),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][2], host_descriptors=1),
            replace(configs.FORWARD_GLUON_CANDIDATES[256][3], host_descriptors=1)),
        FORWARD_HOST_QKV_PATH: gluon_forward(
            replace(configs.FORWARD_GLUON_CANDIDATES[64][1], host_descriptors=3),
            replace(configs.FORWARD_GLUON_CANDIDATES[128][5], host_descriptors=3),
            replace(configs.FORWARD_GLUON_CANDIDATES[256][1], host_descriptors=3)),
        # Since v0.32 the tuned persistent forms of d=64 and d=128 store their output 16 bytes at a time (words
        # exchanged between the lanes of a row by warp shuffles; forced path "16-byte output stores" in v0.31-v0.32);
        # the same with the 4-byte stores they had before (d=256's tuned form does not store from registers).
        "forward: Gluon, persistent, tuned options, 4-byte output stores": tuned_gluon_forward_with(wide_stores=False),
        # v0.32 (prepared): the non-persistent forms storing from registers 16 bytes at a time: d=64's two programs
        # per multiprocessor (80 registers per thread), d=128's pipelined tile.
        "forward: Gluon, one tile per program, 16-byte output stores": gluon_forward(
            TileConfig(128, 64, 4, 3, "gluon", max_registers=80, output_from_registers=True, wide_stores=True),
            replace(pipelined, output_from_registers=True, wide_stores=True), persistent_d256),
        "forward: warp-specialised, persistent grid, balanced schedule": ({"FLASHIO_FORWARD_PATH": "ws"}, {
            "FORWARD_WS_CANDIDATES": {
                64: (TileConfig(128, 128, 4, 2, "ws", persistent=True, balanced_schedule=True),),
                128: (TileConfig(128, 128, 4, 2, "ws", persistent=True, balanced_schedule=True),),
                256: (TileConfig(128, 64, 4, 1, "ws", persistent=True, balanced_schedule=True),)}}),
        "backward: tensor descriptors": ({"FLASHIO_BACKWARD_PATH": "tma"}, {}),
        "backward: warp-specialised": ({"FLASHIO_BACKWARD_PATH": "ws"}, {}),
        "backward: warp-specialised, persistent dK/dV": ({"FLASHIO_BACKWARD_PATH": "ws"}, {"BACKWARD_DKDV_WS_CANDIDATES": {
            64: (TileConfig(64, 128, 4, 2, "ws", persistent=True),),
            128: (TileConfig(64, 128, 4, 2, "ws", persistent=True),),
            256: (TileConfig(32, 128, 4, 1, "ws", passes=2, persistent=True),)}}),
        "backward: warp-specialised, other dQ tiles": ({"FLASHIO_BACKWARD_PATH": "ws"}, {"BACKWARD_DQ_WS_CANDIDATES": {
            64: (TileConfig(128, 128, 4, 2, "ws"),), 128: (TileConfig(128, 64, 4, 2, "ws"),)}}),
        "backward: fused five-product (Gluon)": ({"FLASHIO_BACKWARD_PATH": "gluon"}, {}),
        "backward: fused five-product (Gluon), other tiles": fused_backward(
            TileConfig(64, 128, 8, 2, "gluon"), TileConfig(64, 128, 8, 2, "gluon", dq_chunks=2),
            TileConfig(64, 64, 4, 2, "gluon", dq_chunks=8, warp_specialised=True, split_roles=True)),
        # K/V in registers: at d=64 only (it spills at d=128; there and at d=256 these paths run the tuned tiles).
        "backward: fused five-product (Gluon), K/V in registers": fused_backward(
            TileConfig(64, 64, 4, 2, "gluon", dq_buffers=1, kv_in_registers=True), specialised),
        "backward: fused five-product (Gluon), specialised, K/V in registers": fused_backward(
            specialised_d64, specialised),
        # The persistent specialised form (one program per multiprocessor, pairs of key blocks per unit).
        "backward: fused five-product (Gluon), persistent": fused_backward(
            replace(specialised_d64, persistent=True), replace(specialised, persistent=True)),
        # LSE and D rows through shared memory (v0.12: no register spills in the specialised kernels; tuned
        # since v0.13).
        "backward: fused five-product (Gluon), LSE/D in shared memory": fused_backward(
            replace(specialised_d64, stats_in_shared=True), replace(specialised, stats_in_shared=True)),
        "backward: fused five-product (Gluon), persistent, LSE/D in shared memory": fused_backward(
            replace(specialised_d64, persistent=True, stats_in_shared=True),
            replace(specialised, persistent=True, stats_in_shared=True)),
        # Its causal key blocks from a balanced tile list (v0.18, prepared; flashio.schedules).
        "backward: fused five-product (Gluon), persistent, balanced schedule": fused_backward(
            replace(specialised_d64, persistent=True, stats_in_shared=True, balanced_schedule=True),
            replace(specialised, persistent=True, stats_in_shared=True, balanced_schedule=True)),
        # Two dS^T tiles, one barrier per query block (v0.19): the specialised form and the persistent listed one.
        "backward: fused five-product (Gluon), two dS tiles": fused_backward(
            replace(specialised_d64, stats_in_shared=True, ds_buffers=2),
            replace(specialised, stats_in_shared=True, ds_buffers=2)),
        "backward: fused five-product (Gluon), persistent, balanced schedule, two dS tiles": fused_backward(
            tuned_d64,
            replace(specialised, persistent=True, stats_in_shared=True, balanced_schedule=True, ds_buffers=2)),
        # Three Q/dO slots with one dQ tile at d=128 (v0.19 run 6, v0.20 run 7: the fastest d=128 persistent form,
        # tuned since v0.20); d=64 with the same three slots and its tuned two dS^T tiles.
        "backward: fused five-product (Gluon), persistent, three Q/dO slots": fused_backward(tuned_d64, tuned_d128),
        # v0.20: a fourth Q/dO slot at d=64 (timed beside the three-slot form); d=128 as in the path above.
        "backward: fused five-product (Gluon), persistent, four Q/dO slots at d=64": fused_backward(
            replace(tuned_d64, num_stages=4), tuned_d128),
        # v0.20: the same three slots and one dQ tile on the non-persistent specialised kernel (d=128; measured
        # level with the tuned forms in a grid, not kept as a candidate).
        "backward: fused five-product (Gluon), three Q/dO slots, one dQ tile": fused_backward(
            tuned_d64, replace(tuned_d128, persistent=False, balanced_schedule=False)),
        # The key rows of a block on two MMA partitions meeting only at the dS^T exchange (v0.19;
        # kernels/backward_gluon_rows.py; v0.20: correct, not faster), persistent with the balanced list; d=256
        # keeps its role-split tile.
        "backward: fused five-product (Gluon), key rows on two MMA partitions": fused_backward(
            replace(rows, num_stages=3, kv_in_registers=True), rows),
        # A block's dV and dK products waited at the next block's S^T wait instead of at its end (v0.22,
        # prepared): the tuned d=64 form and its four-slot neighbour (d=128: ptxas serialises the form; the
        # launcher refuses it there).
        "backward: fused five-product (Gluon), dV and dK waited at the next block": fused_backward(
            replace(tuned_d64, late_key_gradient_wait=True), tuned_d128),
        "backward: fused five-product (Gluon), dV and dK waited at the next block, four slots at d=64": fused_backward(
            replace(tuned_d64, num_stages=4, late_key_gradient_wait=True), tuned_d128),
        # The last, partial round of a non-causal persistent backward cut into one run of query blocks per program,
        # the pieces' dK/dV added in float32 and converted after the kernel (v0.23): the tuned forms since v0.23
        # (tuned_d64 / tuned_d128 above are them without it, the round-robin's whole last round).
        "backward: fused five-product (Gluon), split tail": fused_backward(
            replace(tuned_d64, split_tail=True), replace(tuned_d128, split_tail=True)),
        # v0.39 (prepared): the tuned persistent forms claiming their non-causal key blocks one at a time, in order
        # (``noncausal_claims``: the dynamic list's kernel form compiled non-causal), instead of the split tail.
        "backward: fused five-product (Gluon), non-causal claims": fused_backward(
            *(configs.BACKWARD_FUSED_CANDIDATES[d][-1].claims_form() for d in (64, 128))),
        # v0.41: the tuned persistent d=64 form with two K/V slots (kv_slots=2: a key block's K/V requested while the
        # MMA warps still work on the previous block), over its own lists (causal balanced, non-causal split tail),
        # then claiming its key blocks (the dynamic lists' loops); d=128 its tuned form.
        "backward: fused five-product (Gluon), two K/V slots at d=64": fused_backward(
            replace(configs.BACKWARD_FUSED_CANDIDATES[64][-1], kv_slots=2), configs.BACKWARD_FUSED_CANDIDATES[128][1]),
        "backward: fused five-product (Gluon), two K/V slots at d=64, claimed key blocks": fused_backward(
            replace(configs.BACKWARD_FUSED_CANDIDATES[64][-1], kv_slots=2, split_tail=False, dynamic_schedule=True,
                    noncausal_claims=True), configs.BACKWARD_FUSED_CANDIDATES[128][1]),
        # v0.42: d=128's tuned one-slot forms with the key block's first query blocks requested before the K/V slot
        # wait (queries_first): the split tail's and causal dynamic lists, then the non-causal claims; d=64 its tuned
        # form (two K/V slots). (Call 1 ran these paths with early_kv_release too: 34 of 34 PASS.)
        "backward: fused five-product (Gluon), queries first at d=128": fused_backward(
            configs.BACKWARD_FUSED_CANDIDATES[64][-1], replace(configs.BACKWARD_FUSED_CANDIDATES[128][1],
                                                               queries_first=True)),
        "backward: fused five-product (Gluon), queries first at d=128, claimed key blocks": fused_backward(
            configs.BACKWARD_FUSED_CANDIDATES[64][-1], configs.BACKWARD_FUSED_CANDIDATES[128][1].claims_form()),
        # Since v0.32 the tuned persistent forms of d=64 (three slots) and d=128 store dK and dV 16 bytes at a time
        # (checked in v0.32 as path "16-byte dK/dV stores"; "split tail" above runs them with 4-byte stores). The
        # d=64 four-slot form with them (prepared in v0.32, tuned since v0.33); d=128 its tuned form.
        "backward: fused five-product (Gluon), 16-byte dK/dV stores, four slots at d=64": fused_backward(
            configs.BACKWARD_FUSED_CANDIDATES[64][1], configs.BACKWARD_FUSED_CANDIDATES[128][1]),
        # v0.32 (prepared; tuned since v0.33): d=256's role-split tile storing dK and dV 16 bytes at a time; d=64 and
        # d=128 their tuned forms. The second path runs d=256's two-slot tile (a candidate until v0.33; checked in
        # v0.33 call 2, before it was dropped) with them.
        "backward: fused five-product (Gluon), role split at d=256, 16-byte dK/dV stores": fused_backward(
            configs.BACKWARD_FUSED_CANDIDATES[64][0], configs.BACKWARD_FUSED_CANDIDATES[128][1],
            configs.BACKWARD_FUSED_CANDIDATES[256][0]),
        "backward: fused five-product (Gluon), role split at d=256, two Q slots, 16-byte dK/dV stores": fused_backward(
            configs.BACKWARD_FUSED_CANDIDATES[64][0], configs.BACKWARD_FUSED_CANDIDATES[128][1],
            replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], num_stages=2, dq_chunks=8)),
        # v0.44: d=256's tuned role-split tile loading Q, K, V and dO, or K and V only, through descriptors made on
        # the host (host_descriptors); d=64 and d=128 their tuned forms.
        HOST_DESCRIPTORS_PATH: fused_backward(
            configs.BACKWARD_FUSED_CANDIDATES[64][-1], configs.BACKWARD_FUSED_CANDIDATES[128][-1],
            replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], host_descriptors=4)),
        KV_HOST_DESCRIPTORS_PATH: fused_backward(
            configs.BACKWARD_FUSED_CANDIDATES[64][-1], configs.BACKWARD_FUSED_CANDIDATES[128][-1],
            replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], host_descriptors=2)),
        # The d=256 role-split kernel in a persistent grid over a tile list, non-causal with a split tail (v0.23;
        # v0.24: correct, not faster, not a candidate); d=64 and d=128 their tuned forms.
        "backward: fused five-product (Gluon), persistent role-split at d=256": fused_backward(
            replace(tuned_d64, split_tail=True), replace(tuned_d128, split_tail=True),
            replace(split_d256[0], persistent=True, balanced_schedule=True, split_tail=True)),
        # v0.34: every tuned fused-backward form storing its float32 dQ tiles into shared memory without bank
        # conflicts (gluon_stores.store_float32_spread; v0.35 call 1: 17/17 PASS; d=128's tuned form since v0.35).
        "backward: fused five-product (Gluon), dQ stored without bank conflicts": fused_backward(
            *(replace(configs.BACKWARD_FUSED_CANDIDATES[d][-1], spread_dq_stores=True) for d in (64, 128, 256))),
        # v0.35: the tuned persistent forms of d=64 and d=128 reading each block's LSE row from shared memory before
        # the wait for its S^T product (early_lse); d=256 its tuned role-split tile.
        "backward: fused five-product (Gluon), LSE row read before the S^T wait": fused_backward(
            *(replace(configs.BACKWARD_FUSED_CANDIDATES[d][-1], early_lse=True) for d in (64, 128)),
            configs.BACKWARD_FUSED_CANDIDATES[256][0]),
        # v0.37: the tuned persistent forms of d=64 and d=128 claiming their causal key blocks one at a time from one
        # list (dynamic_schedule; non-causal calls run them unchanged); d=256 its tuned role-split tile.
        "backward: fused five-product (Gluon), persistent, dynamic tile list": fused_backward(
            *(replace(configs.BACKWARD_FUSED_CANDIDATES[d][-1], dynamic_schedule=True) for d in (64, 128)),
            configs.BACKWARD_FUSED_CANDIDATES[256][0]),
        "backward: two-pass dK/dV": ({}, {"BACKWARD_DKDV_CANDIDATES": {
            64: (TileConfig(64, 64, 4, 3, passes=2),), 128: (TileConfig(64, 64, 4, 2, passes=2),),
            256: (TileConfig(32, 64, 4, 2, passes=2),)}}),
    }


class forcing:
    """Context manager: set environment variables and replace candidate lists of flashio.configs (and forget
    cached choices) on entry; restore everything on exit."""

    def __init__(self, environment: dict, candidate_lists: dict):
        self.environment, self.candidate_lists = environment, candidate_lists

    def __enter__(self):
        from flashio import configs

        self.saved_env = {name: os.environ.get(name) for name in self.environment}
        self.saved_lists = {name: getattr(configs, name) for name in self.candidate_lists}
        os.environ.update(self.environment)
        for name, replacement in self.candidate_lists.items():
            setattr(configs, name, replacement)
        configs.clear_choices()
        return self

    def __exit__(self, *exc):
        from flashio import configs

        for name, value in self.saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        for name, value in self.saved_lists.items():
            setattr(configs, name, value)
        configs.clear_choices()
        return False


def select_paths(names: list, texts: Optional[list] = None, shard: Optional[tuple] = None) -> list:
    """The forced paths to run, in their order: those whose name contains one of ``texts`` (all without), and
    of those, with ``shard`` = (k, n), every n-th from the k-th (1-based) -- so that n runs of the check, each
    under a device call's time limit, cover every path once between them."""
    chosen = [name for name in names if not texts or any(text in name for text in texts)]
    if shard is not None:
        k, n = shard
        chosen = chosen[k - 1::n]
    return chosen


def _parse_shard(text: str) -> tuple:
    """'K/N' -> (K, N), 1 <= K <= N; a clear error otherwise."""
    parts = text.split("/")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"expected K/N with whole numbers (e.g. 2/3); got {text!r}")
    k, n = int(parts[0]), int(parts[1])
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"expected 1 <= K <= N; got {text!r}")
    return k, n


class CaseWatchdog:
    """Context manager: if its body (one correctness case, compiles included) has not finished ``seconds``
    after entry, call ``on_expire(message)`` from a timer thread. A GPU kernel whose barriers never complete
    blocks the calling thread for good and cannot be interrupted from Python; without this a check would
    stall silently until an outside time limit, with no word of which path and case hung (v0.22: the forced
    path of the forward's loop across tiles, at its d=256 case). ``seconds`` <= 0: no watchdog."""

    def __init__(self, seconds: float, label: str, on_expire):
        self.seconds, self.label, self.on_expire = seconds, label, on_expire
        self.timer: Optional[threading.Timer] = None

    def __enter__(self):
        if self.seconds > 0:
            message = (f"  HANG  {self.label}: no result after {self.seconds:g} s (a kernel that never finishes, "
                       f"or compiles slower than --case-timeout allows); the check stops here")
            self.timer = threading.Timer(self.seconds, self.on_expire, args=(message,))
            self.timer.daemon = True
            self.timer.start()
        return self

    def __exit__(self, *exc):
        if self.timer is not None:
            self.timer.cancel()
        return False


# Exit status of a check stopped by its watchdog (a failure too, distinct from 1 = a case failed).
HANG_EXIT_STATUS = 3


# --------------------------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------------------------

def format_table(results, baseline: str = "sdpa_flash", ours: str = "flashio") -> str:
    """Markdown table: forward / backward TFLOP/s of every system, and flashio's ratios to the baseline
    and to cuDNN (``results``: BenchResult rows of modes fwd and bwd, plus fwdbwd for memory)."""
    index = {(r.system, r.mode, r.head_dim, r.causal, r.seqlen): r for r in results}
    keys = sorted({(r.head_dim, r.causal, r.seqlen) for r in results})
    names = list(dict.fromkeys(r.system for r in results))
    header = ["d", "causal", "N"] + [f"{n} fwd/bwd" for n in names] + [
        f"fwd ×{baseline}", f"bwd ×{baseline}", "fwd ×cudnn", "bwd ×cudnn", f"mem ×{baseline}"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]

    def ratio(system_a: str, system_b: str, mode: str, key, field: str = "tflops", invert: bool = False) -> str:
        a, b = index.get((system_a, mode, *key)), index.get((system_b, mode, *key))
        if a is None or b is None or a.status != "ok" or b.status != "ok":
            return "–"
        return f"{getattr(a, field) / getattr(b, field):.2f}"

    for key in keys:
        cells = [str(key[0]), "yes" if key[1] else "no", str(key[2])]
        for n in names:
            fwd, bwd = index.get((n, "fwd", *key)), index.get((n, "bwd", *key))
            ok = fwd is not None and bwd is not None and fwd.status == "ok"
            cells.append(f"{fwd.tflops:.0f} / {bwd.tflops:.0f}" if ok else "–")
        cells += [ratio(ours, baseline, "fwd", key), ratio(ours, baseline, "bwd", key),
                  ratio(ours, "sdpa_cudnn", "fwd", key), ratio(ours, "sdpa_cudnn", "bwd", key),
                  ratio(ours, baseline, "fwdbwd", key, "extra_memory_gb")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flashio.check", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer sequence lengths (1k, 4k, 16k)")
    parser.add_argument("--skip-correctness", action="store_true")
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--skip-paths", action="store_true",
                        help="skip re-running correctness cases with each non-default kernel path forced")
    parser.add_argument("--paths", nargs="+", default=None, metavar="TEXT",
                        help="only the forced paths whose name contains one of these texts (e.g. warp-specialised)")
    parser.add_argument("--path-shard", type=_parse_shard, default=None, metavar="K/N",
                        help="of the forced paths (after --paths), only every N-th from the K-th: N runs with "
                             "K = 1..N cover them all (the whole check takes longer than one 600 s device call)")
    parser.add_argument("--skip-default-cases", action="store_true",
                        help="run the correctness cases only with paths forced (after a full check has passed)")
    parser.add_argument("--case-head-dims", type=int, nargs="+", default=None, metavar="D",
                        help="only the correctness cases of these head dims (a path forced for one head dim's "
                             "kernels need not spend device time on the others' cases)")
    parser.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--seqlens", type=int, nargs="+", default=[1024, 2048, 4096, 8192, 16384])
    parser.add_argument("--causal", choices=["both", "yes", "no"], default="both")
    parser.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    parser.add_argument("--systems", nargs="+", default=["flashio", "sdpa_flash", "sdpa_cudnn", "standard"],
                        help="names from flashio.bench.SYSTEMS (e.g. flashio_deterministic, sdpa_efficient, flex)")
    parser.add_argument("--json", type=str, default=None, help="write all results to this file")
    parser.add_argument("--case-timeout", type=float, default=300.0, metavar="SECONDS",
                        help="stop with exit status 3, naming the path and case, when one correctness case "
                             "(its compiles included) has not finished after this long; 0: wait for ever "
                             "(default 300: a path's first case compiles its kernels in 60-90 s on an H200)")
    args = parser.parse_args(argv)
    if not args.case_timeout >= 0:  # also refuses nan
        parser.error(f"--case-timeout: expected seconds >= 0 (0: no limit); got {args.case_timeout:g}")
    if not torch.cuda.is_available():
        print("flashio.check: no CUDA GPU visible; this script checks and times the kernels on a GPU. "
              "Run `make test` for the CPU (interpreter) test suite.", file=sys.stderr)
        return 2
    props = torch.cuda.get_device_properties(0)
    import triton
    print(f"device: {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}, "
          f"triton {triton.__version__}, cudnn {torch.backends.cudnn.version()}", flush=True)
    report: dict = {"device": props.name, "torch": torch.__version__, "triton": triton.__version__}
    failures = 0
    if not args.skip_correctness:
        print("correctness (flash-attn rule: out <= 2x, grads <= 3x the low-precision reference's error + floor)")
        report["correctness"] = []
        # Correctness does not depend on the tile choice: take the analytic defaults (no timing, fewer
        # compilations), then forget them so that the timing below tunes properly.
        previous = os.environ.get("FLASHIO_AUTOTUNE")
        os.environ["FLASHIO_AUTOTUNE"] = "0"

        def stop_on_hang(message: str) -> None:
            """The watchdog's action: the case's line says it hung, then the process ends (the hung kernel's
            thread cannot be joined; ``os._exit`` leaves it to the driver to tear down)."""
            print(message, flush=True)
            os._exit(HANG_EXIT_STATUS)

        def check_case(case, path_name=None) -> int:
            """Run one case, record it in the report, print its line; 1 if it failed."""
            label = case.name if path_name is None else f"{case.name} on forced path {path_name!r}"
            with CaseWatchdog(args.case_timeout, label, stop_on_hang):
                result = run_correctness_case(case)
            if path_name is not None:
                result["path"] = path_name
            report["correctness"].append(result)
            print(f"  {'PASS' if result['ok'] else 'FAIL'}  {case.name}: {'; '.join(result['details'])}", flush=True)
            return int(not result["ok"])

        def wanted(cases: list) -> list:
            return [case for case in cases if args.case_head_dims is None or case.head_dim in args.case_head_dims]

        for case in [] if args.skip_default_cases else wanted(CORRECTNESS_CASES):
            failures += check_case(case)
        if not args.skip_paths:
            paths = forced_paths()
            for path_name in select_paths(list(paths), args.paths, args.path_shard):
                environment, candidate_lists = paths[path_name]
                print(f"forced path: {path_name}", flush=True)
                with forcing(environment, candidate_lists):
                    for case in wanted(PATH_CASES + PATH_EXTRA_CASES.get(path_name, [])):
                        failures += check_case(case, path_name)
        if previous is None:
            del os.environ["FLASHIO_AUTOTUNE"]
        else:
            os.environ["FLASHIO_AUTOTUNE"] = previous
        from flashio.configs import clear_choices
        clear_choices()
    if not args.skip_timing:
        from flashio.bench import grid, measure_ceilings, run_sweep
        from flashio.configs import cached_choices

        report["ceilings"] = measure_ceilings()
        print(f"ceilings: copy {report['ceilings']['copy_tb_s']:.2f} TB/s, "
              f"bf16 matmul {report['ceilings']['matmul_tflops']:.0f} TFLOP/s", flush=True)
        seqlens = [1024, 4096, 16384] if args.quick else args.seqlens
        causals = {"both": [False, True], "yes": [True], "no": [False]}[args.causal]
        points = grid(seqlens, args.head_dims, causals, dtypes=[args.dtype])
        results = run_sweep(points, args.systems, modes=("fwd", "bwd", "fwdbwd"), progress=False)
        for r in results:
            if r.mode != "fwdbwd":
                print(f"  {r.system:22s} {r.mode:3s} d={r.head_dim} causal={r.causal!s:5} N={r.seqlen:6d}: "
                      f"{r.tflops:6.1f} TFLOP/s  mem {r.extra_memory_gb:.2f} GB  err {r.max_abs_error:.1e} "
                      f"{r.reason}", flush=True)
        report["timing"] = [r.to_dict() for r in results]
        report["tile_choices"] = {str(k): asdict(v) if hasattr(v, "block_m") else v
                                  for k, v in cached_choices().items()}
        print()
        print(format_table(results))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=1, default=str)
    if failures:
        print(f"{failures} correctness case(s) FAILED", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
