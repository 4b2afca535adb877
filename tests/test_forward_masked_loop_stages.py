"""The portable forward's ``masked_loop_stages`` option (configs.TileConfig): its masked key blocks' loop
with its own software-pipeline depth. On sm_90a one stage there keeps ptxas from serialising the kernel's
warpgroup MMAs (tests/bench/test_resources.py); here, through the interpreter, it must compute the same
attention, and it is refused by the kernels that do not have it."""

import pytest
import torch

import flashio
from flashio import configs
from flashio.reference import attention_reference


@pytest.fixture
def masked_loop_unpipelined(monkeypatch):
    # Under the interpreter the launcher takes its fixed tiles; this gives them the option.
    monkeypatch.setattr(configs, "INTERPRETER_FORWARD", configs.TileConfig(32, 16, masked_loop_stages=1))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seqlens", [(45, 70), (70, 45)])
def test_portable_forward_with_its_masked_loop_unpipelined_matches_the_reference(masked_loop_unpipelined,
                                                                                 causal, seqlens):
    torch.manual_seed(3)
    q = torch.randn(2, 4, seqlens[0], 32, dtype=torch.float16)
    k = torch.randn(2, 2, seqlens[1], 32, dtype=torch.float16)
    v = torch.randn(2, 2, seqlens[1], 32, dtype=torch.float16)
    out, lse = flashio.attention(q, k, v, causal=causal, return_lse=True)
    ref, ref_lse = attention_reference(q, k, v, causal=causal, return_lse=True)
    # fp16 inputs, fp32 accumulation: P rounded to fp16 before P V and the output rounding, ~1e-3 at
    # magnitude ~1 (the bound of the other forward kernels' interpreter tests).
    assert (out.float() - ref.float()).abs().max().item() <= 2e-3
    finite = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse), finite)
    assert torch.allclose(lse[finite], ref_lse[finite], atol=1e-5)


def test_masked_loop_stages_is_refused_by_the_descriptor_forward(masked_loop_unpipelined, monkeypatch):
    monkeypatch.setenv("FLASHIO_FORWARD_PATH", "tma")
    q, k, v = (torch.randn(1, 2, 40, 32, dtype=torch.float16) for _ in range(3))
    with pytest.raises(ValueError, match="masked_loop_stages is an option of the portable forward"):
        flashio.attention(q, k, v)
