"""``flashio predict`` and ``flashio explain`` (filled in with the time model)."""

from __future__ import annotations


def register(subparsers, add_gpu_file_option, add_override_options, resolve_gpu, positive_int, probability) -> None:
    """Add ``predict`` and ``explain`` to the parser."""
