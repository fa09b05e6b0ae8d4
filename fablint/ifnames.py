"""Interface names across vendors: ``Et1/1``, ``Eth1/1`` and ``Ethernet1/1`` are one port.

The abbreviation tables come from netutils (Network to Code), which tracks every vendor's short
forms; fablint only adds the case-insensitive key used for matching.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=65536)
def canonical(name: str) -> str:
    """The long form of an interface name (``Et1/1`` -> ``Ethernet1/1``); others unchanged."""
    from netutils.interface import canonical_interface_name  # 50 ms import: only when needed

    stripped = name.strip()
    if not stripped[:1].isalpha():
        return stripped  # '1/1', MAC addresses: nothing to expand
    return canonical_interface_name(stripped)


def port_key(name: str) -> str:
    """A key under which every spelling of one port is equal (case and abbreviation)."""
    return canonical(name).lower()
