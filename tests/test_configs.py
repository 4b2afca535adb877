"""Tile configurations as data and the cached tuner (flashio.configs): the launch options a configuration
hands to Triton, the candidate lists' invariants, the choice being timed once per key, and the file that
keeps choices across processes."""

import pytest

from flashio import configs
from flashio.configs import TileConfig


@pytest.fixture
def autotuned(monkeypatch):
    """Autotuning on and no cached choice before or after the test."""
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    configs.clear_choices()
    yield
    configs.clear_choices()


def test_launch_options_carry_warps_and_stages_and_no_register_cap_by_default():
    assert TileConfig(128, 64, 8, 3).launch_options() == {"num_warps": 8, "num_stages": 3}


def test_launch_options_hand_a_register_cap_to_the_compiler_as_maxnreg():
    options = TileConfig(128, 64, 8, 2, max_registers=128).launch_options()
    assert options == {"num_warps": 8, "num_stages": 2, "maxnreg": 128}


@pytest.mark.parametrize("table", [configs.FORWARD_CANDIDATES, configs.FORWARD_TMA_CANDIDATES,
                                   configs.FORWARD_WS_CANDIDATES, configs.BACKWARD_DKDV_WS_CANDIDATES,
                                   configs.BACKWARD_DKDV_CANDIDATES, configs.BACKWARD_DQ_CANDIDATES,
                                   configs.BACKWARD_DKDV_TMA_CANDIDATES, configs.BACKWARD_DQ_TMA_CANDIDATES])
def test_every_head_dim_bucket_has_power_of_two_tiles_without_duplicates(table):
    assert set(table) == {64, 128, 256}
    for candidates in table.values():
        assert candidates  # a forced path takes its bucket's first candidate
        assert len(set(candidates)) == len(candidates)
        for config in candidates:
            for side in (config.block_m, config.block_n):
                assert side >= 16 and side & (side - 1) == 0


def test_a_choice_is_timed_once_per_key_and_then_cached(autotuned):
    timed = []

    def time_config(option):
        timed.append(option)
        return {"slow": 1.2, "fast": 1.0}[option]  # "slow" inside SLOW_WINDOW: timed once

    assert configs.choose_config(("test-key",), ("slow", "fast"), time_config) == "fast"
    assert configs.choose_config(("test-key",), ("slow", "fast"), time_config) == "fast"
    assert timed == ["slow", "fast"]


def test_the_warm_up_runs_once_after_the_compiles_and_before_the_first_timing(autotuned):
    events = []

    def time_config(option):
        events.append(("timed", option))
        return {"slow": 1.2, "fast": 1.0}[option]

    chosen = configs.choose_config(("warm-key",), ("slow", "fast"), time_config,
                                   prepare=lambda options: events.append(("compiled", tuple(options))),
                                   warm_up=lambda options: events.append(("warmed", tuple(options))))
    assert chosen == "fast"
    assert events == [("compiled", ("slow", "fast")), ("warmed", ("slow", "fast")), ("timed", "slow"),
                      ("timed", "fast")]


def test_no_warm_up_runs_for_a_cached_choice_or_a_single_candidate(autotuned):
    warmed = []
    configs.choose_config(("cached",), ("slow", "fast"), {"slow": 1.2, "fast": 1.0}.__getitem__,
                          warm_up=warmed.append)
    assert len(warmed) == 1
    configs.choose_config(("cached",), ("slow", "fast"), lambda option: pytest.fail("timed again"),
                          warm_up=warmed.append)
    configs.choose_config(("single",), ("only",), lambda option: pytest.fail("a single candidate is not timed"),
                          warm_up=warmed.append)
    assert len(warmed) == 1


def test_a_configuration_that_fits_nowhere_is_an_error_naming_the_key(autotuned):
    with pytest.raises(RuntimeError, match="no-fit-key"):
        configs.choose_config(("no-fit-key",), ("a", "b"), lambda option: float("inf"))


