"""What the compiler makes of flashio's kernels for the H200 (sm_90a), measured without a GPU.

Each kernel is compiled by Triton for an sm_90 target on the CPU (Triton ships ptxas and cuobjdump), and
the cubin that would run is read back: registers per thread, local-memory stack (spills), shared memory,
and the instruction mix of the SASS: HGMMA (Hopper's warpgroup tensor-core instruction, wgmma) against
HMMA (the older per-warp mma.sync path), MUFU.EX2 (exponentials), LDL/STL (spill traffic). From registers
and shared memory follows how many programs fit on one multiprocessor.

    python -m flashio.bench.resources                 # the configurations the v0.5 tuner chose on the H200
    python -m flashio.bench.resources --match "dK pass" --json
    python -m flashio.bench.resources --match "forward gluon" --processes 2   # compiles in two processes

Run it without TRITON_INTERPRET (under the interpreter, ``@triton.jit`` functions cannot be compiled).

Kernels are compiled for bf16, non-causal, a power-of-two head dim, no dropout/varlen/block mask, with
what Triton's launcher specialises at run time for contiguous multi-head inputs (unit strides as the
constant 1, sizes and strides marked divisible by 16): without that, the compiler cannot vectorise the
loads and the counts would be pessimistic.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Optional

import torch
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

from flashio import check, configs, launchers
from flashio.bench.sweep import describe_choice
from flashio.configs import TileConfig
from flashio.kernels import backward as backward_kernels
from flashio.kernels import forward as forward_kernels
from flashio.kernels import backward_ws as backward_ws_kernels
from flashio.kernels import forward_tma as forward_tma_kernels
from flashio.kernels import forward_ws as forward_ws_kernels

H200_REGISTERS_PER_SM = 65536
H200_SHARED_PER_SM = 228 * 1024  # bytes; 227 KB usable per block, 1 KB reserved per block
H200_MAX_WARPS_PER_SM = 64
_BIN = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")

_POINTERS = {
    "Q": "*bf16", "K": "*bf16", "V": "*bf16", "O": "*bf16", "DO": "*bf16", "DK": "*bf16", "DV": "*bf16",
    "DQ": "*bf16", "LSE": "*fp32", "DELTA": "*fp32", "DQ_ACC": "*fp32",
    "cu_seqlens_q": "*i32", "cu_seqlens_k": "*i32", "sparse_counts": "*i32", "sparse_indices": "*i32",
    "schedule": "*i32", "KEY_GRADIENT_PARTS": "*fp32", "tile_clock": "*i64", "claims": "*i32", "partials": "*fp32",
    "program_clock": "*i64", "boundary_clock": "*i64",
}
_FLOATS = {"softmax_scale", "drop_rescale"}


def _portable_constants(config: TileConfig, head_dim: int, **extra) -> dict:
    return dict(BLOCK_M=config.block_m, BLOCK_N=config.block_n, BLOCK_D=head_dim, IS_CAUSAL=False,
                IS_VARLEN=False, HAS_DROPOUT=False, BLOCK_SPARSE=False, SPARSE_BLOCK_M=16, SPARSE_BLOCK_N=16,
                EVEN_D=True, DOT_PRECISION="tf32", **extra)


def _runtime_specialisation(name: str):
    """What Triton's launcher would know about an integer argument at run time for contiguous
    (B, H, N, d) inputs with multi-head attention: unit strides (head dim, and the row stride of the
    per-row LSE/D tensors) and a group size of 1 are specialised to the constant 1; sizes and the other
    strides are multiples of 16 (Triton marks them divisible by 16); the RNG arguments are unknown."""
    unit = name in ("kv_group_size", "stride_lm", "stride_dm") or (name.startswith("stride_") and name.endswith("d"))
    if unit:
        return 1
    if name in ("seed", "drop_threshold"):
        return None
    return "divisible"


def _host_descriptor_types(constants: dict) -> dict:
    """The argument types of the inputs passed as host tensor descriptors (bf16, as ``_POINTERS``), as a launch's
    specialisation names them: [1, 1, rows, HEAD_DIM] boxes. The fused backward (``HOST_DESCRIPTORS`` = 2: K and V,
    4: Q, K, V and DO) boxes BLOCK_M query rows and BLOCK_N key rows; the Gluon forward (it has ``ROWS``; 1: Q, 3: Q,
    K and V) ROWS query rows, a consumer's."""
    from triton.runtime.jit import mangle_type

    types = {}
    count = constants["HOST_DESCRIPTORS"]
    if "ROWS" in constants:
        described = (("Q", "ROWS"),) + ((("K", "BLOCK_N"), ("V", "BLOCK_N")) if count == 3 else ())
    else:
        described = (("K", "BLOCK_N"), ("V", "BLOCK_N")) + ((("Q", "BLOCK_M"), ("DO", "BLOCK_M")) if count == 4 else ())
    for name, rows in described:
        placeholder = torch.empty(0, device="meta", dtype=torch.bfloat16)
        descriptor = launchers.host_descriptor(placeholder, (0, 0, 0, 1), 1, 1, 1, constants[rows],
                                               constants["HEAD_DIM"])
        types[name] = mangle_type(descriptor)
    return types


