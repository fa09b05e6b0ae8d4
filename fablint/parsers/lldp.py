"""LLDP neighbour tables of EOS and NX-OS: ``show lldp neighbors [detail]`` as text, as pyATS/genie
captures them (every line indented, the command echoed first), and as JSON (EOS eAPI, NX-API).

Each output is one device's view of its cables: "my port X sees device Y port Z". The text forms
are read line by line (one small reader per layout), so every neighbour keeps its line and every
line the reader did not understand is counted (``ParseResult.unknown_lines``): a partial read is
visible, never silent. A neighbour that sends no system name is named by its chassis ID, as the
switches' own tables do. Management-port neighbours (``Ma1``, ``Management1``, ``mgmt0``) are
read like any other; the topology decides what to do with them.

Whose view it is comes from the output itself when it has a prompt line (``leaf4#show lldp
neighbors``, ``admin@leaf4:~$ show lldp table``), else from the collector layout
(``leaf4/show_lldp_neighbors.txt``), else from a file name that starts with the host name
(``leaf4_show_lldp.txt``). SONiC's LLDP outputs are read by ``fablint.parsers.lldp_sonic`` with
the same pieces.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath

from fablint.model import Endpoint, Link, ParseProblem, SourceRef
from fablint.parsers.base import ParseError, ParseResult

_PROMPT = re.compile(
    r"^\s*(?:([A-Za-z0-9][\w.:-]*)[#>]|[\w.-]+@([A-Za-z0-9][\w.-]*)(?::[^\s$#]*)?[$#])\s*"
    r"(?:sudo\s+)?(?:sh(?:ow)?\s+lldp\b|lldpctl\b|lldpcli\b|docker\s+exec\b.*\blldp)", re.M)
"""``leaf4#show lldp neighbors`` (EOS, NX-OS) or ``admin@leaf4:~$ show lldp table`` (SONiC)."""
_NAME_PREFIX = re.compile(
    r"^([A-Za-z0-9][\w.-]*?)[_.-]+(?:show|sh|lldp(?:ctl|cli)?|docker)[_.-]", re.I)
_COMMAND_FILE = re.compile(
    r"^(?:sudo[_ -]+)?(?:(?:show|sh)[_ -]+lldp|lldp|docker[_ -]+exec[_ -]+(?:-\w+[_ -]+)*lldp)",
    re.I)
_NOISE = re.compile(
    r"^\s*(?:(?:[\w.:-]+[#>]|[\w.-]+@[\w.-]+(?::[^\s$#]*)?[$#])\s*)?"
    r"(?:(?:sudo\s+)?(?:sh(?:ow)?\s+lldp\b|lldpctl\b|lldpcli\b|docker\s+exec\b|"
    r"terminal\s+(?:length|width)\b).*)?$")
"""Blank lines, a prompt alone, and the command echo (with or without its prompt)."""
_TOTAL = re.compile(r"^\s*Total entries displayed\s*:\s*(\d+)\s*$")
_RULE = re.compile(r"^\s*-{3,}(?:\s+-+)*\s*$")

_EOS_COUNTER = re.compile(r"^\s*(?:Last table change time|Number of table [\w-]+)\s*:")
_EOS_TABLE_HEAD = re.compile(r"^(\s*)Port\s+(Neighbor Device ID)\s+(Neighbor Port ID)\s+(TTL)\s*$")
_EOS_ROW = re.compile(r"^\s*(\S+)\s+(\S+)\s+(\S+)\s+(\d+)\s*$")
_EOS_ROW_SPACED = re.compile(r"^\s*(\S+)\s+(\S.*?)\s{2,}(\S.*?)\s+(\d+)\s*$")
_NXOS_TABLE_HEAD = re.compile(
    r"^(\s*)Device ID\s+Local Intf\s+Hold-time\s+Capability\s+Port ID\s*$")