def _count_timings(record):
    def time_config(option):
        record.append(option)
        # "slow" 20% behind "fast" and 26% behind "new": past NEAR_MISS, inside SLOW_WINDOW, so each is timed once
        return {"slow": 1.2, "fast": 1.0, "new": 0.95}[option]
    return time_config


@pytest.fixture
def tuning_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    monkeypatch.setenv("FLASHIO_TUNING_CACHE", str(tmp_path))
    configs.clear_choices()
    yield tmp_path
    configs.clear_choices()


def test_a_timed_choice_is_reused_by_a_later_process_without_timing(tuning_cache):
    first = []
    assert configs.choose_config(("k", 1), ("slow", "fast"), _count_timings(first)) == "fast"
    configs.clear_choices()  # what a new process starts with
    second = []
    assert configs.choose_config(("k", 1), ("slow", "fast"), _count_timings(second)) == "fast"
    assert first == ["slow", "fast"] and second == []


def test_tile_configurations_survive_the_round_trip_through_the_file(tuning_cache):
    tiles = (TileConfig(64, 64, 4, 3), TileConfig(128, 64, 8, 2, "tma", 128), TileConfig(64, 64, 8, 2, passes=2))
    timings = {tiles[0]: 3.0, tiles[1]: 1.0, tiles[2]: 2.0}
    assert configs.choose_config(("tiles",), tiles, timings.__getitem__) == tiles[1]
    configs.clear_choices()
    assert configs.choose_config(("tiles",), tiles, lambda option: pytest.fail("timed again")) == tiles[1]


def test_a_remembered_choice_that_is_no_longer_a_candidate_is_timed_again(tuning_cache):
    configs.choose_config(("k", 2), ("slow", "fast"), _count_timings([]))
    configs.clear_choices()
    timed = []
    assert configs.choose_config(("k", 2), ("slow", "new"), _count_timings(timed)) == "new"
    assert timed == ["slow", "new"]


def test_an_unreadable_cache_file_is_ignored_and_replaced(tuning_cache):
    path = configs.tuning_cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ not json")
    timed = []
    assert configs.choose_config(("k", 3), ("slow", "fast"), _count_timings(timed)) == "fast"
    assert timed == ["slow", "fast"]
    assert "('k', 3)" in path.read_text()


def test_the_cache_file_is_named_after_the_code_so_new_kernels_start_afresh(tuning_cache):
    path = configs.tuning_cache_path()
    assert path.parent == tuning_cache and path.name.startswith("tuned-") and path.suffix == ".json"
    assert len(path.stem) == len("tuned-") + 16


