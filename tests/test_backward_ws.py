"""The warp-specialised backward kernels (kernels/backward_ws.py: dK/dV, and dQ, no atomics) give the
reference's gradients. On a GPU they compete with the portable kernels in the tuned choice for
fixed-length batches (the dK/dV kernel also needs one query head per KV head, the dQ kernel LSE rows
16-byte aligned: seqlen_q a multiple of 4); here FLASHIO_BACKWARD_PATH=ws forces them and the interpreter
runs the warp-specialised loops as plain loops with emulated tensor descriptors. Inputs a kernel does not
take (GQA for dK/dV, packed batches, odd query lengths for dQ) must fall back to the portable kernels,
still correct."""

import pytest
import torch

import flashio
from helpers import (assert_result_close, check_against_reference, cu_seqlens, flash_attn_bhnd, random_packed,
                     random_qkv, record_grids, run_with_grads, varlen_references)


@pytest.fixture(autouse=True)
def force_ws_backward(monkeypatch):
    monkeypatch.setenv("FLASHIO_BACKWARD_PATH", "ws")


# Lengths that are not multiples of the interpreter tiles (16 and 32 rows), with more queries than keys and
# fewer, so that the causal diagonal is offset both ways (bottom-right aligned) and tiles run past both ends;
# query lengths of 45 and 70 take the portable dQ kernel, 44, 68 and 64 the warp-specialised one (with rows
# that see no key at all when causal with 68 queries and 44 keys: LSE = -inf).
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("seqlen_q,seqlen_k", [(45, 70), (70, 45), (44, 68), (68, 44), (64, 64)])
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


def test_ws_backward_with_grouped_query_heads_uses_the_ws_dq_kernel_and_the_portable_dkdv_kernel(monkeypatch):
    launched = record_launches(monkeypatch)
    torch.manual_seed(9)
    q, k, v = random_qkv(1, 4, 2, 40, 40, 32, torch.bfloat16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=True, enable_gqa=True),
                            q, k, v, causal=True)
    assert set(launched) == {"attention_backward_dkdv_kernel", "attention_backward_dq_ws_kernel"}


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


def record_launches(monkeypatch) -> list:
    """Record which backward kernels launch: a silent fallback to a portable kernel would make the tests
    above check nothing new."""
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
                         (backward_ws, "attention_backward_dq_ws_kernel"),
                         (portable, "attention_backward_dkdv_kernel"), (portable, "attention_backward_dq_kernel")):
        monkeypatch.setattr(module, name, Recording(name, getattr(module, name)))
    return launched


def test_forcing_ws_runs_both_warp_specialised_backward_kernels(monkeypatch):
    launched = record_launches(monkeypatch)
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16)
    flashio.attention(q, k, v, is_causal=True).backward(torch.randn_like(q))
    assert launched == ["attention_backward_dkdv_ws_kernel", "attention_backward_dq_ws_kernel"]


def test_forcing_ws_with_a_query_length_not_a_multiple_of_4_takes_the_portable_dq_kernel(monkeypatch):
    # The LSE and D rows of a head would not start 16-byte aligned for the dQ kernel's descriptors.
    launched = record_launches(monkeypatch)
    q, k, v = random_qkv(1, 2, 2, 41, 40, 32, torch.bfloat16)
    flashio.attention(q, k, v).backward(torch.randn_like(q))
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


@pytest.mark.parametrize("passes", [1, 2])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_ws_dkdv_in_a_persistent_grid_matches_reference(monkeypatch, causal, passes):
    # A few programs (three under the interpreter) loop over every key block of every head: 3 key blocks
    # of 32 x 2 heads x 2 sequences = 12 tiles, so four rounds, two of them mirrored when causal.
    from flashio import configs, launchers
    from flashio.kernels import backward_ws

    persistent = configs.TileConfig(64, 128, 4, 2, "ws", passes=passes, persistent=True)
    monkeypatch.setitem(configs.BACKWARD_DKDV_WS_CANDIDATES, 64, (persistent,))
    grids = record_grids(monkeypatch, backward_ws, "attention_backward_dkdv_ws_persistent_kernel")
    torch.manual_seed(13)
    q, k, v = random_qkv(2, 2, 2, 44, 70, 32, torch.bfloat16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=causal), q, k, v, causal=causal)
    assert grids == [(launchers.INTERPRETER_PERSISTENT_PROGRAMS,)] * passes