_NXOS_CODES = re.compile(r"^\s*(?:Capability codes:|\(\w\) \w)")
_LOCAL = r"[A-Za-z](?=[\w./:-]*\d)[\w./:-]*+"
"""A local port name: a letter first and a digit somewhere (``Eth1/1``, ``mgmt0``)."""
_NXOS_ROW = re.compile(rf"^\s*(\S.*?)\s+({_LOCAL})\s+(\d+)\s+(\S.*?)\s*$")
_NXOS_CONT = re.compile(rf"^(\s+)({_LOCAL})\s+(\d+)\s+(\S.*?)\s*$")
_NXOS_CAPS = re.compile(r"[RBTCWPSO,]+")
_EOS_DETAIL_HEAD = re.compile(r"^\s*Interface\s+(\S+)\s+detected\s+(\d+)\s+LLDP neighbors?:?\s*$")
_EOS_NEIGHBOR = re.compile(r"^\s*Neighbor\s+(.+?)(?:/(.+?))?,\s+age\b")
_NXOS_DETAIL_FIELD = re.compile(
    r"^\s*(Chassis id|Port id|Local Port id|Port Description|System Name):\s?(.*?)\s*$")
_FRAME = re.compile(r"(\d+)")
_NOT_SENT = frozenset({"", "null", "not advertised", "n/a", "-"})


@dataclass(frozen=True, slots=True)
class Neighbor:
    """One LLDP claim: the local port sees this remote device and port."""

    local_port: str
    remote_device: str | None
    remote_port: str | None
    line: int
    remote_port_description: str | None = None
    chassis_id: str | None = None
    max_frame_bytes: int | None = None


@dataclass(slots=True)
class LldpTable:
    """What one LLDP output file says, and whose view it is."""

    owner: str | None
    owner_from: str
    """``prompt``, ``folder``, ``file name`` or ``unknown``."""
    layout: str
    neighbors: list[Neighbor]
    unknown: list[int] = field(default_factory=list)
    """Line numbers of the lines the reader did not understand."""


MAX_LINE = 2048


def split_lines(text: str) -> list[str]:
    """The file's lines without their ends, numbered as the file is (LF, CRLF or lone CR)."""
    text = text.removeprefix("\ufeff")
    parts = text.split("\r") if "\n" not in text and "\r" in text else text.split("\n")
    # No LLDP table line is kilobytes long (a TLV holds 255 bytes): cut such a line rather
    # than run the column patterns, quadratic on it, over 100,000 spaces (found by fuzzing).
    return [(part[:-1] if part.endswith("\r") else part)[:MAX_LINE] for part in parts]


def is_noise(line: str) -> bool:
    """A blank line, a bare prompt or the command echo: part of any captured output."""
    return _NOISE.match(line) is not None


def value(raw: str | None) -> str | None:
    """A field's value without the quotes EOS puts around strings; None when not sent."""
    if raw is None:
        return None
    text = raw.strip().strip('"').strip()
    return None if text.lower() in _NOT_SENT else text


_LAYOUTS = (
    ("eos-detail", re.compile(
        r"^[ \t]*Interface[ \t]+\S+[ \t]+detected[ \t]+\d+[ \t]+LLDP neighbors?:?[ \t]*\r?$",
        re.M)),
    ("nxos-detail", re.compile(r"^[ \t]*Chassis id:[^\n]*\n[ \t]*(?:Local )?Port id:", re.M)),
    ("eos-table", re.compile(
        r"^[ \t]*Port[ \t]+Neighbor Device ID[ \t]+Neighbor Port ID[ \t]+TTL[ \t]*\r?$", re.M)),
    ("nxos-table", re.compile(
        r"^[ \t]*Device ID[ \t]+Local Intf[ \t]+Hold-time[ \t]+Capability[ \t]+Port ID[ \t]*\r?$",
        re.M)),
)
"""Each layout by its header, searched in the whole text (genie captures indent every line)."""


def layout_of(text: str) -> str | None:
    """Which EOS / NX-OS LLDP output this is, from its headers; None when it is not one."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{") and '"lldpNeighbors"' in text[:4096]:
        return "eos-json"
    start = json_start(text)
    if start >= 0 and _NXOS_JSON.search(text, start, start + 4096):
        return "nxos-json"
    if "\n" not in text and "\r" in text:
        text = text.replace("\r", "\n")
    for layout, head in _LAYOUTS:
        if head.search(text):
            return layout
    return None


_NXOS_JSON = re.compile(r'"TABLE_nbor(?:_detail)?"\s*:\s*[\[{]')
"""NX-OS ``show lldp neighbors [detail] | json`` (NX-API): ``TABLE_nbor[_detail]`` /
``ROW_nbor[_detail]``, as printed or inside NX-API's ``result.body`` / ``ins_api`` envelope."""


