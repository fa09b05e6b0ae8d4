"""Unit conversion shared by the parsers: sizes to bytes, speeds to Mb/s, times to ms."""

from __future__ import annotations

import re

from fablint.model import Threshold

_SIZE_FACTORS = {
    "bytes": 1,
    "byte": 1,
    "b": 1,
    "kbytes": 1024,
    "kb": 1024,
    "kbyte": 1024,
    "mbytes": 1024 * 1024,
    "mb": 1024 * 1024,
    "mbyte": 1024 * 1024,
    "gbytes": 1024 * 1024 * 1024,
}
"""Vendor CLIs (EOS, NX-OS) count kbytes and mbytes in powers of two."""

UNCONVERTIBLE_UNITS = frozenset(
    {"segments", "cells", "packets", "milliseconds", "microseconds", "ms", "us"}
)
"""Units that depend on the platform (segment or cell size) or on the drain rate (time)."""


def threshold(value: str, unit: str) -> Threshold:
    """A queue threshold; raises ValueError on a number or unit that is not understood."""
    number = float(value)
    if number < 0 or number != number:  # negative or NaN
        raise ValueError(f"invalid threshold {value!r}")
    key = unit.lower()
    factor = _SIZE_FACTORS.get(key)
    if factor is not None:
        return Threshold(value=number, unit=key, bytes=int(number * factor))
    if key in UNCONVERTIBLE_UNITS:
        return Threshold(value=number, unit=key, bytes=None)
    raise ValueError(f"unknown threshold unit {unit!r}")


_SPEED_RE = re.compile(r"^(\d+(?:\.\d+)?)([gmk]?)(?:bps)?(?:full|half)?(?:-(\d+))?$", re.IGNORECASE)


def speed_mbps(token: str) -> tuple[int, int | None] | None:
    """Parse speeds such as ``100g``, ``100gfull``, ``200g-4``, ``10000full``, ``25G``.

    Returns (Mb/s, lanes) or None when the token is not a speed (``auto``).
    A bare number is in Mb/s, as NX-OS and EOS ``10000full`` write it.
    """
    match = _SPEED_RE.match(token)
    if not match:
        return None
    number, suffix, lanes = match.groups()
    factor = {"g": 1000, "m": 1, "k": 0.001, "": 1}[suffix.lower()]
    mbps = int(float(number) * factor)
    if mbps <= 0:
        return None
    return mbps, int(lanes) if lanes else None


def seconds_to_ms(value: str) -> float:
    number = float(value)
    if number < 0 or number != number:
        raise ValueError(f"invalid time {value!r}")
    return round(number * 1000.0, 6)


def parse_int_list(text: str, lo: int, hi: int) -> list[int]:
    """Parse ``3``, ``3,4``, ``24-31``, ``8 9 10`` and mixtures into sorted unique ints.

    Raises ValueError on anything outside [lo, hi] or not a number.
    """
    out: set[int] = set()
    for part in re.split(r"[,\s]+", text.strip()):
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            start, stop = int(a), int(b)
            if start > stop:
                raise ValueError(f"reversed range {part!r}")
            values = range(start, stop + 1)
        else:
            values = range(int(part), int(part) + 1)
        for v in values:
            if not lo <= v <= hi:
                raise ValueError(f"{v} outside {lo}-{hi}")
            out.add(v)
    return sorted(out)
