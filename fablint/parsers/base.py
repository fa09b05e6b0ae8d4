"""What every parser provides, and the error type that is the only thing a parser may raise."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from fablint.encodings import text_encoding
from fablint.model import Device, IbNode, Link, ParseProblem, Vendor


class ParseError(Exception):
    """The file as a whole cannot be used. Carries the place so the user can find it."""

    def __init__(self, file: str, line: int | None, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}" if line else f"{file}: {message}")
        self.file = file
        self.line = line
        self.message = message


_YAML_START = re.compile(r"---\s*$|[A-Za-z_][\w.-]*:(?:\s|$)")


def starts_as_yaml(head: str) -> bool:
    """Does the text begin like a YAML mapping document (``---`` or ``key:`` on its first
    line that is not blank or a ``#`` comment)? Switch configurations never do; YAML files
    with configuration snippets in them (test cases, Ansible variables) often contain whole
    interface blocks, indented, that must not pass for a configuration."""
    for line in head.splitlines():
        if line.strip() and not line.startswith("#"):
            return bool(_YAML_START.match(line))
    return False


def normalise_newlines(text: str) -> str:
    """CRLF and lone CR line ends as LF, so that every parser, sniffer and line count sees one
    convention and a line keeps its number (Windows editors and TFTP servers write CRLF; classic
    Mac tools CR). A stray CR inside an LF file is left alone: it does not end a line there."""
    if "\r" not in text:
        return text
    text = text.replace("\r\n", "\n")
    if "\r" in text and text.count("\r") > text.count("\n"):
        text = text.replace("\r", "\n")
    return text


def decode_input(data: bytes, partial: bool = False) -> tuple[str, int]:
    """Input bytes as text with LF line ends, and how many characters could not be decoded
    (each became U+FFFD). The one place where encodings and line ends are handled: detection,
    grouping and every parser see the result. ``partial``: ``data`` is a head cut at any byte."""
    codec, skip = text_encoding(data)
    body = data[skip:]
    if partial and codec.startswith(("utf-16", "utf-32")):
        unit = 4 if codec.startswith("utf-32") else 2
        body = body[:len(body) - len(body) % unit]
    try:
        text = body.decode(codec)
        bad = 0
    except UnicodeDecodeError:
        text = body.decode(codec, errors="replace")
        bad = text.count("\ufffd")
        if partial and codec == "utf-8" and text.endswith("\ufffd"):
            bad -= 1  # a character cut by the end of the head
    return normalise_newlines(text), bad


MAX_CLI_CONFIG_BYTES = {"eos": 64 * 1024 * 1024, "nxos": 64 * 1024 * 1024}
"""The largest running-config fablint reads, by parser: a switch's is rarely over 2 MB, a
chassis with thousands of subinterfaces a few. Every line of one is modelled, so its lint peaks
at about 9 (EOS, 52 MB) and 14 (NX-OS, 52 MB: 1.7 times as many ports a byte) times the text
in memory (``bench/mem_big_config.py``, a chassis with every port's QoS lines): these keep the
peak under about 1 GB (EOS 0.6 GB), where the general limit on inputs
(``detect.MAX_INPUT_BYTES``, 256 MB) would allow 2.5 to 4 GB."""


def refuse_oversized_config(text: str, path: str, parser: str) -> None:
    """ParseError (naming the file) for a running-config over its ``MAX_CLI_CONFIG_BYTES``."""
    limit = MAX_CLI_CONFIG_BYTES[parser]
    if len(text) > limit:
        raise ParseError(path, None, f"a running-config of {len(text):,} characters is larger "
                         f"than the {limit:,} fablint reads (a switch's is rarely over 2 MB; "
                         "its lint would hold 9 to 15 times its size in memory)")


LINE_CHUNK = 1 << 20
"""Characters of text split into lines at a time by ``split_lines`` (about 20,000 lines)."""


def split_lines(text: str) -> Iterable[str]:
    """``text.split("\n")``, made a chunk at a time for a large text.

    A list of every line of a 50 MB configuration is as large again as the text (a string
    object per line); split a megabyte at a time, only the lines being read are alive. For a
    text under ``LINE_CHUNK`` (every file of a normal fabric) it is the plain list."""
    if len(text) <= LINE_CHUNK:
        return text.split("\n")
    return itertools.chain.from_iterable(line_chunks(text))


def line_chunks(text: str) -> Iterator[list[str]]:
    start = 0
    while True:
        end = text.find("\n", start + LINE_CHUNK)
        if end < 0:
            yield text[start:].split("\n")
            return
        yield text[start:end].split("\n")
        start = end + 1


def reject_nul(text: str, path: str, message: str) -> None:
    """Raise ParseError at the line of the first NUL byte: binary data in a text input is
    damage, never a value to read."""
    nul = text.find("\x00")
    if nul >= 0:
        raise ParseError(path, text.count("\n", 0, nul) + 1, message)


@dataclass
class ParseResult:
    devices: list[Device]
    problems: list[ParseProblem] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    """Cables the input shows (LLDP neighbours, IB dumps), as seen from the input's side."""
    ib_nodes: list[IbNode] = field(default_factory=list)
    """InfiniBand nodes a discovery dump describes (one dump, many nodes)."""
    lines: int = 0
    unknown_lines: int = 0
    """Lines that look like part of the input but that the parser did not understand."""
    first_unknown: int | None = None
    """Line number of the first of them, so a partial read can name where it starts."""
    foreign_lines: int = 0
    """Lines that do not look like the format at all (a running-config's line that starts
    with no keyword: a pasted table, JSON, YAML): unlike ``unknown_lines``, which may be
    legitimately unmodelled, these were not read and may have hidden what follows them."""
    first_foreign: int | None = None


CONFIG_LINE_START = frozenset("abcdefghijklmnopqrstuvwxyz0123456789!")
"""First characters of a switch configuration line (EOS, NX-OS): a keyword, a sequence number
(``10 permit …``) or a comment. Anything else is not configuration (banner text is skipped)."""


FOREIGN_WORD = re.compile(r"[a-z][\w./-]*[=:\"'{(\[#>]")
"""A first word no configuration line has: ``key=``, ``key:``, ``"key"``, ``name(``, a CLI
prompt ``leaf1#`` / ``leaf1>``. With CONFIG_LINE_START, what running-config parsers pass over
as not configuration (a pasted table, JSON, YAML, a session's other commands)."""

_PROMPT = re.compile(r"[A-Za-z0-9][\w.-]*(?:\([\w-]+\))?[#>]\s*(.*)$")
_FRAMING = re.compile(
    r"(?:(?:sh(?:ow?)?|more)\s+(?:run(?:ning-config)?|start(?:up-config)?)\b.*|"
    r"term(?:inal)?\s+(?:len(?:gth)?|width|no\s+more)\b.*|(?:exit|end|copy\s+.*)|)$", re.I)


def capture_framing(body: str) -> bool:
    """Is this line the frame of a terminal capture of the configuration: a prompt alone or
    echoing ``show running-config``, ``terminal length 0``, ``exit`` (``leaf1#sh run``)? Such a
    line is neither configuration nor content lost: passed over without a word."""
    match = _PROMPT.match(body)
    return bool(match and _FRAMING.match(match.group(1)))


class Parser(Protocol):
    """A parser for one input format."""

    name: ClassVar[str]
    """Format id used by ``--vendor`` and in reports (``eos``)."""
    label: ClassVar[str]
    vendor: ClassVar[Vendor]

    def sniff(self, head: str) -> int:
        """Confidence 0-100 that ``head`` (the start of a file) is in this format."""
        ...

    def parse(self, text: str, path: str) -> ParseResult:
        """Parse a whole file. Raises only ParseError."""
        ...


EVERY_REFERENCE: ContextVar[bool] = ContextVar("every_reference", default=True)
"""Whether a parser records every reference of a device (``Device.references``); see
``one_resolved_reference_per_kind``."""


@contextmanager
def one_resolved_reference_per_kind() -> Iterator[None]:
    """Devices parsed inside this block may record, of the references that resolve, only the
    first of each kind (every unresolved one is still recorded): all that a lint reads when
    the models stay in the worker and no rule reads more (QOS009 reads the unresolved ones
    and which kinds resolve; a rule that reads the others sets ``reads_references``). The
    SONiC parser honours it: a switch's ~540 resolved references (two a QUEUE row, one a
    BUFFER_* row, five a PORT_QOS_MAP row) are its most numerous objects."""
    token = EVERY_REFERENCE.set(False)
    try:
        yield
    finally:
        EVERY_REFERENCE.reset(token)
