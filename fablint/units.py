"""Unit conversion shared by the parsers: sizes to bytes, speeds to Mb/s, times to ms."""

from __future__ import annotations

import math
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


MAX_BYTES = 1 << 48
"""Far above any switch buffer; larger numbers are typos (or hostile input)."""


def _finite(value: str) -> float:
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"invalid number {value!r}")
    return number


def threshold(value: str, unit: str) -> Threshold:
    """A queue threshold; raises ValueError on a number or unit that is not understood."""
    number = _finite(value)
    if number > MAX_BYTES:
        raise ValueError(f"threshold {value!r} out of range")
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
    value = float(number) * factor
    if not math.isfinite(value) or not 0 < value <= MAX_SPEED_MBPS:
        return None
    lane_count = int(lanes) if lanes else None
    if lane_count is not None and not 0 < lane_count <= 16:
        return None
    return int(value), lane_count


MAX_SPEED_MBPS = 10_000_000
"""10 Tb/s: above any port speed."""


def seconds_to_ms(value: str) -> float:
    number = _finite(value)
    if number > 86_400:
        raise ValueError(f"time {value!r} out of range")
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
