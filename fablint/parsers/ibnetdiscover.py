"""InfiniBand ``ibnetdiscover`` output: the topology file (the default output, also the
infiniband-diags format for describing intended cabling) and the ports report (``-p``).

Topology file (rdma-core ``infiniband-diags/ibnetdiscover.c``, man page [S57][S58])::

    vendid=0x2c9
    devid=0xd2f0
    sysimgguid=0x…
    switchguid=0x<node guid>(<port 0 guid>)
    Switch  41 "S-<guid>"     # "<description>" enhanced port 0 lid 1 lmc 0
    [1]     "H-<guid>"[1](<port guid>)    # "<peer description>" lid 5 4xNDR
    [3]     "S-<guid>"[7]                 # "<peer description>" lid 2 4xNDR

    caguid=0x<node guid>
    Ca      2 "H-<guid>"      # "<description>"
    [1](<port guid>)  "S-<guid>"[1]       # lid 5 lmc 0 "<peer description>" lid 1 4xNDR

``Rt``/``R-`` and ``rtguid=`` are routers. Only cabled ports are listed; a record ends at a blank
line. ``-g`` adds chassis sections and ``[ext N]`` port names, ``-f`` appends ``s=… w=… v=…``.
Real dumps also carry a BOM, a shell prompt or a libibmad warning above the first record,
unquoted descriptions, width ``??`` and speed ``???``, whitespace-only separator lines (old
releases) and hand-edited topologies with ports that have no peer: unknown lines are skipped and
counted, bad values are problems with their line.

Ports report (``-p``, ``dump_ports_report``), one line per port, each cable seen from both
ends; unconnected ports end with their own description::

    CA   134  1 0x7cfe9003003b4bde 4x EDR - SW  1719 10 0x7cfe9003009ce5b0 ( 'o0001 HCA-1' - …
    SW  2052 37 0x506b4b03005c2740 4x ???                                    'ib-i4l1s01'

(the first line ends ``… - 'ib-i1l1s01' )``).

It shows port GUIDs, not node GUIDs: a switch is known by its port 0 GUID (every port of the
switch reports it), a channel adapter by its description, one node per description unless two
ports of the same number have different GUIDs.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from fablint.model import ParseProblem, SourceRef, Vendor
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.ibdump import (
    _PORT_NAMES,
    MAX_LID,
    MAX_LINE,
    MAX_LMC,
    MAX_PORT,
    IbDumpBuilder,
    Obj,
    _new_tuple,
    check_text,
    end,
    unwrapped,
)
from fablint.units import ib_guid, ib_speed, ib_width, ib_width_speed

_TYPES = {"Switch": "switch", "Ca": "ca", "Rt": "router", "S": "switch", "H": "ca", "R": "router",
          "SW": "switch", "CA": "ca", "RT": "router"}

_NODE = re.compile(
    r'^(Switch|Ca|Rt)\s*(\d+)\s*"([SHR])-([0-9A-Fa-f]+)"\s*(?:#\s*(.*))?$')
r"""A node line, stripped (no whitespace at its end, so the comment is all the rest: a lazy
``(.*?)\s*$`` tried ``\s*$`` at each of its characters, 36,000 instructions a line)."""
_LABEL = r'(?:\((\d{1,3}(?:/\d{1,3}){0,3})\)\s*)?'
"""An ibdiagnet port label after ``[n]``: ``(1/2/1)`` (Quantum-2 ASIC/cage/port), ``(1/2/1/1)``
split, ``(3)``; decimal and short, where a port GUID in parentheses is long hexadecimal."""
_PORT = re.compile(
    r'^\[(\d+)\](?:\[ext \d+\])?\s*' + _LABEL + r'(?:\(([0-9A-Fa-f]+)\))?\s*'
    r'(?:"([SHR])-([0-9A-Fa-f]+)"\[(\d+)\](?:\[ext \d+\])?\s*' + _LABEL +
    r'(?:\(([0-9A-Fa-f]+)\))?)?'
    r'\s*(?:#\s*(.*?))?\s*$')
_IDS = re.compile(
    r'^(vendid|devid|sysimgguid|switchguid|caguid|rtguid)\s*=\s*(?:0x)?([0-9A-Fa-f]+)'
    r'(?:\(([0-9A-Fa-f]+)\))?(?:\s*#.*)?\s*$')
_IDS_PLAIN = re.compile(
    r'^(vendid|devid|sysimgguid|switchguid|caguid|rtguid)=0x([0-9a-f]+)(?:\(([0-9a-f]+)\))?$')
"""A header line as ibnetdiscover writes it (no space, lower-case hexadecimal, nothing after):
``_IDS``'s groups with a quarter fewer instructions, on 80,000 lines of a 2,000-switch dump."""
_SWITCH_TAIL = re.compile(
    r'^(?:"(.*)"|(.*?))(?:\s+(base|enhanced))?(?:\s+port 0)?(?:\s+lid ?(-?\d*) lmc ?(-?\d*))?\s*$')
