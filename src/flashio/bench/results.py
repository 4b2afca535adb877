"""Writing benchmark results: CSV and JSON, with the machine and library versions they came from."""

from __future__ import annotations

import csv
import datetime
import json
import platform
from dataclasses import fields
from pathlib import Path
from typing import Optional, Sequence


def environment() -> dict:
    """GPU name, driver, library versions and the time: stored with every result file."""
    import torch

    info = {
        "time_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "gpu": None,
        "driver": None,
    }
    try:
        import triton

        info["triton"] = triton.__version__
    except ImportError:  # pragma: no cover - triton is a dependency
        info["triton"] = None
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        info["gpu"] = props.name
        info["sm_count"] = props.multi_processor_count
        info["cudnn"] = torch.backends.cudnn.version()
        try:
            import subprocess

            info["driver"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            info["driver"] = None
    try:
        import flashio

        info["flashio"] = flashio.__version__
    except ImportError:  # pragma: no cover
        info["flashio"] = None
    return info


def write_results(results: Sequence, folder: Path, stem: str = "bench", ceilings: Optional[dict] = None,
                  extra: Optional[dict] = None) -> tuple[Path, Path]:
    """Write ``stem.csv`` (one row per result) and ``stem.json`` (environment, ceilings, results)."""
    from flashio.bench.sweep import BenchResult

    folder.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = folder / f"{stem}.csv", folder / f"{stem}.json"
    names = [f.name for f in fields(BenchResult)]
    with csv_path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=names)
        writer.writeheader()
        for result in results:
            writer.writerow(result.to_dict())
    payload = {"environment": environment(), "ceilings": ceilings, **(extra or {}),
               "results": [r.to_dict() for r in results]}
    json_path.write_text(json.dumps(payload, indent=1, default=str))
    return csv_path, json_path
