#!/usr/bin/env bash
# v0.23 device call 5: Nsight Compute run 8, the d=64 non-causal forward (flashio's fastest form at each point
# and cuDNN's), to say what the polynomial exponentials' loss (probe run 19) means.
export PYTHONPATH=src
N=benchmarks/experiments/backward_limiter/ncu_profile.py
timeout 280 python3 $N --pass forward --forward-form q-regs-half-balanced --point 64:noncausal:16384 > "$OUT/ncu_run8_d64_nc16k.log" 2>&1
echo "rc $?" >> "$OUT/ncu_run8_d64_nc16k.log"
timeout 200 python3 $N --pass forward --forward-form two-programs --point 64:noncausal:1024 > "$OUT/ncu_run8_d64_nc1k.log" 2>&1
echo "rc $?" >> "$OUT/ncu_run8_d64_nc1k.log"
for f in "$OUT"/ncu_run8_*.log; do echo "## $f"; grep -E "^== |attention_forward|fprop|Duration|Issue Slots Busy|Issued Ipc Active|SM Busy|Compute \(SM\) Throughput|Warp Cycles Per Issued|Memory Throughput|rc " "$f" | head -40; done
# The pipes' shares of their peaks (a separate run: a metric name this ncu lacks fails only this one).
M=sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
timeout 150 python3 $N --pass forward --forward-form q-regs-half-balanced --point 64:noncausal:16384 --metrics $M > "$OUT/ncu_run8_pipes_d64_nc16k.log" 2>&1
echo "rc $?" >> "$OUT/ncu_run8_pipes_d64_nc16k.log"
grep -E "^== |attention_forward|fprop|pipe_|issue_active|ERROR|rc " "$OUT/ncu_run8_pipes_d64_nc16k.log" | head -30
