"""What the InfiniBand discovery-dump parsers share: nodes and ports built as plain data, the
cables between them made links, everything validated into the model once at the end (the same
approach as ``parsers/build.py``: cheap dicts line by line, one pydantic validation).

A dump names a neighbour before that neighbour's own record (ibnetdiscover lists a switch's
ports, then the hosts behind them), or never gives it a record at all (a truncated dump,
``iblinkinfo --switches-only``). Such a neighbour is a *stub*: a node made from what the other
end's line says, which its own record later takes over. A second record for an identity that
already has one is a node of its own with the same GUID, which is how duplicate GUIDs stay
visible to the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic import TypeAdapter, ValidationError

from fablint.model import (
    Endpoint,
    IbNode,
    IbPort,
    Link,
    ParseProblem,
    SourceRef,
    ib_rate_mbps,
    shared_names,
)
from fablint.parsers.base import ParseError, ParseResult, reject_nul
from fablint.trusted import Maker, bare

Obj = dict[str, Any]

MAX_PORT = 254
"""Highest port number of an IB node (NumPorts is 8 bits; 255 is reserved)."""
MAX_LID = 0xFFFF
MAX_LMC = 7

_STRUCTURE = frozenset({"key", "type", "src", "field_src", "ports", "number", "peer"})
"""Keys of a node or port dict that are not values read from a line."""
_NODES = TypeAdapter(list[IbNode])
_LINKS = TypeAdapter(list[Link])


_PORT_NAMES = [str(n) for n in range(MAX_PORT + 1)]
_new_tuple = tuple.__new__
"""``SourceRef(file, line)`` without the Python-level ``__new__`` of a NamedTuple."""


MAX_LINE = 1024
"""Longest line an InfiniBand dump parser reads (real ones stay under 300 characters)."""

class IbDumpBuilder:
    """State of one dump: nodes by key, the stubs among them, problems."""

    def __init__(self, path: str, origin: str) -> None:
        self.path = path
        self.origin = origin
        """``Link.origin`` of the links this dump yields (the format name)."""
        self.nodes: dict[str, Obj] = {}
        self.stubs: set[str] = set()
        self.problems: list[ParseProblem] = []
        self.cables: list[tuple[Obj, Obj, Obj, Obj]] = []
        """(node, port, peer node, peer port) of every cable, in the order first seen."""
        self._ref = SourceRef(path, 0)
        self.unknown_lines = 0
        """Lines that look like part of the dump but that the parser did not understand."""
        self.first_unknown: int | None = None

    def too_long(self, raw: str, line: int) -> bool:
        """A line no dump writes (node descriptions are 64 bytes at most), counted unknown
        unread: the regular expressions are quadratic on kilobytes of one line."""
        if len(raw) <= MAX_LINE:
            return False
        self.unknown(line)
        return True

    def unknown(self, line: int) -> None:
        """Count a line the parser did not understand; the first one is remembered."""
        self.unknown_lines += 1
        if self.first_unknown is None:
            self.first_unknown = line

    # -- helpers ---------------------------------------------------------------------------

    def ref(self, line: int) -> SourceRef:
        """The place of ``line``; lines come in order, so the last one is kept and shared."""
        ref = self._ref
        if ref[1] != line:
            ref = self._ref = _new_tuple(SourceRef, (self.path, line))
        return ref

    def problem(self, line: int, message: str) -> None:
        self.problems.append(ParseProblem(file=self.path, line=line, message=message))

    def number(self, text: str | None, line: int, what: str, hi: int, base: int = 10) -> int | None:
        """``text`` as an integer in 0..hi, else None with a problem (None stays None)."""
        if text is None:
            return None
        try:
            value = int(text, base)
        except ValueError:
            self.problem(line, f"{what} {text!r} is not a number")
            return None
        if not 0 <= value <= hi:
            self.problem(line, f"{what} {text} is out of range (0-{hi})")
            return None
        return value

    def set(self, obj: Obj, name: str, value: Any, line: int, weak: bool = False) -> None:
        """Set a field; ``weak`` values (what a neighbour's line says about a node) never
        overwrite a value already there. None is never stored. ``field_src`` records the line
        only when it is not the object's own (``src``): a value from a neighbour's line, or a
        header line (in a dump every value is read, none is a default)."""
        if value is None or (weak and obj.get(name) is not None):
            return
        obj[name] = value
        src = obj["src"]
        if src.line != line:
            obj["field_src"][name] = self.ref(line)
        elif name in obj["field_src"]:
            del obj["field_src"][name]

    def move_src(self, obj: Obj, line: int) -> None:
        """Make ``line`` the object's own line (its record, after a neighbour's line made it);
        values already read keep the line they came from."""
        old = obj["src"]
        if old.line == line:
            return
        sources = obj["field_src"]
        for name in [n for n in obj if n not in _STRUCTURE and n not in sources]:
            sources[name] = old  # (in the object's order: a set's would vary run to run)
        obj["src"] = self.ref(line)
        for name in [n for n, ref in sources.items() if ref.line == line]:
            del sources[name]

    # -- nodes and ports -------------------------------------------------------------------

    def add(self, key: str, node_type: str, line: int) -> Obj:
        """A new node; a key that is taken gets ``#2``, ``#3`` …"""
        base, n = key, 2
        while key in self.nodes:
            key = f"{base}#{n}"
            n += 1
        node: Obj = {"key": key, "type": node_type, "src": self.ref(line), "field_src": {},
                     "ports": {}}
        self.nodes[key] = node
        return node

    def claim(self, key: str, node_type: str, line: int) -> Obj:
        """The node a record of the dump is about. A stub with that key is taken over; a key
        that already has its own record gets a second node (a duplicate identity)."""
        if key in self.stubs:
            self.stubs.discard(key)
            node = self.nodes[key]
            node["type"] = node_type
            self.move_src(node, line)
            return node
        return self.add(key, node_type, line)

    def ensure(self, key: str, node_type: str, line: int) -> Obj:
        """The node ``key`` as a neighbour's line names it: the known one, else a new stub."""
        node = self.nodes.get(key)
        if node is None:
            node = self.add(key, node_type, line)
            self.stubs.add(node["key"])
        return node

    def port(self, node: Obj, number: int, line: int) -> Obj:
        ports = node["ports"]
        port = ports.get(number)
        if port is None:
            port = ports[number] = {"number": number, "src": self.ref(line), "field_src": {}}
        return port

    def connect(self, node: Obj, port: Obj, peer_node: Obj, peer_port: Obj) -> None:
        """Record a cable seen from ``port``'s side (and, unless it says otherwise, from the
        peer's side too). The first sighting of a cable makes its link. A port's ``peer`` is
        the ``Endpoint`` itself (the very object the link's end and the model's port hold)."""
        number = peer_port["number"]  # (``str(number)``: the usual 255 made once)
        peer_name = _PORT_NAMES[number] if 0 <= number <= MAX_PORT else str(number)
        old = port.get("peer")
        if old is None:
            port["peer"] = end(peer_node["key"], peer_name)
        elif old.interface != peer_name or old.device != peer_node["key"]:
            self.problem(port["src"].line, f"port {port['number']} of {_name(node)} is listed "
                         f"with two different peers")
            return
        back = peer_port.get("peer")
        if back is None:
            number = port["number"]
            peer_port["peer"] = end(node["key"], _PORT_NAMES[number] if 0 <= number <= MAX_PORT
                                    else str(number))
        if old is None or back is None:
            self.cables.append((node, port, peer_node, peer_port))

    # -- result ----------------------------------------------------------------------------

    def links(self) -> list[Obj]:
        """One link per cable: ``a`` is the end whose line comes first in the dump."""
        origin = self.origin
        return [{"a": a, "b": b, "src": src, "origin": origin, "width": width, "a_speed": a_speed,
                 "b_speed": b_speed, "speed_mbps": speed}
                for a, b, src, width, a_speed, b_speed, speed in self._cables()]

    def _cables(self) -> Iterator[tuple[Any, Any, SourceRef, int | None, str | None,
                                        str | None, int | None]]:
        """The values of each link (``links``): ends, line, width, speeds, rate."""
        for node, port, peer_node, peer_port in self.cables:
            if peer_port["src"][1] < port["src"][1]:  # (a SourceRef is (file, line))
                node, port, peer_node, peer_port = peer_node, peer_port, node, port
            # the narrower width either end gives (they disagree only in stale dumps)
            width, other = port.get("width"), peer_port.get("width")
            width = (min(width, other) if other else width) if width else (other or None)
            a_speed, b_speed = port.get("speed"), peer_port.get("speed")
            yield (peer_port["peer"], port["peer"], port["src"], width, a_speed, b_speed,
                   ib_rate_mbps(a_speed or b_speed, width))

    def result(self, lines: int) -> ParseResult:
        try:
            links, nodes = construct(self)
        except ValueError as exc:  # a parser bug: say where, never crash the run
            raise ParseError(self.path, None, f"cannot build the model ({exc})") from exc
        return ParseResult(devices=[], problems=self.problems, links=links, ib_nodes=nodes,
                           lines=lines, unknown_lines=self.unknown_lines,
                           first_unknown=self.first_unknown)


