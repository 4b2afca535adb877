"""Compiling kernels for sm_90a on the CPU from the tests: this suite runs under TRITON_INTERPRET=1, where kernels
are interpreted and cannot be compiled, so the compiler runs in a subprocess without it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import triton

_TOOLS = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
_SRC = Path(__file__).resolve().parents[2] / "src"

# A module's ``pytestmark``: without NVIDIA's assembler and disassembler in the Triton wheel nothing can be compiled.
requires_nvidia_tools = pytest.mark.skipif(
    not (_TOOLS / "cuobjdump").exists() or not (_TOOLS / "ptxas").exists(),
    reason="this Triton build ships no NVIDIA ptxas/cuobjdump to compile with")


def run_without_interpreter(arguments: list[str]) -> subprocess.CompletedProcess:
    """``python arguments...`` with flashio's sources importable and TRITON_INTERPRET unset; fails the test on a
    non-zero exit, with the end of its stderr."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_SRC), env.get("PYTHONPATH", "")]))
    # 72 Gluon forward kernels compile in 7.7 min on an empty Triton cache on one core of the 2-CPU sandbox
    # (v0.41), and slower beside the suite's other worker: 600 s stopped them there.
    done = subprocess.run([sys.executable, *arguments], capture_output=True, text=True, env=env, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    return done