_CA_TAIL = re.compile(r'^(?:"(.*)"|(.*?))(?:\s+\(scp\))?\s*$')
_PORT_TAIL = re.compile(
    r'^(?:lid ?(-?\d*) lmc ?(-?\d*)\s*)?(?:"(.*)"|(.*?))(?:\s*\blid ?(-?\d*))?'
    r'(?:\s+(\d+x\S*|\?\?\S*))?(?:\s+s=\d+ w=\d+ v=\d+)?(?:\s+slot \d+|\s+\(scp\))?\s*$')
_PORT_FULL = re.compile(
    r'^\[(\d{1,3})\]\s*' + _LABEL + r'(?:\(([0-9A-Fa-f]{1,16})\))?\s*"([SHR])-([0-9A-Fa-f]{1,16})"'
    r'\[(\d{1,3})\]\s*' + _LABEL + r'(?:\(([0-9A-Fa-f]{1,16})\))?\s*#\s*'
    r'(?:lid (\d{1,5}) lmc (\d)\s+)?"([^"]*)"()'
    r'\s+lid (\d{1,5})\s+(\d{1,2}x[A-Z0-9?]+)$')
"""The usual port line in one match (no ``[ext N]``, quoted description, nothing appended);
same groups as ``_PORT`` and ``_PORT_TAIL`` together. Anything else takes the general path."""
_PORT_PLAIN = re.compile(
    r'^\[(\d{1,3})\]\s*"([SHR])-([0-9A-Fa-f]{1,16})"\[(\d{1,3})\]'
    r'(?:\((?!\d{1,3}\))([0-9A-Fa-f]{1,16})\))?\s*#\s*"([^"]*)"\s+lid (\d{1,5})\s+'
    r'(\d{1,2}x[A-Z0-9?]+)$')
"""A switch's port line as ``_PORT_FULL`` reads it when neither end has a label and the
line gives no port GUID or LID of its own (a third fewer instructions than ``_PORT_FULL``'s
optional parts take, on 90,000 lines of a 2,000-switch dump); ``plain_port_groups`` makes
``_PORT_FULL``'s groups of its own. A peer's ``(123)`` would be a label there: not taken."""
_KNOWN = re.compile(r'^(?:#|Chassis \d+|Non-Chassis Nodes|Hostname:|# )')
_LINK_END = re.compile(
    r"(?:\d+x(?:SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR|\?+)|\?\?\S*)"
    r"(?:\s+s=\d+ w=\d+ v=\d+(?: e=\d+)?)?(?:\s+slot \d+|\s+\(scp\))?$")
_PORT_BEGIN = re.compile(r'^\[\d+\](?:\[ext \d+\])?\s*(?:\([^)]*\)\s*)?"')
_BEGINS = ("vendid", "devid", "sysimgguid", "switchguid", "caguid", "rtguid", "Switch",
           "Ca\t", "Ca ", "Rt\t", "Rt ", "Chassis", "Non-Chassis", "Hostname:", "#")


def _topology_whole(raw: str) -> bool:
    """A topology-file line as ibnetdiscover ended it: a port line up to its link (``4xHDR``),
    a switch line up to ``lmc N``, a CA or router line up to its quoted description; other
    lines are left alone."""
    line = raw.strip()
    if not line or len(line) > MAX_LINE:
        return True
    if line[0] == "[":
        return "#" not in line or bool(_LINK_END.search(line))
    if line.startswith("Switch"):
        return bool(re.search(r"lmc ?-?\d+$", line)) or "#" not in line
    if line.startswith(("Ca", "Rt")):
        return line.endswith(('"', "(scp)")) or "#" not in line
    return True


def _topology_begins(raw: str) -> bool:
    """Does a line begin a topology-file line of its own (not the rest of a wrapped one)?"""
    line = raw.strip()
    return not line or line.startswith(_BEGINS) or bool(_PORT_BEGIN.match(line))


_PORTS_LINE = re.compile(
    r"^\s*(CA|SW|RT)\s+(?:(-?\d+)\s+)?(\d+)\s+0x([0-9A-Fa-f]+)\s+(\S+)\s+(\S+)\s*(.*?)\s*$")
