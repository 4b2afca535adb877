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


def test_the_case_watchdog_names_the_case_when_its_body_overruns():
    import threading

    fired = threading.Event()
    messages = []

    def on_expire(message):
        messages.append(message)
        fired.set()

    with check.CaseWatchdog(0.05, "d256 causal 1k bf16 on forced path 'x'", on_expire):
        assert fired.wait(5.0)  # a body that never returns in time: the timer fires while it still runs
    assert len(messages) == 1
    assert "HANG" in messages[0] and "d256 causal 1k bf16 on forced path 'x'" in messages[0]
    assert "0.05 s" in messages[0]


def test_the_case_watchdog_stays_quiet_when_the_case_finishes_in_time():
    import time

    messages = []
    with check.CaseWatchdog(0.2, "quick case", messages.append):
        pass
    time.sleep(0.4)  # past the limit: a cancelled timer must not fire afterwards
    assert messages == []


def test_a_zero_case_timeout_starts_no_watchdog():
    with check.CaseWatchdog(0, "any case", lambda message: None) as watchdog:
        assert watchdog.timer is None


@pytest.mark.parametrize("value", ["-5", "nan"])
def test_a_case_timeout_below_zero_or_not_a_number_is_refused_naming_the_option(value, capsys):
    with pytest.raises(SystemExit) as stopped:
        check.main(["--case-timeout", value])
    assert stopped.value.code == 2
    assert f"--case-timeout: expected seconds >= 0 (0: no limit); got {value}" in capsys.readouterr().err


def test_path_selection_keeps_the_paths_naming_a_text_in_their_order():
    names = ["forward: a", "backward: b", "forward: c", "backward: d"]
    assert check.select_paths(names) == names
    assert check.select_paths(names, ["backward"]) == ["backward: b", "backward: d"]
    assert check.select_paths(names, [": a", ": d"]) == ["forward: a", "backward: d"]


def test_path_shards_cover_every_selected_path_exactly_once():
    names = [name for name in check.forced_paths()]
    shards = [check.select_paths(names, None, (k, 3)) for k in (1, 2, 3)]
    assert sorted(sum(shards, [])) == sorted(names)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
    assert check.select_paths(names, ["backward"], (2, 2)) == check.select_paths(names, ["backward"])[1::2]


@pytest.mark.parametrize("text, message", [
    ("3", "expected K/N with whole numbers"), ("a/b", "expected K/N with whole numbers"),
    ("0/3", "expected 1 <= K <= N"), ("4/3", "expected 1 <= K <= N"),
])
def test_a_bad_path_shard_is_refused_naming_the_option(text, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        check.main(["--path-shard", text])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "--path-shard" in error and message in error and repr(text) in error


def test_every_path_with_extra_cases_is_a_forced_path_and_its_cases_are_not_path_cases_already():
    paths = check.forced_paths()
    for name, cases in check.PATH_EXTRA_CASES.items():
        assert name in paths, name
        assert cases and not {case.name for case in cases} & {case.name for case in check.PATH_CASES}, name


def test_the_split_tail_forward_path_runs_a_d256_shape_whose_round_robin_leaves_a_partial_round():
    # d=256's persistent form: 128-row tiles; the grid's 1k shape has 16 x 8 x 8 = 1024 of them on the H200's 132
    # programs (7.76 rounds), so its split tail has pieces to merge; none of PATH_CASES has a non-causal d=256 shape.
    (case,) = check.PATH_EXTRA_CASES[check.SPLIT_TAIL_FORWARD_PATH]
    assert (case.head_dim, case.causal) == (256, False)
    tiles = -(-case.seqlen_q // 128) * case.heads * case.batch
    assert tiles % 132 != 0


def test_the_host_descriptor_path_adds_non_causal_d256_shapes_with_rows_past_the_boxes():
    # v0.44: the role-split backward through host descriptors; PATH_CASES' d=256 shapes are all causal.
    cases = check.PATH_EXTRA_CASES[check.HOST_DESCRIPTORS_PATH]
    assert check.PATH_EXTRA_CASES[check.KV_HOST_DESCRIPTORS_PATH] == cases
    assert all(case.head_dim == 256 for case in cases)
    heads_first = [case for case in cases if case.layout == "bhnd"]
    assert heads_first and not any(case.causal for case in heads_first)
    assert any(case.kv_heads < case.heads and case.seqlen_q % 64 and case.seqlen_k % 64 for case in heads_first)


def test_the_host_descriptor_paths_add_flash_attn_layout_cases_of_both_masks():
    # v0.45: (B, N, H, D) inputs take the host descriptors too; their cases cover both masks, grouped heads and
    # lengths off the 64-row boxes.
    for path in (check.HOST_DESCRIPTORS_PATH, check.KV_HOST_DESCRIPTORS_PATH):
        cases = [case for case in check.PATH_EXTRA_CASES[path] if case.layout == "bnhd"]
        assert {case.causal for case in cases} == {False, True}
        assert any(case.kv_heads < case.heads and case.seqlen_q % 64 for case in cases)


def test_a_flash_attn_layout_case_passes_views_with_the_head_stride_below_the_row_stride(monkeypatch):
    # The case's tensors reach the library as (B, H, N, D) views of (B, N, H, D) memory.
    seen = []

    def record(query, key, value, **kwargs):
        seen.extend(t.stride() for t in (query, key, value))
        return flashio.attention_reference(query, key, value, causal=kwargs.get("causal", False))

    monkeypatch.setattr(flashio, "attention", record)
    case = check.CorrectnessCase("tiny (B, N, H, D)", 1, 2, 2, 16, 16, 16, dtype=torch.float32, layout="bnhd")
    check.run_correctness_case(case, device="cpu")
    assert seen and all(head < row for _, head, row, _ in seen)


def test_case_head_dims_keep_only_those_cases_on_the_default_and_forced_paths(monkeypatch):
    # A device call checking a path forced for d=256's kernels runs its d=256 cases only.
    from types import SimpleNamespace

    ran = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_properties",
                        lambda index: SimpleNamespace(name="stand-in", multi_processor_count=132))
    monkeypatch.setattr(check, "run_correctness_case",
                        lambda case: ran.append(case) or {"ok": True, "details": [], "case": case.name})
    assert check.main(["--skip-timing", "--case-timeout", "0", "--paths",
                       check.D256_OUTPUT_FROM_REGISTERS_CLAIMS_PATH, "--case-head-dims", "256"]) == 0
    expected_path_cases = [case for case in check.PATH_CASES + check.PATH_EXTRA_CASES[
        check.D256_OUTPUT_FROM_REGISTERS_CLAIMS_PATH] if case.head_dim == 256]
    default_cases = [case for case in check.CORRECTNESS_CASES if case.head_dim == 256]
    assert ran == default_cases + expected_path_cases
    assert len(expected_path_cases) >= 3
