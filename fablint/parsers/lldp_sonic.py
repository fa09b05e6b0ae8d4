"""SONiC LLDP neighbours: ``show lldp table``, ``show lldp neighbors`` (lldpctl's text),
``lldpctl -f json`` / ``lldpcli show neighbors -f json|json0``, ``lldpctl -f keyvalue`` and
``lldpcli -f xml`` (read by ``fablint.parsers.lldpctl_xml``).

SONiC runs lldpd in its ``lldp`` container. ``show lldp table`` (sonic-utilities' lldpshow) is a
tabulate table whose RemoteDevice, Capability and RemotePortDescr cells are empty when the
neighbour does not send them, so rows are cut at the columns of the dashed rule under the header.
``show lldp neighbors`` (what ``fablint collect`` saves) prints lldpctl's text records, one per
neighbour, several per port when several neighbours share it. lldpcli's JSON has two shapes:
``json`` (one interface is an object, several are a list of one-key objects; the chassis is keyed
by its system name, or not keyed when none was sent) and ``json0`` (every value a list).

SONiC peers are named by their system name, else their chassis ID; ``eth0`` (the management
port) is read like any other port. Whose table it is: a prompt (``admin@leaf4:~$ show lldp
table``), the collector's device folder, or a file name that starts with the host name, as for
the other LLDP tables (``fablint.parsers.lldp``); lldpctl's JSON does not name its own host.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fablint.parsers import lldpctl_xml
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.lldp import (
    LldpTable,
    Neighbor,
    Record,
    close_record,
    is_noise,
    json_start,
    line_finder,
    owner_of,
    split_lines,
    table_result,
    value,
)

_TABLE_HEAD = re.compile(
    r"^[ \t]*LocalPort[ \t]+RemoteDevice[ \t]+RemotePortID[ \t]+Capability[ \t]+RemotePortDescr",
    re.M)
_LLDPCTL_HEAD = re.compile(
    r"^[ \t]*(?:LLDP neighbors:[ \t]*\r?$|Interface:[ \t]+\S+,[ \t]+via:[ \t]*(?!unknown)\w)",
    re.M)
"""lldpctl's neighbour records; ``show interfaces`` (the switch's own ports) says ``via: unknown``
and is not a neighbour table."""
_JSON_START = re.compile(r'\{\s*"lldp"\s*:\s*[\[{]')
_KEYVALUE = re.compile(
    r"^\s*lldp\.(.+?)\.((?:via|rid|age|chassis|port|vlan|ppvid|pi|lldp-med|unknown-tlvs|ttl|"
    r"unknown-tlv)(?:\.[^=]*)?)=(.*)$")
"""``lldpctl -f keyvalue``: ``lldp.Ethernet0.chassis.name=spine1`` (a port name may hold dots)."""
_KEYVALUE_HEAD = re.compile(r"^[ \t]*lldp\.\S+?\.via=", re.M)
_CODES = re.compile(r"^\s*Capability codes:")
_RULE = re.compile(r"^\s*-{3,}(?:\s+-+)*\s*$")
_TOTAL = re.compile(r"^\s*Total entries displayed\s*:\s*(\d+)\s*$")
_INTERFACE = re.compile(r"^\s*Interface:\s+([^,\s]+),")
_FIELD = re.compile(r"^\s*(ChassisID|SysName|PortID|PortDescr|MFS):\s*(.*?)\s*$")
_SUBTYPES = frozenset({"mac", "ifname", "local", "ip", "ifalias", "unhandled"})
"""The ID subtypes lldpctl prints before a chassis or port ID (``PortID: ifname Ethernet1``)."""


def _json_at(text: str) -> int:
    """Where lldpcli's JSON starts (after a prompt line or the command echo), or -1."""
    brace = json_start(text)
    return brace if brace >= 0 and _JSON_START.match(text, brace) else -1


def layout_of(text: str) -> str | None:
    """Which SONiC LLDP output this is; None when it is not one."""
    if _json_at(text) >= 0:
        return "lldpctl-json"
    if lldpctl_xml.HEAD.search(text):
        return "lldpctl-xml"
    if "\n" not in text and "\r" in text:
        text = text.replace("\r", "\n")
    if _TABLE_HEAD.search(text):
        return "sonic-table"
    if _LLDPCTL_HEAD.search(text):
        return "lldpctl"
    if _KEYVALUE_HEAD.search(text):
        return "lldpctl-keyvalue"
    return None


# -- show lldp table -------------------------------------------------------------------------