_PORTS_PEER = re.compile(
    r"^-\s+(CA|SW|RT)\s+(?:(-?\d+)\s+)?(\d+)\s+0x([0-9A-Fa-f]+)\s+"
    r"\(\s*(?:'(.*?)'|(.*?))\s+-\s+(?:'(.*)'|(.*?))\s*\)$")
_PORTS_ALONE = re.compile(r"^(?:'(.*)'|(.*?))$")
_PORTS_START = re.compile(r"^\s*(?:CA|SW|RT)\s+-?\d")
"""How a ports-report line begins; a line that does not continues a wrapped one."""


def _complete(rest: str) -> bool:
    """Does a ports-report line end where the tool ended it: the peer's ``( a - b )`` closed,
    the port's own quoted description closed, present at all (the tool prints one on every
    line; a terminal that wrapped the line cut it)?"""
    if not rest:
        return False
    if rest[0] == "-":
        return rest.endswith(")")
    if rest[0] == "'":
        return len(rest) > 1 and rest.endswith("'")
    return True


def _whole(raw: str) -> bool:
    """A ports-report line as the tool ended it (or no port line at all: left alone)."""
    if len(raw) > MAX_LINE:
        return True
    match = _PORTS_LINE.match(raw)
    if match is None:
        return not _PORTS_START.match(raw)
    return _complete(match.group(7))


def _unwrapped(lines: list[str]) -> list[tuple[int, str]]:
    """The report's port lines with the pieces a terminal copy wrapped joined again
    (``ibdump.unwrapped``): a new port line begins with its type and LID."""
    return unwrapped(lines, _whole, lambda line: bool(_PORTS_START.match(line)))


_LINKS: dict[str, tuple[int | None, str | None]] = {}
"""``4xNDR`` -> (4, "NDR"): the few distinct tokens of dumps, each read once."""


def plain_port_groups(match: re.Match[str]) -> tuple[str | None, ...]:
    """``_PORT_FULL.match(line).groups()`` of a line ``_PORT_PLAIN`` matched."""
    number, letter, guid, peer_number, peer_port_guid, desc, peer_lid, link = match.groups()
    return (number, None, None, letter, guid, peer_number, None, peer_port_guid, None, None,
            desc, "", peer_lid, link)


def _same(known: object, seen: object) -> bool:
    """Two sightings agree on a value unless both give one and they differ."""
    return known is None or seen is None or known == seen


def _desc(quoted: str | None, bare: str | None) -> str | None:
    """A description as the dump wrote it, quoted or not; None when empty."""
    text = quoted if quoted is not None else (bare or "").strip()
    return text or None


class IbnetdiscoverParser:
    """``ibnetdiscover`` topology output (and topology files written in the same format)."""

    name: ClassVar[str] = "ibnetdiscover"
    label: ClassVar[str] = "InfiniBand ibnetdiscover topology"
    vendor: ClassVar[Vendor] = "ib"

    def sniff(self, head: str) -> int:
        """Certain on a node line (``Switch 36 "S-…"``, ``Ca 2 "H-…"``) or a port line with a
        quoted ``"S-…"[n]`` peer; a ``switchguid=``/``caguid=`` header alone is a fair hint."""
        for line in head.splitlines():
            stripped = line.strip()
            if stripped[:1] in ("S", "C", "R") and _NODE.match(stripped):
                return 100
            if stripped[:1] == "[" and '"' in stripped:
                match = _PORT.match(stripped)
                if match and match.group(4):
                    return 100
        if re.search(r"(?m)^(?:switchguid|caguid)=0x[0-9A-Fa-f]+", head) and "vendid=" in head:
            return 60
        return 0

    def parse(self, text: str, path: str) -> ParseResult:
        text = check_text(text, path)
        try:
            result = _TopologyReader(path).run(text)
        except ParseError:
            result = None
        if result is not None and not result.unknown_lines and not result.problems:
            return result  # (every clean dump: no second look)
        # Lines it could not read may be the pieces of lines a terminal copy wrapped: read
        # again with them joined, if there are any, and keep the better reading.
        lines = text.split("\n")
        joined = unwrapped(lines, _topology_whole, _topology_begins)
        if len(joined) == len(lines):
            if result is None:
                return _TopologyReader(path).run(text)  # (raises its ParseError)
            return result
        again = _TopologyReader(path).run(text, joined)
        if result is None or (again.unknown_lines + len(again.problems)
                              < result.unknown_lines + len(result.problems)):
            return again
        return result


