"""Do the forward forms with host-made descriptors (``host_descriptors=3``) have a slow mode? In v0.46's grids the
tuner timed them at 1k 24-47% behind the same forms without, twice per point, where forward probe run 52 had them
7-12% ahead: d=128 fp16 non-causal 1k (both forms with them, 1.239x the leader, call 4), d=256 bf16 causal 1k (0.2186
against 0.1455 ms, call 3) and fp16 causal 1k (0.2355, call 4); at the other 1k-16k points they led or trailed by a
few percent. Per point and form, in this process: the tuner's timing (``launchers._time_ms``: do_bench, the L2
cleared before each call; launch plans off, as the tuner launches through the whole launcher) three times in turn
with the form without them, the host's time to enqueue 200 back-to-back calls and the GPU's time for them (as
``enqueue_rate.py``), with and without launch plans, and the inputs' addresses modulo 1 MiB. Run
in several processes (fresh allocations); a slow mode tied to the process or the addresses shows as one process's
rows apart from the others'.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/host_overhead/host_descriptor_launches.py

Prediction (v0.46, before call 5): no slow mode in the GPU times of back-to-back calls. The tuner's do_bench leaves
the GPU one L2-clearing memset (~60 µs) ahead of each call, so a launch whose host time passes the memset's plus the
kernel's shows in its timing: the whole launcher without plans took ~150 µs of host time a call (launch_plans'
docstring, v0.11), three host descriptors add ~10-40 (Python objects, three tensor maps encoded), and a d=256 causal
1k kernel runs ~145 µs. So the slow mode, where it shows, is host time: the enqueue time without plans near or above
the tuner's time.

Outcome (v0.46 call 5, results/2026-12-03_h200_v0.46/call5/; the table and reading in PERFORMANCE.md v0.46): one
slow-mode sample in three processes, d=256 bf16 causal 1k, where the form's launch took 160 µs of host time without
plans (111-118 in the other processes) and the tuner timed 180 µs for a kernel that ran 148 µs back to back. That run
had its own copy of ``enqueue_rate.measure`` (10 warm-up calls instead of 20), replaced by the import after it.
"""

import dataclasses
import os
import sys

import torch

from flashio import configs, launch_plans, launchers
from flashio.check import forcing

sys.path.insert(0, os.path.dirname(__file__))
from enqueue_rate import measure  # noqa: E402 - this folder's host/GPU time of back-to-back calls

POINTS = ((256, torch.float16, True, 3), (256, torch.bfloat16, True, 3), (128, torch.float16, False, 5),
          (128, torch.bfloat16, True, 2))


def main() -> None:
    torch.manual_seed(0)
    for d, dtype, causal, index in POINTS:
        n = 1024
        batch, heads = 16384 // n, 2048 // d
        q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=dtype) for _ in range(3))
        addresses = " ".join(f"{t.data_ptr() % (1 << 20):#x}" for t in (q, k, v))
        base = configs.FORWARD_GLUON_CANDIDATES[d][index]
        forms = {"without": base, "host3": dataclasses.replace(base, host_descriptors=3)}
        run = lambda: launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=d ** -0.5, causal=causal,
                                                  dropout_p=0.0, seed=0)[0]
        tuner = {name: [] for name in forms}
        for _ in range(3):
            for name, config in forms.items():
                with forcing({"FLASHIO_FORWARD_PATH": "gluon", "FLASHIO_LAUNCH_PLANS": "0"},
                             {"FORWARD_GLUON_CANDIDATES": {d: (config,)}}):
                    run()
                    tuner[name].append(launchers._time_ms(run))
        cells = []
        for name, config in forms.items():
            with forcing({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {d: (config,)}}):
                launch_plans.clear()
                host, gpu = measure(run, 200)
                with forcing({"FLASHIO_LAUNCH_PLANS": "0"}, {}):
                    host_unplanned, gpu_unplanned = measure(run, 200)
            cells.append(f"{name}: tuner {'/'.join(f'{t:.4f}' for t in tuner[name])} ms, host / GPU µs a call "
                         f"{host:.0f} / {gpu:.0f}, without plans {host_unplanned:.0f} / {gpu_unplanned:.0f}")
        print(f"d={d} {str(dtype)[6:]} {'causal' if causal else 'non-causal'} 1k (inputs at {addresses}): "
              + "; ".join(cells), flush=True)
        launch_plans.clear()


if __name__ == "__main__":
    main()
