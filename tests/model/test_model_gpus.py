"""The GPU database, user GPU files and overrides."""

from __future__ import annotations

import json

import pytest

from flashio.model import gpus

REQUIRED_SLUGS = ["t4", "v100", "rtx3090", "a100-40gb", "a100-80gb", "rtx4090", "l4", "l40s", "h100-sxm",
                  "h100-pcie", "h200", "b200", "mi300x"]


def test_database_has_every_gpu_of_the_spec_sheet():
    assert set(REQUIRED_SLUGS) <= set(gpus.GPUS)


def test_every_gpu_has_a_source_note():
    assert all(spec.source for spec in gpus.GPUS.values())


def test_h200_figures_match_the_device():
    h200 = gpus.get_gpu("H200")
    assert (h200.sm_count, h200.l2_mib, h200.smem_per_sm_kib, h200.hbm_bandwidth_gbs) == (132, 60, 228, 4800)


def test_exp_rate_is_16_per_clock_per_sm():
    # gpu_specs.md: about 3.9 Tops/s on H100/H200 (rounded), 1.0 on T4.
    assert gpus.get_gpu("h200").exp_ops_per_s == pytest.approx(16 * 132 * 1980e6)
    assert gpus.get_gpu("t4").exp_ops_per_s / 1e12 == pytest.approx(1.0, abs=0.03)


def test_unknown_gpu_raises():
    with pytest.raises(gpus.UnknownGPUError):
        gpus.get_gpu("gtx480")


def test_override_replaces_only_named_figures():
    base = gpus.get_gpu("a100-40gb")
    new = gpus.with_overrides(base, hbm_bandwidth_gbs=1000.0, tensor_tflops=None)
    assert new.hbm_bandwidth_gbs == 1000.0 and new.tensor_tflops == base.tensor_tflops


def test_override_rejects_non_positive_figures():
    with pytest.raises(ValueError):
        gpus.with_overrides(gpus.get_gpu("t4"), sm_count=0)


def test_user_gpu_from_json_file_based_on_known(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"name": "my-a100", "based_on": "a100-80gb", "hbm_bandwidth_gbs": 2500}))
    (spec,) = gpus.load_gpu_file(path)
    assert spec.name == "my-a100" and spec.hbm_bandwidth_gbs == 2500.0 and spec.sm_count == 108


def test_user_gpu_from_toml_file_with_all_fields(tmp_path):
    fields = dict(name="toy", full_name="Toy GPU", compute_capability="8.0", hbm_bandwidth_gbs=1000,
                  memory_gb=16, sm_count=10, smem_per_sm_kib=100, smem_per_block_kib=99, l2_mib=8,
                  register_file_kib=256, tensor_tflops=100, fp32_tflops=10, boost_clock_mhz=1500)
    lines = [f"{k} = {json.dumps(v)}" for k, v in fields.items()]
    path = tmp_path / "toy.toml"
    path.write_text("\n".join(lines) + "\n")
    (spec,) = gpus.load_gpu_file(path)
    assert spec.sm_count == 10 and spec.tensor_tflops == 100.0


def test_user_gpu_file_missing_fields_is_rejected(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"name": "half"}))
    with pytest.raises(ValueError):
        gpus.load_gpu_file(path)


def test_at_clock_scales_every_clock_derived_rate_and_nothing_else():
    t4 = gpus.get_gpu("t4")
    slow = gpus.at_clock(t4, gpus.BASE_CLOCK_MHZ["t4"])
    factor = 585.0 / 1590.0
    assert slow.tensor_tflops == pytest.approx(65 * factor)
    assert slow.fp32_tflops == pytest.approx(8.1 * factor)
    assert slow.exp_ops_per_s == pytest.approx(t4.exp_ops_per_s * factor)
    assert (slow.hbm_bandwidth_gbs, slow.sm_count, slow.l2_mib) == (t4.hbm_bandwidth_gbs, t4.sm_count, t4.l2_mib)