def compile_for_hopper(kernel, constants: dict, config: TileConfig):
    """Compile ``kernel`` for sm_90 with these constexprs (and the run-time specialisation of a
    contiguous multi-head call); return Triton's compiled kernel."""
    parameters = inspect.signature(kernel.fn).parameters
    params = list(parameters)
    # A constexpr parameter with a default (an option the caller may leave out) keeps its default, as in a
    # launch; compiled as a run-time integer it would compile both sides of every branch on it.
    defaults = {name: p.default for name, p in parameters.items()
                if p.default is not inspect.Parameter.empty and "constexpr" in str(p.annotation)}
    constants = {**defaults, **constants}
    if "schedule" in parameters and not constants.get("LISTED"):
        constants["schedule"] = None  # a persistent forward without a tile list gets None, as in a launch
    if "KEY_GRADIENT_PARTS" in parameters and not constants.get("SPLIT_TAIL"):
        constants["KEY_GRADIENT_PARTS"] = None  # as in a launch without a split tail
    if "tile_clock" in parameters and not constants.get("CLOCK_TILES"):
        constants["tile_clock"] = None  # a probe's timestamp buffer: None unless CLOCK_TILES asks for it
    if "boundary_clock" in parameters and not constants.get("BOUNDARY_MARKS"):
        constants["boundary_clock"] = None  # the same for the marks between tiles (BOUNDARY_MARKS)
    if "program_clock" in parameters and not constants.get("CLOCK_MARKS"):
        constants["program_clock"] = None  # a probe's per-program timestamps: None unless CLOCK_MARKS asks for them
    if "claims" in parameters and not constants.get("DYNAMIC"):
        constants["claims"] = None  # a dynamic tile list's counters: None without one, as in a launch
    if "partials" in parameters and not constants.get("SPLIT_TAIL"):
        constants["partials"] = None  # a split tail's piece buffer: None without one, as in a launch
    signature, constexprs, attrs = {}, dict(constants), {}
    host_descriptors = _host_descriptor_types(constants) if constants.get("HOST_DESCRIPTORS") else {}
    for index, name in enumerate(params):
        if name in constants:
            signature[name] = "constexpr"
        elif name in host_descriptors:
            signature[name] = host_descriptors[name]
        elif name in _POINTERS:
            signature[name] = _POINTERS[name]
            attrs[(index,)] = [["tt.divisibility", 16]]
        elif name in _FLOATS:
            signature[name] = "fp32"
        else:
            fact = _runtime_specialisation(name)
            if fact == 1:
                signature[name] = "constexpr"
                constexprs[name] = 1
            else:
                signature[name] = "i32"
                if fact == "divisible":
                    attrs[(index,)] = [["tt.divisibility", 16]]
    # A Gluon kernel (explicit layouts) is built by Gluon's front end; the rest of the pipeline is shared.
    source_type = ASTSource
    if getattr(kernel, "is_gluon", lambda: False)():
        from triton.experimental.gluon._runtime import GluonASTSource

        source_type = GluonASTSource
    source = source_type(fn=kernel, signature=signature,
                         constexprs={(params.index(k),): v for k, v in constexprs.items()}, attrs=attrs)
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options=config.launch_options())


def cuobjdump(compiled, option: str) -> str:
    """``cuobjdump <option>`` of a compiled kernel's cubin (``-sass``: its SASS; ``-res-usage``: its resources)."""
    with tempfile.TemporaryDirectory() as folder:
        cubin = os.path.join(folder, "kernel.cubin")
        with open(cubin, "wb") as f:
            f.write(compiled.asm["cubin"])
        return subprocess.run([os.path.join(_BIN, "cuobjdump"), option, cubin], capture_output=True, text=True,
                              check=True).stdout