class _TopologyReader:
    """State of one topology-file parse."""

    def __init__(self, path: str) -> None:
        self.dump = IbDumpBuilder(path, "ibnetdiscover")
        self.ids: dict[str, tuple[int, int, int | None]] = {}
        """Header lines of the next record: name -> (value, line, port guid)."""
        self.node: Obj | None = None
        self.pending: list[tuple[Any, ...]] = []
        """Port lines with a peer, connected once every record is read."""

    def run(self, text: str, joined: list[tuple[int, str]] | None = None) -> ParseResult:
        """``joined``: the lines numbered, with wrapped ones joined (``ibdump.unwrapped``)."""
        lines = text.split("\n")  # not splitlines(): \v, \f, \x1c… must not shift line numbers
        port_line, full_match = self.port_line, _PORT_FULL.match
        plain_match, ids_match = _PORT_PLAIN.match, _IDS_PLAIN.match
        node = None  # (``self.node``, which only a blank line and ``node_line`` change)
        unread = 0  # (the last line not understood)
        for lineno, raw in enumerate(lines, 1) if joined is None else joined:
            line = raw.strip()
            if not line:
                node = self.node = None  # a blank (or whitespace-only) line ends a record
                continue
            if len(line) > MAX_LINE and self.dump.too_long(line, lineno):
                continue
            first = line[0]
            if first == "[" and node is not None:
                plain = plain_match(line)
                if plain:
                    number, letter, guid, peer_number, peer_port_guid, desc, peer_lid, link = \
                        plain.groups()  # (``plain_port_groups``, inline)
                    port_line((number, None, None, letter, guid, peer_number, None,
                               peer_port_guid, None, None, desc, "", peer_lid, link), lineno)
                    continue
                full = full_match(line)
                if full:
                    port_line(full.groups(), lineno)
                    continue
                match = _PORT.match(line)
                if match:
                    *head, tail = match.groups()
                    parts = _PORT_TAIL.match(tail or "")
                    rest = parts.groups() if parts else (None,) * 6
                    self.port_line((*head, *rest), lineno)
                    continue
            elif first in ("S", "C", "R"):
                match = _NODE.match(line)
                if match:
                    self.node_line(match, lineno)
                    node = self.node
                    continue
            elif first in ("v", "d", "s", "c", "r"):
                match = ids_match(line) or _IDS.match(line)
                if match:
                    self.id_line(match, lineno)
                    continue
            if _KNOWN.match(line):
                continue
            self.dump.unknown(lineno)
            unread = lineno
        if not self.dump.nodes:
            raise ParseError(self.dump.path, 1, "no ibnetdiscover node record "
                             "('Switch N \"S-<guid>\"' or 'Ca N \"H-<guid>\"') found")
        self.link_peers()
        if unread and unread == len(lines) and not text.endswith("\n"):
            # ibnetdiscover ends every line: a last line cut off and unread is a capture that
            # stopped (a full disk, an interrupted copy); the records after it are missing
            self.dump.problems.append(ParseProblem(
                file=self.dump.path, line=unread, kind="partial", message=(
                    f"the dump stops inside line {unread} (no line end) and that line is "
                    "not whole: the capture was cut short, and the nodes and ports it would "
                    "have listed after it are missing")))
        return self.dump.result(max(len(lines), 1))

    def id_line(self, match: re.Match[str], lineno: int) -> None:
        key, value, port_guid = match.groups()
        try:  # (the pattern matched hex digits: only the length is left to check)
            number = int(value, 16) if len(value) <= 16 else ib_guid(value)
            port = (int(port_guid, 16) if len(port_guid) <= 16 else ib_guid(port_guid)) \
                if port_guid else None
        except ValueError as exc:
            self.dump.problem(lineno, f"{key}: {exc}")
            return
        if key in ("vendid", "devid") and number > 0xFFFFFF:
            self.dump.problem(lineno, f"{key} 0x{number:x} is out of range")
            return
        self.ids[key] = (number, lineno, port)

    def node_line(self, match: re.Match[str], lineno: int) -> None:
        kind, ports, letter, guid_text, tail = match.groups()
        dump = self.dump
        try:
            guid = int(guid_text, 16) if len(guid_text) <= 16 else ib_guid(guid_text)
        except ValueError as exc:
            dump.problem(lineno, str(exc))
            self.node, self.ids = None, {}
            return
        node_type = _TYPES[kind]
        if _TYPES[letter] != node_type:
            dump.problem(lineno, f"{kind} record with a {letter}- name")
        # A record's node is always a new one (stubs are made after every record is read,
        # ``link_peers``): its values are written as ``dump.set`` would write them, in the
        # same order, without a call each (20,000 records, eight values each).
        node = self.node = dump.claim(f"0x{guid:016x}", node_type, lineno)
        field_src = node["field_src"]
        node["guid"] = guid
        count = dump.number(ports, lineno, "port count", MAX_PORT)
        if count is not None:
            node["port_count"] = count
        ids, self.ids = self.ids, {}
        for key, field in (("vendid", "vendor_id"), ("devid", "device_id"),
                           ("sysimgguid", "system_guid")):
            if key in ids:  # (a header line: before the record's own)
                value, line, _ = ids[key]
                node[field] = value
                field_src[field] = dump.ref(line)
        own = ids.get({"switch": "switchguid", "ca": "caguid", "router": "rtguid"}[node_type])
        if own is not None:
            value, line, paren = own
            if value == guid:  # rdma-core: node GUID (port 0 GUID)
                if node_type == "switch" and paren is not None:
                    node["port_guid"] = paren
                    field_src["port_guid"] = dump.ref(line)
            elif paren == guid:
                # ibdiagnet on director chassis chips: system image GUID (node GUID)
                if node.get("system_guid") is None:
                    node["system_guid"] = value
                    field_src["system_guid"] = dump.ref(line)
            else:
                dump.problem(line, f"node GUID 0x{value:016x} differs from the record's "
                             f"0x{guid:016x}")
        tail = tail or ""
        if node_type == "switch":
            parts = _SWITCH_TAIL.match(tail)
            if parts is None:  # the pattern accepts any text; kept for the type checker
                return
            quoted, bare, port0, lid, lmc = parts.groups()
            _put(node, "description", _desc(quoted, bare))
            if port0:
                node["enhanced_port0"] = port0 == "enhanced"
            _put(node, "lid", _lid(dump, lid, lineno, "LID", MAX_LID))
            _put(node, "lmc", _lid(dump, lmc, lineno, "LMC", MAX_LMC))
        else:
            parts = _CA_TAIL.match(tail)
            if parts is not None:
                _put(node, "description", _desc(*parts.groups()))

    def port_line(self, groups: tuple[str | None, ...], lineno: int) -> None:
        """One port line of the current record, as ``_PORT_FULL`` groups.

        The hot loop of a large dump, so it stores only the port's own values; the peer is
        resolved in ``link_peers`` once every record is read (a cable is listed from both ends,
        and the far end's own record knows it best).
        """
        (number_text, label, guid_text, letter, peer_guid_text, peer_number, peer_label,
         peer_port_guid, own_lid, own_lmc, quoted, bare, peer_lid, link) = groups
        dump, node = self.dump, self.node
        assert node is not None
        # (the patterns matched digits, at most a line's: only the range is left to check)
        number = int(number_text)
        if number > MAX_PORT:
            number = dump.number(number_text, lineno, "port number", MAX_PORT)
            if number is None:
                return
        ports = node["ports"]
        if number in ports:
            dump.problem(lineno, f"port {number} is listed twice")
            return
        # (``dump.ref(lineno)``: every port line is a new line)
        ref = dump._ref = _new_tuple(SourceRef, (dump.path, lineno))
        port: Obj = {"number": number, "src": ref, "field_src": {}}
        ports[number] = port
        if guid_text:
            _put(port, "guid", _hex(guid_text, lineno, dump))
        if label is not None:
            port["label"] = label
        if link:
            known = _LINKS.get(link)
            if known is None:
                try:
                    known = ib_width_speed(link)
                except ValueError as exc:
                    dump.problem(lineno, str(exc))
                    known = (None, None)  # (not kept: each line with it is a problem)
                else:
                    if len(_LINKS) < 256:
                        _LINKS[link] = known
            width, speed = known
            if width is not None:
                port["width"] = width
            if speed is not None:
                port["speed"] = speed
        if node["type"] != "switch":
            _put(port, "lid", _lid(dump, own_lid, lineno, "LID", MAX_LID))
            _put(port, "lmc", _lid(dump, own_lmc, lineno, "LMC", MAX_LMC))
        if letter is None or peer_guid_text is None:
            return  # a port with no peer (hand-written topology files)
        # (the peer's GUID stays text: ``link_peers`` makes its key once per text)
        bad_guid = len(peer_guid_text) > 16 and _hex(peer_guid_text, lineno, dump) is None
        peer_port_number = int(peer_number)
        if peer_port_number > MAX_PORT:
            peer_port_number = dump.number(peer_number, lineno, "peer port number", MAX_PORT)
        if bad_guid or peer_port_number is None:
            return
        self.pending.append((node, port, letter, peer_guid_text, peer_port_number,
                             peer_port_guid, peer_label, quoted, bare, peer_lid, lineno))

    def link_peers(self) -> None:
        """Connect every port to its peer. A peer without a record of its own (a truncated
        dump, a hand-written topology) becomes a node from what the lines say about it."""
        dump = self.dump
        nodes = dump.nodes
        stubs = dump.stubs
        # GUIDs that several records claim (``key#2`` ...): only their references need
        # ``_record_for``; records are all read, and a stub made below never takes a ``#``
        claimed = {key.partition("#")[0] for key in nodes if "#" in key}
        keys: dict[str, str] = {}
        cables = dump.cables
        names = _PORT_NAMES
        for (node, port, letter, peer_text, peer_number, peer_port_guid, peer_label, quoted,
             bare, peer_lid, lineno) in self.pending:
            key = keys.get(peer_text)  # (a GUID's text: hexadecimal, at most 16 digits)
            if key is None:
                key = keys[peer_text] = f"0x{int(peer_text, 16):016x}"
            if claimed and key in claimed:
                key = _record_for(nodes, key, peer_number, node["key"], port["number"])
            peer = nodes.get(key)
            ref = port["src"]  # (the place of this line: the port was made from it)
            if peer is None or key in stubs:
                peer = dump.ensure(key, _TYPES[letter], lineno)
                _weak(peer, "guid", int(peer_text, 16), ref)
                _weak(peer, "description", _desc(quoted, bare), ref)
            peer_port = peer["ports"].get(peer_number)
            if peer_port is None:
                peer_port = dump.port(peer, peer_number, lineno)
                _weak(peer_port, "width", port.get("width"), ref)
                _weak(peer_port, "speed", port.get("speed"), ref)
                if peer_port_guid:
                    _weak(peer_port, "guid", _hex(peer_port_guid, lineno, dump), ref)
            if peer_label is not None:
                _weak(peer_port, "label", peer_label, ref)
            if peer_lid is not None:  # a switch's LID is its own, a CA's its port's
                holder = peer if letter == "S" else peer_port
                if holder.get("lid") is None:
                    _weak(holder, "lid", _lid(dump, peer_lid, lineno, "peer LID", MAX_LID), ref)
            # ``dump.connect(node, port, peer, peer_port)``, inline: once for each of 100,000
            # port lines (port numbers were checked: 0..MAX_PORT)
            peer_name = names[peer_number]
            old = port.get("peer")
            if old is None:
                port["peer"] = end(peer["key"], peer_name)
            elif old.interface != peer_name or old.device != peer["key"]:
                dump.connect(node, port, peer, peer_port)  # (its problem)
                continue
            back = peer_port.get("peer")
            if back is None:
                peer_port["peer"] = end(node["key"], names[port["number"]])
            if old is None or back is None:
                cables.append((node, port, peer, peer_port))