def json_start(text: str) -> int:
    """Where a JSON document starts after a prompt line or the command echo, or -1."""
    brace = text.find("{")
    if brace < 0 or not all(is_noise(line) for line in split_lines(text[:brace])):
        return -1
    return brace


def owner_of(text: str, path: str) -> tuple[str | None, str]:
    """The device whose LLDP table this is, and how that was decided."""
    prompt = _PROMPT.search(text[:4096])
    if prompt:
        return prompt.group(1) or prompt.group(2), "prompt"
    pure = PurePath(path)
    if _COMMAND_FILE.match(pure.name) and pure.parent.name not in ("", ".", ".."):
        return pure.parent.name, "folder"
    named = _NAME_PREFIX.match(pure.name)
    if named:
        return named.group(1), "file name"
    return None, "unknown"


# -- tables ----------------------------------------------------------------------------------


def _eos_table(lines: list[str]) -> tuple[list[Neighbor], list[int]]:
    out: list[Neighbor] = []
    unknown: list[int] = []
    columns: tuple[int, int, int] | None = None
    total: tuple[int, int] | None = None
    for n, line in enumerate(lines, 1):
        row = _EOS_ROW.match(line) if columns else None
        if row:
            local, remote, port, _ttl = row.groups()
            out.append(Neighbor(local_port=local, remote_device=value(remote),
                                remote_port=value(port), line=n))
            continue
        head = _EOS_TABLE_HEAD.match(line)
        if head:
            columns = (head.start(2), head.start(3), head.start(4))
            continue
        if is_noise(line) or _EOS_COUNTER.match(line) or _RULE.match(line):
            continue
        counted = _TOTAL.match(line)
        if counted:
            total = (int(counted.group(1)), n)
            continue
        fields = _eos_columns(line, columns)
        if fields is None:
            unknown.append(n)
            continue
        local, remote, port, _ttl = fields
        out.append(Neighbor(local_port=local, remote_device=value(remote),
                            remote_port=value(port), line=n))
    _check_total(out, total, unknown)
    return out, unknown


def _eos_columns(line: str, columns: tuple[int, int, int] | None) -> tuple[str, ...] | None:
    """A row whose device or port ID has spaces in it, cut at the header's columns."""
    if columns is None:
        return None
    device, port, ttl = columns
    cells = (line[:device], line[device:port], line[port:ttl], line[ttl:])
    cut_clean = all(line[at - 1:at] in (" ", "") for at in columns)
    parts = tuple(cell.strip() for cell in cells)
    if cut_clean and parts[0] and " " not in parts[0] and all(parts[1:3]) and parts[3].isdigit():
        return parts
    spaced = _EOS_ROW_SPACED.match(line)
    return spaced.groups() if spaced else None


def _nxos_table(lines: list[str]) -> tuple[list[Neighbor], list[int]]:
    out: list[Neighbor] = []
    unknown: list[int] = []
    indent: int | None = None
    wrapped: tuple[str, int] | None = None
    total: tuple[int, int] | None = None
    for n, line in enumerate(lines, 1):
        head = _NXOS_TABLE_HEAD.match(line)
        if head:
            indent = len(head.group(1))
            continue
        if indent is None:
            if not (is_noise(line) or _NXOS_CODES.match(line)):
                unknown.append(n)
            continue
        cont = _NXOS_CONT.match(line)
        if cont and len(cont.group(1)) > indent + 4:
            if wrapped is None:
                unknown.append(n)
                continue
            device, _at = wrapped
            wrapped = None
            out.append(_nxos_row(device, cont.group(2), cont.group(4), n))
            continue
        row = _NXOS_ROW.match(line)
        if row:
            if wrapped is not None:  # a Device ID line whose row never came
                unknown.append(wrapped[1])
                wrapped = None
            out.append(_nxos_row(row.group(1), row.group(2), row.group(4), n))
            continue
        counted = _TOTAL.match(line)
        if counted:
            total = (int(counted.group(1)), n)
        elif not (is_noise(line) or _NXOS_CODES.match(line)):
            if wrapped is not None:  # a Device ID line whose row never came
                unknown.append(wrapped[1])
            wrapped = (line.strip(), n)  # NX-OS puts a long Device ID on a line of its own
            continue
        if wrapped is not None:
            unknown.append(wrapped[1])
            wrapped = None
    if wrapped is not None:
        unknown.append(wrapped[1])
    _check_total(out, total, unknown)
    return out, unknown