def resources(compiled, num_warps: int) -> dict:
    """Registers, stack, shared memory, programs per SM and the SASS instruction counts of a compiled kernel."""
    usage, sass = cuobjdump(compiled, "-res-usage"), cuobjdump(compiled, "-sass")
    fields = dict(item.split(":", 1) for item in usage.split("Function", 1)[1].split("\n", 1)[1].split())
    registers, stack = int(fields["REG"]), int(fields["STACK"])
    # A program's shared memory: Triton's dynamic bytes plus cuobjdump's SHARED, which for sm_90a is the static bytes
    # plus the 1 KB the driver reserves per block (a kernel with none shows 1024, one with 1,000 static bytes 2024;
    # sm_80's show 0). CUDA's own SHARED_SIZE_BYTES leaves the reservation out (v0.54 call 1: 0 for these kernels), so
    # the 227 KB opt-in limit is on the dynamic bytes, and per multiprocessor (228 KB) this sum is what a program takes.
    shared = compiled.metadata.shared + int(fields["SHARED"])
    threads = 32 * num_warps
    per_sm = min(H200_REGISTERS_PER_SM // (registers * threads), H200_SHARED_PER_SM // shared,
                 H200_MAX_WARPS_PER_SM // num_warps)
    opcodes = Counter()
    previous = ""
    for line in sass.splitlines():
        if "/*" not in line or ";" not in line:
            continue
        text = line.split("*/", 1)[1].strip()
        instruction = text.split(" ")[0]
        # A wait for every warpgroup MMA in flight right before a loop's back edge (a branch to a lower
        # address): the loop drains the tensor cores at the end of each iteration (v0.22's late dV/dK wait
        # moves the fused backward's one from there to after the loop).
        branch = re.search(r"\bBRA (0x[0-9a-f]+)", text)
        if branch and previous.startswith("WARPGROUP.DEPBAR.LE gsb0, 0x0") and \
                int(branch.group(1), 16) < int(line.split("/*", 1)[1].split("*/", 1)[0], 16):
            opcodes["MMA_drains_at_back_edges"] += 1
        previous = text
        # MUFU.RCP: a float reciprocal, and the core of an integer division by a run-time value (v0.51: the
        # persistent forward's decode of a claimed tile id).
        for name in ("HGMMA", "HMMA", "MUFU.EX2", "MUFU.RCP", "LDL", "STL"):
            if instruction.startswith(name):
                opcodes[name] += 1
        # Global stores, 16-byte ones apart (v0.31: the forward's output), predicated ones (masked rows) included.
        words = text.split()
        store = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
        if store.startswith("STG.E"):
            opcodes["STG.E.128" if store.startswith("STG.E.128") else "STG_narrow"] += 1
        if store.startswith("STS"):  # shared-memory stores by width (v0.34: the dQ tiles' 8-byte stores)
            opcodes[store] += 1
        # Bulk tensor loads by rank (v0.44: four-dimensional from the host's descriptors) and the copy engine's
        # descriptor-cache controls that follow a descriptor written in the kernel.
        if instruction.startswith("UTMALDG."):
            opcodes[f"tensor_loads_{instruction.split('.')[1]}"] += 1
        if instruction.startswith("UTMACCTL"):
            opcodes["descriptor_cache_controls"] += 1
        if instruction.startswith(("ATOMG.E.ADD.F32", "RED.E.ADD.F32")):  # float32 adds to global memory
            opcodes["float_atomic_adds"] += 1
        elif instruction.startswith("ATOMG.E.ADD"):  # integer ones (v0.37: a dynamic tile list's claims)
            opcodes["integer_atomic_adds"] += 1
        # A warpgroup MMA that closes a group (gsb0) is one a later wait can name: one per product when its
        # k-steps are issued back to back, one per k-step when ptxas serialises them (its C7512 "insufficient
        # register resources" case, v0.20).
        if instruction.startswith("HGMMA") and "gsb0" in line:
            opcodes["HGMMA_groups"] += 1
    return dict(registers=registers, stack=stack, shared_kb=shared / 1024, programs_per_sm=per_sm, **opcodes)


# (label, kernel, constants, config): the v0.5 tuner's choices on the H200 (variants_b run) and neighbours.
def surveyed():
    fwd, fwd_tma = forward_kernels.attention_forward_kernel, forward_tma_kernels.attention_forward_tma_kernel
    dkdv, dq = backward_kernels.attention_backward_dkdv_kernel, backward_kernels.attention_backward_dq_kernel

    def tma_constants(c, d):
        return dict(BLOCK_M=c.block_m, BLOCK_N=c.block_n, HEAD_DIM=d, IS_CAUSAL=False, IS_VARLEN=False)

    rows = []
    for d, config in ((64, TileConfig(64, 64, 4, 3)), (128, TileConfig(128, 128, 8, 3)),
                      (128, TileConfig(128, 64, 8, 2, max_registers=128))):
        rows.append((f"forward pointer d={d}", fwd, _portable_constants(config, d), config))
    for d, config in ((64, TileConfig(128, 64, 4, 3, "tma")), (128, TileConfig(128, 128, 8, 3, "tma")),
                      (128, TileConfig(128, 64, 8, 2, "tma", 128)), (256, TileConfig(128, 64, 8, 2, "tma"))):
        rows.append((f"forward tma d={d}", fwd_tma, tma_constants(config, d), config))
    # The portable kernel's 64x64 d=64 tile (the tuned choice at d=64 causal 1k in v0.20) and the descriptor
    # kernel's tile of the same shape (measured slower in v0.21), causal: ptxas serialises the former's
    # warpgroup MMAs.
    for label, kernel, config in (("forward pointer 64x64 causal d=64", fwd, TileConfig(64, 64, 4, 3)),
                                  ("forward tma 64x64 causal d=64", fwd_tma, TileConfig(64, 64, 4, 3, "tma"))):
        constants = _portable_constants(config, 64) if config.path == "pointer" else tma_constants(config, 64)
        rows.append((label, kernel, dict(constants, IS_CAUSAL=True), config))
    # Warp-specialised kernels (v0.6): num_warps is per consumer warpgroup; the compiled kernel runs more.
    for d, config in ((128, TileConfig(128, 128, 4, 2, "ws")), (256, TileConfig(128, 64, 4, 1, "ws")),
                      (128, TileConfig(128, 128, 4, 2, "ws", persistent=True)),
                      (256, TileConfig(128, 64, 4, 1, "ws", persistent=True))):
        kernel = forward_ws_kernels.attention_forward_ws_persistent_kernel if config.persistent else \
            forward_ws_kernels.attention_forward_ws_kernel
        rows.append((f"forward ws{' persistent' if config.persistent else ''} d={d}", kernel,
                     dict(BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=d, IS_CAUSAL=False,
                          MAY_MASK=False), config))
    # The Gluon forward (v0.10): two (or three) consumer warpgroups and a loader warp; the tuned tiles, then
    # every other form that a forced path of flashio.check runs on the GPU.
    gluon_forward_tiles = [(d, config) for d, candidates in configs.FORWARD_GLUON_CANDIDATES.items()
                           for config in candidates]
    for _, replacements in check.forced_paths().values():
        for d, candidates in replacements.get("FORWARD_GLUON_CANDIDATES", {}).items():
            gluon_forward_tiles += [(d, config) for config in candidates if (d, config) not in gluon_forward_tiles]
    # v0.51: the candidates that took published_coordinates, also as they were before (their twins without it).
    # (v0.53: not the row-sum forms, which have no such twin among the candidates.)
    gluon_forward_tiles += [(d, replace(config, published_coordinates=False)) for d, config in list(gluon_forward_tiles)
                            if config.published_coordinates and not config.row_sum_mma
                            and (d, replace(config, published_coordinates=False)) not in gluon_forward_tiles]
    for d, config in gluon_forward_tiles if launchers.GLUON_AVAILABLE else ():
        kernel = launchers.forward_gluon_kernels.attention_forward_gluon_persistent_kernel if config.persistent \
            else launchers.forward_gluon_kernels.attention_forward_gluon_kernel
        if config.split_tail:
            # v0.38 (prepared): a split tail changes only non-causal calls; compiled as they run (the split tail's
            # list, LISTED and SPLIT_TAIL) beside the same form's non-causal round-robin compile.
            round_robin = replace(config, split_tail=False)
            rows.append((f"forward {describe_choice(round_robin, 'forward')} non-causal d={d}", kernel,
                         dict(launchers.gluon_forward_constants(round_robin, d), IS_CAUSAL=False), round_robin))
            rows.append((f"forward {describe_choice(config, 'forward')} non-causal d={d}", kernel,
                         dict(launchers.gluon_forward_constants(config, d), IS_CAUSAL=False, LISTED=True,
                              SPLIT_TAIL=True), config))
            continue
        # Each form's tile-list constexprs as its launches take them (causal: the balanced list, claimed with
        # dynamic_schedule; v0.51 with published_coordinates the claimed tiles' packed coordinates).
        rows.append((f"forward {describe_choice(config, 'forward')} d={d}", kernel,
                     dict(launchers.gluon_forward_constants(config, d), IS_CAUSAL=True,
                          **launchers.schedule_constexprs(config, True)), config))
        if config.noncausal_claims:
            # v0.39: non-causal calls of these forms claim their tiles (the dynamic list's kernel form, non-causal).
            rows.append((f"forward {describe_choice(config, 'forward')} non-causal d={d}", kernel,
                         dict(launchers.gluon_forward_constants(config, d), IS_CAUSAL=False,
                              **launchers.schedule_constexprs(config, False)), config))
    for d, config in ((64, TileConfig(64, 128, 4, 2, "ws")), (128, TileConfig(64, 128, 4, 2, "ws")),
                      (128, TileConfig(64, 128, 4, 2, "ws", persistent=True))):
        kernel = backward_ws_kernels.attention_backward_dkdv_ws_persistent_kernel if config.persistent else \
            backward_ws_kernels.attention_backward_dkdv_ws_kernel
        rows.append((f"backward dK/dV ws{' persistent' if config.persistent else ''} d={d}", kernel,
                     dict(BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=d, IS_CAUSAL=False,
                          COMPUTE_DK=True, COMPUTE_DV=True), config))
    config = TileConfig(32, 128, 4, 1, "ws", passes=2)
    for name, flags in (("dV pass", dict(COMPUTE_DK=False, COMPUTE_DV=True)),
                        ("dK pass", dict(COMPUTE_DK=True, COMPUTE_DV=False))):
        rows.append((f"backward {name} ws d=256", backward_ws_kernels.attention_backward_dkdv_ws_kernel,
                     dict(BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=256, IS_CAUSAL=False, **flags),
                     config))
    for d, config in ((64, TileConfig(128, 64, 4, 2, "ws")), (128, TileConfig(128, 128, 4, 2, "ws")),
                      (128, TileConfig(128, 64, 4, 2, "ws"))):
        rows.append((f"backward dQ ws d={d}", backward_ws_kernels.attention_backward_dq_ws_kernel,
                     dict(BLOCK_M=config.block_m, BLOCK_N=config.block_n, HEAD_DIM=d, IS_CAUSAL=False), config))
    # The fused five-product backward (Gluon): the tuned tiles and the forced-only ones ("other tiles" in
    # flashio.check), non-specialised (v0.8), warp-specialised (v0.9: a loader warp and a dQ warp beside
    # the MMA warps), role-split at d=256 (v0.10: two MMA warpgroups) and the persistent specialised form
    # (v0.12), and the specialised forms with LSE/D rows in shared memory (v0.12; tuned from v0.13); surveyed with
    # the Triton release its Gluon was written for.
    gluon_tiles = ((64, TileConfig(64, 64, 4, 2, "gluon", dq_buffers=1)),
                   (64, TileConfig(64, 64, 4, 2, "gluon", dq_buffers=2)),
                   (64, TileConfig(64, 128, 8, 2, "gluon")),
                   (64, TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True)),
                   (128, TileConfig(64, 128, 8, 2, "gluon", dq_chunks=2)),
                   (128, TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True)),
                   (64, TileConfig(64, 64, 4, 2, "gluon", dq_buffers=1, kv_in_registers=True)),
                   (64, TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, kv_in_registers=True)),
                   (64, TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, kv_in_registers=True,
                                   persistent=True)),
                   (128, TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, persistent=True)),
                   (64, TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, kv_in_registers=True,
                                   stats_in_shared=True)),
                   (128, TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, stats_in_shared=True)),
                   (128, TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, persistent=True,
                                    stats_in_shared=True)),
                   # d=256's role-split tiles with 4-byte dK/dV stores, as they were before v0.33 (16-byte: below)
                   *((256, replace(config, wide_stores=False)) for config in _ROLE_SPLIT_TILES))
    for d, config in gluon_tiles if launchers.GLUON_AVAILABLE else ():
        kernel, constants = launchers.fused_backward_kernel(config, d)
        form = " split" if config.split_roles else " ws" if config.warp_specialised else ""
        form += " persistent" if config.persistent else ""
        form += " stats-smem" if config.stats_in_shared else ""
        rows.append((f"backward fused gluon{form}{' kv-regs' if config.kv_in_registers else ''} d={d}", kernel,
                     dict(constants, IS_CAUSAL=False), config))
    # The persistent form's causal compile taking its key blocks from a balanced tile list (v0.18, LISTED).
    if launchers.GLUON_AVAILABLE:
        config = TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, persistent=True, stats_in_shared=True,
                            balanced_schedule=True)
        kernel, constants = launchers.fused_backward_kernel(config, 128)
        rows.append(("backward fused gluon ws persistent stats-smem balanced causal d=128", kernel,
                     dict(constants, IS_CAUSAL=True, LISTED=True), config))
        # The tuned d=64 forms since v0.19/v0.20: three or four Q/dO slots and two dS^T tiles (one barrier per
        # query block).
        for config in configs.BACKWARD_FUSED_CANDIDATES[64]:
            config = replace(config, wide_stores=False)  # as they were before v0.32 (16-byte stores: below)
            kernel, constants = launchers.fused_backward_kernel(config, 64)
            rows.append((f"backward fused gluon ws persistent ds2 {config.num_stages} slots stats-smem kv-regs "
                         "balanced causal d=64", kernel, dict(constants, IS_CAUSAL=True, LISTED=True), config))
        # The tuned d=128 persistent form since v0.20: three Q/dO slots and one dQ tile, with the balanced list.
        config = TileConfig(64, 128, 8, 3, "gluon", dq_buffers=1, warp_specialised=True, persistent=True,
                            stats_in_shared=True, balanced_schedule=True)
        kernel, constants = launchers.fused_backward_kernel(config, 128)
        for causal in (False, True):
            label = "backward fused gluon ws persistent 3 slots one dQ tile stats-smem balanced" + \
                (" causal d=128" if causal else " d=128")
            rows.append((label, kernel, dict(constants, IS_CAUSAL=causal, **({"LISTED": True} if causal else {})),
                         config))
        # v0.22 (prepared): a block's dV and dK products waited at the next block's S^T wait, not at its end:
        # the tuned d=64 forms (two dS^T tiles). (At d=128 ptxas serialises that form: refused there.)
        for tuned in configs.BACKWARD_FUSED_CANDIDATES[64]:
            config = replace(tuned, late_key_gradient_wait=True, wide_stores=False)
            kernel, constants = launchers.fused_backward_kernel(config, 64)
            for causal in (False, True):
                rows.append((f"backward fused gluon ws persistent late dK/dV wait two-ds {config.num_stages} slots "
                             f"stats-smem{' kv-regs' if config.kv_in_registers else ''} balanced"
                             f"{' causal' if causal else ''} d=64", kernel,
                             dict(constants, IS_CAUSAL=causal, **({"LISTED": True} if causal else {})), config))
        # v0.23: the tuned persistent forms with a split tail (non-causal: the last round's key blocks in pieces
        # whose dK/dV go to a float32 buffer by atomic adds).
        for d, config in ((64, configs.BACKWARD_FUSED_CANDIDATES[64][0]),
                          (128, configs.BACKWARD_FUSED_CANDIDATES[128][1])):
            config = replace(config, split_tail=True, wide_stores=False, spread_dq_stores=False, queries_first=False)
            kernel, constants = launchers.fused_backward_kernel(config, d)
            label = f"backward fused gluon ws persistent split tail {config.num_stages} slots stats-smem d={d}"
            rows.append((label, kernel, dict(constants, IS_CAUSAL=False, LISTED=True, SPLIT_TAIL=True), config))
        # v0.32: the tuned persistent forms storing dK and dV 16 bytes at a time (tuned since v0.32, d=64's
        # four-slot form since v0.33), causal (the balanced list) and non-causal (their split tail), beside the same
        # with 4-byte stores (above: the d=64 causal rows, the d=128 rows and the split-tail rows).
        for d, tuned in [(64, config) for config in configs.BACKWARD_FUSED_CANDIDATES[64]] + \
                [(128, configs.BACKWARD_FUSED_CANDIDATES[128][1])]:
            # d=128's tuned form has both (v0.35) and its loader's v0.42 order: these rows keep the v0.32 forms
            config = replace(tuned, wide_stores=True, spread_dq_stores=False, queries_first=False)
            kernel, constants = launchers.fused_backward_kernel(config, d)
            for causal, listed in ((True, {"LISTED": True}), (False, {"LISTED": True, "SPLIT_TAIL": True})):
                rows.append((f"backward fused gluon 16-byte dK/dV, tuned {config.num_stages} slots stats-smem"
                             f"{' causal' if causal else ' split tail'} d={d}", kernel,
                             dict(constants, IS_CAUSAL=causal, **listed), config))
        # v0.32 (prepared; tuned since v0.33): the d=256 role-split forms storing dK and dV 16 bytes at a time.
        for tuned in _ROLE_SPLIT_TILES:
            config = replace(tuned, wide_stores=True)
            kernel, constants = launchers.fused_backward_kernel(config, 256)
            rows.append((f"backward fused gluon 16-byte dK/dV, role split {config.num_stages} Q slots d=256", kernel,
                         dict(constants, IS_CAUSAL=False), config))
        # v0.44: d=256's tuned role-split tile loading K and V, or Q, K, V and dO, through descriptors made on the
        # host.
        for count in (2, 4):
            config = replace(_ROLE_SPLIT_TILES[0], host_descriptors=count)
            kernel, constants = launchers.fused_backward_kernel(config, 256)
            for causal in (False, True):
                rows.append((f"backward fused gluon {count} host descriptors, role split"
                             f"{' causal' if causal else ''} d=256", kernel, dict(constants, IS_CAUSAL=causal), config))
        # v0.34: the tuned forms (each head dim's last candidate) with their float32 dQ tiles stored without bank
        # conflicts (spread_dq_stores; d=128's tuned form since v0.35), causal (the balanced list) and non-causal
        # (split tail) where persistent.
        for d in (64, 128, 256):
            # (d=256 as before v0.44, its loader writing K/V descriptors, as the row it is compared with)
            config = replace(configs.BACKWARD_FUSED_CANDIDATES[d][-1], spread_dq_stores=True, queries_first=False,
                             host_descriptors=0)
            kernel, constants = launchers.fused_backward_kernel(config, d)
            cases = ((True, {"LISTED": True}), (False, {"LISTED": True, "SPLIT_TAIL": True})) if config.persistent \
                else ((False, {}),)
            for causal, listed in cases:
                rows.append((f"backward fused gluon spread dQ stores, tuned{' causal' if causal else ''} d={d}", kernel,
                             dict(constants, IS_CAUSAL=causal, **listed), config))
        # v0.37: the tuned persistent forms (d=128's tuned with it; d=64's last candidate, the check's forced path)
        # claiming their causal key blocks one at a time from one list (DYNAMIC).
        for d in (64, 128):
            config = replace(configs.BACKWARD_FUSED_CANDIDATES[d][-1], dynamic_schedule=True, queries_first=False)
            kernel, constants = launchers.fused_backward_kernel(config, d)
            rows.append((f"backward fused gluon dynamic tile list, tuned causal d={d}", kernel,
                         dict(constants, IS_CAUSAL=True, LISTED=True, DYNAMIC=True), config))
        # v0.39 (prepared): the same forms claiming their non-causal key blocks one at a time, in order
        # (noncausal_claims, without the split tail), compiled non-causal with the dynamic list.
        for d in (64, 128):
            config = replace(configs.BACKWARD_FUSED_CANDIDATES[d][-1].claims_form(), queries_first=False)
            kernel, constants = launchers.fused_backward_kernel(config, d)
            rows.append((f"backward fused gluon non-causal claims, tuned d={d}", kernel,
                         dict(constants, IS_CAUSAL=False, LISTED=True, DYNAMIC=True), config))
        # v0.41: the tuned d=64 persistent forms with two K/V slots (kv_slots=2), causal (the balanced list) and
        # non-causal (the split tail's list).
        for config in configs.BACKWARD_FUSED_CANDIDATES[64]:
            config = replace(config, kv_slots=2)
            kernel, constants = launchers.fused_backward_kernel(config, 64)
            for causal in (True, False):
                rows.append((f"backward fused gluon two K/V slots, tuned {config.num_stages} slots"
                             f"{' causal' if causal else ''} d=64", kernel,
                             dict(constants, IS_CAUSAL=causal, **launchers.schedule_constexprs(config, causal)), config))
        # v0.42: d=128's tuned one-slot forms (causal: the dynamic list; non-causal: its claims form), whose loader
        # requests a key block's first query blocks before the K/V slot wait (queries_first; the rows above keep the
        # forms without it).
        for causal, config in ((True, configs.BACKWARD_FUSED_CANDIDATES[128][1].causal_form()),
                               (False, configs.BACKWARD_FUSED_CANDIDATES[128][1].claims_form())):
            config = replace(config, queries_first=True)
            kernel, constants = launchers.fused_backward_kernel(config, 128)
            rows.append((f"backward fused gluon queries first, tuned{' causal' if causal else ' non-causal'} d=128",
                         kernel, dict(constants, IS_CAUSAL=causal, **launchers.schedule_constexprs(config, causal)),
                         config))
        # v0.23 (v0.24: correct, not faster): the d=256 role-split form in a persistent grid over a tile list,
        # causal (the balanced list) and non-causal with a split tail; the tuned tile (one Q slot, 64-column dQ
        # chunks).
        config = replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], persistent=True, balanced_schedule=True,
                         host_descriptors=0, split_tail=True, wide_stores=False)
        kernel, constants = launchers.fused_backward_kernel(config, 256)
        for causal, listed in ((True, {"LISTED": True}), (False, {"LISTED": True, "SPLIT_TAIL": True})):
            rows.append((f"backward fused gluon split persistent{' causal' if causal else ' split tail'} d=256",
                         kernel, dict(constants, IS_CAUSAL=causal, **listed), config))
        # The key rows on two MMA partitions (v0.19; kernels/backward_gluon_rows.py; measured in v0.20), d=128.
        config = TileConfig(64, 128, 4, 2, "gluon", warp_specialised=True, persistent=True, stats_in_shared=True,
                            balanced_schedule=True, split_rows=True)
        kernel, constants = launchers.fused_backward_kernel(config, 128)
        for causal in (False, True):
            label = "backward fused gluon rows on two partitions, persistent stats-smem balanced" + \
                (" causal d=128" if causal else " d=128")
            listed = {"LISTED": True} if causal else {}
            rows.append((label, kernel, dict(constants, IS_CAUSAL=causal, **listed), config))
    for d, config in ((64, TileConfig(32, 128, 4, 3)), (64, TileConfig(64, 64, 4, 3)),
                      (128, TileConfig(64, 128, 8, 3)), (256, TileConfig(32, 32, 4, 2)),
                      (256, TileConfig(64, 64, 8, 1)), (256, TileConfig(32, 64, 8, 2))):
        rows.append((f"backward dK/dV d={d}", dkdv,
                     _portable_constants(config, d, ATOMIC_DQ=False, COMPUTE_DK=True, COMPUTE_DV=True), config))
    for config in (TileConfig(64, 64, 8, 2, passes=2), TileConfig(32, 64, 4, 2, passes=2)):
        for name, flags in (("dV pass", dict(COMPUTE_DK=False, COMPUTE_DV=True)),
                            ("dK pass", dict(COMPUTE_DK=True, COMPUTE_DV=False))):
            rows.append((f"backward {name} d=256", dkdv, _portable_constants(config, 256, ATOMIC_DQ=False, **flags),
                         config))
    for d, config in ((64, TileConfig(128, 64, 8, 3)), (128, TileConfig(128, 128, 8, 2)),
                      (256, TileConfig(64, 32, 4, 2)), (256, TileConfig(64, 64, 8, 2))):
        rows.append((f"backward dQ d={d}", dq, _portable_constants(config, d), config))
    return rows


