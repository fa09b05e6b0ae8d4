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
    "microsoft-ds": 445, "netbios-ns": 137, "netbios-dgm": 138, "netbios-ss": 139, "ntp": 123,
    "radius": 1812, "radius-acct": 1813, "rip": 520, "smtp": 25, "snmp": 161, "snmptrap": 162,
    "ssh": 22, "syslog": 514, "tacacs": 49, "telnet": 23, "tftp": 69, "vxlan": 4789,
    "ptp": 319, "ptp-event": 319, "ptp-general": 320, "bfd": 3784, "bfd-echo": 3785,
    "multihop-bfd": 4784, "micro-bfd": 6784, "sbfd": 7784, "sbfd-initiator": 7784,
    "gtp": 2152, "msdp": 639, "ldp": 646, "netconf-ssh": 830, "gnmi": 6030, "lsp-ping": 3503,
    "dhcpv6-client": 546, "dhcpv6-server": 547, "nat-t": 4500, "pim-auto-rp": 496,
    "kerberos": 88, "pop3": 110, "imap": 143, "irc": 194, "login": 513, "cmd": 514,
    "exec": 512, "whois": 43, "time": 37, "daytime": 13, "discard": 9, "chargen": 19,
    "gopher": 70, "finger": 79, "hostname": 101, "nntp": 119, "lpd": 515, "talk": 517,
    "uucp": 540, "klogin": 543, "kshell": 544, "biff": 512, "who": 513, "xdmcp": 177,
    "sunrpc": 111, "pim": 496, "mobile-ip": 434, "dnsix": 195, "nameserver": 42,
    "tacacs-ds": 65, "rpc": 111,
}
"""Well-known service names EOS and NX-OS accept in ACL port matches. None is 4791."""
_ADDRESS_START = re.compile(r"^(?:any|host|\d{1,3}(?:\.\d{1,3}){3}.*|.*/\d+|.*:.*)$")
NAMED_DSCP = {
    "default": 0, "ef": 46, "va": 44,
    **{f"cs{i}": i * 8 for i in range(8)},
    **{f"af{c}{d}": c * 8 + d * 2 for c in range(1, 5) for d in range(1, 4)},
}
_NUMBER = re.compile(r"^\d+$")
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_PORT_OPS = ("eq", "neq", "gt", "lt", "range")
_KEYWORDS = frozenset({
    "log", "log-input", "count", "dscp", "ttl", "fragments", "established", "tracked", "ack",
    "fin", "psh", "rst", "syn", "urg", "vlan", "nexthop-group", "precedence", "tos", "ecn",
    "packet-length", "time-range", "mirror", "police", "set",
})
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
    """A port match at ``args[i]``, or None. Names fablint does not know are kept out of the
    match (no service name means 4791) but still consumed, up to the next address or keyword.
    """
    if i >= len(args) or args[i] not in _PORT_OPS:
        return None, i
    op = args[i]
    want = 1 if op in ("gt", "lt") else 2 if op == "range" else len(args)
    j = i + 1
    values: list[int] = []
    unknown = 0
    while j < len(args) and len(values) + unknown < want:
        word = args[j]
        port = port_number(word)
        if port is None:
            if _ADDRESS_START.match(word) or word in _KEYWORDS or word.isdigit():
                break
            unknown += 1
        else:
            values.append(port)
        j += 1
    if not values and not unknown:
        raise AclSyntaxError(f"access-list port match '{op}' without a port")
    if unknown and op in ("gt", "lt", "range"):
        # A bound fablint cannot read: assume the entry may match any port.
        return {"op": "neq", "ranges": []}, j
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
