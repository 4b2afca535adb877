"""benchmarks/tuning_survey.py: the tuner's recorded timings read back from bench files, the source of
configs.HOPPER_UNTIMED."""

import json

import pytest

from .scripts import load_benchmark_script


@pytest.fixture(scope="module")
def tuning_survey():
    return load_benchmark_script("tuning_survey")


def test_a_tuning_field_gives_each_candidates_median_time_per_pass(tuning_survey):
    text = ("forward: gluon 128x128 w4 s3 persistent 0.25/0.27/0.26 ms, pointer 64x64 w4 s3 0.30 ms | "
            "backward_dq_strategy: fused 0.70 ms, separate 0.80/0.78/0.79 ms")
    assert tuning_survey.parse_tuning(text) == {
        "forward": {"gluon 128x128 w4 s3 persistent": 0.26, "pointer 64x64 w4 s3": 0.30},
        "backward_dq_strategy": {"fused": 0.70, "separate": 0.79},
    }


def test_a_pass_tuned_twice_at_one_point_keeps_both_lists(tuning_survey):
    passes = tuning_survey.parse_tuning("backward_dkdv: a 1.0 ms, b 2.0 ms | backward_dkdv: a 3.0 ms, b 1.5 ms")
    assert passes == {"backward_dkdv": {"a": 1.0, "b": 2.0}, "backward_dkdv #2": {"a": 3.0, "b": 1.5}}


def test_the_survey_counts_wins_and_keeps_each_candidates_best_ratio(tuning_survey, tmp_path):
    rows = [dict(system="flashio", mode="fwd", dtype="bf16", head_dim=128, causal=causal, seqlen=1024,
                 tuning=f"forward: a {a} ms, b {b} ms")
            for causal, a, b in ((False, 1.0, 1.5), (True, 2.0, 1.0))]
    rows.append(dict(rows[0], mode="bwd"))  # the same field on another mode's row is not counted twice
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"results": rows}))
    wins, ratios = tuning_survey.survey([str(path)])
    assert wins[("forward", 128)] == {"a": 1, "b": 1}
    assert min(ratios[("forward", 128)]["a"])[0] == 1.0
    assert sorted(r for r, _ in ratios[("forward", 128)]["b"]) == [1.0, 1.5]