# d=256's role-split tiles surveyed: the tuned one (one Q slot, 64-column dQ chunks) and the two-slot tile with
# 32-column chunks, a candidate until v0.33 (configs.BACKWARD_FUSED_CANDIDATES says why it is not timed now).
# Both as they were before v0.44, each program writing its own K/V descriptors (the tuned tile takes K and V through
# descriptors made on the host since; its rows: "host descriptors").
_ROLE_SPLIT_TILES = (
    replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], host_descriptors=0),
    replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], num_stages=2, dq_chunks=8, host_descriptors=0),
)


def _measure_row(label: str, kernel, constants: dict, config: TileConfig) -> dict:
    """One surveyed configuration compiled: label, tiles, and ``resources``' fields, or ``error``."""
    row = dict(label=label, block_m=config.block_m, block_n=config.block_n, num_warps=config.num_warps,
               num_stages=config.num_stages, max_registers=config.max_registers, passes=config.passes)
    try:
        compiled = compile_for_hopper(kernel, constants, config)
        # A warp-specialised kernel runs more warps than asked for (its producer and consumers).
        warps = getattr(compiled.metadata, "num_warps", config.num_warps)
        row["num_warps"] = warps
        row.update(resources(compiled, warps))
    except Exception as exc:  # report a configuration that does not compile, keep going
        row["error"] = str(exc).splitlines()[0][:120]
    return row