def _record_for(nodes: dict[str, Obj], key: str, number: int, from_key: str,
                from_port: int) -> str:
    """Which of the records that claim GUID ``key`` (``key``, ``key#2`` …) a peer reference
    means: the one whose port ``number`` names us as its peer, else one where that port is
    free, else the first."""
    if f"{key}#2" not in nodes:
        return key
    candidates = [key]
    while f"{key}#{len(candidates) + 1}" in nodes:
        candidates.append(f"{key}#{len(candidates) + 1}")
    back = (from_key, str(from_port))
    free = None
    for candidate in candidates:
        port = nodes[candidate]["ports"].get(number)
        peer = port.get("peer") if port is not None else None
        if peer is None:
            free = free or candidate
        elif (peer.device, peer.interface) == back:
            return candidate
    return free or key


def _lid(dump: IbDumpBuilder, text: str | None, lineno: int, what: str, hi: int) -> int | None:
    """A LID or LMC value; an empty one (``lid  lmc 0``) is a problem, never part of a name."""
    if text == "":
        dump.problem(lineno, f"{what} is empty")
        return None
    return dump.number(text, lineno, what, hi)


def _pair(rest: str) -> str:
    """The text between the parentheses of a ports-report peer: ``- CA … ( a - b )``."""
    start = rest.find("(")
    return rest[start + 1:-1].strip() if start >= 0 else ""


