"""``kernels/gluon_stores.store_float32_spread`` writes through a view of the dQ tile built by hand
(``_float32_spread_view``): its bases must describe Triton's own 128-byte-swizzled NVMMA layout of a float32 tile,
or the spread store would put dQ in the wrong places with no error (TMA reads the tile in the NVMMA layout). Gluon
has no CPU interpreter, so this compares what the compiler makes of the stores: a tile stored plainly, through the
view without its flip, and through the view with it (the spread store), compiled for sm_90a on the CPU in a
subprocess (this suite runs under TRITON_INTERPRET=1, where kernels cannot be compiled)."""

import json

import pytest

from .hopper_compiler import requires_nvidia_tools, run_without_interpreter

pytestmark = requires_nvidia_tools

_SCRIPT = '''
import json, re, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, tma
from flashio.bench.resources import cuobjdump
from flashio.kernels.gluon_stores import _float32_spread_view, store_float32_spread


@gluon.jit
def store_tile(X, OUT, ROWS: gl.constexpr, COLS: gl.constexpr, WARPGROUPS: gl.constexpr, MODE: gl.constexpr):
    tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, COLS], gl.float32)
    accumulator: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, WARPGROUPS],
                                                          instr_shape=[16, COLS // WARPGROUPS, 16])
    rows = gl.arange(0, ROWS, layout=gl.SliceLayout(1, accumulator))
    cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, accumulator))
    values = gl.load(X + rows[:, None] * COLS + cols[None, :])
    tile = gl.allocate_shared_memory(gl.float32, [ROWS, COLS], tile_layout)
    if MODE == 0:
        tile.store(values)
    elif MODE == 1:
        tile._reinterpret(gl.float32, [ROWS, COLS], _float32_spread_view(ROWS, COLS, False)).store(values)
    else:
        store_float32_spread(tile, values, ROWS, COLS)
    fence_async_shared()
    desc = tma.make_tensor_descriptor(OUT, shape=[ROWS, COLS], strides=[COLS, 1], block_shape=[ROWS, COLS],
                                      layout=tile_layout)
    tma.async_copy_shared_to_global(desc, [0, 0], tile)
    tma.store_wait(0)


def shared_stores(cols, warpgroups, mode):
    source = GluonASTSource(fn=store_tile, signature={"X": "*fp32", "OUT": "*fp32", "ROWS": "constexpr",
                                                      "COLS": "constexpr", "WARPGROUPS": "constexpr",
                                                      "MODE": "constexpr"},
                            constexprs={(2,): 64, (3,): cols, (4,): warpgroups, (5,): mode})
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4 * warpgroups})
    lines = [re.sub(r"/\\*[0-9a-f]{4,}\\*/", "", line).split(";")[0].strip()
             for line in cuobjdump(compiled, "-sass").splitlines() if "/*" in line]
    return [line for line in lines if "STS" in line]


result = {}
for cols, warpgroups in ((64, 1), (128, 2)):
    plain, unflipped, spread = (shared_stores(cols, warpgroups, mode) for mode in (0, 1, 2))
    result[f"{cols}x{warpgroups}"] = dict(unflipped_is_plain=unflipped == plain, spread_differs=spread != plain,
                                          plain_count=len(plain), spread_count=len(spread))
print(json.dumps(result))
'''


@pytest.fixture(scope="module")
def compiled_stores(tmp_path_factory):
    script = tmp_path_factory.mktemp("gluon_stores") / "compile_stores.py"
    script.write_text(_SCRIPT)
    done = run_without_interpreter([str(script)])
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_spread_view_without_its_flip_is_the_nvmma_tile_instruction_for_instruction(compiled_stores):
    # One warpgroup's 64 x 64 tile (d=256's dQ chunks) and two warpgroups' 64 x 128 tile (d=128's dQ).
    for case in compiled_stores.values():
        assert case["unflipped_is_plain"], compiled_stores


def test_the_spread_store_moves_the_same_number_of_words_to_other_addresses(compiled_stores):
    for case in compiled_stores.values():
        assert case["spread_differs"] and case["spread_count"] == case["plain_count"], compiled_stores