def validate(dump: IbDumpBuilder) -> tuple[list[Link], list[IbNode]]:
    """The models of a dump through pydantic validation: the reference ``construct`` must
    equal (tests compare the two on every dump they have)."""
    try:
        return _LINKS.validate_python(dump.links()), _NODES.validate_python(
            list(dump.nodes.values()))
    except ValidationError as exc:
        error = exc.errors()[0]
        raise ValueError(".".join(str(p) for p in error["loc"]) + ": " + error["msg"]) from exc


_NODE = Maker(IbNode)
_PORT = Maker(IbPort)


_ENDPOINT_FIELDS = shared_names(("device", "interface"))
"""The one ``model_fields_set`` of every end point made here: it holds every field already,
and an ``Endpoint`` is frozen, so nothing ever adds to it (``trusted.Maker.every``). It is
the shared set ``model.share_fields_set`` gives (each file's links and their ends get it
before they leave ``engine._analyse``: 160,000 calls for nothing on a 2,000-switch dump)."""


def end(device: str, interface: str) -> Endpoint:
    """``Endpoint(device=..., interface=...)`` as validation makes it, without validation: a
    dump's 100,000 port ends are each made once, straight from the line that names them."""
    return bare(Endpoint, {"device": device, "interface": interface}, _ENDPOINT_FIELDS)