def _put(obj: Obj, name: str, value: object) -> None:
    """A value of the object's own line (no ``field_src``: it is the object's ``src``)."""
    if value is not None:
        obj[name] = value


def _weak(obj: Obj, name: str, value: object, ref: SourceRef) -> None:
    """``IbDumpBuilder.set(weak=True)`` for the hot loop."""
    if value is None or obj.get(name) is not None:
        return
    obj[name] = value
    if obj["src"].line != ref.line:
        obj["field_src"][name] = ref


def _hex(text: str, lineno: int, dump: IbDumpBuilder) -> int | None:
    """A GUID the pattern already checked for hex digits; too long is a problem."""
    if len(text) > 16:
        dump.problem(lineno, f"not a 64-bit GUID: {text!r}")
        return None
    return int(text, 16)


class IbnetdiscoverPortsParser:
    """``ibnetdiscover -p``: the ports report."""

    name: ClassVar[str] = "ibnetdiscover-ports"
    label: ClassVar[str] = "InfiniBand ibnetdiscover ports report (-p)"
    vendor: ClassVar[Vendor] = "ib"

    def sniff(self, head: str) -> int:
        """Certain on one complete port line: type, LID, port, 16-digit GUID, width, speed,
        then the peer or the port's own description (quoted, or bare when width and speed are
        real ones: ``4x EDR``, ``4x ???``)."""
        for line in head.splitlines():
            match = _PORTS_LINE.match(line)
            if match is None or len(match.group(4)) != 16:
                continue
            rest = match.group(7)
            if _PORTS_PEER.match(rest) or (rest.startswith("'") and rest.endswith("'")):
                return 100
            try:
                ib_width(match.group(5))
                ib_speed(match.group(6))
            except ValueError:
                continue
            if rest:
                return 90
        return 0

    def parse(self, text: str, path: str) -> ParseResult:
        return _PortsReader(path).run(check_text(text, path))


