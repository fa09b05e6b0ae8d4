"""Input formats: a parser per format, chosen from the file's content."""

from __future__ import annotations

from fablint.parsers.base import ParseError, Parser, ParseResult
from fablint.parsers.eos import EosParser
from fablint.parsers.lldp import LldpParser
from fablint.parsers.nxos import NxosParser
from fablint.parsers.sonic import SonicParser

PARSERS: dict[str, Parser] = {
    p.name: p for p in (EosParser(), NxosParser(), SonicParser(), LldpParser())
}
"""Format id -> parser. ``--vendor`` takes these ids."""

__all__ = ["PARSERS", "ParseError", "ParseResult", "Parser"]
