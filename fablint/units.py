"""Unit conversion shared by the parsers: sizes to bytes, speeds to Mb/s, times to ms."""

from __future__ import annotations

import math
import re

from fablint.model import IB_SPEEDS, IB_WIDTHS, Threshold
from fablint.plainbuild import made

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
        return made(Threshold, {"value": number, "unit": key, "bytes": int(number * factor)})
    if key in UNCONVERTIBLE_UNITS:
        return made(Threshold, {"value": number, "unit": key, "bytes": None})
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


# -- InfiniBand ---------------------------------------------------------------------------------
# Every IB dump writes speed and width its own way; they all end up as an ``IB_SPEEDS`` name and
# a lane count here (libibmad / ibnetdiscover / opensm strings, domain.md 2.4).

_IB_LANE_GBPS = {info.lane_gbps: name for name, info in IB_SPEEDS.items() if name != "FDR10"}
_IB_SUBNET_LIST_SPEEDS = {"2.5": "SDR", "5": "DDR", "10": "QDR", "14": "FDR", "25": "EDR",
                          "50": "HDR", "100": "NDR", "200": "XDR"}
"""``SPD=`` of opensm-subnet.lst / ibdiagnet2.lst: the per-lane rate rounded to Gb/s."""
IB_UNKNOWN = frozenset({"", "?", "??", "???", "undefined", "unknown"})
"""What the tools print for a speed or width they cannot tell."""


def ib_speed(token: str) -> str | None:
    """An IB speed generation from ``NDR``, ``4xNDR``'s ``NDR``, ``106.25 Gbps``, ``106.25``,
    ``10.0 Gbps (FDR10)``, ``FDR10`` or a subnet list's ``25``; None for ``???``.

    Raises ValueError for text that is none of these.
    """
    text = token.strip()
    if text.lower() in IB_UNKNOWN:
        return None
    upper = text.upper()
    if "FDR10" in upper:
        return "FDR10"
    if upper in IB_SPEEDS:
        return upper
    rounded = _IB_SUBNET_LIST_SPEEDS.get(text)
    if rounded is not None:
        return rounded
    number = upper.removesuffix("GBPS").removesuffix("GB/S").strip()
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"unknown InfiniBand speed {token!r}") from None
    name = _IB_LANE_GBPS.get(value)
    if name is None:
        raise ValueError(f"unknown InfiniBand lane rate {token!r}")
    return name


def ib_width(token: str) -> int | None:
    """Lanes from ``4x``, ``4X``, ``12x``, ``4``; None for ``??``. Raises ValueError otherwise."""
    text = token.strip().lower()
    if text in IB_UNKNOWN:
        return None
    digits = text.removesuffix("x")
    if not digits.isdigit() or int(digits) not in IB_WIDTHS:
        raise ValueError(f"unknown InfiniBand link width {token!r}")
    return int(digits)


def ib_width_speed(token: str) -> tuple[int | None, str | None]:
    """ibnetdiscover's joined ``4xNDR``, ``1xSDR``, ``4x???``, ``??SDR``: (lanes, generation)."""
    text = token.strip()
    head, sep, tail = text.partition("x")
    if not sep or not (head.isdigit() or head in IB_UNKNOWN):
        if text.startswith("??"):
            return None, ib_speed(text[2:])
        raise ValueError(f"unknown InfiniBand width and speed {token!r}")
    return ib_width(head + "x"), ib_speed(tail)


def ib_guid(token: str) -> int:
    """A 64-bit GUID from ``0x0002c903003421b0`` or bare hex; raises ValueError otherwise."""
    text = token.strip().lower().removeprefix("0x")
    if not text or len(text) > 16 or text.strip(_HEX_DIGITS):
        raise ValueError(f"not a 64-bit GUID: {token!r}")
    return int(text, 16)


_HEX_DIGITS = "0123456789abcdef"
