"""The bench records which tuned tiles flashio used at each point (``BenchResult.tiles``), in a short form."""

from flashio.bench.sweep import describe_choice
from flashio.configs import TileConfig


def test_a_tile_choice_is_described_by_path_shape_warps_and_stages():
    assert describe_choice(TileConfig(128, 128, 4, 2, "ws")) == "ws 128x128 w4 s2"


def test_register_caps_and_two_pass_tiles_are_named():
    assert describe_choice(TileConfig(128, 64, 8, 2, max_registers=128)) == "pointer 128x64 w8 s2 r128"
    assert describe_choice(TileConfig(32, 64, 4, 2, passes=2)) == "pointer 32x64 w4 s2 2-pass"


def test_other_choices_are_their_value():
    assert describe_choice("separate") == "separate"