class _PortsReader:
    """State of one ports-report parse."""

    def __init__(self, path: str) -> None:
        self.dump = IbDumpBuilder(path, "ibnetdiscover-ports")
        self.switches: dict[int, list[Obj]] = {}
        """Switches by port GUID (with more than one node only when GUIDs are duplicated)."""
        self.adapters: dict[str, list[Obj]] = {}
        """Channel adapters and routers by description, their identity in this format."""
        self.adapter_ports: dict[int, Obj] = {}
        self.known: dict[str, set[str]] = {}
        """GUID text -> descriptions the report gives it without ambiguity (quoted, or alone on
        an unconnected port), for splitting unquoted ``( a - b )`` pairs."""
        self.mirrors: dict[tuple[str, str, str, str], str] = {}
        """(GUID, port, peer GUID, peer port) -> the unquoted pair of that line."""

    def run(self, text: str) -> ParseResult:
        lines = text.split("\n")  # not splitlines(): \v, \f, \x1c… must not shift line numbers
        records = _unwrapped(lines)
        if "( '" not in text or " - '" not in text:
            self.learn([raw for _, raw in records])
        for lineno, raw in records:
            if not raw.strip() or self.dump.too_long(raw, lineno):
                continue
            match = _PORTS_LINE.match(raw)
            if match is None or not self.port_line(match, lineno):
                self.dump.unknown(lineno)
        if not self.dump.nodes:
            raise ParseError(self.dump.path, 1, "no ibnetdiscover -p port line found")
        return self.dump.result(max(len(lines), 1))

    def switch(self, guid: int, lid: int | None, desc: str | None, lineno: int) -> Obj:
        """The switch with port GUID ``guid``; one with another description or LID is another
        switch that claims the same GUID."""
        nodes = self.switches.setdefault(guid, [])
        for node in nodes:
            if _same(node.get("description"), desc) and _same(node.get("lid"), lid):
                return node
        node = self.dump.add(f"0x{guid:016x}", "switch", lineno)
        nodes.append(node)
        return node

    def adapter(self, node_type: str, guid: int, number: int, lid: int | None,
                desc: str | None, lineno: int) -> Obj:
        """The CA or router a port belongs to: the node that already has this port GUID (with
        the same description and LID), else one with the same description that has no other
        GUID on this port number."""
        known = self.adapter_ports.get(guid)
        if known is not None and _same(known.get("description"), desc):
            port = known["ports"].get(number)
            if port is None or _same(port.get("lid"), lid):
                return known
        candidates = self.adapters.setdefault(desc or "", [])
        for node in candidates:
            other = node["ports"].get(number)
            if other is None or (other.get("guid") in (None, guid)
                                 and _same(other.get("lid"), lid)):
                break
        else:
            node = self.dump.add(f"0x{guid:016x}", node_type, lineno)
            candidates.append(node)
        self.adapter_ports.setdefault(guid, node)
        return node

    def end(self, kind: str, lid_text: str | None, number_text: str, guid_text: str,
            desc: str | None,
            lineno: int, own: bool) -> tuple[Obj, Obj] | None:
        """The node and port one side of a line describes (``own``: the line's own port;
        what a line says about the far end never overrides that end's own line)."""
        dump = self.dump
        node_type = _TYPES[kind]
        number = dump.number(number_text, lineno, "port number", MAX_PORT)
        lid = _lid(dump, "" if lid_text is None else lid_text, lineno,
                   "LID" if own else "peer LID", MAX_LID)
        try:
            guid = ib_guid(guid_text)
        except ValueError as exc:
            dump.problem(lineno, str(exc))
            return None
        if number is None:
            return None
        weak = not own
        if node_type == "switch":
            node = self.switch(guid, lid, desc, lineno)
            dump.set(node, "port_guid", guid, lineno, weak=weak)
            dump.set(node, "lid", lid, lineno, weak=weak)
        else:
            node = self.adapter(node_type, guid, number, lid, desc, lineno)
        dump.set(node, "description", desc, lineno, weak=weak)
        port = dump.port(node, number, lineno)
        if own:
            dump.move_src(port, lineno)
        if node_type != "switch":
            dump.set(port, "guid", guid, lineno, weak=weak)
            dump.set(port, "lid", lid, lineno, weak=weak)
        return node, port

    def learn(self, lines: list[str]) -> None:
        """First pass over a report with unquoted descriptions: what each GUID is called where
        that is unambiguous, and every unquoted pair by the cable it describes."""
        for raw in lines:
            match = _PORTS_LINE.match(raw) if len(raw) <= MAX_LINE else None
            if match is None:
                continue
            guid, rest = match.group(4).lower(), match.group(7)
            peer = _PORTS_PEER.match(rest)
            if peer is None:
                alone = _PORTS_ALONE.match(rest)
                desc = _desc(*alone.groups()) if alone else None
                if desc:
                    self.known.setdefault(guid, set()).add(desc)
                continue
            peer_guid = peer.group(4).lower()
            for key, quoted in ((guid, peer.group(5)), (peer_guid, peer.group(7))):
                if quoted is not None:
                    self.known.setdefault(key, set()).add(quoted)
            if peer.group(5) is None and peer.group(7) is None:
                self.mirrors[(guid, match.group(3), peer_guid, peer.group(3))] = \
                    _pair(rest)

    def split(self, rest: str, guid: str, number: str, peer_guid: str,
              peer_number: str) -> tuple[str, str] | None:
        """Split an unquoted ``( a - b )`` whose descriptions themselves contain `` - ``
        (``SwitchX -  Mellanox Technologies``): where one side is a name the report gives that
        GUID elsewhere, or where the same cable's line from the other end reads ``( b - a )``."""
        inner = _pair(rest)
        cuts = list(re.finditer(r"\s+-\s+", inner))
        if len(cuts) < 2:
            return None
        mirror = self.mirrors.get((peer_guid, peer_number, guid, number))
        for cut in cuts:
            left, right = inner[:cut.start()], inner[cut.end():]
            if left in self.known.get(guid, ()) or right in self.known.get(peer_guid, ()):
                return left, right
            if mirror is not None and mirror.startswith(right) and mirror.endswith(left) and \
                    len(mirror) > len(left) + len(right):
                return left, right
        return None

    def port_line(self, match: re.Match[str], lineno: int) -> bool:
        kind, lid, number, guid, width_text, speed_text, rest = match.groups()
        dump = self.dump
        peer = _PORTS_PEER.match(rest)
        if peer is not None:
            desc = _desc(peer.group(5), peer.group(6))
            peer_desc = _desc(peer.group(7), peer.group(8))
            if peer.group(5) is None and peer.group(7) is None and self.mirrors:
                pair = self.split(rest, guid.lower(), number, peer.group(4).lower(),
                                  peer.group(3))
                if pair is not None:
                    desc, peer_desc = pair
        else:
            alone = _PORTS_ALONE.match(rest)
            desc, peer_desc = (_desc(*alone.groups()) if alone else None), None
        try:
            width, speed = ib_width(width_text), ib_speed(speed_text)
        except ValueError:
            return False
        here = self.end(kind, lid, number, guid, desc, lineno, own=True)
        if here is None:
            return True
        node, port = here
        dump.set(port, "width", width, lineno)
        dump.set(port, "speed", speed, lineno)
        if peer is None:
            return True
        there = self.end(peer.group(1), peer.group(2), peer.group(3), peer.group(4), peer_desc,
                         lineno, own=False)
        if there is None:
            return True
        peer_node, peer_port = there
        dump.set(peer_port, "width", width, lineno, weak=True)
        dump.set(peer_port, "speed", speed, lineno, weak=True)
        dump.connect(node, port, peer_node, peer_port)
        return True
