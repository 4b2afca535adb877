"""``kernels/gluon_clock.mark_tile``: the persistent Gluon forward's per-tile timestamps, a probe's option
(``CLOCK_TILES``; benchmarks/experiments/forward_short/round_times.py). Gluon has no CPU interpreter, so this checks
what the compiler makes of it for sm_90a, in a subprocess (this suite runs under TRITON_INTERPRET=1): with the option,
every partition reads the global timer and the cycle counter at its entry, at each tile's start and end and at its exit
(four sites each); without it, the tuned kernel reads neither. The persistent fused backward takes the same option in
its MMA warps (v0.36)."""

import json

import pytest

from .hopper_compiler import requires_nvidia_tools, run_without_interpreter

pytestmark = requires_nvidia_tools

_SCRIPT = '''
import json
from flashio import configs, launchers
from flashio.bench import resources

config = configs.FORWARD_GLUON_CANDIDATES[128][2]  # the tuned persistent form at d=128 causal N <= 2k
kernel = launchers.forward_gluon_kernels.attention_forward_gluon_persistent_kernel
counts = {}
for clock_tiles in (0, 8):
    constants = dict(launchers.gluon_forward_constants(config, 128), IS_CAUSAL=True, LISTED=True,
                     **({"DYNAMIC": True} if config.dynamic_schedule else {}),
                     **({"CLOCK_TILES": clock_tiles} if clock_tiles else {}))
    sass = resources.cuobjdump(resources.compile_for_hopper(kernel, constants, config), "-sass")
    counts[clock_tiles] = {"timer": sass.count("SR_GLOBALTIMER"), "cycles": sass.count("SR_CLOCK")}
config = configs.BACKWARD_FUSED_CANDIDATES[128][-1]  # the tuned persistent fused backward, d=128
kernel, constants = launchers.fused_backward_kernel(config, 128)
for clock_tiles in (0, 8):
    compiled = resources.compile_for_hopper(kernel, dict(constants, IS_CAUSAL=True, LISTED=True,
                                                         **({"DYNAMIC": True} if config.dynamic_schedule else {}),
                                                         **({"CLOCK_TILES": clock_tiles} if clock_tiles else {})),
                                            config)
    sass = resources.cuobjdump(compiled, "-sass")
    counts[f"backward {clock_tiles}"] = {"timer": sass.count("SR_GLOBALTIMER"), "cycles": sass.count("SR_CLOCK")}
config = configs.BACKWARD_FUSED_CANDIDATES[256][0]  # d=256's role-split tile, one key block a program
kernel, constants = launchers.fused_backward_kernel(config, 256)
for marks in (0, 6):
    compiled = resources.compile_for_hopper(kernel, dict(constants, IS_CAUSAL=False,
                                                         **({"CLOCK_MARKS": marks} if marks else {})), config)
    sass = resources.cuobjdump(compiled, "-sass")
    counts[f"role split {marks}"] = {"timer": sass.count("SR_GLOBALTIMER"), "smid": sass.count("SR_VIRTUALSMID")}
print(json.dumps(counts))
'''


@pytest.fixture(scope="module")
def timer_reads():
    done = run_without_interpreter(["-c", _SCRIPT])
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_clocked_forward_reads_both_timers_at_four_sites_per_partition(timer_reads):
    partitions = 3  # two consumer warpgroups and the loader
    assert timer_reads["8"] == {"timer": 4 * partitions, "cycles": 4 * partitions}


def test_the_tuned_forward_reads_no_timer(timer_reads):
    assert timer_reads["0"] == {"timer": 0, "cycles": 0}


def test_the_clocked_fused_backward_reads_both_timers_at_four_sites_in_its_mma_warps(timer_reads):
    # v0.36 (prepared for benchmarks/experiments/fused_backward_persistent/program_ends.py): one partition, the MMA
    # warps: their entry, each key block's start and end, their exit. Without the option, none. (Since v0.37 d=128's
    # tuned backward takes its key blocks from the dynamic list, whose loop has the same four sites.)
    assert timer_reads["backward 8"] == {"timer": 4, "cycles": 4}
    assert timer_reads["backward 0"] == {"timer": 0, "cycles": 0}


def test_the_clocked_role_split_backward_reads_the_timer_at_five_sites_and_its_multiprocessor_once(timer_reads):
    # v0.43 (prepared for benchmarks/experiments/fused_backward_d256/program_starts.py): warpgroup A's entry, K/V
    # landed, first S^T product done, last products done, dV stored, and %smid (SR_VIRTUALSMID in SASS). Without the
    # option, none.
    assert timer_reads["role split 6"] == {"timer": 5, "smid": 1}
    assert timer_reads["role split 0"] == {"timer": 0, "smid": 0}
