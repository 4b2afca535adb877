"""GPU database: the figures the IO and time model need, each with its unit and source.

Every number comes from ``shared/reference/gpu_specs.md`` (public datasheets and whitepapers, the CUDA
Programming Guide's per-compute-capability table, and the H200 read off the device). Rows marked ``*``
there were not re-checked against a primary document; such GPUs carry ``checked=False`` and the note says
so. Nothing here is fitted: the efficiency factors of the time model live in ``calibration.py`` and come
from H200 measurements only.

Users add GPUs from a small TOML (Python 3.11+) or JSON file whose keys are the field names of
:class:`GPUSpec` (a file may hold one table or a list ``gpus = [...]``), and override single figures with
:func:`with_overrides` (the ``--bandwidth-gbs`` ... options of the command line).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

KIB = 1024
MIB = 1024 * 1024


class UnknownGPUError(KeyError):
    """Raised for a GPU name that is neither in the database nor in a user file."""


@dataclass(frozen=True)
class GPUSpec:
    """One GPU, in the units of gpu_specs.md.

    Derived rates (properties) follow the notes of gpu_specs.md:
    - exp (special-function unit) rate = 16 ops/clock/SM × SMs × boost clock;
    - bytes per second = bandwidth_gbs × 1e9 (datasheet GB are 10^9 bytes).
    """

    name: str  # short lowercase slug, e.g. "h200"
    full_name: str
    compute_capability: str  # "9.0"; "cdna3" for AMD
    hbm_bandwidth_gbs: float  # GB/s (10^9 bytes/s), datasheet peak DRAM bandwidth
    memory_gb: float  # GB of DRAM
    sm_count: int  # streaming multiprocessors (CUs on AMD)
    smem_per_sm_kib: float  # KiB of shared memory per SM (maximum carve-out)
    smem_per_block_kib: float  # KiB of shared memory one thread block may allocate
    l2_mib: float  # MiB of the last-level cache in front of DRAM
    register_file_kib: float  # KiB of registers per SM
    tensor_tflops: float  # dense FP16/BF16 tensor TFLOP/s with FP32 accumulation
    fp32_tflops: float  # non-tensor FP32 TFLOP/s (an FMA counts 2)
    boost_clock_mhz: float
    bf16: bool = True  # T4/V100 have FP16 tensor cores only
    # Which matrix instruction reaches the datasheet tensor rate: "mma.sync" (Volta..Ada: the warp-level
    # instruction FlashAttention-1/2 use), "wgmma" (Hopper), "tcgen05" (Blackwell), "mfma" (AMD CDNA).
    native_mma: str = "mma.sync"
    sfu_ops_per_clock_per_sm: int = 16
    checked: bool = True  # False for the rows marked * in gpu_specs.md
    source: str = ""
    notes: str = ""

    # --- derived rates (SI units) ---
    @property
    def bandwidth_bytes_per_s(self) -> float:
        return self.hbm_bandwidth_gbs * 1e9

    @property
    def tensor_flops_per_s(self) -> float:
        return self.tensor_tflops * 1e12

    @property
    def fp32_flops_per_s(self) -> float:
        return self.fp32_tflops * 1e12

    @property
    def exp_ops_per_s(self) -> float:
        """Special-function-unit rate: 16 per clock per SM (gpu_specs.md, 'Other facts')."""
        return self.sfu_ops_per_clock_per_sm * self.sm_count * self.boost_clock_mhz * 1e6

    @property
    def smem_per_sm_bytes(self) -> int:
        return int(self.smem_per_sm_kib * KIB)

    @property
    def smem_per_block_bytes(self) -> int:
        return int(self.smem_per_block_kib * KIB)

    @property
    def l2_bytes(self) -> int:
        return int(self.l2_mib * MIB)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the stored figures plus the derived rates, for ``flashio gpus --json``."""
        data = dataclasses.asdict(self)
        data["exp_tops"] = self.exp_ops_per_s / 1e12
        return data


