"""Property tests of the NX-OS parser: whatever the text, it returns a sane result or a ParseError.

The same contract as the EOS parser (fablint.parsers.base): ``parse`` raises only ParseError,
naming the file and the line, and every line a result cites lies inside the file. Every file of
the shared corpus, of any format, goes through it too: detection can be forced with --vendor.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.model import Suppression
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.nxos import NxosParser
from tests.test_eos_parser_properties import GARBAGE, NUMBERS, UNITS, _refs

FILE = "x.cfg"
REPO = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _corpus() -> Path:
    return Path(os.environ.get("FABLINT_CORPUS", REPO.parent / "shared" / "corpus"))


def _files(folder: str | None) -> list[Path]:
    root = _corpus() / folder if folder else _corpus()
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []


def _params(folder: str | None) -> list[object]:
    files = _files(folder)
    if files:
        return [pytest.param(p, id=str(p.relative_to(_corpus()))) for p in files]
    reason = f"shared corpus not found at {_corpus()} (set FABLINT_CORPUS)"
    return [pytest.param(None, id="no-corpus", marks=pytest.mark.skip(reason=reason))]


def check_result(result: ParseResult, text: str) -> None:
    assert isinstance(result, ParseResult)
    assert result.lines == text.count("\n") + 1
    assert 0 <= result.unknown_lines <= result.lines
    assert len(result.devices) == 1
    device = result.devices[0]
    assert device.name.strip() and device.vendor == "nxos"
    for where, ref in _refs(device):
        assert ref.file == FILE, f"{where} cites {ref.file!r}"
        assert ref.line is None or 1 <= ref.line <= result.lines, (
            f"{where} cites line {ref.line} of a {result.lines}-line file"
        )
    for iface in device.interfaces.values():
        assert iface.src is not None and iface.src.line is not None
    for supp in device.suppressions:
        assert isinstance(supp, Suppression)
        assert all(1 <= n <= result.lines for n in (supp.line, supp.start, supp.end))
        assert supp.start <= supp.end
    for problem in result.problems:
        assert problem.file == FILE and problem.message
        assert problem.line is None or 1 <= problem.line <= result.lines


def parse_checked(text: str) -> ParseResult | ParseError:
    """Parse ``text``; any exception other than ParseError fails the test (with the input)."""
    try:
        result = NxosParser().parse(text, FILE)
    except ParseError as exc:
        assert exc.file == FILE and exc.message
        assert exc.line is not None and 1 <= exc.line <= text.count("\n") + 1
        return exc
    check_result(result, text)
    return result


# -- strategies ------------------------------------------------------------------------------

WORDS = st.sampled_from([
    "interface", "Ethernet1/1", "Ethernet1/1/2", "port-channel10", "Ethernet1/1.5", "Vlan100",
    "loopback0", "mgmt0", "breakout", "mtu", "speed", "auto", "100000", "shutdown", "no",
    "switchport", "description", "ip", "ipv6", "mac", "address", "access-group", "port",
    "traffic-filter", "access-list", "in", "out", "vrf", "member", "channel-group", "mode",
    "active", "system", "qos", "default", "jumbomtu", "class-map", "policy-map", "type",
    "network-qos", "queuing", "control-plane", "match-any", "match-all", "match", "not",
    "dscp", "cos", "precedence", "qos-group", "class", "class-default", "c-8q-nq3",
    "c-out-8q-q3", "c-out-8q-q-default", "set", "pause", "pfc-cos", "no-drop", "buffer-size",
    "bandwidth", "remaining", "percent", "priority", "level", "random-detect",
    "minimum-threshold", "maximum-threshold", "drop-probability", "weight", "ecn", "non-ecn",
    "threshold", "burst-optimized", "service-policy", "input", "output",
    "priority-flow-control", "on", "off", "watch-dog-interval", "flowcontrol", "send",
    "receive", "permit", "deny", "udp", "tcp", "any", "host", "eq", "range", "4791",
    "addrgroup", "remark", "statistics", "hostname", "switchname", "version", "feature",
    "hardware", "access-list", "tcam", "region", "banner", "motd", "#", "!", "! fablint:",
    "fablint: disable=PFC001", "fablint: disable-file", "af31", "cs3", "ef", "24-31", "24,26",
])
TOKEN = st.one_of(WORDS, WORDS, WORDS, NUMBERS, GARBAGE)
INDENT = st.sampled_from(["", "", "  ", "  ", "    ", " ", "   ", "\t", "      "])
LINE = st.builds(
    lambda indent, words, end: indent + " ".join(words) + end,
    INDENT, st.lists(TOKEN, min_size=0, max_size=9), st.sampled_from(["", "", " ", "\r"]),
)
HEADERS = st.sampled_from([
    "interface Ethernet1/{a}", "interface port-channel{a}", "interface Vlan{a}",
    "class-map type qos match-any {w}", "class-map type network-qos {w}",
    "class-map type queuing {w}", "policy-map type qos {w}", "policy-map type network-qos {w}",
    "policy-map type queuing {w}", "system qos", "ip access-list {w}", "ipv6 access-list {w}",
])
BODY = st.sampled_from([
    "mtu {a}", "speed {a}", "no switchport", "switchport", "shutdown", "no shutdown",
    "description {w} {a}", "channel-group {a} mode active", "vrf member {w}",
    "priority-flow-control mode {w}", "priority-flow-control watch-dog-interval {w}",
    "flowcontrol {w} {w}", "ip access-group {w} {w}", "ip port access-group {w} in",
    "ip address 10.{a}.0.1/31", "service-policy type {w} {w} {w}", "match dscp {a}-{b}",
    "match dscp {a},{b} {w}", "match cos {a}", "match qos-group {a}", "match precedence {a}",
    "class {w}", "class type queuing c-out-8q-q{a}", "class type network-qos c-8q-nq{a}",
    "  set qos-group {a}", "  pause pfc-cos {a}", "  pause no-drop", "  mtu {a}",
    "  bandwidth remaining percent {a}", "  priority level {a}",
    "  random-detect minimum-threshold {a} {u} maximum-threshold {b} {u} drop-probability {c}"
    " weight {c} ecn",
    "  random-detect minimum-threshold {a} {u} maximum-threshold {b} {u}",
    "{a} permit udp any any eq {b}", "{a} deny {w} any any", "remark {w}",
])


def _fill(template: str, a: str, b: str, c: str, w: str, u: str) -> str:
    return template.format(a=a, b=b, c=c, w=w, u=u)


def _filled(templates: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(_fill, templates, NUMBERS, NUMBERS, NUMBERS, st.one_of(WORDS, GARBAGE),
                     UNITS)


BLOCK = st.builds(
    lambda header, body: "\n".join([header, *body]),
    _filled(HEADERS), st.lists(st.one_of(_filled(BODY).map("  ".__add__), LINE), max_size=8),
)
NXOS_LIKE = st.lists(st.one_of(LINE, BLOCK, BLOCK), max_size=25).map("\n".join)


# -- properties ------------------------------------------------------------------------------


@SETTINGS
@given(st.text())
def test_arbitrary_text(text: str) -> None:
    parse_checked(text)


@SETTINGS
@given(NXOS_LIKE)
def test_nxos_like_lines(text: str) -> None:
    parse_checked(text)


@SETTINGS
@given(NXOS_LIKE, st.data())
def test_nul_byte_is_a_parse_error_on_its_line(text: str, data: st.DataObject) -> None:
    at = data.draw(st.integers(min_value=0, max_value=len(text)))
    damaged = text[:at] + "\x00" + text[at:]
    outcome = parse_checked(damaged)
    assert isinstance(outcome, ParseError)
    assert outcome.line == damaged.count("\n", 0, at) + 1


@SETTINGS
@given(st.binary(max_size=400))
def test_binary_junk_decoded_as_latin1(data: bytes) -> None:
    parse_checked(data.decode("latin-1"))


@SETTINGS
@given(st.lists(st.sampled_from([
    "interface Ethernet1/1", "  mtu 9216", "policy-map type queuing Q",
    "  class type queuing c-out-8q-q3", "    bandwidth percent 50", "system qos",
    "  service-policy type queuing output Q", "ip access-list A", "  10 deny ip any any",
    "! fablint: disable=PFC001", "! fablint: disable-file MTU001", "! fablint: nonsense",
    "banner motd #", "#", "banner exec ^C hello ^C", "hostname h1", "", "  ", "!",
]), max_size=60).map("\n".join))
def test_structural_lines(text: str) -> None:
    """Blocks, banners and directives in any order keep line numbers in range."""
    parse_checked(text)


@pytest.mark.parametrize("path", _params(None))
def test_every_corpus_file_parses_or_raises_parse_error(path: Path) -> None:
    """Any file of the corpus, forced through the NX-OS parser (``--vendor nxos``)."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    parse_checked(text)