def test_no_file_is_written_when_the_cache_is_off(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    monkeypatch.setenv("FLASHIO_TUNING_CACHE", "off")
    monkeypatch.setenv("HOME", str(tmp_path))
    configs.clear_choices()
    assert configs.tuning_cache_path() is None
    configs.choose_config(("k", 4), ("slow", "fast"), _count_timings([]))
    configs.clear_choices()
    assert list(tmp_path.iterdir()) == []


def _timings_in_turn(record, sequences):
    """A timer that returns each option's timings in order, recording the order of the calls."""
    remaining = {option: list(times) for option, times in sequences.items()}

    def time_config(option):
        record.append(option)
        return remaining[option].pop(0)
    return time_config


def test_candidates_within_the_close_call_margin_are_timed_again_alternately_and_compared_by_median(autotuned):
    timed = []
    # "a" wins the first timing by 5% (inside the 8% margin), "b" the three re-timings by 5%: the medians
    # (1.00 vs 0.95) pick "b"; "c", 26% behind (past the margin, inside SLOW_WINDOW), is not timed again.
    timer = _timings_in_turn(timed, {"a": [0.95, 1.00, 1.00, 1.00], "b": [1.00, 0.95, 0.95, 0.95], "c": [1.2]})
    assert configs.choose_config(("close-call",), ("a", "b", "c"), timer) == "b"
    assert timed == ["a", "b", "c"] + ["a", "b"] * configs.REMATCH_ROUNDS


def test_the_rematch_compares_its_own_timings_and_leaves_the_first_timings_out(autotuned):
    timed = []
    # v0.43: the first timings were taken at another moment for each candidate, on a clock that moves (the first
    # candidates timed ran 3-10% faster). "a"'s first timing is 6% ahead of "b"'s; in the rematch, timed
    # alternately, "b" leads 0.97 to 1.00. With the first timings counted the medians would be 0.96 and 0.97 ("a").
    timer = _timings_in_turn(timed, {"a": [0.85, 1.00, 0.96, 1.00], "b": [0.90, 0.97, 0.97, 0.97]})
    assert configs.choose_config(("rematch-only",), ("a", "b"), timer) == "b"


def test_with_an_alternating_timer_the_rematch_times_the_leaders_together_in_each_round(autotuned):
    timed, rounds = [], []
    # "a" and "b" close on their first timings, "c" far behind: each round times "a" and "b" in one turn (the
    # launchers' shuffled call-by-call timing), never alone; "b" leads in every round.
    timer = _timings_in_turn(timed, {"a": [1.00], "b": [1.02], "c": [1.2]})

    def time_alternately(options):
        rounds.append(tuple(options))
        return [{"a": 1.00, "b": 0.97}[option] for option in options]

    assert configs.choose_config(("alternating",), ("a", "b", "c"), timer, time_alternately=time_alternately) == "b"
    assert timed == ["a", "b", "c"]
    assert rounds == [("a", "b")] * configs.REMATCH_ROUNDS
    assert configs.tuning_timings(("alternating",)) == (("a", (1.00,) + (1.00,) * configs.REMATCH_ROUNDS),
                                                         ("b", (1.02,) + (0.97,) * configs.REMATCH_ROUNDS),
                                                         ("c", (1.2,)))


def test_at_most_four_close_candidates_are_timed_again(autotuned):
    timed = []
    # Five candidates within 4% of each other: the four fastest first timings are re-timed, "e" is not.
    timer = _timings_in_turn(timed, {"a": [1.00, 1.00, 1.00, 1.00], "b": [1.01, 0.90, 0.90, 0.90],
                                     "c": [1.02, 1.0, 1.0, 1.0], "d": [1.03, 1.0, 1.0, 1.0], "e": [1.04]})
    assert configs.choose_config(("five-close",), ("a", "b", "c", "d", "e"), timer) == "b"
    assert timed == ["a", "b", "c", "d", "e"] + ["a", "b", "c", "d"] * configs.REMATCH_ROUNDS


def test_a_clear_winner_is_not_timed_again(autotuned):
    timed = []
    # 20% apart: past the near-miss window (15%), inside SLOW_WINDOW (30%).
    timer = _timings_in_turn(timed, {"a": [1.00], "b": [1.20]})
    assert configs.choose_config(("clear-win",), ("a", "b"), timer) == "a"
    assert timed == ["a", "b"]


def test_a_near_miss_is_timed_once_more_and_stays_behind_when_slow_again(autotuned):
    timed = []
    # "b" 10% behind (past the 8% close-call margin, within NEAR_MISS): a second timing, 12% behind again.
    timer = _timings_in_turn(timed, {"a": [1.00, 1.00], "b": [1.10, 1.12]})
    assert configs.choose_config(("near-miss-slow",), ("a", "b"), timer) == "a"
    assert timed == ["a", "b", "b", "a"]


def test_a_near_miss_whose_second_timing_comes_close_enters_the_rematch(autotuned):
    timed = []
    # v0.39's call 9 at d=128 causal 16k: the persistent form's one timing came 9% slow. "b"'s second timing is
    # 1% behind, so both are re-timed alternately and the medians (1.00 vs 0.96) pick "b".
    timer = _timings_in_turn(timed, {"a": [1.00, 1.00, 1.00, 1.00, 1.00], "b": [1.09, 1.01, 0.96, 0.96, 0.96]})
    assert configs.choose_config(("near-miss-close",), ("a", "b"), timer) == "b"
    assert timed == ["a", "b", "b", "a"] + ["a", "b"] * configs.REMATCH_ROUNDS


def test_a_candidate_far_behind_in_its_first_timing_is_timed_once_more_and_ranked_by_the_lower(autotuned):
    timed = []
    # "b"'s first timing caught a slow window (2.5x "a"); its second is 10% ahead of "a", past the close-call
    # margin, so it wins without a rematch.
    timer = _timings_in_turn(timed, {"a": [1.0, 1.0], "b": [2.5, 0.9]})
    assert configs.choose_config(("slow-window",), ("a", "b"), timer) == "b"
    assert timed == ["a", "b", "b", "a"]


def test_a_second_look_that_comes_close_to_the_fastest_enters_the_rematch(autotuned):
    timed = []
    # "b" ranks at 1.02 after its second look (within 8% of "a"); the rematch's medians (1.00 vs 0.95) pick it.
    timer = _timings_in_turn(timed, {"a": [1.0, 1.0, 1.0, 1.0, 1.0], "b": [2.0, 1.02, 0.95, 0.95, 0.95]})
    assert configs.choose_config(("second-look-close",), ("a", "b"), timer) == "b"
    assert timed == ["a", "b", "b", "a"] + ["a", "b"] * configs.REMATCH_ROUNDS
    assert configs.tuning_timings(("second-look-close",)) == (("a", (1.0, 1.0, 1.0, 1.0, 1.0)),
                                                               ("b", (2.0, 1.02, 0.95, 0.95, 0.95)))


def test_a_second_look_is_compared_with_a_second_timing_of_the_fastest(autotuned):
    timed = []
    # v0.43 call 4, d=256 fp16 non-causal 2k (ms): "a"'s one timing came right after the warm-up, on a slow clock;
    # "b", a near miss, got a second timing later, 8% ahead of it. "a" timed again too comes out ahead by 10%.
    timer = _timings_in_turn(timed, {"a": [0.5007, 0.4176], "b": [0.5411, 0.4613]})
    assert configs.choose_config(("second-look-against-the-fastest",), ("a", "b"), timer) == "a"
    assert timed == ["a", "b", "b", "a"]


def test_a_second_look_times_every_close_candidate_again_with_the_fastest(autotuned):
    timed = []
    # v0.44 call 3, d=256 fp16 non-causal 2k (ms): "a" (one tile) and "b" (persistent) 0.4% apart on the slow clock
    # after the warm-up, "c" and "d" near misses. Timing only "a" again (0.451) left "b"'s one timing 13% behind and
    # "a" won without a rematch; with "b" timed again too both enter the rematch, which "b" leads.
    timer = _timings_in_turn(timed, {"a": [0.5092, 0.4508, 0.4600, 0.4610, 0.4590],
                                     "b": [0.5110, 0.4420, 0.4400, 0.4410, 0.4390],
                                     "c": [0.5648, 0.5204], "d": [0.5612, 0.5370]})
    assert configs.choose_config(("close-ones-again",), ("a", "b", "c", "d"), timer) == "b"
    assert timed[:8] == ["a", "b", "c", "d", "c", "d", "b", "a"]  # slowest first, the fastest last


def test_a_candidate_slow_in_both_timings_is_not_chosen_and_the_slowest_is_looked_at_first(autotuned):
    timed = []
    timer = _timings_in_turn(timed, {"a": [1.0, 1.0], "b": [1.5, 1.4], "c": [3.0, 2.9]})
    assert configs.choose_config(("slow-twice",), ("a", "b", "c"), timer) == "a"
    assert timed == ["a", "b", "c", "c", "b", "a"]  # the fastest last


def test_a_candidate_that_does_not_fit_the_device_is_not_timed_again(autotuned):
    timed = []
    timer = _timings_in_turn(timed, {"a": [1.0], "b": [float("inf")]})
    assert configs.choose_config(("no-fit-once",), ("a", "b"), timer) == "a"
    assert timed == ["a", "b"]


def test_the_timings_behind_a_choice_are_kept_until_the_choices_are_cleared(monkeypatch):
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    monkeypatch.setenv("FLASHIO_TUNING_CACHE", "off")
    configs.clear_choices()
    timer = _timings_in_turn([], {"a": [0.95, 1.00, 1.00, 1.01], "b": [1.00, 0.95, 0.95, 0.96], "c": [1.2]})
    configs.choose_config(("kept",), ("a", "b", "c"), timer)
    assert configs.tuning_timings(("kept",)) == (("a", (0.95, 1.00, 1.00, 1.01)), ("b", (1.00, 0.95, 0.95, 0.96)),
                                                 ("c", (1.2,)))
    configs.clear_choices()
    assert configs.tuning_timings(("kept",)) == ()


def test_prepare_sees_the_candidates_just_before_they_are_timed_and_not_once_the_choice_is_cached(autotuned):
    events = []

    def time_config(option):
        events.append(("timed", option))
        return {"slow": 1.2, "fast": 1.0}[option]

    prepare = lambda options: events.append(("prepared", tuple(options)))
    configs.choose_config(("prepare-key",), ("slow", "fast"), time_config, prepare=prepare)
    configs.choose_config(("prepare-key",), ("slow", "fast"), time_config, prepare=prepare)
    assert events == [("prepared", ("slow", "fast")), ("timed", "slow"), ("timed", "fast")]


def test_prepare_is_not_called_for_a_single_candidate_or_without_autotuning(monkeypatch):
    configs.clear_choices()
    prepared = []
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    configs.choose_config(("one",), ("only",), lambda option: 1.0, prepare=prepared.append)
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "0")
    configs.choose_config(("untuned",), ("a", "b"), lambda option: 1.0, prepare=prepared.append)
    assert prepared == []
    configs.clear_choices()


