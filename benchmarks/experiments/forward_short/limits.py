"""What limits the forward at the points where it misses the goal, read from Nsight Compute beside cuDNN's kernel
(v0.56): per point, flashio's tuned kernel and cuDNN's forward, bf16, the issue's shapes (16k tokens, hidden 2048).

For each point the script runs ``backward_limiter/ncu_profile.py --pass forward --forward-candidate INDEX --point
...`` (``ncu --clock-control none`` over one forward of flashio's candidate ``INDEX`` and one of cuDNN's, between
cudaProfilerStart/Stop, with its sections) with the pipes' and the stall reasons' metrics added, keeps each log, and
prints one table: duration, SM clock, the tensor pipe's share (Compute Workload Analysis's highest-utilised-pipe
line), the exponential unit's (XU) and the FMA and ALU pipes' shares of their peaks, issue slots busy, cycles between
a warp's issues, and the three largest stall reasons in cycles per issued instruction ("selected", a warp issuing,
is no stall and is left out). (v0.56 call 2 ran the same metrics through an ncu command of this script's own with
three of ncu_profile.py's six sections, and listed "selected" among the stalls; the logs read the same.)

    PYTHONPATH=src python3 benchmarks/experiments/forward_short/limits.py --out DIR \
        64:noncausal:1024:6 64:causal:1024:9 128:causal:1024:8
    python3 benchmarks/experiments/forward_short/limits.py --read DIR/*.log      # the table again, from the logs

A point is D:causal|noncausal:N:INDEX, INDEX into ``configs.FORWARD_GLUON_CANDIDATES[D]`` (the grid's tuned choice
there: the tuner's record in the results' choices.txt).
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(HERE, "..", "backward_limiter", "ncu_profile.py")
PIPES = ("sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
         "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
         "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
         "sm__issue_active.avg.pct_of_peak_sustained_active")
STALLS = "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio"
STALL_METRIC = re.compile(r"smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio")
TENSORS = "regex:sm__pipe_tensor\\w*_cycles_active\\.avg\\.pct_of_peak_sustained_active"
TENSOR_METRIC = re.compile(r"sm__pipe_tensor\w*_cycles_active\.avg\.pct_of_peak_sustained_active")
HIGHEST_PIPE = re.compile(r"INF\s+(\S+) is the highest-utilized pipeline \(([\d.]+)%\)")


def command(point: str, patterns: bool = True) -> list[str]:
    """ncu_profile.py's command line for ``D:mask:N:INDEX`` (``patterns``: with the tensor pipe's and the stall
    reasons' metrics by regular expression, which the script drops if ncu refuses them)."""
    d, mask, n, index = point.split(":")
    return [sys.executable, PROFILE, "--pass", "forward", "--forward-candidate", index, "--point", f"{d}:{mask}:{n}",
            "--metrics", ",".join((*PIPES, TENSORS, STALLS) if patterns else PIPES)]


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def parse(log: str) -> list[dict]:
    """One dict per profiled kernel of an ncu log (its text output): system, duration (µs), clock (GHz), pipes (%),
    issue slots busy (%), cycles between a warp's issues, and {reason: cycles per issued instruction}."""
    kernels, current, point = [], None, None
    for line in log.splitlines():
        header = re.match(r"== (\w+) forward d=(\d+) causal=(\w+) N=(\d+)", line)
        if header:
            point = f"d={header.group(2)} {'causal' if header.group(3) == 'True' else 'non-causal'} {header.group(4)}"
            continue
        kernel = re.match(r"  (\S+) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
        if kernel:
            name = kernel.group(1)
            current = {"kernel": name, "system": "flashio" if name.startswith("attention_forward") else "cuDNN",
                       "point": point, "stalls": {}}
            kernels.append(current)
            continue
        if current is None:
            continue
        fields = line.split()
        if line.strip().startswith("Duration") and len(fields) >= 3:
            current["duration_us"] = _number(fields[-1]) * {"ms": 1000.0, "us": 1.0, "usecond": 1.0,
                                                             "msecond": 1000.0}.get(fields[-2], 1.0)
        elif line.strip().startswith("SM Frequency"):
            current["clock_ghz"] = _number(fields[-1]) * (1e-3 if fields[-2].lower() == "mhz" else 1.0)
        elif line.strip().startswith("Warp Cycles Per Issued Instruction"):
            current["cycles_per_issue"] = _number(fields[-1])
        elif found := HIGHEST_PIPE.search(line):
            current["top_pipe"] = (found.group(1), float(found.group(2)))
        elif fields and TENSOR_METRIC.fullmatch(fields[0]) and fields[-1] != "n/a":
            current.setdefault("tensor_metrics", {})[fields[0]] = _number(fields[-1])
        elif fields and fields[0] in PIPES:
            current[fields[0].split("__")[1].split(".")[0]] = _number(fields[-1]) if fields[-1] != "n/a" else None
        elif fields and (stall := STALL_METRIC.fullmatch(fields[0])):
            if fields[-1] != "n/a" and stall.group(1) != "selected":  # issuing, not stalled
                current["stalls"][stall.group(1)] = _number(fields[-1])
    return kernels


def table(kernels: list[dict]) -> str:
    """The markdown table of ``parse``'s kernels, in their order."""
    lines = ["| point | system | µs | SM GHz | tensor pipe % | XU (exp) % | FMA % | ALU % | issue slots % | "
             "cycles between a warp's issues | largest stalls (cycles per issue) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in kernels:
        top = k.get("top_pipe")
        measured = k.get("tensor_metrics")  # the tensor pipe's own counter where ncu has one for this chip, else
        # the section's highest-utilised-pipe line when that pipe is the tensor pipe
        tensor = max(measured.values()) if measured else (top[1] if top and top[0] == "Tensor" else None)
        stalls = sorted(k["stalls"].items(), key=lambda item: -item[1])[:3]
        cell = lambda value, digits=1: "—" if value is None else f"{value:.{digits}f}"
        lines.append(f"| {k['point']} | {k['system']} | {cell(k.get('duration_us'))} | {cell(k.get('clock_ghz'), 2)} | "
                     f"{cell(tensor)} | {cell(k.get('inst_executed_pipe_xu'))} | "
                     f"{cell(k.get('inst_executed_pipe_fma'))} | {cell(k.get('inst_executed_pipe_alu'))} | "
                     f"{cell(k.get('issue_active'))} | {cell(k.get('cycles_per_issue'), 2)} | "
                     + ", ".join(f"{reason} {value:.2f}" for reason, value in stalls) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("points", nargs="*", help="D:causal|noncausal:N:INDEX")
    parser.add_argument("--out", default=".", help="folder for the ncu logs")
    parser.add_argument("--read", nargs="+", default=None, help="logs to read instead of profiling")
    args = parser.parse_args(argv)
    logs = []
    if args.read:
        logs = [open(path).read() for path in args.read]
    else:
        if not args.points:
            parser.error("give points (D:causal|noncausal:N:INDEX) or --read LOGS")
        for point in args.points:
            if len(point.split(":")) != 4:
                parser.error(f"a point is D:causal|noncausal:N:INDEX, got {point!r}")
            done = subprocess.run(command(point), capture_output=True, text=True)
            log = done.stdout + done.stderr
            if done.returncode != 0:  # without the metrics by regular expression
                print(f"{point}: rc {done.returncode} with the metric patterns:\n{log[-1500:]}", flush=True)
                done = subprocess.run(command(point, patterns=False), capture_output=True, text=True)
                log = done.stdout + done.stderr
            with open(os.path.join(args.out, f"ncu_{point.replace(':', '_')}.log"), "w") as handle:
                handle.write(log)
            print(f"{point}: rc {done.returncode}", flush=True)
            logs.append(log)
    print(table([kernel for log in logs for kernel in parse(log)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