@functools.lru_cache(maxsize=1)
def _worker_survey() -> tuple:
    """A worker process's own survey, built once per worker (``_measure_index``)."""
    return tuple(surveyed())


def _measure_index(index: int) -> dict:
    """A worker process's row: the survey's ``index``-th configuration, found again in the worker's own list (the
    kernels themselves do not cross the process boundary; ``surveyed`` builds the same list in every process)."""
    return _measure_row(*_worker_survey()[index])


def measure(match: str = "", processes: int = 1) -> list[dict]:
    """Compile the surveyed configurations whose label contains ``match``; one dict per configuration, in the
    survey's order (``_measure_row``). With ``processes`` > 1 they compile in that many spawned worker processes
    (v0.52: the Gluon forward's ~150 rows were the test suite's longest serial step, ~17 minutes on the 2-core
    sandbox beside the suite's other worker)."""
    survey = surveyed()
    selected = [index for index, (label, *_) in enumerate(survey) if match in label]
    if processes <= 1 or len(selected) <= 1:
        return [_measure_row(*survey[index]) for index in selected]
    with ProcessPoolExecutor(max_workers=min(processes, len(selected)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(_measure_index, selected))


def markdown_table(rows: list[dict]) -> str:
    """``measure``'s rows as the Markdown table of benchmarks/PERFORMANCE.md."""
    lines = ["| kernel | tiles (m×n, warps, stages, reg cap) | registers | stack B | shared KB | programs/SM | "
             "HGMMA | HMMA | MUFU.EX2 | LDL | STL |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        tiles = f"{r['block_m']}×{r['block_n']}, {r['num_warps']}, {r['num_stages']}, {r['max_registers'] or '-'}"
        if "error" in r:
            lines.append(f"| {r['label']} | {tiles} | does not compile: {r['error']} |")
            continue
        lines.append(f"| {r['label']} | {tiles} | {r['registers']} | {r['stack']} | {r['shared_kb']:.0f} | "
                     f"{r['programs_per_sm']} | {r.get('HGMMA', 0)} | {r.get('HMMA', 0)} | {r.get('MUFU.EX2', 0)} | "
                     f"{r.get('LDL', 0)} | {r.get('STL', 0)} |")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flashio.bench.resources", description=__doc__.split("\n")[0])
    parser.add_argument("--match", default="", help="only configurations whose label contains this text")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    parser.add_argument("--processes", type=int, default=1, metavar="N",
                        help="compile in N spawned worker processes (default 1: in this one)")
    args = parser.parse_args(argv)
    if os.environ.get("TRITON_INTERPRET", "0") == "1":
        parser.exit(2, "flashio.bench.resources: unset TRITON_INTERPRET (interpreted kernels cannot be compiled)\n")
    if args.processes < 1:
        parser.error(f"--processes takes a count of at least 1, got {args.processes}")
    rows = measure(args.match, args.processes)
    print(json.dumps(rows, indent=1) if args.json else markdown_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
