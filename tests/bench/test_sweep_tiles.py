"""The bench records which tuned tiles flashio used at each point (``BenchResult.tiles``), in a short form."""

from flashio.bench.sweep import describe_choice
from flashio.configs import TileConfig


def test_a_tile_choice_is_described_by_path_shape_warps_and_stages():
    assert describe_choice(TileConfig(128, 128, 4, 2, "ws")) == "ws 128x128 w4 s2"


def test_register_caps_and_two_pass_tiles_are_named():
    assert describe_choice(TileConfig(128, 64, 8, 2, max_registers=128)) == "pointer 128x64 w8 s2 r128"
    assert describe_choice(TileConfig(32, 64, 4, 2, passes=2)) == "pointer 32x64 w4 s2 2-pass"


def test_fused_backward_tiles_name_their_dq_chunks_and_buffers():
    assert describe_choice(TileConfig(64, 64, 4, 2, "gluon", dq_buffers=1)) == "gluon 64x64 w4 s2 dq1x1"


def test_warp_specialised_fused_backward_tiles_say_so():
    assert describe_choice(TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True)) == "gluon 64x128 w8 s2 dq1x2 ws"


def test_fused_backward_tiles_with_stats_in_shared_memory_say_so():
    assert describe_choice(TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, persistent=True,
                                      stats_in_shared=True)) == "gluon 64x128 w8 s2 persistent dq1x2 ws stats-smem"


def test_role_split_fused_backward_tiles_say_so():
    assert describe_choice(TileConfig(64, 64, 4, 1, "gluon", dq_chunks=4, warp_specialised=True,
                                      split_roles=True)) == "gluon 64x64 w4 s1 dq4x2 ws split"


def test_gluon_forward_tiles_have_no_dq_fields():
    assert describe_choice(TileConfig(128, 128, 4, 3, "gluon"), "forward") == "gluon 128x128 w4 s3"


def test_pipelined_gluon_forward_tiles_say_so():
    assert describe_choice(TileConfig(128, 128, 4, 3, "gluon", pipelined=True), "forward") == \
        "gluon 128x128 w4 s3 pipelined"


def test_gluon_forward_tiles_with_separate_key_and_value_slots_say_so():
    assert describe_choice(TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True), "forward") == \
        "gluon 128x64 w4 s2 pipelined split-kv"


def test_ping_pong_gluon_forward_tiles_say_so():
    assert describe_choice(TileConfig(128, 128, 4, 3, "gluon", pipelined=True, pingpong=True), "forward") == \
        "gluon 128x128 w4 s3 pipelined pingpong"


def test_other_choices_are_their_value():
    assert describe_choice("separate") == "separate"


def test_fused_backward_tiles_with_k_and_v_in_registers_say_so():
    assert describe_choice(TileConfig(64, 64, 4, 2, "gluon", dq_buffers=1, kv_in_registers=True)) == \
        "gluon 64x64 w4 s2 dq1x1 kv-regs"


def test_gluon_forward_tiles_storing_their_output_from_registers_say_so():
    assert describe_choice(TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True,
                                      output_from_registers=True), "forward") == \
        "gluon 128x128 w4 s3 persistent pipelined out-regs"


def test_gluon_forward_tiles_with_an_output_buffer_say_so():
    assert describe_choice(TileConfig(128, 128, 4, 2, "gluon", pipelined=True, split_kv=True, persistent=True,
                                      output_buffer=True), "forward") == \
        "gluon 128x128 w4 s2 persistent pipelined split-kv out-smem"


def test_the_tuners_timings_are_described_fastest_median_first(monkeypatch):
    from flashio import configs
    from flashio.bench.sweep import describe_timings

    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    monkeypatch.setenv("FLASHIO_TUNING_CACHE", "off")
    configs.clear_choices()
    slow, fast = TileConfig(64, 64, 4, 3), TileConfig(128, 128, 4, 3, "gluon", pipelined=True)
    timings = {slow: [1.0, 1.0, 1.0, 1.0], fast: [1.02, 0.9, 0.9, 0.9]}  # within the close-call margin: timed again
    key = ("forward", "test")
    configs.choose_config(key, (slow, fast), lambda config: timings[config].pop(0))
    assert describe_timings(key) == ("forward: gluon 128x128 w4 s3 pipelined 1.0200/0.9000/0.9000/0.9000 ms, "
                                     "pointer 64x64 w4 s3 1.0000/1.0000/1.0000/1.0000 ms")
    configs.clear_choices()


def test_a_choice_not_timed_in_this_process_has_no_timings_to_describe():
    from flashio.bench.sweep import describe_timings

    assert describe_timings(("forward", "never chosen")) == ""


def test_fused_backward_tiles_with_two_ds_tiles_say_so():
    assert describe_choice(TileConfig(64, 128, 8, 3, "gluon", warp_specialised=True, persistent=True,
                                      ds_buffers=2)) == "gluon 64x128 w8 s3 persistent dq1x2 ws ds2"


def test_fused_backward_tiles_with_key_rows_on_two_partitions_say_so():
    assert describe_choice(TileConfig(64, 128, 4, 2, "gluon", warp_specialised=True, persistent=True,
                                      split_rows=True)) == "gluon 64x128 w4 s2 persistent dq1x2 ws rows"


def test_role_split_tiles_with_two_do_slots_say_so():
    assert describe_choice(TileConfig(64, 64, 4, 1, "gluon", dq_chunks=4, dq_buffers=1, warp_specialised=True,
                                      split_roles=True, do_stages=2)) == "gluon 64x64 w4 s1 dq4x1 ws split do2"


def test_tiles_reading_lse_early_say_so():
    assert describe_choice(TileConfig(64, 128, 8, 3, "gluon", dq_chunks=1, dq_buffers=1, warp_specialised=True,
                                      persistent=True, stats_in_shared=True, spread_dq_stores=True, early_lse=True)) \
        == "gluon 64x128 w8 s3 persistent dq1x1 ws stats-smem spread-dq early-lse"


def test_tiles_with_spread_dq_stores_say_so():
    assert describe_choice(TileConfig(64, 64, 4, 1, "gluon", dq_chunks=4, warp_specialised=True, split_roles=True,
                                      spread_dq_stores=True)) == "gluon 64x64 w4 s1 dq4x2 ws split spread-dq"


def test_tiles_loading_through_host_made_descriptors_say_how_many():
    assert describe_choice(TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True, persistent=True,
                                      host_descriptors=3), "forward") == \
        "gluon 128x64 w4 s2 persistent pipelined split-kv host3"


def test_tiles_overlapping_their_boundaries_say_so():
    assert describe_choice(TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True,
                                      output_from_registers=True, balanced_schedule=True, dynamic_schedule=True,
                                      overlap_tiles=True), "forward") == \
        "gluon 128x128 w4 s3 persistent pipelined out-regs balanced dynamic overlap"


def test_tiles_masking_by_branch_say_so():
    assert describe_choice(TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, host_descriptors=3,
                                      mask_by_branch=True), "forward") == \
        "gluon 128x128 w4 s3 persistent pipelined host3 mask-branch"


def test_tiles_publishing_packed_coordinates_say_so():
    assert describe_choice(TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True,
                                      output_from_registers=True, balanced_schedule=True, dynamic_schedule=True,
                                      published_coordinates=True), "forward") == \
        "gluon 128x128 w4 s3 persistent pipelined out-regs balanced dynamic coords"
