"""benchmarks/choice_outcomes.py: the bench's forward rate against cuDNN with each kind of form the tuner took, per
point, over several grid files."""

import json

import pytest

from .scripts import load_benchmark_script


@pytest.fixture(scope="module")
def choice_outcomes():
    return load_benchmark_script("choice_outcomes")


def _grid(tmp_path, name, flashio_tflops, tiles, cudnn_tflops=500.0, head_dim=128, mode="fwd"):
    point = dict(mode=mode, dtype="bf16", head_dim=head_dim, causal=False, seqlen=4096, status="ok")
    rows = [dict(point, system="flashio", tflops=flashio_tflops, tiles=tiles),
            dict(point, system="sdpa_cudnn", tflops=cudnn_tflops, tiles="")]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"results": rows}))
    return str(path)


PERSISTENT = "forward=gluon 128x128 w4 s3 persistent pipelined out-regs; backward_fused=gluon 64x128 persistent"
ONE_TILE = "forward=gluon 128x128 w4 s3 pipelined; backward_fused=gluon 64x128 w8 s3 persistent"


def test_the_forward_kind_is_read_from_the_forward_part_of_the_tiles_field_only(choice_outcomes):
    # The backward's persistent form after the ';' does not make the forward persistent.
    assert choice_outcomes.forward_kind(ONE_TILE) == "one tile"
    assert choice_outcomes.forward_kind(PERSISTENT) == "persistent"


def test_each_file_adds_its_ratio_to_the_kind_it_took_at_that_point(choice_outcomes, tmp_path):
    paths = [_grid(tmp_path, "a", 520.0, PERSISTENT), _grid(tmp_path, "b", 490.0, ONE_TILE),
             _grid(tmp_path, "c", 530.0, PERSISTENT)]
    found = choice_outcomes.outcomes(paths)
    assert dict(found[("bf16", 128, False, 4096)]) == {"persistent": [1.04, 1.06], "one tile": [0.98]}


def test_smaller_head_dims_and_backward_rows_are_left_out(choice_outcomes, tmp_path):
    paths = [_grid(tmp_path, "a", 520.0, PERSISTENT, head_dim=64), _grid(tmp_path, "b", 520.0, PERSISTENT, mode="bwd")]
    assert choice_outcomes.outcomes(paths, min_head_dim=128) == {}


def test_the_summary_counts_the_points_that_took_both_kinds(choice_outcomes, tmp_path, capsys):
    paths = [_grid(tmp_path, "a", 520.0, PERSISTENT), _grid(tmp_path, "b", 490.0, ONE_TILE)]
    assert choice_outcomes.main(paths) == 0
    out = capsys.readouterr().out
    assert "| bf16 | 128 | False | 4096 | 1, 1.040 | 1, 0.980 |" in out
    assert out.strip().endswith("1 points took both kinds; the persistent kind's mean is the higher at 1")
