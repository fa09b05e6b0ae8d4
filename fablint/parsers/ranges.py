"""Interface ranges (``interface Ethernet1/1-4``), read the same way for every CLI vendor.

Running-configs never write ranges, but vendor guides do (AMD's NX-OS example configures
``interface Ethernet1/1/1 - 2`` and its EOS example ``interface Ethernet1-32``; Cisco's RoCE
script applies its port lines to ``Eth1/1/1-2,Eth1/2/1-2``), and configurations built from
them keep them. The switch applies every line of the block to each port of the range.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_RANGE_PART = re.compile(r"^([A-Za-z][A-Za-z-]*?)?\s*((?:\d+[/.:])*)(\d+)\s*-\s*(\d+)$")
_NAME_PREFIX = re.compile(r"^([A-Za-z][A-Za-z-]*?)\s*\d")
MAX_RANGE_PORTS = 1024
"""Most ports one ``interface`` range may name (a 1024-port chassis); longer ones are skipped."""

Named = tuple[str, str]
"""(canonical port name, kind)."""


def expand_interface_range(text: str, name_of: Callable[[str], Named | None]
                           ) -> list[Named] | None:
    """``Ethernet1/1-4``, ``Ethernet1/1/1 - 2``, ``Eth1/1-2, Eth1/5`` -> each port it names
    (``name_of`` turns one port's name, as written, into the vendor's canonical name and kind),
    else None. A part without a type name takes the one before it (``Eth1/1-2, 1/5``).
    """
    out: list[Named] = []
    prefix = ""
    for part in text.split(","):
        part = part.strip()
        match = _RANGE_PART.match(part)
        if match is None:
            named = name_of(part if part[:1].isalpha() else prefix + part)
            if named is None:
                return None
            prefix = _NAME_PREFIX.match(named[0])[1]  # type: ignore[index]
            out.append(named)
            continue
        prefix = match[1] or prefix
        lo, hi = int(match[3]), int(match[4])
        if not prefix or hi < lo or len(out) + hi - lo >= MAX_RANGE_PORTS:
            return None
        for number in range(lo, hi + 1):
            named = name_of(f"{prefix}{match[2]}{number}")
            if named is None:
                return None
            out.append(named)
    return out or None
