"""benchmarks/compile_cost.py: the kernels a first Hopper call compiles for a shape bucket, listed without a GPU
(the compiling itself is the script's run, not a test)."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
import triton

from flashio import configs

from .scripts import load_benchmark_script

_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compile_cost():
    return load_benchmark_script("compile_cost")


def test_at_d128_a_first_call_compiles_the_gluon_and_specialised_forwards_and_the_fused_backward(compile_cost,
                                                                                                 monkeypatch):
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    jobs = compile_cost.first_call_kernels(128, causal=False, everything=False)
    assert {label for label, *_ in jobs} == {"forward, Gluon", "forward, warp-specialised", "backward, fused (Gluon)"}
    # 10 forward + 2 fused backward (v0.43: the claims form dropped; v0.45: the tuned persistent form with Q in
    # registers a sixth Gluon candidate; v0.46: both persistent forms with host-made descriptors, a seventh and eighth;
    # v0.49: the host form with its masked blocks through the unmasked step under a branch, a ninth; v0.27 on the H200:
    # 9 and 11 with the preprocess and conversion kernels)
    assert len(jobs) == 13


def test_a_causal_first_call_compiles_one_kernel_for_candidates_differing_only_in_non_causal_options(compile_cost,
                                                                                                      monkeypatch):
    # d=128's persistent fused backward: its non-causal split tail is not part of the causal kernel, whose form is
    # compiled once (v0.40-v0.42 listed a second form that differed only in non-causal options).
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    fused = [config for label, _, _, config in compile_cost.first_call_kernels(128, causal=True, everything=False)
             if label == "backward, fused (Gluon)"]
    assert fused == list(configs.distinct_for_causal(configs.BACKWARD_FUSED_CANDIDATES[128]))
    assert len(fused) == len(configs.BACKWARD_FUSED_CANDIDATES[128])


def test_every_candidate_is_compiled_with_all(compile_cost):
    jobs = compile_cost.first_call_kernels(128, causal=False, everything=True)
    # v0.43: the claims form dropped; v0.45: Q in registers added; v0.46: the two forms with host-made descriptors; v0.49:
    # the form with its masks under a branch (v0.27 on the H200: 37, 39 with the preprocess and conversion)
    assert len(jobs) == 41
    assert any(label.endswith("(dQ atomics)") for label, *_ in jobs)  # both two-kernel strategies at d=128


def _pass(label: str) -> str:
    return "backward_dkdv" if label.startswith("backward dK/dV") else \
        "backward_dq" if label.startswith("backward dQ") else label.split(",")[0].replace(" ", "_")


@pytest.mark.parametrize("causal", [True, False], ids=["causal", "non-causal"])
@pytest.mark.parametrize("d", [64, 128, 256])
def test_no_untimed_candidate_is_compiled_and_every_other_one_is(compile_cost, monkeypatch, d, causal):
    monkeypatch.delenv("FLASHIO_TUNE_ALL", raising=False)
    kept = {(_pass(label), config) for label, _, _, config in compile_cost.first_call_kernels(d, causal, False)}
    every = {(_pass(label), config) for label, _, _, config in compile_cost.first_call_kernels(d, causal, True)}
    untimed = {(kernel, config) for kernel, buckets in configs.HOPPER_UNTIMED.items()
               for config in buckets.get(d, frozenset())}
    if not causal:
        untimed |= {(kernel, config) for kernel, buckets in configs.HOPPER_CAUSAL_ONLY.items()
                    for config in buckets.get(d, frozenset())}
    assert not kept & untimed
    dropped_strategies = {entry for entry in every - kept if entry[0] in ("backward_dkdv", "backward_dq")}
    assert every - kept == (untimed & every) | dropped_strategies



@pytest.mark.skipif(not (Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas").exists(),
                    reason="this Triton build ships no NVIDIA ptxas to compile with")
def test_a_worker_compiles_the_job_it_is_given_by_its_index(tmp_path):
    # What --processes runs in each worker process: the job is found again by its index in the same list, so
    # that only picklable arguments cross the process boundary. In a subprocess without TRITON_INTERPRET (this
    # suite's setting, under which kernels cannot be compiled), as tests/bench/test_resources.py does.
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "FLASHIO_TUNE_ALL")}
    env["PYTHONPATH"] = os.pathsep.join([str(_ROOT / "src"), str(_ROOT / "benchmarks")])
    env["TRITON_CACHE_DIR"] = str(tmp_path)
    program = ("import compile_cost\n"
               "jobs = compile_cost.first_call_kernels(64, True, False)\n"
               "index = [label for label, *_ in jobs].index('backward dQ, portable')\n"
               "print(repr(compile_cost._compile_in_worker(64, True, False, index)))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    label, seconds, error = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert (label, error) == ("backward dQ, portable", "") and seconds > 0
    assert any(tmp_path.rglob("*.cubin"))