def test_a_choice_remembered_by_an_earlier_process_compiles_and_times_nothing(tuning_cache):
    configs.choose_config(("k", 5), ("slow", "fast"), _count_timings([]))
    configs.clear_choices()  # as a new process would start
    configs.choose_config(("k", 5), ("slow", "fast"), lambda option: pytest.fail("timed again"),
                          prepare=lambda options: pytest.fail("compiled again"))


def test_hopper_leaves_out_the_candidates_the_h200_grids_never_ranked_within_ten_percent(monkeypatch):
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    options = list(configs.FORWARD_CANDIDATES[128]) + list(configs.FORWARD_GLUON_CANDIDATES[128])
    timed = configs.timed_candidates("forward", 128, options, hopper_regime=True, causal=True)
    assert timed == list(configs.FORWARD_GLUON_CANDIDATES[128])  # every pointer tile left out at d=128


def test_outside_the_measured_regime_or_with_tune_all_every_candidate_is_timed(monkeypatch):
    options = list(configs.FORWARD_CANDIDATES[128])
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    assert configs.timed_candidates("forward", 128, options, hopper_regime=False, causal=True) == options
    monkeypatch.setenv("FLASHIO_TUNE_ALL", "1")
    assert configs.timed_candidates("forward", 128, options, hopper_regime=True, causal=True) == options


