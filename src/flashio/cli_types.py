"""Argument types shared by the ``flashio`` subcommands: each parses one command-line value or raises
``argparse.ArgumentTypeError`` naming what was expected and what came (argparse turns it into a usage
error with exit code 2)."""

from __future__ import annotations

import argparse
from typing import Callable


def _number(text: str, convert: Callable[[str], float], expected: str, accept: Callable[[float], bool]):
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or not accept(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    return _number(text, int, "a positive integer", lambda v: v > 0)


def positive_float(text: str) -> float:
    return _number(text, float, "a positive number", lambda v: v > 0)


def probability(text: str) -> float:
    return _number(text, float, "a dropout probability in [0, 1)", lambda v: 0.0 <= v < 1.0)


def fraction(text: str) -> float:
    return _number(text, float, "a block-sparse fraction in (0, 1]", lambda v: 0.0 < v <= 1.0)
