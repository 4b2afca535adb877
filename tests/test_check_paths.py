"""The GPU check (python -m flashio.check) re-runs its correctness cases with each non-default kernel path
forced. Its forcing must reach the launchers and leave nothing behind: checked here on the CPU, where the
interpreter runs the same launchers."""

import os

import pytest
import torch

import flashio
from flashio import check, configs
from helpers import record_grids


def test_every_forced_path_names_real_candidate_lists_for_every_head_dim_bucket_they_have():
    # (The warp-specialised dQ kernel has no d=256 bucket: it does not fit shared memory there.)
    for name, (environment, candidate_lists) in check.forced_paths().items():
        assert environment or candidate_lists, name
        for list_name, replacement in candidate_lists.items():
            assert hasattr(configs, list_name), (name, list_name)
            assert set(replacement) == set(getattr(configs, list_name)), (name, list_name)


def test_forcing_restores_environment_and_candidate_lists(monkeypatch):
    monkeypatch.delenv("FLASHIO_BACKWARD_PATH", raising=False)
    original = configs.BACKWARD_DKDV_CANDIDATES
    replacement = {64: (configs.TileConfig(64, 64, 4, 3, passes=2),)}
    with check.forcing({"FLASHIO_BACKWARD_PATH": "tma"}, {"BACKWARD_DKDV_CANDIDATES": replacement}):
        assert os.environ["FLASHIO_BACKWARD_PATH"] == "tma"
        assert configs.BACKWARD_DKDV_CANDIDATES is replacement
    assert "FLASHIO_BACKWARD_PATH" not in os.environ
    assert configs.BACKWARD_DKDV_CANDIDATES is original


def test_a_forced_path_reaches_the_launchers(monkeypatch):
    # Forcing the tensor-descriptor backward must change which kernel runs: replace that kernel by one
    # that refuses to launch, and see the refusal only while the path is forced.
    from flashio.kernels import backward_tma

    class Refused(Exception):
        pass

    class RefusingKernel:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                raise Refused
            return launch

    monkeypatch.setattr(backward_tma, "attention_backward_dkdv_tma_kernel", RefusingKernel())
    q, k, v = (torch.randn(1, 2, 32, 16, dtype=torch.float16, requires_grad=True) for _ in range(3))
    # A dense upstream gradient: out.sum()'s would be an expanded (stride 0) tensor, which the
    # tensor-descriptor path does not take.
    dout = torch.randn(1, 2, 32, 16, dtype=torch.float16)
    with check.forcing({"FLASHIO_BACKWARD_PATH": "tma"}, {}):
        with pytest.raises(Refused):
            flashio.attention(q, k, v).backward(dout)
    flashio.attention(q, k, v).backward(dout)  # restored: the portable kernels run again
    assert q.grad is not None and torch.isfinite(q.grad).all()


@pytest.mark.parametrize("variable,expected", [
    ("FLASHIO_FORWARD_PATH", "'pointer' or 'tma' or 'ws' or 'gluon'"),
    ("FLASHIO_BACKWARD_PATH", "'pointer' or 'tma' or 'ws' or 'gluon'")])
def test_a_forced_path_must_name_a_kernel_of_that_pass(monkeypatch, variable, expected):
    monkeypatch.setenv(variable, "warp")
    q, k, v = (torch.randn(1, 2, 16, 32, dtype=torch.float16, requires_grad=True) for _ in range(3))
    dout = torch.randn(1, 2, 16, 32, dtype=torch.float16)
    with pytest.raises(ValueError, match=f"{variable} must be {expected}, got 'warp'"):
        flashio.attention(q, k, v).backward(dout)


def test_forcing_ws_runs_the_warp_specialised_forward(monkeypatch):
    # Record the launch: a silent fallback to another kernel would leave the forced-path tests checking
    # nothing new.
    from flashio.kernels import forward_ws

    launched = record_grids(monkeypatch, forward_ws, "attention_forward_ws_kernel")
    monkeypatch.setenv("FLASHIO_FORWARD_PATH", "ws")
    q = torch.randn(1, 2, 40, 32, dtype=torch.bfloat16)
    flashio.attention(q, q, q, is_causal=True)
    assert len(launched) == 1


def test_a_persistent_ws_candidate_runs_the_persistent_kernel_on_a_grid_of_few_programs(monkeypatch):
    from flashio import configs, launchers
    from flashio.kernels import forward_ws

    launched = record_grids(monkeypatch, forward_ws, "attention_forward_ws_persistent_kernel")
    persistent = configs.TileConfig(128, 128, 4, 2, "ws", persistent=True)
    monkeypatch.setattr(configs, "FORWARD_WS_CANDIDATES", {64: (persistent,), 128: (persistent,), 256: (persistent,)})
    monkeypatch.setenv("FLASHIO_FORWARD_PATH", "ws")
    q = torch.randn(2, 2, 40, 32, dtype=torch.bfloat16)  # 2 query tiles of 32 rows x 2 heads x 2 sequences
    flashio.attention(q, q, q, is_causal=True)
    assert launched == [(launchers.INTERPRETER_PERSISTENT_PROGRAMS,)]


def test_every_forced_fused_backward_form_is_one_the_launcher_accepts():
    # A forced path whose configuration the launcher refuses would fail only on the GPU, after device time is
    # spent compiling the rest; every fused-backward form a path forces is checked here (d=256 buckets are the
    # role-split kernel's, whose launch takes any head dim up to 256).
    from flashio import launchers

    for name, (_, candidate_lists) in check.forced_paths().items():
        for head_dim, candidates in candidate_lists.get("BACKWARD_FUSED_CANDIDATES", {}).items():
            for config in candidates:
                kernel, constants = launchers.fused_backward_kernel(config, head_dim)
                assert constants["BLOCK_M"] == config.block_m, (name, head_dim, config)


def test_every_fused_backward_probe_form_is_one_the_launcher_accepts():
    # The same for benchmarks/experiments/fused_backward_persistent/probe.py, whose forms are timed on the GPU.
    import importlib.util
    from pathlib import Path

    from flashio import launchers

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "experiments" / "fused_backward_persistent" / "probe.py"
    spec = importlib.util.spec_from_file_location("fused_backward_persistent_probe", path)
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    for head_dim, forms in probe.FORMS.items():
        for name, config in forms.items():
            kernel, constants = launchers.fused_backward_kernel(config, head_dim)
            assert constants["BLOCK_M"] == config.block_m, (name, head_dim)