def test_a_list_the_hopper_rule_would_empty_keeps_its_candidates(monkeypatch):
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    options = list(configs.FORWARD_CANDIDATES[128])  # all of them untimed on Hopper
    assert configs.timed_candidates("forward", 128, options, hopper_regime=True, causal=True) == options


def test_on_hopper_a_non_causal_call_leaves_out_the_causal_only_candidates(monkeypatch):
    # v0.52: d=64's four-consumer forms, taken by the grids at causal points only (v0.53: three of them).
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    options = list(configs.FORWARD_GLUON_CANDIDATES[64])
    causal_only = configs.HOPPER_CAUSAL_ONLY["forward"][64]
    assert len(causal_only) == 3 and causal_only <= set(options)
    assert configs.timed_candidates("forward", 64, options, hopper_regime=True, causal=True) == options
    assert configs.timed_candidates("forward", 64, options, hopper_regime=True, causal=False) == \
        [option for option in options if option not in causal_only]
    assert configs.timed_candidates("forward", 64, options, hopper_regime=False, causal=False) == options


def test_causal_only_candidates_belong_to_passes_whose_tuner_knows_the_mask():
    # launchers._pick gets ``causal`` from the forward and the fused backward only.
    assert set(configs.HOPPER_CAUSAL_ONLY) <= {"forward", "backward_fused"}