_SPECS_MD = "shared/reference/gpu_specs.md"
_UNCHECKED = "row marked * in gpu_specs.md: not re-checked against a primary document"

GPUS: dict[str, GPUSpec] = {
    spec.name: spec
    for spec in [
        GPUSpec("t4", "NVIDIA T4", "7.5", 320, 16, 40, 64, 64, 4, 256, 65, 8.1, 1590, bf16=False,
                source=f"{_SPECS_MD} (Turing datasheet)",
                notes="65 TFLOP/s is the datasheet's mixed-precision (FP16 inputs, FP32 accumulate) rate, "
                      "full rate on this data-centre card; 65 and 8.1 TFLOP/s are boost-clock figures "
                      "(40 SMs x 8 tensor cores x 128 FLOP/clock, 2560 lanes x 2 FLOP/clock, at 1590 MHz). "
                      "70 W board: the datasheet base clock is 585 MHz and the clock it sustains under "
                      "tensor load is not documented (see at_clock and docs/model.md). FlashAttention-2 "
                      "does not support Turing: only --kernel fa1 corresponds to a published T4 kernel"),
        GPUSpec("v100", "NVIDIA V100 SXM2", "7.0", 900, 32, 80, 96, 96, 6, 256, 125, 15.7, 1530, bf16=False,
                checked=False, source=_SPECS_MD, notes=_UNCHECKED),
        GPUSpec("rtx3090", "NVIDIA GeForce RTX 3090", "8.6", 936, 24, 82, 100, 99, 6, 256, 71, 35.6, 1695,
                checked=False, source=_SPECS_MD,
                notes=_UNCHECKED + "; 71 TFLOP/s is the FP32-accumulate rate (142 with FP16 accumulate)"),
        GPUSpec("a100-40gb", "NVIDIA A100 40GB SXM", "8.0", 1555, 40, 108, 164, 163, 40, 256, 312, 19.5, 1410,
                checked=False, source=_SPECS_MD, notes=_UNCHECKED),
        GPUSpec("a100-80gb", "NVIDIA A100 80GB SXM", "8.0", 2039, 80, 108, 164, 163, 40, 256, 312, 19.5, 1410,
                checked=False, source=_SPECS_MD, notes=_UNCHECKED),
        GPUSpec("rtx4090", "NVIDIA GeForce RTX 4090", "8.9", 1008, 24, 128, 100, 99, 72, 256, 165, 82.6, 2520,
                checked=False, source=_SPECS_MD,
                notes=_UNCHECKED + "; 165 TFLOP/s is the FP32-accumulate rate (330 with FP16 accumulate)"),
        GPUSpec("l4", "NVIDIA L4", "8.9", 300, 24, 58, 100, 99, 48, 256, 121, 30.3, 2040,
                source=f"{_SPECS_MD} (Ada datasheet)"),
        GPUSpec("l40s", "NVIDIA L40S", "8.9", 864, 48, 142, 100, 99, 96, 256, 362, 91.6, 2520,
                source=f"{_SPECS_MD} (Ada datasheet)"),
        GPUSpec("h100-sxm", "NVIDIA H100 SXM5", "9.0", 3350, 80, 132, 228, 227, 50, 256, 989, 67, 1980,
                native_mma="wgmma", checked=False, source=_SPECS_MD, notes=_UNCHECKED),
        GPUSpec("h100-pcie", "NVIDIA H100 PCIe", "9.0", 2000, 80, 114, 228, 227, 50, 256, 756, 51, 1755,
                native_mma="wgmma", checked=False, source=_SPECS_MD, notes=_UNCHECKED),
        GPUSpec("h200", "NVIDIA H200 SXM", "9.0", 4800, 141, 132, 228, 227, 60, 256, 989, 67, 1980,
                native_mma="wgmma",
                source=f"{_SPECS_MD}; SMs, L2 (60 MiB) and shared memory read off the device",
                notes="the calibration GPU: every efficiency factor of the time model is measured here"),
        GPUSpec("b200", "NVIDIA B200", "10.0", 8000, 180, 148, 228, 227, 60, 256, 2250, 80, 1950,
                native_mma="tcgen05", checked=False, source=_SPECS_MD,
                notes=_UNCHECKED + "; L2 size not confirmed: 60 MiB assumed (the H200 value), a placeholder"),
        GPUSpec("mi300x", "AMD Instinct MI300X", "cdna3", 5300, 192, 304, 64, 64, 256, 512, 1307, 163, 2100,
                native_mma="mfma", checked=False, source=_SPECS_MD,
                notes=_UNCHECKED + "; 'SMs' are compute units, shared memory is the 64 KB LDS; the cache in "
                "front of HBM is the 256 MB Infinity Cache (used as l2_mib; the 8×4 MB XCD L2s are smaller); "
                "16 transcendental ops/clock/CU is an NVIDIA figure assumed here"),
    ]
}