_WANT_PORTS: ContextVar[bool] = ContextVar("fablint_ib_ports", default=True)


@contextmanager
def nodes_without_ports() -> Iterator[None]:
    """Dumps parsed inside this block give nodes without their ports (``IbNode.ports`` empty),
    for runs that read only the nodes and the links (``fablint topo``: 100,000 port objects of
    a 2,000-switch dump were a fifth of its parse). Links are the same either way."""
    token = _WANT_PORTS.set(False)
    try:
        yield
    finally:
        _WANT_PORTS.reset(token)


def construct(dump: IbDumpBuilder) -> tuple[list[Link], list[IbNode]]:
    """The models of a dump, built without validation (``fablint.trusted``: validating 100,000
    ports and 50,000 links one by one cost 0.8 s of a 2,000-switch dump's parse). The
    builder's dicts become models in place, so that a cable's ``Endpoint`` is one (frozen)
    object for the port's ``peer`` and the link's end."""
    make_port = _PORT
    with_ports = _WANT_PORTS.get()
    nodes: list[IbNode] = []
    append = nodes.append
    # ``_NODE(node)`` inline (38,000 nodes of a 2,000-switch dump): a builder's node has its
    # key, type and ports, never every field
    template = _NODE.template
    for node in dump.nodes.values():
        ports = node["ports"]
        if with_ports:
            for number, port in ports.items():
                ports[number] = make_port(port)
        else:
            node["ports"] = {}
        append(bare(IbNode, {**template, **node}, set(node)))
    return _links(dump), nodes