def _nxos_row(device: str, local: str, rest: str, line: int) -> Neighbor:
    """Capability letters may be missing (firewalls, load balancers): the Port ID is the rest."""
    cells = rest.split()
    at = 0
    while at < len(cells) - 1 and _NXOS_CAPS.fullmatch(cells[at]):
        at += 1
    return Neighbor(local_port=local, remote_device=value(device),
                    remote_port=value(" ".join(cells[at:])), line=line)


def _check_total(out: list[Neighbor], total: tuple[int, int] | None, unknown: list[int]) -> None:
    """A footer that counts more entries than were read is a partial read: its line says so."""
    if total is not None and total[0] > len(out) and total[1] not in unknown:
        unknown.append(total[1])


# -- detail outputs --------------------------------------------------------------------------


@dataclass(slots=True)
class Record:
    """The fields of one neighbour block, while it is being read."""

    line: int
    local: str | None = None
    chassis: str | None = None
    port: str | None = None
    port_id_seen: bool = False
    description: str | None = None
    name: str | None = None
    frame: int | None = None
    lines: list[int] = field(default_factory=list)

    def neighbor(self) -> Neighbor | None:
        """The neighbour, or None when the block lacks a local port or any remote port."""
        port = self.port or self.description
        if not self.local or not port:
            return None
        return Neighbor(local_port=self.local, remote_device=self.name or self.chassis,
                        remote_port=port, line=self.line,
                        remote_port_description=self.description, chassis_id=self.chassis,
                        max_frame_bytes=self.frame)


def close_record(record: Record | None, out: list[Neighbor], unknown: list[int]) -> None:
    """Keep a finished block's neighbour; a block that cannot be one counts all its lines."""
    if record is None:
        return
    found = record.neighbor()
    if found is None:
        unknown.extend(record.lines)
    else:
        out.append(found)


def _eos_detail(lines: list[str]) -> tuple[list[Neighbor], list[int]]:
    out: list[Neighbor] = []
    unknown: list[int] = []
    local: str | None = None
    expected: tuple[int, int, int] | None = None  # (neighbours announced, read before, line)
    record: Record | None = None

    def end_interface() -> None:
        if expected is not None and len(out) - expected[1] < expected[0]:
            unknown.append(expected[2])

    for n, line in enumerate(lines, 1):
        start = line.lstrip()[:9]
        head = _EOS_DETAIL_HEAD.match(line) if start == "Interface" else None
        if head:
            close_record(record, out, unknown)
            record = None
            end_interface()
            local = head.group(1)
            expected = (int(head.group(2)), len(out), n)
            continue
        neighbor = _EOS_NEIGHBOR.match(line) if local and start[:8] == "Neighbor" else None
        if neighbor:
            close_record(record, out, unknown)
            record = Record(line=n, local=local, chassis=value(neighbor.group(1)),
                             port=value(neighbor.group(2)), lines=[n])
            continue
        if record is None:
            if not (is_noise(line) or _EOS_COUNTER.match(line)):  # the table's counters
                unknown.append(n)
            continue
        record.lines.append(n)
        _eos_field(record, line)
    close_record(record, out, unknown)
    end_interface()
    unknown.sort()
    return out, unknown


_EOS_KEYS = frozenset({"Chassis ID", "Port ID", "System Name", "Port Description",
                       "IEEE802.3 Maximum Frame Size"})


def _eos_field(record: Record, line: str) -> None:
    key, colon, raw = line.partition(":")
    if not colon:
        return  # TLV bytes, wrapped descriptions: part of the block
    key = key.strip().removeprefix("- ").strip()
    if key not in _EOS_KEYS:
        return
    if key == "Chassis ID":
        record.chassis = value(raw) or record.chassis
    elif key == "Port ID" and not record.port_id_seen:
        # the first Port ID is the neighbour's port; a later one is the LAG TLV's port number
        record.port_id_seen = True
        record.port = value(raw) or record.port
    elif key == "System Name":
        record.name = value(raw)
    elif key == "Port Description":
        record.description = value(raw)
    elif key == "IEEE802.3 Maximum Frame Size":
        frame = _FRAME.search(raw)
        record.frame = int(frame.group(1)) if frame and int(frame.group(1)) > 0 else None