def _table(lines: list[str]) -> tuple[list[Neighbor], list[int]]:
    out: list[Neighbor] = []
    unknown: list[int] = []
    header: tuple[int, str] | None = None
    spans: list[tuple[int, int | None]] | None = None
    total: tuple[int, int] | None = None
    for n, line in enumerate(lines, 1):
        if _TABLE_HEAD.match(line):
            header = (n, line)
            spans = _spans_of_header(line)
            continue
        if _RULE.match(line):
            if header is not None and header[0] == n - 1:
                spans = _spans_of_rule(line)  # tabulate's rule: one run of dashes per column
            continue
        if is_noise(line) or _CODES.match(line):
            continue
        counted = _TOTAL.match(line)
        if counted:
            total = (int(counted.group(1)), n)
            continue
        cells = _cut(line, spans) if spans else None
        if cells is None:
            unknown.append(n)
            continue
        local, device, port, _caps, descr = cells
        out.append(Neighbor(local_port=local, remote_device=value(device), remote_port=value(port),
                            remote_port_description=value(descr), line=n))
    if total is not None and total[0] > len(out):
        unknown.append(total[1])
    return out, unknown


def _spans_of_rule(rule: str) -> list[tuple[int, int | None]]:
    starts = [m.start() for m in re.finditer(r"-+", rule)]
    return [(at, nxt) for at, nxt in zip(starts, [*starts[1:], None], strict=True)]


def _spans_of_header(head: str) -> list[tuple[int, int | None]]:
    starts = [m.start() for m in re.finditer(r"\S+", head)][:5]
    return [(at, nxt) for at, nxt in zip(starts, [*starts[1:], None], strict=True)]


def _cut(line: str, spans: list[tuple[int, int | None]]) -> tuple[str, ...] | None:
    """A row cut at the column starts; None when it is not one (a cell cut in the middle)."""
    if len(spans) < 5:
        return None
    first = spans[0][0]
    if line[:first].strip():
        return None
    cells = [line[at:end] for at, end in spans[:4]] + [line[spans[4][0]:]]
    if any(line[at - 1:at].strip() for at, _end in spans[1:] if at <= len(line)):
        return None  # a value runs over into the next column
    parts = tuple(cell.strip() for cell in cells)
    local, port = parts[0], parts[2]
    if not local or " " in local or not port:
        return None
    return parts


# -- lldpctl text (show lldp neighbors) ------------------------------------------------------


def _lldpctl(lines: list[str]) -> tuple[list[Neighbor], list[int]]:
    out: list[Neighbor] = []
    unknown: list[int] = []
    record: Record | None = None
    for n, line in enumerate(lines, 1):
        interface = _INTERFACE.match(line)
        if interface:
            close_record(record, out, unknown)
            record = Record(line=n, local=interface.group(1), lines=[n])
            continue
        if _RULE.match(line) or line.strip() in ("LLDP neighbors:", "LLDP interfaces:"):
            close_record(record, out, unknown)
            record = None
            continue
        if record is None:
            if not is_noise(line):
                unknown.append(n)
            continue
        record.lines.append(n)
        field = _FIELD.match(line)
        if field:
            key, raw = field.groups()
            if key == "ChassisID":
                record.chassis = _without_subtype(raw)
            elif key == "SysName":
                record.name = value(raw)
            elif key == "PortID":
                record.port = _without_subtype(raw)
            elif key == "MFS":
                record.frame = _frame(raw)
            else:
                record.description = value(raw)
    close_record(record, out, unknown)
    unknown.sort()
    return out, unknown


def _frame(raw: object) -> int | None:
    """lldpd's maximum frame size (``MFS``), when the neighbour sends one."""
    raw = _one(raw)
    text = raw.strip() if isinstance(raw, str) else ""
    return int(text) if text.isdigit() and int(text) > 0 else None


def _without_subtype(raw: str) -> str | None:
    kind, _, rest = raw.strip().partition(" ")
    return value(rest) if kind in _SUBTYPES and rest.strip() else value(raw)


# -- lldpctl -f keyvalue ---------------------------------------------------------------------


def _keyvalue(lines: list[str]) -> tuple[list[Neighbor], list[int]]:
    """One neighbour per ``lldp.IF.via=`` line and the keys after it for the same port."""
    out: list[Neighbor] = []
    unknown: list[int] = []
    record: Record | None = None
    for n, line in enumerate(lines, 1):
        match = _KEYVALUE.match(line)
        if match is None:
            if not is_noise(line):
                unknown.append(n)
            continue
        port, key, raw = match.groups()
        if key == "via" or record is None or record.local != port:
            close_record(record, out, unknown)
            record = Record(line=n, local=port)
        record.lines.append(n)
        kind, _, field = key.partition(".")
        if kind == "chassis" and field in _SUBTYPES:
            record.chassis = value(raw)
        elif key == "chassis.name":
            record.name = value(raw)
        elif kind == "port" and field in _SUBTYPES:
            record.port = value(raw)
        elif key == "port.descr":
            record.description = value(raw)
        elif key == "port.mfs":
            record.frame = _frame(raw)
    close_record(record, out, unknown)
    unknown.sort()
    return out, unknown


# -- lldpctl / lldpcli JSON ------------------------------------------------------------------


