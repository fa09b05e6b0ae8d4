"""What every parser provides, and the error type that is the only thing a parser may raise."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

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
