"""``flashio gpus``, ``flashio predict``, ``flashio io``, ``flashio explain`` and their errors."""

from __future__ import annotations

import json

import pytest

from flashio.model.cli import main

PREDICT_KEYS = {"gpu", "kernel", "pass", "standard_ms", "flash_ms", "speedup", "standard_hbm_bytes",
                "flash_hbm_bytes", "standard_flops", "flash_flops"}


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _exit_code(argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    return info.value.code


def test_gpus_json_lists_objects_with_name(capsys):
    data = _json(capsys, ["gpus", "--json"])
    assert {"t4", "h200", "mi300x"} <= {g["name"] for g in data}
    assert all("hbm_bandwidth_gbs" in g for g in data)


def test_gpus_override_changes_the_listed_figure(capsys):
    (gpu,) = _json(capsys, ["gpus", "--json", "--gpu", "a100-40gb", "--bandwidth-gbs", "1000"])
    assert gpu["hbm_bandwidth_gbs"] == 1000.0


def test_predict_json_has_required_keys(capsys):
    data = _json(capsys, ["predict", "--gpu", "h200", "--batch", "4", "--heads", "16", "--seqlen", "1024",
                          "--head-dim", "64", "--causal", "--json"])
    assert PREDICT_KEYS <= set(data)
    assert data["kernel"] == "flashio" and data["speedup"] == pytest.approx(data["standard_ms"] / data["flash_ms"])


def test_predict_reads_a_user_gpu_file(capsys, tmp_path):
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps({"name": "half-h200", "based_on": "h200", "hbm_bandwidth_gbs": 2400}))
    data = _json(capsys, ["predict", "--gpu", "half-h200", "--gpu-file", str(path), "--batch", "1", "--heads", "8",
                          "--seqlen", "512", "--head-dim", "64", "--json", "--pass", "fwd", "--kernel", "fa2"])
    assert data["gpu"] == "half-h200"


def test_io_simulate_json_counts_agree(capsys):
    data = _json(capsys, ["io", "--seqlen", "128", "--head-dim", "32", "--sram-bytes", "8192", "--kernel", "fa2",
                          "--simulate", "--json", "--causal"])
    assert data["analytic_reads"] == data["simulated_reads"]
    assert data["analytic_writes"] == data["simulated_writes"]
    assert data["max_abs_error"] < 2e-5  # fp32 vs float64 reference, see test_model_simulator


def test_io_bytes_flag_doubles_two_byte_counts(capsys):
    args = ["io", "--seqlen", "256", "--head-dim", "64", "--sram-bytes", "65536", "--kernel", "standard", "--json"]
    elements = _json(capsys, args)
    as_bytes = _json(capsys, args + ["--bytes"])
    assert as_bytes["analytic_reads"] == 2 * elements["analytic_reads"]


def test_explain_states_the_three_claims(capsys):
    data = _json(capsys, ["explain", "--gpu", "t4", "--compare", "a100-40gb", "--batch", "12", "--heads", "12",
                          "--seqlen", "1024", "--head-dim", "64", "--kernel", "fa1", "--json"])
    assert set(data["claims"]) == {"lower_bandwidth_larger_speedup", "larger_sram_larger_speedup",
                                   "flops_matter_little"}
    assert set(data["swaps"]) == {"bandwidth", "sram", "l2", "compute"}


@pytest.mark.parametrize("argv", [
    ["predict", "--gpu", "gtx480", "--batch", "1", "--heads", "1", "--seqlen", "128", "--head-dim", "64"],
    ["predict", "--gpu", "h200", "--batch", "0", "--heads", "1", "--seqlen", "128", "--head-dim", "64"],
    ["predict", "--gpu", "h200", "--batch", "1", "--heads", "1", "--seqlen", "-5", "--head-dim", "64"],
    ["io", "--seqlen", "128", "--head-dim", "64", "--sram-bytes", "100"],
    ["io", "--seqlen", "0", "--head-dim", "64", "--sram-bytes", "65536"],
    ["gpus", "--gpu", "nope"],
    ["predict", "--gpu", "h200", "--batch", "1", "--heads", "1", "--seqlen", "128", "--head-dim", "64",
     "--bandwidth-gbs", "0"],
])
def test_bad_arguments_exit_with_code_2(argv, capsys):
    assert _exit_code(argv) == 2
    assert capsys.readouterr().err.strip()
