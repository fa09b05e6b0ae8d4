"""Entries of Cisco-style access lists, as EOS and NX-OS write them.

``permit|deny PROTOCOL SRC [PORTS] DST [PORTS] [dscp D] [other qualifiers] [log]`` for extended
lists, ``permit|deny SRC`` for standard ones. Addresses: ``any``, ``host A``, ``A/len``,
``A WILDCARD``. Ports: ``eq P…``, ``neq P…``, ``gt P``, ``lt P``, ``range A B``, by number or name.
"""

from __future__ import annotations

import re
from typing import Any

NAMED_PORTS = {
    "bgp": 179, "bootpc": 68, "bootps": 67, "domain": 53, "echo": 7, "ftp": 21, "ftp-data": 20,
    "http": 80, "www": 80, "https": 443, "isakmp": 500, "ldap": 389, "mlag": 4432,
    "microsoft-ds": 445, "netbios-ns": 137, "ntp": 123, "radius": 1812, "rip": 520, "smtp": 25,
    "snmp": 161, "snmptrap": 162, "ssh": 22, "syslog": 514, "tacacs": 49, "telnet": 23,
    "tftp": 69, "vxlan": 4789, "ptp": 319, "bfd": 3784, "bfd-echo": 3785, "gtp": 2152,
}
NAMED_DSCP = {
    "default": 0, "ef": 46, "va": 44,
    **{f"cs{i}": i * 8 for i in range(8)},
    **{f"af{c}{d}": c * 8 + d * 2 for c in range(1, 5) for d in range(1, 4)},
}
_NUMBER = re.compile(r"^\d+$")
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_PORT_OPS = ("eq", "neq", "gt", "lt", "range")
_NOT_QUALIFIERS = ("log", "log-input", "count")


class AclSyntaxError(ValueError):
    pass


def parse_acl_entry(action: str, args: list[str], *, standard: bool = False) -> dict[str, Any]:
    """Parse the words after ``permit``/``deny`` into AclEntry fields. Raises AclSyntaxError."""
    if standard:
        src, _ = _address(args, 0)
        if src is None:
            raise AclSyntaxError("access-list entry source not understood")
        return {"action": action, "protocol": "ip", "src_addr": src, "field_src": {}}
    if not args:
        raise AclSyntaxError("access-list entry without protocol")
    protocol = args[0].lower()
    ported = protocol in ("tcp", "udp")
    src, i = _address(args, 1)
    src_port, i = _ports(args, i) if ported else (None, i)
    dst, i = _address(args, i)
    if src is None or dst is None:
        raise AclSyntaxError("access-list entry addresses not understood")
    dst_port, i = _ports(args, i) if ported else (None, i)
    qualifiers: list[str] = []
    dscp: list[int] | None = None
    rest = args[i:]
    j = 0
    while j < len(rest):
        word = rest[j]
        if word == "dscp" and j + 1 < len(rest):
            value = rest[j + 1].lower()
            code = NAMED_DSCP.get(value, int(value) if _NUMBER.match(value) else None)
            dscp = [code] if code is not None else []
            j += 2
            continue
        if word not in _NOT_QUALIFIERS:
            qualifiers.append(word)
        j += 1
    return {
        "action": action, "protocol": protocol, "src_addr": src, "dst_addr": dst,
        "src_port": src_port, "dst_port": dst_port, "qualifiers": qualifiers, "dscp": dscp,
        "field_src": {},
    }


def _address(args: list[str], i: int) -> tuple[str | None, int]:
    if i >= len(args):
        return None, i
    word = args[i]
    if word == "any":
        return "any", i + 1
    if word == "host" and i + 1 < len(args):
        return args[i + 1], i + 2
    if "/" in word:
        return word, i + 1
    if _IPV4.match(word) and i + 1 < len(args) and _IPV4.match(args[i + 1]):
        return f"{word} {args[i + 1]}", i + 2
    if _IPV4.match(word) or ":" in word:
        return word, i + 1
    return None, i


def _ports(args: list[str], i: int) -> tuple[dict[str, Any] | None, int]:
    if i >= len(args) or args[i] not in _PORT_OPS:
        return None, i
    op = args[i]
    j = i + 1
    values: list[int] = []
    while j < len(args):
        port = port_number(args[j])
        if port is None:
            break
        values.append(port)
        j += 1
        if op in ("gt", "lt") or (op == "range" and len(values) == 2):
            break
    if not values:
        raise AclSyntaxError(f"access-list port match '{op}' without a port")
    if op == "range":
        lo, hi = values[0], values[-1]
        ranges = [(min(lo, hi), max(lo, hi))]
    elif op == "gt":
        ranges = [(values[0] + 1, 65535)]
    elif op == "lt":
        ranges = [(0, max(0, values[0] - 1))]
    else:
        ranges = [(v, v) for v in values]
    return {"op": "range" if op in ("gt", "lt") else op, "ranges": ranges}, j


def port_number(word: str) -> int | None:
    if _NUMBER.match(word):
        value = int(word)
        return value if value <= 65535 else None
    return NAMED_PORTS.get(word.lower())
