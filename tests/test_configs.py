"""Tile configurations as data and the cached tuner (flashio.configs): the launch options a configuration
hands to Triton, the candidate lists' invariants, and the choice being timed once per key."""

import pytest

from flashio import configs
from flashio.configs import TileConfig


def test_launch_options_carry_warps_and_stages_and_no_register_cap_by_default():
    assert TileConfig(128, 64, 8, 3).launch_options() == {"num_warps": 8, "num_stages": 3}


def test_launch_options_hand_a_register_cap_to_the_compiler_as_maxnreg():
    options = TileConfig(128, 64, 8, 2, max_registers=128).launch_options()
    assert options == {"num_warps": 8, "num_stages": 2, "maxnreg": 128}


@pytest.mark.parametrize("table", [configs.FORWARD_CANDIDATES, configs.FORWARD_TMA_CANDIDATES,
                                   configs.BACKWARD_DKDV_CANDIDATES, configs.BACKWARD_DQ_CANDIDATES,
                                   configs.BACKWARD_DKDV_TMA_CANDIDATES, configs.BACKWARD_DQ_TMA_CANDIDATES])
def test_every_head_dim_bucket_has_power_of_two_tiles_without_duplicates(table):
    assert set(table) == {64, 128, 256}
    for candidates in table.values():
        assert len(set(candidates)) == len(candidates)
        for config in candidates:
            for side in (config.block_m, config.block_n):
                assert side >= 16 and side & (side - 1) == 0


def test_a_choice_is_timed_once_per_key_and_then_cached(monkeypatch):
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    configs.clear_choices()
    timed = []

    def time_config(option):
        timed.append(option)
        return {"slow": 2.0, "fast": 1.0}[option]

    assert configs.choose_config(("test-key",), ("slow", "fast"), time_config) == "fast"
    assert configs.choose_config(("test-key",), ("slow", "fast"), time_config) == "fast"
    assert timed == ["slow", "fast"]
    configs.clear_choices()


def test_a_configuration_that_fits_nowhere_is_an_error_naming_the_key(monkeypatch):
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    configs.clear_choices()
    with pytest.raises(RuntimeError, match="no-fit-key"):
        configs.choose_config(("no-fit-key",), ("a", "b"), lambda option: float("inf"))
    configs.clear_choices()