def _json(text: str, path: str) -> tuple[list[Neighbor], list[int]]:
    start = _json_at(text)
    decoder = json.JSONDecoder()
    docs: list[Any] = []
    at = start
    while at < len(text):  # lldpshow on a multi-ASIC switch prints one document per ASIC
        try:
            doc, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise ParseError(path, exc.lineno, f"not valid JSON: {exc.msg}") from exc
        docs.append(doc)
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at < len(text) and text[at] != "{":
            rest = split_lines(text[at:])
            if all(is_noise(line) for line in rest):
                break
            raise ParseError(path, text.count("\n", 0, at) + 1, "text after the JSON document")
    out: list[Neighbor] = []
    unknown: list[int] = []
    line_of = line_finder(text)
    for doc in docs:
        for name, entry in _interfaces(doc):
            found = _json_neighbor(name, entry)
            line = line_of(f'"{name}":') or line_of('"name"', f'"{name}"') or 1
            if found is None:
                unknown.append(line)
            else:
                out.append(Neighbor(
                    local_port=name, remote_device=found[0] or found[1], remote_port=found[2],
                    remote_port_description=found[3], chassis_id=found[1], line=line,
                    max_frame_bytes=found[4]))
    return out, unknown


def _interfaces(doc: Any) -> list[tuple[str, Any]]:
    """(local port, neighbour entry) in every shape lldpcli writes."""
    lldp = doc.get("lldp") if isinstance(doc, dict) else None
    blocks = lldp if isinstance(lldp, list) else [lldp]  # json0: a list of one object
    out: list[tuple[str, Any]] = []
    for block in blocks:
        interfaces = block.get("interface") if isinstance(block, dict) else None
        items = interfaces if isinstance(interfaces, list) else [interfaces]
        for item in items:
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("name"), str):  # json0: {"name": "Ethernet0", ...}
                out.append((item["name"], item))
            else:  # json: {"Ethernet0": {...}}, one key per object
                out.extend((str(k), v) for k, v in item.items())
    return out


def _one(raw: Any) -> Any:
    """json0 wraps every value in a list; json does not."""
    return raw[0] if isinstance(raw, list) and raw else raw


def _string(raw: Any) -> str | None:
    raw = _one(raw)
    if isinstance(raw, dict):
        raw = raw.get("value")
    return value(raw) if isinstance(raw, str) else None


def _json_neighbor(name: str, entry: Any) -> tuple[str | None, str | None, str | None,
                                                    str | None, int | None] | None:
    """(system name, chassis ID, port ID, port description, maximum frame size); None without
    a port ID."""
    if not isinstance(entry, dict):
        return None
    chassis = _one(entry.get("chassis"))
    system: str | None = None
    if isinstance(chassis, dict) and "id" not in chassis and len(chassis) == 1:
        system, chassis = next(iter(chassis.items()))  # json: keyed by the system name
        system = value(system)
    chassis = chassis if isinstance(chassis, dict) else {}
    system = system or _string(chassis.get("name"))
    port = _one(entry.get("port"))
    port = port if isinstance(port, dict) else {}
    port_id = _string(port.get("id"))
    if port_id is None:
        return None
    mfs = _one(port.get("mfs"))
    return (system, _string(chassis.get("id")), port_id, _string(port.get("descr")),
            _frame(mfs.get("value") if isinstance(mfs, dict) else mfs))


# -- the parser ------------------------------------------------------------------------------


def read_sonic_lldp(text: str, path: str) -> LldpTable:
    """Read one SONiC LLDP output. Raises ParseError only when it is not one at all."""
    layout = layout_of(text)
    if layout is None:
        raise ParseError(path, None, "not a SONiC LLDP output")
    if layout == "lldpctl-json":
        neighbors, unknown = _json(text, path)
    elif layout == "sonic-table":
        neighbors, unknown = _table(split_lines(text))
    elif layout == "lldpctl-keyvalue":
        neighbors, unknown = _keyvalue(split_lines(text))
    elif layout == "lldpctl-xml":
        neighbors, unknown = lldpctl_xml.read_xml(text, path)
    else:
        neighbors, unknown = _lldpctl(split_lines(text))
    owner, how = owner_of(text, path)
    return LldpTable(owner=owner, owner_from=how, layout=layout, neighbors=neighbors,
                     unknown=unknown)


class SonicLldpParser:
    """SONiC ``show lldp table``, ``show lldp neighbors`` and lldpctl / lldpcli JSON, key-value
    and XML."""

    name = "sonic-lldp"
    label = "SONiC / lldpd LLDP neighbours (show lldp table / neighbors, lldpctl -f json|xml)"
    vendor = "sonic"

    def sniff(self, head: str) -> int:
        return 100 if layout_of(head) else 0

    def parse(self, text: str, path: str) -> ParseResult:
        return table_result(read_sonic_lldp(text, path), text, path)