def _links(dump: IbDumpBuilder) -> list[Link]:
    """``Maker(Link)`` of each of ``dump._cables()`` values without the dict between (the
    fields in their order, the defaults of the others, the fields given), in one loop: a
    dump's 50,000 cables went through a generator and a call each. Each rate is computed
    once."""
    origin = dump.origin
    rates: dict[tuple[str | None, int | None], int | None] = {}
    links: list[Link] = []
    append = links.append
    for _node, port, _peer_node, peer_port in dump.cables:
        src, peer_src = port["src"], peer_port["src"]
        if peer_src[1] < src[1]:  # (a SourceRef is (file, line))
            port, peer_port, src = peer_port, port, peer_src
        width, other = port.get("width"), peer_port.get("width")
        width = (min(width, other) if other else width) if width else (other or None)
        a_speed, b_speed = port.get("speed"), peer_port.get("speed")
        key = (a_speed or b_speed, width)
        if key in rates:
            speed = rates[key]
        else:
            speed = rates[key] = ib_rate_mbps(*key)
        append(bare(Link, {
            "src": src, "field_src": {}, "a": peer_port["peer"], "b": port["peer"],
            "speed_mbps": speed, "origin": origin, "owner_from": None,
            "remote_description": None, "max_frame_bytes": None, "width": width,
            "a_speed": a_speed, "b_speed": b_speed}, _LINK_GIVEN))
    return links


_LINK_GIVEN = shared_names(("a", "b", "src", "origin", "width", "a_speed", "b_speed",
                            "speed_mbps"))
"""The fields set of every link made here, shared as ``model.share_fields_set`` shares it (an
assignment gives a link its own, ``Located.__setattr__``)."""


def _name(node: Obj) -> str:
    return repr(node.get("description") or node["key"])


def check_text(text: str, path: str) -> str:
    """The text without a leading BOM; a NUL byte is damage, reported with its line."""
    reject_nul(text, path, "binary data (NUL byte) in an InfiniBand dump")
    return text.removeprefix("\ufeff")


WRAPS = 5
"""Pieces beyond the first that a terminal copy may have wrapped one dump line into (a
300-column subnet-list line at 60 columns)."""


def unwrapped(lines: list[str], complete: Callable[[str], bool],
              starts: Callable[[str], bool]) -> list[tuple[int, str]]:
    """The dump's lines, each with its line number, with the pieces of a line that a terminal
    copy hard-wrapped at its width (``fold``, a console log, a pasted capture: every character
    kept, newlines added) joined again. A line that is not ``complete`` takes the lines after
    it that do not ``starts`` a line of their own (and are not blank), as many as make it
    complete (the most: a piece can end where a line could); if none does it stays as it is.
    A joined line keeps its first line's number; the lines it took are left out (nothing
    there is unknown)."""
    out: list[tuple[int, str]] = []
    i, n = 0, len(lines)
    while i < n:
        raw = lines[i]
        if i + 1 >= n or complete(raw) or not lines[i + 1].strip() or starts(lines[i + 1]):
            out.append((i + 1, raw))
            i += 1
            continue
        joined, used, best = raw, 0, raw
        for more in range(1, WRAPS + 1):
            nxt = lines[i + more] if i + more < n else ""
            if not nxt.strip() or starts(nxt):
                break
            joined += nxt
            if len(joined) > MAX_LINE:
                break
            if complete(joined):  # (the longest: a piece may end where a line could, LOG=A)
                used, best = more, joined
        if used:
            out.append((i + 1, best))  # (the lines it took are left out: a blank line
            # would end a record of a topology file)
            i += used + 1
        else:
            out.append((i + 1, raw))
            i += 1
    return out

