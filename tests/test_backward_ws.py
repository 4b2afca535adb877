"""The warp-specialised dK/dV kernel (kernels/backward_ws.py, with the portable dQ kernel, no atomics) gives
the reference's gradients. On a GPU it competes with the portable kernels in the tuned choice for
fixed-length batches with one query head per KV head; here FLASHIO_BACKWARD_PATH=ws forces it and the
interpreter runs the warp-specialised loop as a plain loop with emulated tensor descriptors. Inputs the
kernel does not take (GQA, packed batches) must fall back to the portable kernels, still correct."""

import pytest
import torch

import flashio
from helpers import (assert_result_close, check_against_reference, cu_seqlens, flash_attn_bhnd, random_packed,
                     random_qkv, run_with_grads, varlen_references)


@pytest.fixture(autouse=True)
def force_ws_backward(monkeypatch):
    monkeypatch.setenv("FLASHIO_BACKWARD_PATH", "ws")


# Lengths that are not multiples of the interpreter tiles (16 and 32 rows), with more queries than keys and
# fewer, so that the causal diagonal is offset both ways (bottom-right aligned) and tiles run past both ends.
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("seqlen_q,seqlen_k", [(45, 70), (70, 45), (64, 64)])
def test_ws_backward_matches_reference(causal, seqlen_q, seqlen_k):
    torch.manual_seed(7)
    q, k, v = random_qkv(2, 3, 3, seqlen_q, seqlen_k, 32, torch.bfloat16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=causal), q, k, v, causal=causal)


def test_ws_backward_matches_reference_in_float16():
    torch.manual_seed(8)
    q, k, v = random_qkv(1, 2, 2, 50, 50, 16, torch.float16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=True), q, k, v, causal=True)


def test_ws_forward_and_backward_match_reference_in_the_flash_attn_layout(monkeypatch):
    # (B, N, H, d) tensors: the descriptors get the sequence stride H*d instead of d.
    monkeypatch.setenv("FLASHIO_FORWARD_PATH", "ws")
    torch.manual_seed(11)
    q, k, v = random_qkv(2, 3, 3, 48, 40, 32, torch.bfloat16)
    check_against_reference(flash_attn_bhnd(causal=True), q, k, v, causal=True)


def test_ws_backward_falls_back_for_grouped_query_heads():
    torch.manual_seed(9)
    q, k, v = random_qkv(1, 4, 2, 40, 40, 32, torch.bfloat16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=True, enable_gqa=True),
                            q, k, v, causal=True)


def test_ws_backward_falls_back_for_packed_sequences():
    torch.manual_seed(10)
    lengths = [5, 0, 33, 17]
    cu = cu_seqlens(lengths)
    q, k, v = (random_packed(lengths, 2, 32, torch.float16) for _ in range(3))

    def run(q, k, v):
        return flashio.flash_attn_varlen_func(q, k, v, cu, cu, max(lengths), max(lengths), causal=True)

    result, dout = run_with_grads(run, q, k, v)
    ref32, ref_lp = varlen_references(q, k, v, dout, cu, cu, causal=True)
    assert_result_close(result, ref32, ref_lp)


def test_forcing_ws_runs_the_warp_specialised_kernel_with_the_portable_dq_kernel(monkeypatch):
    # Record the launches: a silent fallback to the portable dK/dV kernel would make the tests above check
    # nothing new.
    from flashio.kernels import backward as portable
    from flashio.kernels import backward_ws

    launched = []

    class Recording:
        def __init__(self, name, kernel):
            self.name, self.kernel = name, kernel

        def __getitem__(self, grid):
            launched.append(self.name)
            return self.kernel[grid]

    for module, name in ((backward_ws, "attention_backward_dkdv_ws_kernel"),
                         (portable, "attention_backward_dkdv_kernel"), (portable, "attention_backward_dq_kernel")):
        monkeypatch.setattr(module, name, Recording(name, getattr(module, name)))
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16)
    flashio.attention(q, k, v, is_causal=True).backward(torch.randn_like(q))
    assert launched == ["attention_backward_dkdv_ws_kernel", "attention_backward_dq_kernel"]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_ws_backward_in_two_passes_matches_reference(monkeypatch, causal):
    # The d=256 form (a dV pass, then a dK pass), forced at a small head dim through the candidate list the
    # interpreter's tiles take their number of passes from.
    from flashio import configs

    from flashio.kernels import backward_ws

    monkeypatch.setitem(configs.BACKWARD_DKDV_WS_CANDIDATES, 64, (configs.TileConfig(32, 128, 4, 1, "ws", passes=2),))
    passes = []
    kernel = backward_ws.attention_backward_dkdv_ws_kernel

    class Recording:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                passes.append((kwargs["COMPUTE_DK"], kwargs["COMPUTE_DV"]))
                return kernel[grid](*args, **kwargs)
            return launch

    monkeypatch.setattr(backward_ws, "attention_backward_dkdv_ws_kernel", Recording())
    torch.manual_seed(12)
    q, k, v = random_qkv(2, 2, 2, 45, 70, 32, torch.bfloat16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=causal), q, k, v, causal=causal)
    assert passes == [(False, True), (True, False)]  # the dV pass, then the dK pass


@pytest.mark.parametrize("capability,joins", [((9, 0), True), ((10, 0), False), ((8, 0), False)])
def test_warp_specialised_kernels_join_the_tuning_only_on_hopper(monkeypatch, capability, joins):
    # Checked on the H200 only: Triton partitions these loops differently on other architectures.
    from types import SimpleNamespace

    from flashio import launchers

    monkeypatch.setattr(launchers, "device_capability", lambda device: capability)
    assert launchers._ws_verified(SimpleNamespace(is_cuda=True, device="cuda:0")) is joins