@pytest.mark.parametrize("path", _params("nxos"))
def test_nxos_corpus_parses_cleanly(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    result = parse_checked(text)
    assert isinstance(result, ParseResult), f"{path.name}: {result}"
    assert result.problems == []
    assert result.unknown_lines < result.lines


@settings(max_examples=40, deadline=None)
@given(st.data())
@pytest.mark.parametrize("path", _params("nxos"))
def test_corpus_prefix_truncation(path: Path, data: st.DataObject) -> None:
    text = path.read_text(encoding="utf-8")
    cut = data.draw(st.integers(min_value=0, max_value=len(text)), label="cut")
    parse_checked(text[:cut])


@settings(max_examples=25, deadline=None)
@given(st.data())
@pytest.mark.parametrize("path", _params("nxos"))
def test_corpus_with_a_line_dropped_or_reindented(path: Path, data: st.DataObject) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    n = data.draw(st.integers(min_value=0, max_value=len(lines) - 1), label="line")
    indent = data.draw(st.sampled_from(["", " ", "  ", "    ", None]), label="indent")
    if indent is None:
        del lines[n]
    else:
        lines[n] = indent + lines[n].lstrip()
    parse_checked("\n".join(lines))


def test_detection_of_the_whole_corpus() -> None:
    """Every EOS file is still EOS, every NX-OS file NX-OS, nothing else claims either."""
    from fablint.parsers.detect import detect

    files = _files(None)
    if not files:
        pytest.skip(f"shared corpus not found at {_corpus()} (set FABLINT_CORPUS)")
    for path in files:
        if path.name in ("MANIFEST.tsv", "README.md"):
            continue
        parser = detect(path.read_bytes().decode("utf-8", errors="replace")).parser
        got = parser.name if parser else None
        folder = path.parent.name
        if folder in ("eos", "nxos"):
            assert got == folder, path
        else:
            assert got not in ("eos", "nxos"), path


def test_very_long_numbers_are_problems_not_crashes() -> None:
    text = ("interface Ethernet1/1\n  mtu " + "9" * 5000 + "\n  speed " + "9" * 400 + "\n"
            "policy-map type queuing Q\n  class type queuing c-out-8q-q3\n"
            "    random-detect minimum-threshold inf kbytes maximum-threshold 1e400 kbytes\n")
    result = parse_checked(text)
    assert isinstance(result, ParseResult)
    assert [p.line for p in result.problems] == [2, 3, 6]