OVERRIDABLE_FIELDS = (
    "hbm_bandwidth_gbs", "smem_per_sm_kib", "smem_per_block_kib", "sm_count", "l2_mib",
    "tensor_tflops", "fp32_tflops", "boost_clock_mhz",
)

_FIELD_TYPES = {f.name: f.type for f in dataclasses.fields(GPUSpec)}


def _coerce(name: str, value: Any) -> Any:
    kind = _FIELD_TYPES[name]
    if kind in ("int", int):
        return int(value)
    if kind in ("float", float):
        return float(value)
    if kind in ("bool", bool):
        return bool(value)
    return str(value)


def spec_from_mapping(data: Mapping[str, Any]) -> GPUSpec:
    """Build a GPUSpec from a user mapping; ``based_on`` copies an existing GPU and overrides its figures."""
    data = dict(data)
    base_name = data.pop("based_on", None)
    unknown = set(data) - set(_FIELD_TYPES)
    if unknown:
        raise ValueError(f"unknown GPU fields {sorted(unknown)}; known fields: {sorted(_FIELD_TYPES)}")
    if base_name is not None:
        base = get_gpu(str(base_name))
        values = {k: _coerce(k, v) for k, v in data.items()}
        values.setdefault("full_name", values.get("name", base.full_name))
        spec = dataclasses.replace(base, **values)
    else:
        required = [f.name for f in dataclasses.fields(GPUSpec) if f.default is dataclasses.MISSING]
        missing = [k for k in required if k not in data]
        if missing:
            raise ValueError(f"GPU file entry lacks {missing} (or give based_on = \"<known gpu>\")")
        spec = GPUSpec(**{k: _coerce(k, v) for k, v in data.items()})
    validate_spec(spec)
    return spec


def validate_spec(spec: GPUSpec) -> None:
    """Reject figures the model cannot use (non-positive rates or sizes)."""
    for name in ("hbm_bandwidth_gbs", "sm_count", "smem_per_sm_kib", "smem_per_block_kib", "l2_mib",
                 "tensor_tflops", "fp32_tflops", "boost_clock_mhz"):
        if not getattr(spec, name) > 0:
            raise ValueError(f"GPU {spec.name!r}: {name} must be positive, got {getattr(spec, name)}")
    if spec.smem_per_block_kib > spec.smem_per_sm_kib:
        raise ValueError(f"GPU {spec.name!r}: shared memory per block exceeds shared memory per SM")


