"""``lldpcli -f xml show neighbors [details]``: lldpd's XML neighbour table.

lldpd (SONiC's ``lldp`` container, Cumulus, Linux hosts) writes the same records as its text and
JSON outputs with libxml2: a root ``<lldp label="LLDP neighbors">`` holding one ``<interface
name=... via=...>`` per neighbour (several per port when several neighbours share it), each with
``<chassis>`` (``id``, ``name``) and ``<port>`` (``id``, ``descr``, ``mfs``). A capture may carry
the prompt and command echo before the document, a prompt after it, and one document per ASIC
on a multi-ASIC switch.

The document is read with expat, element by element, so each neighbour keeps the line of its
``<interface>``. A DOCTYPE is refused before any entity is declared: lldpd never writes one,
and an internal DTD is how "billion laughs" and external-entity attacks reach an XML reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.parsers import expat

from fablint.parsers.base import ParseError
from fablint.parsers.lldp import Neighbor, is_noise, split_lines, value

HEAD = re.compile(r'<lldp\b[^>]*\blabel="LLDP neighbors"')
"""The root of a neighbour table; ``show interfaces`` (the host's own ports) and ``show
statistics`` are labelled otherwise and are not neighbour tables."""
_START = re.compile(r"<\?xml\b|<lldp\b")
_ROOT_END = re.compile(r"</lldp\s*>|<lldp\b[^>]*/>")
_WANTED = {
    ("interface", "chassis", "id"): "chassis",
    ("interface", "chassis", "name"): "name",
    ("interface", "port", "id"): "port",
    ("interface", "port", "descr"): "description",
    ("interface", "port", "mfs"): "frame",
}
"""The elements read, by their path below the root, and the record field each fills."""


class _Refused(Exception):
    """Raised inside an expat handler; expat passes it through ``Parse``."""


@dataclass(slots=True)
class _Record:
    local: str | None
    line: int
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class _Reader:
    """expat's handlers for one document; ``offset`` is the file line the document starts on."""

    parser: expat.XMLParserType
    offset: int
    out: list[Neighbor]
    unknown: list[int]
    path: tuple[str, ...] = ()
    record: _Record | None = None
    chars: list[str] = field(default_factory=list)
    stray: int = 0
    """The line of text that is not whitespace since the last tag, 0 if none."""
    leaf: bool = False
    """No element has started since the current one did: its text is its value."""

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if self.stray:  # text beside elements: lldpd writes none, so it is not read
            self.unknown.append(self.stray)
        self.path += (name,)
        self.chars.clear()
        self.stray = 0
        self.leaf = True
        if self.path[1:] == ("interface",):
            self.record = _Record(local=value(attrs.get("name")),
                                  line=self.parser.CurrentLineNumber + self.offset)

    def end(self, name: str) -> None:
        if self.stray and not self.leaf:
            self.unknown.append(self.stray)
        below = self.path[1:]
        if self.record is not None:
            wanted = _WANTED.get(below)
            if wanted:
                self.record.fields[wanted] = "".join(self.chars)
            elif below == ("interface",):
                self._close(self.record)
                self.record = None
        self.path = self.path[:-1]
        self.chars.clear()
        self.stray = 0
        self.leaf = False

    def data(self, text: str) -> None:
        self.chars.append(text)
        if not self.stray and not text.isspace():
            self.stray = self.parser.CurrentLineNumber + self.offset

    def _close(self, record: _Record) -> None:
        got = record.fields
        chassis, port = value(got.get("chassis")), value(got.get("port"))
        if record.local is None or port is None:
            self.unknown.append(record.line)
            return
        frame = got.get("frame", "").strip()
        self.out.append(Neighbor(
            local_port=record.local, remote_device=value(got.get("name")) or chassis,
            remote_port=port, remote_port_description=value(got.get("description")),
            chassis_id=chassis, line=record.line,
            max_frame_bytes=int(frame) if frame.isdigit() and int(frame) > 0 else None))


def _refuse(*_: object) -> None:
    raise _Refused


def _document(text: str, offset: int, path: str, out: list[Neighbor],
              unknown: list[int]) -> None:
    parser = expat.ParserCreate()
    reader = _Reader(parser, offset, out, unknown)
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    parser.CharacterDataHandler = reader.data
    parser.StartDoctypeDeclHandler = _refuse
    parser.EntityDeclHandler = _refuse
    try:
        parser.Parse(text, True)
    except _Refused:
        raise ParseError(path, parser.CurrentLineNumber + offset,
                         "XML with a DOCTYPE or entity declaration refused (lldpd writes "
                         "none; entities are how XML bombs work)") from None
    except expat.ExpatError as exc:
        raise ParseError(path, exc.lineno + offset,
                         f"not well-formed XML: {expat.ErrorString(exc.code)}") from None


def read_xml(text: str, path: str) -> tuple[list[Neighbor], list[int]]:
    """The neighbours of every document in the file, and the lines outside them that are not
    a prompt or command echo."""
    text = text.removeprefix("\ufeff")
    if "\n" not in text and "\r" in text:  # lone CR line ends, counted as the file's lines
        text = text.replace("\r", "\n")
    out: list[Neighbor] = []
    unknown: list[int] = []
    at = 0
    while True:
        start = _START.search(text, at)
        if start is None:
            break
        _outside(text, at, start.start(), unknown)
        end = _ROOT_END.search(text, start.end())
        stop = end.end() if end else len(text)
        _document(text[start.start():stop], text.count("\n", 0, start.start()), path, out,
                  unknown)
        at = stop
    _outside(text, at, len(text), unknown)
    unknown.sort()
    return out, unknown


def _outside(text: str, begin: int, end: int, unknown: list[int]) -> None:
    """Count the lines between documents that are not a prompt, a command echo or blank."""
    first = text.count("\n", 0, begin) + 1
    for n, line in enumerate(split_lines(text[begin:end]), first):
        if not is_noise(line):
            unknown.append(n)
