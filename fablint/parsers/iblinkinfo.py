"""InfiniBand ``iblinkinfo`` output: every port of every node with its state and its peer.

Format (rdma-core ``infiniband-diags/iblinkinfo.c``, ``print_node_header`` / ``print_port``;
domain.md 2.4 [S59])::

    Switch: 0x<port 0 GUID> <description>:
         <lid> <port>[<ext>] ==( <width> <speed> <state>/<physstate>)==>  <peer lid> <peer port>…
         … [<ext>] "<peer description>" (<width msg> <speed msg>)
    CA: <description>:
          0x<port GUID> <lid> <port>[ ] ==( 4X 106.25 Gbps Active/  LinkUp)==>  <peer …>

(the port line is one line; it is folded here).

A port that is down shows only its states and ``[  ] "" ( )``; a port that is up without a
known peer shows ``"Port not available"``. The message in the last parentheses is iblinkinfo's
own verdict when a link runs below what both ends support: ``Could be 4X`` (width), ``Could be
106.25 Gbps`` or ``Could be FDR10`` (speed). ``-l`` (line mode) drops the headers and starts
every line with the port GUID and the node's description, and names the peer by port GUID too;
there the node type is inferred (a GUID that several ports report is a switch's).

Without line mode a peer is named by LID, port and description only, so it is matched to the
node that has that LID (a switch's LID, or a CA port's), else by description and port number.
A peer that has no section of its own (``--switches-only``) becomes a node of its own from what
the line says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from fablint.model import Vendor
from fablint.parsers.base import ParseError, ParseResult, starts_as_yaml
from fablint.parsers.ibdump import (
    MAX_LID,
    MAX_LINE,
    MAX_PORT,
    IbDumpBuilder,
    Obj,
    check_text,
    unwrapped,
)
from fablint.units import ib_guid, ib_speed, ib_width

_HEADER = re.compile(r"^(Switch|CA|Router):\s*(?:0x([0-9A-Fa-f]+)\s+)?(.*?):?\s*$")
_HEADERS = ("CA:", "Switch:", "Router:")
"""How the node header lines of iblinkinfo begin."""
_PORT = re.compile(
    r'^\s*(?:0x([0-9A-Fa-f]+)\s+)?(?:"(.*?)"\s+)?(\d+)\s+(\d+)\[\s*\d*\s*\]\s*'
    r"==\((.*?)\)(?:\s*\(HOQ:\d+ VL_Stall:\d+\))?==>\s*(.*?)\s*$")
_LINK = re.compile(r"^\s*(?:(\d+X|\?+)\s+)?(.*?)\s*([A-Za-z]+)\s*/\s*([A-Za-z ]+?)\s*$")
_REMOTE = re.compile(
    r'^(?:0x([0-9A-Fa-f]+)\s+)?(\d+)\s+(\d+)\[\s*\d*\s*\]\s+"(.*)"\s*\((.*)\)$')
_DOWN = re.compile(r'^\[\s*\]\s+""\s*\(\s*\)$')
_COULD_WIDTH = re.compile(r"Could be (\d+)X", re.IGNORECASE)
_COULD_SPEED = re.compile(r"Could be (FDR10|[\d.]+ Gbps)", re.IGNORECASE)

_PORT_START = re.compile(r'^\s*(?:0x[0-9A-Fa-f]+\s+)?(?:"[^"]*"\s+)?\d+\s+\d+\[')
"""How a port line begins: (line mode: GUID, description,) LID, port and ``[``."""


def _whole(raw: str) -> bool:
    """A line as iblinkinfo ended it: a header up to its ``:``, a port line up to the
    parentheses of its message (or ``"Port not available"``); other text is left alone."""
    line = raw.strip()
    if not line or len(line) > MAX_LINE:
        return True
    if line.startswith(_HEADERS):
        return line.endswith(":")
    if "==(" in line:
        return _PORT.match(line) is not None and (
            line.endswith(")") or line.endswith('"Port not available"'))
    return not _PORT_START.match(line)  # (a port line cut before its link)


def _starts(raw: str) -> bool:
    """Does a line begin a header or port line of its own (not the rest of a wrapped one)?"""
    line = raw.strip()
    return line.startswith(_HEADERS) or ("==(" in line and bool(_PORT_START.match(line)))


_TYPES = {"Switch": "switch", "CA": "ca", "Router": "router"}
_STATES = {"down": "Down", "initialize": "Initialize", "init": "Initialize", "armed": "Armed",
           "active": "Active"}
_PHYS = {"sleep": "Sleep", "polling": "Polling", "disabled": "Disabled",
         "portconfigurationtraining": "PortConfigurationTraining", "linkup": "LinkUp",
         "linkerrorrecovery": "LinkErrorRecovery", "phytest": "PhyTest", "phy test": "PhyTest"}


@dataclass
class _Remote:
    guid: int | None
    lid: int | None
    port: int
    description: str | None


@dataclass
class _PortLine:
    line: int
    number: int
    guid: int | None
    lid: int | None
    width: int | None = None
    speed: str | None = None
    state: str | None = None
    phys: str | None = None
    could_width: int | None = None
    could_speed: str | None = None
    remote: _Remote | None = None


@dataclass
class _Section:
    """One node as the output lists it: a header and its port lines."""

    type: str | None
    """None in line mode until the ports tell."""
    guid: int | None
    description: str | None
    line: int
    ports: list[_PortLine] = field(default_factory=list)


class IblinkinfoParser:
    """``iblinkinfo`` (default and ``-l`` line mode)."""

    name: ClassVar[str] = "iblinkinfo"
    label: ClassVar[str] = "InfiniBand iblinkinfo"
    vendor: ClassVar[Vendor] = "ib"

    def sniff(self, head: str) -> int:
        """Certain on one port line: ``<lid> <port>[..] ==( … )==>``. A file that begins
        like YAML (``key: …``) is iblinkinfo only if that is a node header (``CA: …``):
        otherwise it is YAML holding a dump, such as test data."""
        if starts_as_yaml(head) and not head.lstrip().startswith(_HEADERS):
            return 0
        for line in head.splitlines():
            if "==(" in line and ")==>" in line and _PORT.match(line):
                return 100
        return 0

    def parse(self, text: str, path: str) -> ParseResult:
        return _Reader(path).run(check_text(text, path))


class _Reader:
    def __init__(self, path: str) -> None:
        self.dump = IbDumpBuilder(path, "iblinkinfo")
        self.sections: list[_Section] = []
        self.loose: list[tuple[_PortLine, str | None]] = []
        """Line-mode port lines with the description they carry, grouped into nodes later."""

    def run(self, text: str) -> ParseResult:
        lines = text.split("\n")  # not splitlines(): \v, \f, \x1c… must not shift line numbers
        section: _Section | None = None
        # (a terminal narrower than iblinkinfo's 120-odd columns wraps every port line)
        for lineno, raw in unwrapped(lines, _whole, _starts):
            line = raw.strip()
            if not line or self.dump.too_long(line, lineno):
                continue
            if "==(" in line:
                match = _PORT.match(line)
                if match:
                    port, desc, line_mode = self.port_line(match, lineno)
                    if port is None:
                        continue
                    if line_mode:
                        self.loose.append((port, desc))
                    elif section is not None:
                        section.ports.append(port)
                    else:
                        self.dump.unknown(lineno)
                    continue
            header = _HEADER.match(line)
            if header and raw.rstrip().endswith(":"):
                section = self.header(header, lineno)
                continue
            self.dump.unknown(lineno)
        self.sections.extend(self.group_loose())
        self.build()
        if not self.dump.nodes:
            raise ParseError(self.dump.path, 1, "no iblinkinfo port line "
                             "('<lid> <port>[ ] ==( … )==> …') found")
        return self.dump.result(max(len(lines), 1))

    # -- reading ---------------------------------------------------------------------------

    def header(self, match: re.Match[str], lineno: int) -> _Section:
        kind, guid_text, desc = match.groups()
        guid = None
        if guid_text:
            try:
                guid = ib_guid(guid_text)
            except ValueError as exc:
                self.dump.problem(lineno, str(exc))
        section = _Section(_TYPES[kind], guid, desc.strip() or None, lineno)
        self.sections.append(section)
        return section

    def port_line(self, match: re.Match[str], lineno: int
                  ) -> tuple[_PortLine | None, str | None, bool]:
        guid_text, desc, lid_text, number_text, link, remote = match.groups()
        dump = self.dump
        number = dump.number(number_text, lineno, "port number", MAX_PORT)
        if number is None:
            return None, None, False
        guid = None
        if guid_text:
            try:
                guid = ib_guid(guid_text)
            except ValueError as exc:
                dump.problem(lineno, str(exc))
        port = _PortLine(lineno, number, guid, dump.number(lid_text, lineno, "LID", MAX_LID))
        self.link(port, link, lineno)
        self.remote(port, remote, lineno)
        return port, (desc.strip() or None) if desc is not None else None, desc is not None

    def link(self, port: _PortLine, text: str, lineno: int) -> None:
        match = _LINK.match(text)
        if match is None:
            self.dump.problem(lineno, f"cannot read the link state {text.strip()!r}")
            return
        width, speed, state, phys = match.groups()
        port.state = _STATES.get(state.lower())
        port.phys = _PHYS.get(phys.lower().strip())
        if port.state is None or port.phys is None:
            self.dump.problem(lineno, f"unknown port state {state}/{phys.strip()}")
        try:
            port.width = ib_width(width) if width else None
            port.speed = ib_speed(speed) if speed else None
        except ValueError as exc:
            self.dump.problem(lineno, str(exc))

    def remote(self, port: _PortLine, text: str, lineno: int) -> None:
        if not text or _DOWN.match(text) or text.strip('"') == "Port not available":
            return
        match = _REMOTE.match(text)
        if match is None:
            self.dump.problem(lineno, f"cannot read the peer {text!r}")
            return
        guid_text, lid_text, number_text, desc, messages = match.groups()
        dump = self.dump
        number = dump.number(number_text, lineno, "peer port number", MAX_PORT)
        if number is None:
            return
        guid = None
        if guid_text:
            try:
                guid = ib_guid(guid_text)
            except ValueError as exc:
                dump.problem(lineno, str(exc))
        port.remote = _Remote(guid, dump.number(lid_text, lineno, "peer LID", MAX_LID), number,
                              desc.strip() or None)
        width = _COULD_WIDTH.search(messages)
        speed = _COULD_SPEED.search(messages)
        try:
            port.could_width = ib_width(width.group(1)) if width else None
            port.could_speed = ib_speed(speed.group(1)) if speed else None
        except ValueError as exc:
            dump.problem(lineno, str(exc))

    def group_loose(self) -> list[_Section]:
        """Line-mode lines into nodes: a port GUID on several port numbers is a switch; other
        ports join the channel adapter with their description that lacks that port number."""
        by_guid: dict[int | None, list[tuple[_PortLine, str | None]]] = {}
        for port, desc in self.loose:
            by_guid.setdefault(port.guid, []).append((port, desc))
        sections: list[_Section] = []
        adapters: dict[str | None, list[_Section]] = {}
        for guid, items in by_guid.items():
            if guid is not None and len({p.number for p, _ in items}) > 1:
                section = _Section("switch", guid, items[0][1], items[0][0].line)
                section.ports = [p for p, _ in items]
                sections.append(section)
                continue
            for port, desc in items:
                group = adapters.setdefault(desc, [])
                home = next((s for s in group
                             if all(p.number != port.number for p in s.ports)), None)
                if home is None:
                    home = _Section("ca", None, desc, port.line)
                    group.append(home)
                    sections.append(home)
                home.ports.append(port)
        return sections

    # -- building --------------------------------------------------------------------------

    def build(self) -> None:
        dump = self.dump
        made: list[tuple[_Section, Obj]] = []
        for section in self.sections:
            first = next((p.guid for p in section.ports if p.guid is not None), None)
            guid = section.guid if section.type == "switch" else first
            key = f"0x{guid:016x}" if guid is not None else \
                f"{section.type or 'node'}:{section.description or section.line}"
            node = dump.add(key, section.type or "ca", section.line)
            dump.set(node, "description", section.description, section.line)
            if section.type == "switch":
                dump.set(node, "port_guid", section.guid, section.line)
            made.append((section, node))
            for line in section.ports:
                port = dump.port(node, line.number, line.line)
                if section.type == "switch":
                    dump.set(node, "lid", line.lid, line.line, weak=True)
                else:
                    dump.set(port, "guid", line.guid, line.line)
                    dump.set(port, "lid", line.lid, line.line)
                for name, value in (("width", line.width), ("speed", line.speed),
                                    ("state", line.state), ("phys_state", line.phys),
                                    ("could_be_width", line.could_width),
                                    ("could_be_speed", line.could_speed)):
                    dump.set(port, name, value, line.line)
        resolver = _Resolver(made)
        for section, node in made:
            for line in section.ports:
                if line.remote is not None:
                    self.connect(resolver, section, node, line)

    def connect(self, resolver: _Resolver, section: _Section, node: Obj,
                line: _PortLine) -> None:
        dump, remote = self.dump, line.remote
        assert remote is not None
        peer = resolver.find(remote)
        if peer is None:
            key = f"0x{remote.guid:016x}" if remote.guid is not None else \
                f"peer:{remote.description or remote.lid}"
            guess = "switch" if section.type != "switch" else "ca"
            peer = dump.ensure(key, guess, line.line)
            dump.set(peer, "description", remote.description, line.line, weak=True)
            resolver.add_stub(remote, peer)
        port = node["ports"][line.number]
        peer_port = dump.port(peer, remote.port, line.line)
        if peer["type"] == "switch":
            dump.set(peer, "lid", remote.lid, line.line, weak=True)
            if remote.guid is not None:
                dump.set(peer, "port_guid", remote.guid, line.line, weak=True)
        else:
            dump.set(peer_port, "lid", remote.lid, line.line, weak=True)
            dump.set(peer_port, "guid", remote.guid, line.line, weak=True)
        dump.set(peer_port, "width", line.width, line.line, weak=True)
        dump.set(peer_port, "speed", line.speed, line.line, weak=True)
        dump.connect(node, port, peer, peer_port)


class _Resolver:
    """Finds the node a peer reference means: by GUID, else by LID, else by description."""

    def __init__(self, made: list[tuple[_Section, Obj]]) -> None:
        self.by_guid: dict[int, Obj] = {}
        self.by_lid: dict[int, list[Obj]] = {}
        self.by_desc: dict[str | None, list[Obj]] = {}
        for section, node in made:
            if section.type == "switch" and section.guid is not None:
                self.by_guid.setdefault(section.guid, node)
            for line in section.ports:
                if section.type != "switch" and line.guid is not None:
                    self.by_guid.setdefault(line.guid, node)
                if line.lid:
                    nodes = self.by_lid.setdefault(line.lid, [])
                    if node not in nodes:
                        nodes.append(node)
            self.by_desc.setdefault(section.description, []).append(node)

    def find(self, remote: _Remote) -> Obj | None:
        if remote.guid is not None:
            return self.by_guid.get(remote.guid)
        candidates = self.by_lid.get(remote.lid or 0, []) if remote.lid else []
        named = [n for n in candidates if n.get("description") == remote.description]
        if named or candidates:
            return (named or candidates)[0]
        by_desc = self.by_desc.get(remote.description, [])
        with_port = [n for n in by_desc if remote.port in n["ports"]]
        return (with_port or by_desc or [None])[0]

    def add_stub(self, remote: _Remote, node: Obj) -> None:
        if remote.guid is not None:
            self.by_guid.setdefault(remote.guid, node)
        elif remote.lid:
            self.by_lid.setdefault(remote.lid, []).append(node)
        else:
            self.by_desc.setdefault(remote.description, []).append(node)
