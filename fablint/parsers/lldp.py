"""LLDP neighbour tables (EOS and NX-OS ``show lldp neighbors [detail]``, EOS eAPI JSON).

Each output is one device's view of its cables: "my port X sees device Y port Z". The text
forms are read with ttp templates (one per layout); ttp gives values, not places, so every
record is then anchored to its line by an in-order scan, which keeps file:line on every link.

Whose view it is comes from the output itself when it has a prompt line (``leaf4#show lldp
neighbors``), else from the collector layout (``leaf4/show_lldp_neighbors.txt``), else from a
file name that starts with the host name (``leaf4_show_lldp.txt``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import Any

from fablint.model import Endpoint, Link, ParseProblem, SourceRef
from fablint.parsers.base import ParseError, ParseResult

EOS_TABLE = """
<group name="rows">
{{ local | WORD }} {{ remote | WORD }} {{ port | WORD }} {{ ttl | DIGIT }}
</group>
"""
NXOS_TABLE = """
<group name="rows">
{{ remote | WORD }} {{ local | WORD }} {{ ttl | DIGIT }} {{ caps | WORD }} {{ port | WORD }}
{{ remote | WORD }} {{ local | WORD }} {{ ttl | DIGIT }} {{ port | WORD }}
</group>
"""
EOS_DETAIL = """
<group name="ports">
Interface {{ local }} detected {{ count | DIGIT }} LLDP neighbors:
<group name="neighbors">
  Neighbor {{ chassis | re("[^/ ]+") }}/{{ port_raw | WORD }}, age {{ age | re(".*") }}
    Port ID     : {{ port | re(".+") }}
  - System Name: {{ remote | re(".+") }}
  - Port Description: {{ port_description | re(".+") }}
  - IEEE802.3 Maximum Frame Size: {{ max_frame | DIGIT }} bytes
</group>
</group>
"""
NXOS_DETAIL = """
<group name="rows">
Chassis id: {{ chassis | WORD | _start_ }}
Port id: {{ port | re(".+") }}
Local Port id: {{ local | WORD }}
Port Description: {{ port_description | re(".+") }}
System Name: {{ remote | re(".+") }}
</group>
"""

_PROMPT = re.compile(r"^\s*([A-Za-z0-9][\w.:-]*)[#>]\s*(?:sh(?:ow)?\s+lldp\b.*)$", re.M)
_NAME_PREFIX = re.compile(r"^([A-Za-z0-9][\w.-]*?)[_.-]+(?:show|sh|lldp)[_.-]", re.I)
_COMMAND_FILE = re.compile(r"^(?:show|sh)[_ -]+lldp|^lldp", re.I)
_EOS_TABLE_HEAD = re.compile(r"^Port\s+Neighbor Device ID\s+Neighbor Port ID\s+TTL\s*$", re.M)
_NXOS_TABLE_HEAD = re.compile(r"^Device ID\s+Local Intf\s+Hold-time\s+Capability\s+Port ID",
                              re.M)
_EOS_DETAIL_HEAD = re.compile(r"^Interface \S+ detected \d+ LLDP neighbors:", re.M)
_NXOS_DETAIL_HEAD = re.compile(r"^Chassis id: \S+\s*\n\s*Port id: ", re.M)
_WRAPPED_ID = re.compile(r"^(\S+)[ \t]*\n[ \t]{8,}(?=\S)", re.M)
"""NX-OS wraps a long Device ID onto its own line and indents the rest of the row."""


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


@dataclass(frozen=True, slots=True)
class LldpTable:
    """What one LLDP output file says, and whose view it is."""

    owner: str | None
    owner_from: str
    """``prompt``, ``folder``, ``file name`` or ``unknown``."""
    layout: str
    neighbors: list[Neighbor]


def layout_of(text: str) -> str | None:
    """Which LLDP output this is, from its headers; None when it is not one."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{") and '"lldpNeighbors"' in text[:4096]:
        return "eos-json"
    for layout, head in (("eos-detail", _EOS_DETAIL_HEAD), ("nxos-detail", _NXOS_DETAIL_HEAD),
                         ("eos-table", _EOS_TABLE_HEAD), ("nxos-table", _NXOS_TABLE_HEAD)):
        if head.search(text):
            return layout
    return None


def owner_of(text: str, path: str) -> tuple[str | None, str]:
    """The device whose LLDP table this is, and how that was decided."""
    prompt = _PROMPT.search(text[:4096])
    if prompt:
        return prompt.group(1), "prompt"
    pure = PurePath(path)
    if _COMMAND_FILE.match(pure.name) and pure.parent.name not in ("", ".", ".."):
        return pure.parent.name, "folder"
    named = _NAME_PREFIX.match(pure.name)
    if named:
        return named.group(1), "file name"
    return None, "unknown"


@lru_cache(maxsize=8)
def _template(template: str) -> Any:
    """A compiled ttp template, kept per process: compiling costs as much as parsing."""
    from ttp import ttp  # imported here: only LLDP inputs pay for ttp's start-up

    return ttp(template=template, log_level="CRITICAL")


def _ttp(text: str, template: str) -> list[dict[str, Any]]:
    parser = _template(template)
    parser.clear_input()
    parser.clear_result()
    parser.add_input(text)
    parser.parse(one=True)  # in this process: fablint runs its own workers
    result = parser.result()
    found: Any = result[0][0] if result and result[0] else {}
    return found if isinstance(found, list) else [found]


def _records(found: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in found:
        value = block.get(key) if isinstance(block, dict) else None
        if isinstance(value, dict):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, dict))
    return out


