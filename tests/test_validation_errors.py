"""Bad input raises TypeError/ValueError naming the argument, saying what was expected and what came;
unsupported flash-attn arguments raise NotImplementedError naming them. Nothing reaches a kernel."""

import math
import re

import pytest
import torch

import flashio
from helpers import DEVICE

F16 = torch.float16


def bhnd(batch=1, heads=2, seqlen=8, head_dim=16, dtype=F16, device=DEVICE):
    return torch.randn(batch, heads, seqlen, head_dim, device=device).to(dtype)


def qkv_bhnd(**kwargs):
    return bhnd(**kwargs), bhnd(**kwargs), bhnd(**kwargs)


def qkv_bnhd(**kwargs):
    return tuple(t.transpose(1, 2) for t in qkv_bhnd(**kwargs))


def attention_with(q=None, k=None, v=None, **kwargs):
    base = qkv_bhnd()
    q, k, v = (given if given is not None else default for given, default in zip((q, k, v), base))
    return flashio.attention(q, k, v, **kwargs)


def flash_with(**kwargs):
    return flashio.flash_attn_func(*qkv_bnhd(), **kwargs)


def cu(*values, dtype=torch.int32, device=DEVICE):
    return torch.tensor(values, dtype=dtype, device=device)


def varlen_with(total_q=10, total_k=10, cu_q=None, cu_k=None, max_q=6, max_k=6, **kwargs):
    q = torch.randn(total_q, 2, 16, device=DEVICE).to(F16)
    k = torch.randn(total_k, 2, 16, device=DEVICE).to(F16)
    cu_q = cu(0, 4, 10) if cu_q is None else cu_q
    cu_k = cu(0, 4, 10) if cu_k is None else cu_k
    return flashio.flash_attn_varlen_func(q, k, k.clone(), cu_q, cu_k, max_q, max_k, **kwargs)


def block_mask_with(mask, block_size=(16, 16), batch=2):
    q, k, v = qkv_bhnd(batch=batch, seqlen=40)
    return flashio.attention(q, k, v, block_mask=mask, block_size=block_size)