def test_every_untimed_candidate_is_a_listed_candidate_of_its_pass():
    listed = {
        "forward": {bucket: set(configs.FORWARD_CANDIDATES[bucket]) | set(configs.FORWARD_TMA_CANDIDATES[bucket])
                    | set(configs.FORWARD_WS_CANDIDATES[bucket]) for bucket in (64, 128, 256)},
        "backward_dkdv": {bucket: set(configs.BACKWARD_DKDV_CANDIDATES[bucket]) for bucket in (64, 128, 256)},
        "backward_dq": {bucket: set(configs.BACKWARD_DQ_CANDIDATES[bucket]) for bucket in (64, 128, 256)},
    }
    for kernel, buckets in configs.HOPPER_UNTIMED.items():
        for bucket, untimed in buckets.items():
            assert untimed and untimed <= listed[kernel][bucket], (kernel, bucket)


def test_on_hopper_the_fused_backward_is_the_only_dq_strategy_timed_at_d128_and_d256(monkeypatch):
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    assert configs.dq_strategies(128, fused_eligible=True) == ("fused",)
    assert configs.dq_strategies(256, fused_eligible=True) == ("fused",)
    assert configs.dq_strategies(64, fused_eligible=True) == ("fused", "separate")  # within 2% at causal 1k


def test_without_the_fused_backward_the_two_kernel_strategies_are_timed_as_before(monkeypatch):
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    assert configs.dq_strategies(128, fused_eligible=False) == ("atomic", "separate")
    assert configs.dq_strategies(256, fused_eligible=False) == ("separate",)
    monkeypatch.setenv("FLASHIO_TUNE_ALL", "1")
    assert configs.dq_strategies(128, fused_eligible=True) == ("fused", "atomic", "separate")


def test_calls_shorter_than_the_grids_lengths_are_not_in_the_measured_regime():
    assert configs.in_hopper_grid(1024, 1024) and configs.in_hopper_grid(600, 16384)  # bucket 1024 and up
    assert not configs.in_hopper_grid(512, 512)
    assert not configs.in_hopper_grid(16, 8192)  # decoding's few queries


def test_below_the_grids_lengths_every_dq_strategy_is_timed(monkeypatch):
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    assert configs.dq_strategies(128, fused_eligible=True, grid_lengths=False) == ("fused", "atomic", "separate")


def test_candidates_to_compile_are_what_the_next_choice_would_run(tuning_cache, monkeypatch):
    # Every candidate before the first timing; then the choice; a later process the choice it remembers.
    assert configs.candidates_to_compile(("c", 1), ("slow", "fast")) == ["slow", "fast"]
    configs.choose_config(("c", 1), ("slow", "fast"), _count_timings([]))
    assert configs.candidates_to_compile(("c", 1), ("slow", "fast")) == ["fast"]
    configs.clear_choices()  # a new process, the choice on disk
    assert configs.candidates_to_compile(("c", 1), ("slow", "fast")) == ["fast"]
    assert configs.candidates_to_compile(("c", 2), ("only",)) == ["only"]
    monkeypatch.setenv("FLASHIO_AUTOTUNE", "0")  # without autotuning the first candidate runs
    assert configs.candidates_to_compile(("c", 3), ("slow", "fast")) == ["slow"]
