"""Structure of the time model: waves, L2, variants, speed, other GPUs from their specs."""

from __future__ import annotations

import time

import numpy as np
import pytest

from flashio.model.gpus import BASE_CLOCK_MHZ, at_clock, get_gpu, with_overrides
from flashio.model.l2 import reuse_hit_rate
from flashio.model.counts import standard_ops
from flashio.model.timing import Workload, fa2_design, predict, schedule_makespan, standard_time

GPT2 = Workload(64, 16, 1024, 64)


def test_prediction_takes_well_under_a_second():
    start = time.perf_counter()
    predict(get_gpu("h200"), Workload(1, 32, 16384, 64, causal=True), "fwdbwd")
    assert time.perf_counter() - start < 0.5


def test_makespan_quantises_into_waves():
    # 3 equal CTAs on 2 slots take two waves.
    assert schedule_makespan(np.ones(3), 2) == 2.0


def test_l2_hit_rate_falls_once_footprint_exceeds_usable_l2():
    assert reuse_hit_rate(1e6, 60e6) == 1.0
    assert reuse_hit_rate(120e6, 60e6) == pytest.approx(0.25)


def test_small_l2_lets_kv_rereads_through_to_dram():
    big = predict(get_gpu("h200"), GPT2, "fwd", "fa2").flash.dram_bytes
    tiny_l2 = with_overrides(get_gpu("h200"), l2_mib=0.25)
    assert predict(tiny_l2, GPT2, "fwd", "fa2").flash.dram_bytes > 2 * big


def test_lower_bandwidth_raises_the_speedup():
    h200 = get_gpu("h200")
    slow = with_overrides(h200, hbm_bandwidth_gbs=h200.hbm_bandwidth_gbs / 2)
    assert predict(slow, GPT2, "fwdbwd").speedup > predict(h200, GPT2, "fwdbwd").speedup


def test_dropout_and_padding_add_standard_passes_not_flash_traffic():
    h200 = get_gpu("h200")
    plain = predict(h200, GPT2, "fwdbwd")
    masked = predict(h200, Workload(64, 16, 1024, 64, dropout_p=0.1, padding_mask=True), "fwdbwd")
    assert masked.standard.dram_bytes > plain.standard.dram_bytes
    assert masked.flash.dram_bytes == pytest.approx(plain.flash.dram_bytes, rel=0.02)
    assert masked.speedup > plain.speedup


def test_causal_halves_flash_work_but_not_standard_work():
    h200 = get_gpu("h200")
    full = predict(h200, Workload(2, 16, 4096, 64), "fwd")
    causal = predict(h200, Workload(2, 16, 4096, 64, causal=True), "fwd")
    assert causal.flash.matmul_flops == pytest.approx(full.flash.matmul_flops * (1 + 1 / 32) / 2)
    assert causal.standard.matmul_flops == full.standard.matmul_flops


def test_fa2_tiles_shrink_to_fit_a_small_shared_memory():
    design = fa2_design(get_gpu("t4"), 128)
    assert design.backward.block_rows * design.backward.block_cols < 64 * 128


@pytest.mark.parametrize("gpu", ["t4", "v100", "rtx3090", "a100-40gb", "a100-80gb", "rtx4090", "l4", "l40s",
                                 "h100-sxm", "h100-pcie", "h200", "b200", "mi300x"])
def test_every_gpu_predicts_a_positive_finite_speedup(gpu):
    speedup = predict(get_gpu(gpu), Workload(8, 12, 1024, 64), "fwdbwd", "fa1").speedup
    assert np.isfinite(speedup) and speedup > 0


def test_standard_time_runs_exactly_the_kernels_of_the_op_list():
    # One list of standard kernels (counts.standard_ops) for counts, timing and the simulator; an N×N of
    # 64·16 heads (2.1 GB) never fits in L2, so each kernel's DRAM bytes are its counted bytes.
    workload = Workload(64, 16, 1024, 64, causal=True, dropout_p=0.1, dtype="fp16")
    timing = standard_time(get_gpu("h200"), workload, "fwdbwd")
    ops = standard_ops(workload.problem(), "fwdbwd")
    assert [k.name for k in timing.kernels] == [op.name for op in ops]
    for kernel, op in zip(timing.kernels, ops):
        assert kernel.dram_read_bytes == 64 * 16 * op.io.read_bytes(2)
        assert kernel.dram_write_bytes == 64 * 16 * op.io.write_bytes(2)


def test_t4_fa1_bound_depends_on_the_clock_it_sustains():
    # docs/model.md (held-out GPUs): at the datasheet boost clock both FA1 kernels are DRAM-bound on the T4
    # (so bandwidth cancels out of the speedup); at the datasheet base clock they are tensor-bound.
    workload = Workload(12, 12, 1024, 64, dtype="fp16")
    t4 = get_gpu("t4")
    at_boost = predict(t4, workload, "fwdbwd", "fa1")
    at_base = predict(at_clock(t4, BASE_CLOCK_MHZ["t4"]), workload, "fwdbwd", "fa1")
    assert [k.bound for k in at_boost.flash.kernels] == ["memory", "memory"]
    assert [k.bound for k in at_base.flash.kernels] == ["tensor", "tensor"]