BAD_INPUT = [
    # (id, call, exception, argument named in the message)
    ("query_not_a_tensor", lambda: flashio.attention([[1.0]], *qkv_bhnd()[1:]), TypeError, "query"),
    ("key_integer_dtype", lambda: attention_with(k=bhnd().to(torch.int32)), TypeError, "key"),
    ("query_float64", lambda: flashio.attention(*qkv_bhnd(dtype=torch.float64)), TypeError, "query"),
    ("key_dtype_differs_from_query", lambda: attention_with(k=bhnd(dtype=torch.float32)), TypeError, "key"),
    ("query_rank_3", lambda: attention_with(q=bhnd()[0]), ValueError, "query"),
    ("value_shape_differs_from_key", lambda: attention_with(v=bhnd(seqlen=5)), ValueError, "value"),
    ("batch_mismatch", lambda: attention_with(k=bhnd(batch=2), v=bhnd(batch=2)), ValueError, "key"),
    ("heads_not_a_multiple", lambda: attention_with(q=bhnd(heads=3)), ValueError, "key"),
    ("head_dim_mismatch", lambda: attention_with(k=bhnd(head_dim=8), v=bhnd(head_dim=8)), ValueError, "key"),
    ("head_dim_above_256", lambda: flashio.attention(*qkv_bhnd(head_dim=264)), ValueError, "query"),
    ("device_mismatch", lambda: attention_with(k=bhnd(device="meta"), v=bhnd(device="meta")), ValueError, "key"),
    ("dropout_negative", lambda: attention_with(dropout_p=-0.1), ValueError, "dropout_p"),
    ("dropout_one", lambda: attention_with(dropout_p=1.0), ValueError, "dropout_p"),
    ("dropout_nan", lambda: attention_with(dropout_p=math.nan), ValueError, "dropout_p"),
    ("dropout_string", lambda: attention_with(dropout_p="0.1"), TypeError, "dropout_p"),
    ("softmax_scale_zero", lambda: flash_with(softmax_scale=0.0), ValueError, "softmax_scale"),
    ("softmax_scale_negative", lambda: flash_with(softmax_scale=-1.0), ValueError, "softmax_scale"),
    ("softmax_scale_inf", lambda: flash_with(softmax_scale=math.inf), ValueError, "softmax_scale"),
    ("causal_not_bool", lambda: flash_with(causal="yes"), TypeError, "causal"),
    ("is_causal_not_bool", lambda: attention_with(is_causal=1), TypeError, "is_causal"),
    ("deterministic_not_bool", lambda: flash_with(deterministic="yes"), TypeError, "deterministic"),
    ("enable_gqa_not_bool", lambda: attention_with(enable_gqa=None), TypeError, "enable_gqa"),
    # Packed functions
    ("qkv_wrong_shape", lambda: flashio.flash_attn_qkvpacked_func(torch.randn(1, 8, 2, 2, 16).to(F16)),
     ValueError, "qkv"),
    ("kv_wrong_shape", lambda: flashio.flash_attn_kvpacked_func(qkv_bnhd()[0], torch.randn(1, 8, 3, 2, 16).to(F16)),
     ValueError, "kv"),
    ("varlen_qkv_wrong_rank", lambda: flashio.flash_attn_varlen_qkvpacked_func(
        torch.randn(1, 10, 3, 2, 16).to(F16), cu(0, 4, 10), 6), ValueError, "qkv"),
    ("varlen_query_rank_4", lambda: flashio.flash_attn_varlen_func(
        *qkv_bnhd(), cu(0, 8), cu(0, 8), 8, 8), ValueError, "q"),
    # Packed variable-length batches
    ("cu_seqlens_not_a_tensor", lambda: varlen_with(cu_q=[0, 4, 10]), TypeError, "cu_seqlens_q"),
    ("cu_seqlens_int64", lambda: varlen_with(cu_q=cu(0, 4, 10, dtype=torch.int64)), TypeError, "cu_seqlens_q"),
    ("cu_seqlens_2d", lambda: varlen_with(cu_k=cu(0, 4, 10)[None]), ValueError, "cu_seqlens_k"),
    ("cu_seqlens_not_starting_at_0", lambda: varlen_with(cu_q=cu(1, 4, 10)), ValueError, "cu_seqlens_q"),
    ("cu_seqlens_decreasing", lambda: varlen_with(cu_q=cu(0, 6, 4, 10), max_q=10), ValueError, "cu_seqlens_q"),
    ("cu_seqlens_not_ending_at_total", lambda: varlen_with(cu_k=cu(0, 4, 9)), ValueError, "cu_seqlens_k"),
    ("cu_seqlens_k_wrong_length", lambda: varlen_with(cu_k=cu(0, 2, 4, 10)), ValueError, "cu_seqlens_k"),
    ("cu_seqlens_other_device", lambda: varlen_with(cu_q=cu(0, 4, 10, device="meta")), ValueError, "cu_seqlens_q"),
    ("max_seqlen_below_longest", lambda: varlen_with(max_q=5), ValueError, "max_seqlen_q"),
    ("max_seqlen_not_int", lambda: varlen_with(max_k=6.0), TypeError, "max_seqlen_k"),
    # Block-sparse masks (batch 2, 2 heads, 40 x 40, 16 x 16 blocks: 3 x 3 blocks)
    ("block_mask_not_a_tensor", lambda: block_mask_with([[1]]), TypeError, "block_mask"),
    ("block_mask_float", lambda: block_mask_with(torch.ones(1, 1, 3, 3, device=DEVICE)), TypeError, "block_mask"),
    ("block_mask_rank_3", lambda: block_mask_with(torch.ones(1, 3, 3, dtype=torch.bool, device=DEVICE)),
     ValueError, "block_mask"),
    ("block_mask_wrong_blocks", lambda: block_mask_with(torch.ones(1, 1, 3, 2, dtype=torch.bool, device=DEVICE)),
     ValueError, "block_mask"),
    ("block_mask_wrong_batch", lambda: block_mask_with(torch.ones(3, 1, 3, 3, dtype=torch.bool, device=DEVICE)),
     ValueError, "block_mask"),
    ("block_mask_other_device", lambda: block_mask_with(torch.ones(1, 1, 3, 3, dtype=torch.bool, device="meta")),
     ValueError, "block_mask"),
    ("block_size_not_allowed", lambda: block_mask_with(torch.ones(1, 1, 1, 1, dtype=torch.bool, device=DEVICE),
                                                       block_size=(48, 64)), ValueError, "block_size"),
    ("block_size_three_values", lambda: block_mask_with(torch.ones(1, 1, 3, 3, dtype=torch.bool, device=DEVICE),
                                                        block_size=(16, 16, 16)), ValueError, "block_size"),
]