def _nxos_detail(lines: list[str]) -> tuple[list[Neighbor], list[int]]:
    out: list[Neighbor] = []
    unknown: list[int] = []
    record: Record | None = None
    total: tuple[int, int] | None = None
    for n, line in enumerate(lines, 1):
        match = _NXOS_DETAIL_FIELD.match(line)
        if match and match.group(1) == "Chassis id":
            close_record(record, out, unknown)
            record = Record(line=n, chassis=value(match.group(2)), lines=[n])
            continue
        counted = _TOTAL.match(line)
        if counted:
            close_record(record, out, unknown)
            record = None
            total = (int(counted.group(1)), n)
            continue
        if record is None:
            if not (is_noise(line) or _NXOS_TABLE_HEAD.match(line) or _NXOS_CODES.match(line)):
                unknown.append(n)
            continue
        record.lines.append(n)
        if match:
            key, raw = match.group(1), value(match.group(2))
            if key == "Port id":
                record.port = raw
            elif key == "Local Port id":
                record.local = raw
            elif key == "Port Description":
                record.description = raw
            else:
                record.name = raw
    close_record(record, out, unknown)
    _check_total(out, total, unknown)
    unknown.sort()
    return out, unknown


# -- EOS eAPI JSON ---------------------------------------------------------------------------


def _eos_json(text: str, path: str) -> list[Neighbor]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(path, exc.lineno, f"not valid JSON: {exc.msg}") from exc
    table = data.get("lldpNeighbors") if isinstance(data, dict) else None
    line_of = line_finder(text, ordered=False)
    out = []
    if isinstance(table, list):  # 'show lldp neighbors | json'
        for row in table:
            if isinstance(row, dict) and isinstance(row.get("port"), str):
                out.append(Neighbor(
                    local_port=row["port"], remote_device=_text(row.get("neighborDevice")),
                    remote_port=_text(row.get("neighborPort")),
                    line=line_of('"port"', f'"{row["port"]}"'),
                ))
    elif isinstance(table, dict):  # 'show lldp neighbors detail | json'
        for local, info in table.items():
            entries = info.get("lldpNeighborInfo") if isinstance(info, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, dict):
                    continue
                iface = entry.get("neighborInterfaceInfo")
                iface = iface if isinstance(iface, dict) else {}
                frame = iface.get("maxFrameSize")
                chassis = _text(entry.get("chassisId"))
                out.append(Neighbor(
                    local_port=str(local),
                    remote_device=_text(entry.get("systemName")) or chassis,
                    remote_port=_text(iface.get("interfaceId")),
                    remote_port_description=_text(iface.get("interfaceDescription")),
                    chassis_id=chassis,
                    max_frame_bytes=frame if isinstance(frame, int) and frame > 0 else None,
                    line=line_of(f'"{local}"'),
                ))
    return out


def _nxos_json(text: str, path: str) -> tuple[list[Neighbor], list[int]]:
    start = json_start(text)
    try:
        data, _end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise ParseError(path, exc.lineno, f"not valid JSON: {exc.msg}") from exc
    line_of = line_finder(text)
    out: list[Neighbor] = []
    unknown: list[int] = []
    for detail, row in _nxos_rows(data, 0):
        local = _text(row.get("l_port_id"))
        line = (line_of('"l_port_id"', f'"{local}"') if local else 0) or 1
        chassis = _text(row.get("chassis_id"))
        description = _text(row.get("port_desc"))
        port = _text(row.get("port_id")) or description
        if not local or not port:
            unknown.append(line)
            continue
        name = _text(row.get("sys_name")) if detail else None
        out.append(Neighbor(  # the table's chassis_id column is its Device ID
            local_port=local, remote_device=name or chassis, remote_port=port, line=line,
            remote_port_description=description, chassis_id=chassis))
    return out, sorted(unknown)


