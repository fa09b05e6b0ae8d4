"""How much of a file its parser read, judged per format: a partial read is a FAB005 finding,
never silent.

What counts differs by format. A running-config (EOS, NX-OS) has many lines fablint does not
model on purpose (AAA, routing, logging), so its unknown lines say nothing; what does is a line
that is not configuration at all (``foreign_lines``: a pasted LLDP table, JSON, YAML) and an
export cut short (EOS ends every ``show running-config`` with ``end``; NX-OS writes no end marker,
so only a cut inside a line shows). In table and dump formats (LLDP, InfiniBand, OpenSM,
``mlnx_qos``) every line is meant to be read, so the share of unknown lines is the measure.
SONiC JSON is read whole or not at all (a cut document is not valid JSON: FAB001); its unknown
lines are tables fablint does not model.
"""

from __future__ import annotations

from dataclasses import dataclass

from fablint.model import ParseProblem
from fablint.parsers.base import ParseResult, capture_framing

UNKNOWN_SHARE = {
    "lldp": 0.10, "ibnetdiscover": 0.10, "ibnetdiscover-ports": 0.10, "iblinkinfo": 0.10,
    "ib-subnet-list": 0.10, "opensm": 0.10, "opensm-partitions": 0.10,
    "opensm-qos-policy": 0.10, "mlnx_qos": 0.25,
}
"""Format -> share of unknown lines that is material. Formats not listed are not judged by it:
their unknown lines include content they leave out by design (running-configs, SONiC tables,
mlxconfig parameters, the other files of a sysfs dump, host-facts keys)."""
MIN_UNKNOWN = 3
"""Fewer unknown lines than this is never material (a prompt, a trailing banner line)."""
RUNNING_CONFIGS = {"eos": "EOS", "nxos": "NX-OS"}
_EOS_HEADER = ("! Command: show running-config",)
_NXOS_HEADER = ("!Command: show running-config", "!Running configuration")


@dataclass(frozen=True)
class TextFacts:
    """What ``coverage_problems`` needs of a file's text, taken before the file is parsed: the
    text can then be let go while the model is built (52 MB of a 50 MB configuration's peak)."""

    cut: list[ParseProblem]
    """A running-config cut short or followed by more (``_cut``)."""
    after_cut: int = 0
    """Non-blank lines from the first cut's line on (``_only_foreign_after``)."""


def text_facts(path: str, text: str, fmt: str) -> TextFacts:
    """``TextFacts`` of a file of format ``fmt``."""
    if fmt not in RUNNING_CONFIGS:
        return TextFacts([])
    cut = _cut(path, text, fmt)
    if not cut or cut[0].line is None:
        return TextFacts(cut)
    return TextFacts(cut, sum(1 for line in text.splitlines()[cut[0].line - 1:] if line.strip()))


def coverage_problems(path: str, facts: TextFacts, fmt: str, result: ParseResult
                      ) -> list[ParseProblem]:
    """FAB005 problems for one parsed file (none when it was read whole)."""
    out: list[ParseProblem] = []
    lines = max(result.lines, 1)
    if fmt in RUNNING_CONFIGS:
        vendor = RUNNING_CONFIGS[fmt]
        if result.foreign_lines:
            n = result.foreign_lines
            out.append(_partial(path, result.first_foreign, (
                f"{_lines(n)} of {lines} ({_share(n, lines)}) do not look like {vendor} "
                f"configuration (the first at line {result.first_foreign}) and were passed over: "
                "a table or document pasted into the file? The lines around them were read")))
        cut = facts.cut
        if out and cut and _only_foreign_after(cut[0], facts.after_cut, result):
            cut = []  # the lines after 'end' are the foreign ones already said: said once
        out += cut
    elif fmt in UNKNOWN_SHARE:
        n = result.unknown_lines
        if n >= MIN_UNKNOWN and n / lines >= UNKNOWN_SHARE[fmt]:
            where = f" (the first at line {result.first_unknown})" if result.first_unknown else ""
            out.append(_partial(path, result.first_unknown, (
                f"{_lines(n)} of {lines} ({_share(n, lines)}) were not understood{where}: "
                "what they describe is not linted")))
    return out


def _cut(path: str, text: str, fmt: str) -> list[ParseProblem]:
    """A running-config export that ends short of its end, or with something after it.

    ``body``, the text without its trailing white space, is ``text[:stop]``: never copied (a
    copy of a 50 MB configuration is 50 MB more at the lint's peak)."""
    stop = len(text)
    while stop and text[stop - 1].isspace():
        stop -= 1
    if not stop:
        return []
    last_line = text.count("\n", 0, stop) + 1
    at = 0
    while text.startswith("\n", at):
        at += 1
    newline = text.find("\n", at)
    first = text[at:] if newline < 0 else text[at:newline]
    if capture_framing(first.strip()):
        # a terminal capture: 'leaf1#show running-config' first
        at = len(text) if newline < 0 else newline + 1
        while text.startswith("\n", at):
            at += 1
    header = text.startswith(_EOS_HEADER if fmt == "eos" else _NXOS_HEADER, at)
    if fmt == "eos":
        # the first: anything after it is more than one export
        end = text.find("\nend\n", 0, stop)
        if end >= 0 and all(capture_framing(line.strip()) or not line.strip()
                            for line in text[end + 5:stop].split("\n")):
            return []  # only the capture's closing prompt ('leaf1#') after 'end'
        if end >= 0:
            after = text.count("\n", 0, end) + 3
            return [_partial(path, after, (
                f"lines {after}-{last_line} come after 'end', where EOS writes nothing: another "
                "file appended? They were read as part of this configuration"))]
        if header and not text.endswith("\nend", 0, stop):
            return [_partial(path, last_line, (
                f"the running-config stops at line {last_line} without the 'end' that EOS "
                "writes last: the file is truncated, and a block cut short is read only as far "
                "as it goes"))]
        return []
    if header and not text.endswith("\n"):
        return [_partial(path, last_line, (
            f"the running-config stops inside line {last_line} (no line end): the file is "
            "truncated, and a block cut short is read only as far as it goes"))]
    return []


def _only_foreign_after(cut: ParseProblem, after: int, result: ParseResult) -> bool:
    """Are the lines that ``cut`` says follow EOS's ``end`` (``after`` of them, not blank) all
    foreign lines?"""
    if cut.line is None or result.first_foreign is None or result.first_foreign < cut.line:
        return False
    return after <= result.foreign_lines


def _partial(path: str, line: int | None, message: str) -> ParseProblem:
    return ParseProblem(file=path, line=line, message=message, kind="partial")


def _lines(n: int) -> str:
    return f"{n} line{'s' if n != 1 else ''}"


def _share(n: int, total: int) -> str:
    share = n / total
    return f"{share:.0%}" if share >= 0.01 else "<1%"
