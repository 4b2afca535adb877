"""benchmarks/experiments/forward_short/limits.py: an Nsight Compute log read into one row per profiled kernel."""

from .scripts import load_benchmark_script

# The shape of ncu's text output (ncu_profile.py's child prints the "==" markers), cut to the lines the reader uses.
_LOG = """\
== flashio forward d=64 causal=True N=1024
==PROF== Profiling "attention_forward_gluon_persistent_kernel": 0%....50%....100% - 20 passes
== cuDNN forward d=64 causal=True N=1024
  attention_forward_gluon_persistent_kernel (132, 1, 1)x(544, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Section: Command line profiler metrics
    sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active                       %        41.20
    sm__issue_active.avg.pct_of_peak_sustained_active                                %        38.00
    sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active                  (!) n/a
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio      ratio         0.50
    smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio       ratio         2.25
    smsp__average_warps_issue_stalled_wait_per_issue_active.ratio                 ratio         1.10
    smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio              ratio         0.75
    smsp__average_warps_issue_stalled_selected_per_issue_active.ratio             ratio         1.00
    Section: GPU Speed Of Light Throughput
    SM Frequency                    Ghz         1.76
    Duration                         us       196.51
    Section: Compute Workload Analysis
    INF   Tensor is the highest-utilized pipeline (40.5%) based on elapsed cycles in the workload, taking into account
    Section: Warp State Statistics
    Warp Cycles Per Issued Instruction             cycle         8.40
  cudnn_generated_fort_native_sdpa_sm90_flash_fprop_kernel0_0 (132, 1, 1)x(384, 1, 1), Context 1, Stream 7, Device 0
    sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active                       %        45.00
    sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active           %        47.30
    SM Frequency                    Mhz     1,760.00
    Duration                         ms         0.21
    INF   XU is the highest-utilized pipeline (50.1%) based on elapsed cycles in the workload, taking into account
    Warp Cycles Per Issued Instruction             cycle         5.00
"""


def test_each_profiled_kernel_becomes_a_row_named_for_its_system_and_point():
    limits = load_benchmark_script("experiments/forward_short/limits")
    flashio, cudnn = limits.parse(_LOG)
    assert (flashio["system"], cudnn["system"]) == ("flashio", "cuDNN")
    assert flashio["point"] == cudnn["point"] == "d=64 causal 1024"


def test_durations_and_clocks_are_read_in_microseconds_and_gigahertz_whatever_unit_ncu_prints():
    limits = load_benchmark_script("experiments/forward_short/limits")
    flashio, cudnn = limits.parse(_LOG)
    assert (flashio["duration_us"], flashio["clock_ghz"]) == (196.51, 1.76)
    assert (cudnn["duration_us"], cudnn["clock_ghz"]) == (210.0, 1.76)


def test_the_tensor_pipe_comes_from_its_counter_or_else_from_the_highest_pipe_line_when_that_is_the_tensor_pipe():
    limits = load_benchmark_script("experiments/forward_short/limits")
    flashio, cudnn = limits.parse(_LOG)
    rows = limits.table([flashio, cudnn]).splitlines()[2:]
    assert "| 40.5 | 41.2 |" in rows[0]  # the counter was n/a: the section's line (tensor 40.5%)
    assert "| 47.3 | 45.0 |" in rows[1]  # the counter, not the section's line (which names XU)


def test_the_largest_stall_reasons_are_listed_largest_first_without_the_warps_issuing():
    limits = load_benchmark_script("experiments/forward_short/limits")
    flashio, _ = limits.parse(_LOG)
    # "selected" (1.00 here) counts the cycles a warp issues: no stall, not listed.
    assert flashio["stalls"] == {"long_scoreboard": 0.5, "no_instruction": 2.25, "wait": 1.1, "barrier": 0.75}
    row = limits.table([flashio]).splitlines()[2]
    assert row.endswith("| 8.40 | no_instruction 2.25, wait 1.10, barrier 0.75 |")