def load_gpu_file(path: str | Path) -> list[GPUSpec]:
    """Read GPUs from a TOML file (Python 3.11+, ``tomllib``) or a JSON file.

    Accepted shapes: one table of fields; ``{"gpus": [table, ...]}``; or (JSON) a list of tables.
    On Python 3.10, where tomllib is missing, TOML files are refused with a message asking for JSON.
    """
    path = Path(path)
    text = path.read_text()
    if path.suffix.lower() == ".toml":
        try:
            import tomllib  # Python 3.11+
        except ModuleNotFoundError as exc:  # pragma: no cover - only on Python 3.10
            raise ValueError(f"{path}: TOML needs Python 3.11+ (tomllib); write the GPU as JSON") from exc
        data: Any = tomllib.loads(text)
    else:
        data = json.loads(text)
    if isinstance(data, Mapping) and "gpus" in data:
        entries = data["gpus"]
    elif isinstance(data, list):
        entries = data
    else:
        entries = [data]
    return [spec_from_mapping(entry) for entry in entries]


def register_gpus(specs: Iterable[GPUSpec]) -> None:
    """Add user GPUs to the database of this process (a later name replaces an earlier one)."""
    for spec in specs:
        GPUS[spec.name] = spec


def get_gpu(name: str) -> GPUSpec:
    """Look a GPU up by slug (case-insensitive)."""
    key = name.strip().lower()
    if key not in GPUS:
        raise UnknownGPUError(f"unknown GPU {name!r}; known: {', '.join(GPUS)}")
    return GPUS[key]


def with_overrides(spec: GPUSpec, **overrides: float | None) -> GPUSpec:
    """Return ``spec`` with some figures replaced (None means keep); names from OVERRIDABLE_FIELDS."""
    values = {k: _coerce(k, v) for k, v in overrides.items() if v is not None}
    bad = set(values) - set(OVERRIDABLE_FIELDS)
    if bad:
        raise ValueError(f"cannot override {sorted(bad)}; overridable: {OVERRIDABLE_FIELDS}")
    if not values:
        return spec
    # Raising the per-SM shared memory above the per-block limit keeps the block limit; raising the block
    # limit above the SM lifts the SM figure with it, so a single --smem-kib override stays consistent.
    if "smem_per_sm_kib" in values and "smem_per_block_kib" not in values:
        values["smem_per_block_kib"] = min(spec.smem_per_block_kib, values["smem_per_sm_kib"]) \
            if values["smem_per_sm_kib"] < spec.smem_per_block_kib else \
            spec.smem_per_block_kib * values["smem_per_sm_kib"] / spec.smem_per_sm_kib
    if "smem_per_block_kib" in values and values["smem_per_block_kib"] > values.get("smem_per_sm_kib",
                                                                                    spec.smem_per_sm_kib):
        values["smem_per_sm_kib"] = values["smem_per_block_kib"]
    new = dataclasses.replace(spec, **values)
    validate_spec(new)
    return new


def at_clock(spec: GPUSpec, clock_mhz: float) -> GPUSpec:
    """``spec`` running at ``clock_mhz`` instead of its boost clock.

    Datasheet tensor and FP32 rates are boost-clock figures, and the exp rate is derived from the clock,
    so all three scale with clock_mhz / boost_clock_mhz; bandwidth, memory sizes and SM count do not.
    For a power-limited card (the 70 W T4) the clock sustained under load lies between the datasheet base
    and boost clocks; this gives the model at any assumed clock without fitting one.
    """
    if not clock_mhz > 0:
        raise ValueError(f"clock must be positive, got {clock_mhz}")
    factor = clock_mhz / spec.boost_clock_mhz
    return with_overrides(spec, tensor_tflops=spec.tensor_tflops * factor, fp32_tflops=spec.fp32_tflops * factor,
                          boost_clock_mhz=clock_mhz)


# Datasheet base clocks, where the model's documents give one (MHz): the guaranteed floor under load.
BASE_CLOCK_MHZ = {"t4": 585.0}


__all__ = [
    "GPUSpec", "GPUS", "UnknownGPUError", "OVERRIDABLE_FIELDS", "get_gpu", "with_overrides",
    "load_gpu_file", "register_gpus", "spec_from_mapping", "validate_spec", "at_clock", "BASE_CLOCK_MHZ",
]