def _unquote(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return value or None


class _Anchors:
    """Finds each record's line by scanning forward for its anchor text, in order."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.at = 0

    def find(self, *needles: str) -> int:
        for n in range(self.at, len(self.lines)):
            line = self.lines[n]
            if all(needle in line for needle in needles):
                self.at = n + 1
                return n + 1
        return 0


def _table(text: str, layout: str) -> list[Neighbor]:
    anchors = _Anchors(text)  # the original text: a wrapped row's line is its port's line
    if layout == "nxos-table":
        joined = _WRAPPED_ID.sub(lambda m: m.group(1) + " ", text)
        rows = _records(_ttp(joined, NXOS_TABLE), "rows")
    else:
        rows = _records(_ttp(text, EOS_TABLE), "rows")
    out = []
    for row in rows:
        local, remote, port = row.get("local"), row.get("remote"), row.get("port")
        if not (local and remote and port):
            continue
        if local in ("Port", "Local") or remote in ("Device", "Neighbor"):
            continue  # a header line that happened to fit the row pattern
        line = anchors.find(local, port)
        out.append(Neighbor(local_port=local, remote_device=remote, remote_port=port, line=line))
    return out


def _eos_detail(text: str) -> list[Neighbor]:
    anchors = _Anchors(text)
    out = []
    for block in _records(_ttp(text, EOS_DETAIL), "ports"):
        local = block.get("local")
        if not local:
            continue
        anchors.find(f"Interface {local} detected")
        for nbr in _records([block], "neighbors"):
            port = _unquote(nbr.get("port")) or _unquote(nbr.get("port_raw"))
            line = anchors.find("Neighbor ", str(nbr.get("chassis", "")))
            frame = nbr.get("max_frame")
            out.append(Neighbor(
                local_port=local, remote_device=_unquote(nbr.get("remote")), remote_port=port,
                line=line, remote_port_description=_unquote(nbr.get("port_description")),
                chassis_id=nbr.get("chassis"),
                max_frame_bytes=int(frame) if isinstance(frame, str) and frame.isdigit() else None,
            ))
    return out


def _nxos_detail(text: str) -> list[Neighbor]:
    anchors = _Anchors(text)
    out = []
    for row in _records(_ttp(text, NXOS_DETAIL), "rows"):
        local = row.get("local")
        if not local:
            continue
        line = anchors.find("Chassis id:", str(row.get("chassis", "")))
        out.append(Neighbor(
            local_port=local, remote_device=_unquote(row.get("remote")),
            remote_port=_unquote(row.get("port")), line=line,
            remote_port_description=_unquote(row.get("port_description")),
            chassis_id=row.get("chassis"),
        ))
    return out


def _eos_json(text: str, path: str) -> list[Neighbor]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(path, exc.lineno, f"not valid JSON: {exc.msg}") from exc
    table = data.get("lldpNeighbors") if isinstance(data, dict) else None
    lines = text.split("\n")

    def line_of(*needles: str) -> int:
        return next((n + 1 for n, line in enumerate(lines)
                     if all(needle in line for needle in needles)), 0)

    out = []
    if isinstance(table, list):  # 'show lldp neighbors | json'
        for row in table:
            if isinstance(row, dict) and isinstance(row.get("port"), str):
                out.append(Neighbor(
                    local_port=row["port"], remote_device=_unquote(row.get("neighborDevice")),
                    remote_port=_unquote(row.get("neighborPort")),
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
                out.append(Neighbor(
                    local_port=str(local), remote_device=_unquote(entry.get("systemName")),
                    remote_port=_unquote(iface.get("interfaceId")),
                    remote_port_description=_unquote(iface.get("interfaceDescription")),
                    chassis_id=_unquote(entry.get("chassisId")),
                    max_frame_bytes=frame if isinstance(frame, int) and frame > 0 else None,
                    line=line_of(f'"{local}"'),
                ))
    return out


def read_lldp(text: str, path: str) -> LldpTable:
    """Read one LLDP output. Raises ParseError only when it is not an LLDP table at all."""
    layout = layout_of(text)
    if layout is None:
        raise ParseError(path, None, "not an LLDP neighbour table")
    if layout == "eos-json":
        neighbors = _eos_json(text, path)
    elif layout == "eos-detail":
        neighbors = _eos_detail(text)
    elif layout == "nxos-detail":
        neighbors = _nxos_detail(text)
    else:
        neighbors = _table(text, layout)
    owner, how = owner_of(text, path)
    return LldpTable(owner=owner, owner_from=how, layout=layout, neighbors=neighbors)


class LldpParser:
    """``show lldp neighbors [detail]`` of EOS and NX-OS, as text or EOS eAPI JSON."""

    name = "lldp"
    label = "LLDP neighbour table (EOS / NX-OS show lldp neighbors)"
    vendor = "unknown"

    def sniff(self, head: str) -> int:
        return 100 if layout_of(head) else 0

    def parse(self, text: str, path: str) -> ParseResult:
        table = read_lldp(text, path)
        lines = text.count("\n") + 1
        if table.owner is None:
            problem = ParseProblem(
                file=path, line=1, kind="invalid-value",
                message="cannot tell whose LLDP table this is: no prompt line "
                "('leaf1#show lldp neighbors'), no device folder and no host name at the start "
                "of the file name; its links are left out",
            )
            return ParseResult(devices=[], problems=[problem], lines=lines)
        links = []
        for nbr in table.neighbors:
            if not nbr.remote_device or not nbr.remote_port:
                continue
            links.append(Link(
                a=Endpoint.model_construct(device=table.owner, interface=nbr.local_port),
                b=Endpoint.model_construct(device=nbr.remote_device, interface=nbr.remote_port),
                origin="lldp", src=SourceRef(path, nbr.line or None), owner_from=table.owner_from,
                remote_description=nbr.remote_port_description, max_frame_bytes=nbr.max_frame_bytes,
            ))
        return ParseResult(devices=[], links=links, lines=lines)