def _nxos_rows(data: object, depth: int) -> list[tuple[bool, dict[str, object]]]:
    """(is a detail row, row) of every TABLE_nbor[_detail]; ROW is a list, or an object
    when there is one neighbour."""
    if depth > 6:
        return []
    out: list[tuple[bool, dict[str, object]]] = []
    if isinstance(data, list):
        for item in data:
            out.extend(_nxos_rows(item, depth + 1))
    elif isinstance(data, dict):
        for key, detail in (("TABLE_nbor_detail", True), ("TABLE_nbor", False)):
            table = data.get(key)
            rows = table.get("ROW_nbor_detail" if detail else "ROW_nbor") if isinstance(
                table, dict) else None
            for row in rows if isinstance(rows, list) else [rows]:
                if isinstance(row, dict):
                    out.append((detail, row))
        if not out:
            for item in data.values():
                out.extend(_nxos_rows(item, depth + 1))
    return out


def _text(raw: object) -> str | None:
    return value(raw) if isinstance(raw, str) else None


def line_finder(text: str, ordered: bool = True) -> Callable[..., int]:
    """Finds the line holding all the given strings (1-based; 0 if none): the next one after
    the last found when ``ordered``, else the first in the file."""
    lines = split_lines(text)
    at = 0

    def find(*needles: str) -> int:
        nonlocal at
        for n in range(at, len(lines)):
            if all(needle in lines[n] for needle in needles):
                if ordered:
                    at = n + 1
                return n + 1
        return 0

    return find


# -- the parser ------------------------------------------------------------------------------

_READERS = {
    "eos-table": _eos_table, "nxos-table": _nxos_table,
    "eos-detail": _eos_detail, "nxos-detail": _nxos_detail,
}


def read_lldp(text: str, path: str) -> LldpTable:
    """Read one LLDP output. Raises ParseError only when it is not an LLDP table at all."""
    layout = layout_of(text)
    if layout is None:
        raise ParseError(path, None, "not an LLDP neighbour table")
    unknown: list[int] = []
    if layout == "eos-json":
        neighbors = _eos_json(text, path)
    elif layout == "nxos-json":
        neighbors, unknown = _nxos_json(text, path)
    else:
        neighbors, unknown = _READERS[layout](split_lines(text))
    owner, how = owner_of(text, path)
    return LldpTable(owner=owner, owner_from=how, layout=layout, neighbors=neighbors,
                     unknown=unknown)


def table_result(table: LldpTable, text: str, path: str) -> ParseResult:
    """The links of an LLDP table, as seen from its owner's side, and what was not read."""
    lines = text.count("\n") + 1
    unknown = len(table.unknown)
    first = min(table.unknown) if table.unknown else None
    if table.owner is None:
        problem = ParseProblem(
            file=path, line=1, kind="invalid-value",
            message="cannot tell whose LLDP table this is: no prompt line "
            "('leaf1#show lldp neighbors'), no device folder and no host name at the start "
            "of the file name; its links are left out",
        )
        return ParseResult(devices=[], problems=[problem], lines=lines, unknown_lines=unknown,
                           first_unknown=first)
    links = []
    nameless: list[Neighbor] = []
    for nbr in table.neighbors:
        if not nbr.remote_device or not nbr.remote_port:
            nameless.append(nbr)
            continue
        links.append(Link(  # validating is ~20x faster than pydantic's model_construct
            a=Endpoint(device=table.owner, interface=nbr.local_port),
            b=Endpoint(device=nbr.remote_device, interface=nbr.remote_port),
            origin="lldp", src=SourceRef(path, nbr.line or None), owner_from=table.owner_from,
            remote_description=nbr.remote_port_description, max_frame_bytes=nbr.max_frame_bytes,
        ))
    problems = []
    if nameless:
        first_nameless = nameless[0]
        problems.append(ParseProblem(
            file=path, line=first_nameless.line or None, kind="invalid-value",
            message=f"{len(nameless)} LLDP neighbour(s) give neither a system name nor a chassis "
            f"ID here (the first on {first_nameless.local_port}): their cables are left out of "
            "the topology; lldpctl's JSON or text output names them by chassis ID",
        ))
    return ParseResult(devices=[], links=links, problems=problems, lines=lines,
                       unknown_lines=unknown, first_unknown=first)


class LldpParser:
    """``show lldp neighbors [detail]`` of EOS and NX-OS, as text or EOS eAPI JSON."""

    name = "lldp"
    label = "LLDP neighbour table (EOS / NX-OS show lldp neighbors)"
    vendor = "unknown"

    def sniff(self, head: str) -> int:
        return 100 if layout_of(head) else 0

    def parse(self, text: str, path: str) -> ParseResult:
        return table_result(read_lldp(text, path), text, path)
