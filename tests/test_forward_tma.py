"""The tensor-descriptor forward kernels (kernels/forward_tma.py and the warp-specialised
kernels/forward_ws.py) compute the same attention as the reference. On a GPU they compete with the
portable kernel in the tuned choice; here each is forced with FLASHIO_FORWARD_PATH and run through the
interpreter, which emulates tensor descriptors (and runs the warp-specialised loop as a plain loop), for the
warp-specialised kernel in both grids: a program per query tile, and the persistent grid (its causal tiles
round-robin in pairs, or from a balanced list)."""

import pytest
import torch

import flashio
from flashio.reference import attention_reference


@pytest.fixture(autouse=True, params=["tma", "ws", "ws-persistent", "ws-persistent-balanced"])
def force_descriptor_path(request, monkeypatch):
    if request.param.startswith("ws-persistent"):
        # The persistent grid (a few programs looping over all query tiles; three under the interpreter),
        # forced through the candidate list whose first entry a forced path takes its form from; "balanced":
        # causal tiles from the host-made list of flashio.schedules.
        from flashio import configs

        persistent = configs.TileConfig(128, 128, 4, 2, "ws", persistent=True,
                                        balanced_schedule=request.param.endswith("balanced"))
        monkeypatch.setattr(configs, "FORWARD_WS_CANDIDATES", {64: (persistent,), 128: (persistent,), 256: (persistent,)})
        monkeypatch.setenv("FLASHIO_FORWARD_PATH", "ws")
    else:
        monkeypatch.setenv("FLASHIO_FORWARD_PATH", request.param)
    return request.param


def _assert_close(out, ref, dtype):
    # Same inputs, same fp32 accumulation: the kernel differs from the fp32 reference by the rounding of
    # P to the input dtype before P·V and of the output: a few units in the last place at magnitude ~1.
    tolerance = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2}[dtype]
    assert (out.float() - ref.float()).abs().max().item() <= tolerance


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
# (64, 64): key length a multiple of the tile, so the warp-specialised kernel runs without masks when not causal.
@pytest.mark.parametrize("seqlens", [(45, 70), (70, 45), (64, 64)])
def test_tma_forward_matches_reference_with_gqa(dtype, causal, seqlens):
    torch.manual_seed(1)
    seqlen_q, seqlen_k = seqlens
    q = torch.randn(2, 4, seqlen_q, 32, dtype=dtype)
    k = torch.randn(2, 2, seqlen_k, 32, dtype=dtype)
    v = torch.randn(2, 2, seqlen_k, 32, dtype=dtype)
    out, lse = flashio.attention(q, k, v, causal=causal, return_lse=True)
    ref, ref_lse = attention_reference(q, k, v, causal=causal, return_lse=True)
    _assert_close(out, ref, dtype)
    finite = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse), finite)
    assert torch.allclose(lse[finite], ref_lse[finite], atol=1e-5)


def test_tma_forward_handles_packed_sequences_with_an_empty_one():
    torch.manual_seed(2)
    lengths = [5, 0, 33, 17]
    cu = torch.tensor([0, 5, 5, 38, 55], dtype=torch.int32)
    q, k, v = (torch.randn(55, heads, 32, dtype=torch.float16) for heads in (4, 2, 2))
    out = flashio.flash_attn_varlen_func(q, k, v, cu, cu, max(lengths), max(lengths), causal=True)
    for b, n in enumerate(lengths):
        start = int(cu[b])
        if n == 0:
            continue
        as_bhnd = lambda x: x[start:start + n].transpose(0, 1)[None]
        ref = attention_reference(as_bhnd(q), as_bhnd(k), as_bhnd(v), causal=True)[0].transpose(0, 1)
        _assert_close(out[start:start + n], ref, torch.float16)