@pytest.mark.parametrize("call,exception,argument", [case[1:] for case in BAD_INPUT],
                         ids=[case[0] for case in BAD_INPUT])
def test_bad_input_raises_an_error_naming_the_argument(call, exception, argument):
    with pytest.raises(exception, match=rf"^{re.escape(argument)}\b") as info:
        call()
    message = str(info.value)
    assert "expected" in message and "got" in message, f"the message should say what was expected and got: {message}"


@pytest.mark.parametrize("scale", [0.0, -1.0])
def test_attention_scale_error_names_scale(scale):
    with pytest.raises(ValueError, match=r"^scale\b"):
        attention_with(scale=scale)


def test_block_size_that_is_not_a_pair_raises_an_error_naming_block_size():
    with pytest.raises((TypeError, ValueError), match="block_size"):
        block_mask_with(torch.ones(1, 1, 3, 3, dtype=torch.bool, device=DEVICE), block_size=16)


def test_attention_causal_keyword_that_is_not_a_bool_raises_an_error_naming_causal():
    with pytest.raises(TypeError, match=r"^causal\b"):
        attention_with(causal="no")


def test_cpu_tensors_without_the_interpreter_are_rejected(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(ValueError, match=r"^query\b.*TRITON_INTERPRET"):
        flashio.attention(*qkv_bhnd(device="cpu"))


def test_dense_attn_mask_is_not_implemented():
    with pytest.raises(NotImplementedError, match="attn_mask"):
        attention_with(attn_mask=torch.ones(8, 8, dtype=torch.bool))


UNSUPPORTED = [
    ("window_size", dict(window_size=(4, 4))),
    ("softcap", dict(softcap=30.0)),
    ("alibi_slopes", dict(alibi_slopes=torch.ones(2))),
]
FLASH_FUNCTIONS = {
    "flash_attn_func": lambda **kw: flashio.flash_attn_func(*qkv_bnhd(), **kw),
    "flash_attn_qkvpacked_func": lambda **kw: flashio.flash_attn_qkvpacked_func(
        torch.randn(1, 8, 3, 2, 16).to(F16), **kw),
    "flash_attn_kvpacked_func": lambda **kw: flashio.flash_attn_kvpacked_func(
        qkv_bnhd()[0], torch.randn(1, 8, 2, 2, 16).to(F16), **kw),
    "flash_attn_varlen_func": lambda **kw: varlen_with(**kw),
    "flash_attn_varlen_qkvpacked_func": lambda **kw: flashio.flash_attn_varlen_qkvpacked_func(
        torch.randn(10, 3, 2, 16).to(F16), cu(0, 4, 10), 6, **kw),
    "flash_attn_varlen_kvpacked_func": lambda **kw: flashio.flash_attn_varlen_kvpacked_func(
        torch.randn(10, 2, 16).to(F16), torch.randn(10, 2, 2, 16).to(F16), cu(0, 4, 10), cu(0, 4, 10), 6, 6, **kw),
}


@pytest.mark.parametrize("argument,kwargs", UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED])
@pytest.mark.parametrize("function", sorted(FLASH_FUNCTIONS))
def test_unsupported_flash_attn_arguments_raise_not_implemented_naming_them(function, argument, kwargs):
    with pytest.raises(NotImplementedError, match=argument):
        FLASH_FUNCTIONS[function](**kwargs)


def test_paged_kv_block_table_is_not_implemented():
    with pytest.raises(NotImplementedError, match="block_table"):
        varlen_with(block_table=torch.zeros(2, 1, dtype=torch.int32))


def test_supported_defaults_of_unsupported_arguments_are_accepted():
    out = flash_with(window_size=(-1, -1), softcap=0.0, alibi_slopes=None)
    assert out.shape == (1, 8, 2, 16)
