"""benchmarks/tuner_warmup.py: each candidate's first timing against its later ones, by its position in the tuner's
timing order, from the tuning fields of bench result files."""

import json

import pytest

from .scripts import load_benchmark_script


@pytest.fixture(scope="module")
def tuner_warmup():
    return load_benchmark_script("tuner_warmup")


def test_the_forward_order_is_the_launchers_hopper_list_with_the_untimed_left_out(tuner_warmup):
    order = tuner_warmup.timing_order("forward", 128, causal=False)
    assert len(order) == len(set(order)) >= 2
    assert all(label.split()[0] in ("pointer", "tma", "ws", "gluon") for label in order)
    assert set(tuner_warmup.timing_order("forward", 128, causal=True)) <= set(order)  # one per causal form


def test_a_rematched_candidates_first_timing_is_set_against_the_median_of_its_later_ones(tuner_warmup, tmp_path):
    first, second = tuner_warmup.timing_order("forward", 128, causal=False)[:2]
    # the first timed: 0.9 then 1.0 / 1.1 (median 1.05); the second: level; a third label timed once is left out.
    tuning = f"forward: {second} 1.0000/1.0000/1.0000 ms, {first} 0.9000/1.0000/1.1000 ms, gluon 1x1 w1 s1 2.0000 ms"
    row = dict(system="flashio", mode="fwd", head_dim=128, causal=False, tuning=tuning)
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"results": [row, dict(row, mode="bwd"), dict(row, system="sdpa_cudnn")]}))
    ratios = tuner_warmup.first_against_later([str(path)], "forward")
    assert ratios == {(128, 0): [pytest.approx(0.9 / 1.05)], (128, 1): [pytest.approx(1.0)]}
