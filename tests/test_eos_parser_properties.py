"""Property tests of the EOS parser: whatever the text, it returns a sane result or a ParseError.

The contract (fablint.parsers.base): ``parse`` raises only ParseError, and that error names the
file and the line. Every line a result cites lies inside the file. ``ingest.parse_file`` never
raises at all: damage becomes a fatal problem naming the file and the line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from fablint.ingest import parse_file
from fablint.model import SourceRef, Suppression
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.eos import EosParser

FILE = "x.cfg"
REPO = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _corpus() -> Path:
    return Path(os.environ.get("FABLINT_CORPUS", REPO.parent / "shared" / "corpus"))


def _eos_corpus_files() -> list[Path]:
    folder = _corpus() / "eos"
    return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


def _corpus_params() -> list[object]:
    files = _eos_corpus_files()
    if files:
        return [pytest.param(p, id=p.name) for p in files]
    reason = f"shared corpus not found at {_corpus()} (set FABLINT_CORPUS)"
    return [pytest.param(None, id="no-corpus", marks=pytest.mark.skip(reason=reason))]


# -- checking a result -----------------------------------------------------------------------


def _refs(value: Any, path: str = "device") -> list[tuple[str, SourceRef]]:
    """Every SourceRef anywhere inside a model, with where it was found (for messages)."""
    out: list[tuple[str, SourceRef]] = []
    if isinstance(value, SourceRef):  # a NamedTuple: test before the generic tuple case
        out.append((path, value))
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            out.extend(_refs(getattr(value, name), f"{path}.{name}"))
    elif isinstance(value, dict):
        for key, item in value.items():
            out.extend(_refs(item, f"{path}[{key!r}]"))
    elif isinstance(value, (list, tuple, set, frozenset)):
        for n, item in enumerate(value):
            out.extend(_refs(item, f"{path}[{n}]"))
    return out


def check_result(result: ParseResult, text: str) -> None:
    assert isinstance(result, ParseResult)
    assert result.lines >= 1
    assert result.lines == text.count("\n") + 1
    assert 0 <= result.unknown_lines <= result.lines
    assert len(result.devices) == 1
    for device in result.devices:
        assert isinstance(device.name, str) and device.name.strip(), "a device needs a name"
        assert device.vendor == "eos"
        for where, ref in _refs(device):
            assert ref.file == FILE, f"{where} cites {ref.file!r}"
            assert ref.line is None or 1 <= ref.line <= result.lines, (
                f"{where} cites line {ref.line} of a {result.lines}-line file"
            )
        for iface in device.interfaces.values():
            assert iface.src is not None and iface.src.line is not None
        for supp in device.suppressions:
            assert isinstance(supp, Suppression)
            for line in (supp.line, supp.start, supp.end):
                assert 1 <= line <= result.lines
            assert supp.start <= supp.end
    for problem in result.problems:
        assert problem.file == FILE
        assert problem.line is None or 1 <= problem.line <= result.lines
        assert problem.message


def parse_checked(text: str) -> ParseResult | ParseError:
    """Parse ``text``; any exception other than ParseError fails the test (with the input)."""
    try:
        result = EosParser().parse(text, FILE)
    except ParseError as exc:
        assert exc.file == FILE
        assert exc.line is not None, f"ParseError without a line: {exc}"
        assert 1 <= exc.line <= text.count("\n") + 1
        assert exc.message
        return exc
    check_result(result, text)
    return result


# -- strategies ------------------------------------------------------------------------------

# Numbers include the nasty ones: non-finite floats, and integers too long for a float or
# (over 4300 digits) for int().
NUMBERS = st.one_of(
    st.integers(min_value=0, max_value=8).map(str),
    st.integers(min_value=0, max_value=8).map(str),
    st.integers(min_value=-5, max_value=70000).map(str),
    st.integers(min_value=0, max_value=10**18).map(str),
    st.sampled_from(["0", "1", "3", "7", "8", "63", "64", "9214", "65536", "0.05", "1.5",
                     "-1", "nan", "inf", "-inf", "1e400", "1e-400", "auto", "3-4", "24,26",
                     "0x10", "1e3", "٣", "²", "9" * 320, "1" * 4400]),
)
GARBAGE = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\x00"),
    min_size=1, max_size=8,
).filter(lambda s: s.strip() != "")
WORDS = st.sampled_from([
    "interface", "Ethernet1/1", "Ethernet3", "Port-Channel10", "Port-Channel10.5", "Vlan100",
    "Loopback0", "Management1", "Vxlan1", "Tunnel2", "defaults", "mtu", "l2", "mru", "speed",
    "forced", "100g", "400g-8", "10000full", "auto", "shutdown", "no", "default", "switchport",
    "description", "ip", "ipv6", "mac", "address", "access-group", "access-list", "standard",
    "in", "out", "vrf", "channel-group", "mode", "active", "service-profile", "qos", "trust",
    "dscp", "cos", "none", "map", "to", "traffic-class", "tx-queue", "drop-precedence",
    "profile", "random-detect", "ecn", "non-ect", "allow", "drop", "count",
    "minimum-threshold", "maximum-threshold", "kbytes", "mbytes", "bytes", "segments",
    "milliseconds", "max-mark-probability", "drop-probability", "weight",
    "priority-flow-control", "on", "off", "all", "priority", "no-drop", "pause", "watchdog",
    "port", "action", "timer", "timeout", "polling-interval", "recovery-time", "hardware",
    "override", "errdisable", "flowcontrol", "send", "receive", "desired", "bandwidth",
    "percent", "strict", "shape", "rate", "uc-tx-queue", "mc-tx-queue", "service-policy",
    "type", "input", "output", "permit", "deny", "udp", "tcp", "any", "host", "eq", "neq",
    "gt", "lt", "range", "4791", "log", "remark", "statistics", "10.0.0.0/8", "hostname",
    "end", "version", "comment", "EOF", "banner", "motd", "!", "!!", "! fablint:",
    "fablint: disable=PFC001", "fablint: disable-file", "fablint: bogus=", "ROCE",
])
TOKEN = st.one_of(WORDS, WORDS, WORDS, NUMBERS, GARBAGE)
INDENT = st.sampled_from(["", "", "   ", "   ", "      ", " ", "  ", "\t", "         "])
LINE_END = st.sampled_from(["", "", " ", "\r", "\t"])
LINE = st.builds(
    lambda indent, words, end: indent + " ".join(words) + end,
    INDENT, st.lists(TOKEN, min_size=0, max_size=9), LINE_END,
)
TEMPLATES = st.sampled_from([
    "interface Ethernet{a}/1", "   mtu {a}", "   priority-flow-control priority {a} no-drop",
    "   priority-flow-control {w}", "qos map dscp {a} {b} to traffic-class {c}",
    "   tx-queue {a}", "      random-detect ecn minimum-threshold {a} {u} maximum-threshold "
    "{b} {u} max-mark-probability {c}", "      bandwidth percent {a}",
    "priority-flow-control pause watchdog default timeout {a}",
    "   priority-flow-control pause watchdog port timer timeout {a} polling-interval {b}",
    "qos profile {w}", "   service-profile {w}", "   speed {a}{u}", "   l2 mtu {a}",
    "ip access-list {w}", "   {a} permit udp any any eq {b}", "   {a} deny ip any any",
    "   ip access-group {w} {w}", "   channel-group {a} mode active", "hostname {w}",
    "! fablint: disable={w} because", "   flowcontrol receive {w}", "   qos trust {w}",
    "interface defaults", "   mtu {a}", "qos map cos {a} to traffic-class {b}",
])
UNITS = st.sampled_from(["kbytes", "mbytes", "bytes", "segments", "microseconds", "g", "",
                         "parsecs", "KB"])
TEMPLATE_LINE = st.builds(
    lambda t, a, b, c, w, u: t.format(a=a, b=b, c=c, w=w, u=u),
    TEMPLATES, NUMBERS, NUMBERS, NUMBERS, st.one_of(WORDS, GARBAGE), UNITS,
)
HEADERS = st.sampled_from([
    "interface Ethernet{a}", "interface Ethernet{a}/1", "interface Port-Channel{a}",
    "interface Vlan{a}", "interface Loopback{a}", "qos profile {w}", "interface defaults",
    "ip access-list {w}", "ipv6 access-list standard {w}", "mac access-list {w}",
])
BODY = st.sampled_from([
    "mtu {a}", "l2 mtu {a}", "speed {a}{u}", "no switchport", "switchport", "shutdown",
    "no shutdown", "description {w} {a}", "channel-group {a} mode active",
    "service-profile {w}", "qos trust {w}", "qos cos {a}", "qos dscp {a}",
    "priority-flow-control {w}", "priority-flow-control on",
    "priority-flow-control priority {a} {w}", "priority-flow-control priority {a} no-drop",
    "no priority-flow-control priority {a}", "priority-flow-control pause watchdog",
    "priority-flow-control pause watchdog port action {w}",
    "priority-flow-control pause watchdog port timer timeout {a} polling-interval {b} "
    "recovery-time {c}", "flowcontrol {w} {w}", "ip access-group {w} {w}",
    "ip address 10.{a}.0.1/31", "vrf {w}", "service-policy type qos input {w}",
    "{a} permit udp any any eq {b}", "{a} deny {w} any any", "{a} permit ip any any dscp {b}",
    "remark {w}", "mc-tx-queue {a}",
])
QUEUE_BODY = st.sampled_from([
    "random-detect ecn minimum-threshold {a} {u} maximum-threshold {b} {u} "
    "max-mark-probability {c}",
    "random-detect drop minimum-threshold {a} {u} maximum-threshold {b} {u} "
    "drop-probability {c}",
    "random-detect drop drop-precedence 1 minimum-threshold {a} {u} maximum-threshold {b} {u}",
    "random-detect ecn count", "no random-detect ecn", "random-detect {w}",
    "bandwidth percent {a}", "priority strict", "no priority", "shape rate {a}",
])


def _fill(template: str, a: str, b: str, c: str, w: str, u: str) -> str:
    return template.format(a=a, b=b, c=c, w=w, u=u)


def _filled(templates: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(_fill, templates, NUMBERS, NUMBERS, NUMBERS, st.one_of(WORDS, GARBAGE),
                     UNITS)


QUEUE_BLOCK = st.builds(
    lambda q, lines: "\n".join([f"   tx-queue {q}", *("      " + x for x in lines)]),
    st.one_of(st.integers(0, 8).map(str), NUMBERS), st.lists(_filled(QUEUE_BODY), max_size=4),
)
BLOCK = st.builds(
    lambda header, body: "\n".join([header, *body]),
    _filled(HEADERS),
    st.lists(st.one_of(_filled(BODY).map("   ".__add__), QUEUE_BLOCK, LINE), max_size=8),
)
EOS_LIKE = st.lists(st.one_of(LINE, TEMPLATE_LINE, BLOCK, BLOCK), max_size=25).map("\n".join)


# -- properties ------------------------------------------------------------------------------


@SETTINGS
@given(st.text())
def test_arbitrary_text(text: str) -> None:
    parse_checked(text)


@SETTINGS
@given(EOS_LIKE)
def test_eos_like_lines(text: str) -> None:
    parse_checked(text)


@SETTINGS
@given(EOS_LIKE, st.data())
def test_eos_like_lines_with_nul_bytes(text: str, data: st.DataObject) -> None:
    at = data.draw(st.integers(min_value=0, max_value=len(text)))
    damaged = text[:at] + "\x00" + text[at:]
    outcome = parse_checked(damaged)
    assert isinstance(outcome, ParseError), "a NUL byte must make the file unusable"
    assert outcome.line == damaged.count("\n", 0, at) + 1


@SETTINGS
@given(st.binary(max_size=400))
def test_binary_junk_decoded_as_latin1(data: bytes) -> None:
    text = data.decode("latin-1")
    outcome = parse_checked(text)
    if "\x00" in text:
        assert isinstance(outcome, ParseError)


@SETTINGS
@given(st.lists(st.sampled_from([
    "interface Ethernet1", "   mtu 9214", "   tx-queue 3", "      bandwidth percent 50",
    "qos profile P", "   priority-flow-control on", "ip access-list A", "   10 deny ip any any",
    "! fablint: disable=PFC001", "! fablint: disable-file MTU001", "! fablint: nonsense",
    "comment", "EOF", "banner motd", "hostname h1", "", "   ", "!",
]), max_size=60).map("\n".join))
def test_structural_lines(text: str) -> None:
    """Blocks, comments, banners and directives in any order keep line numbers in range."""
    parse_checked(text)


@pytest.mark.parametrize("path", _corpus_params())
def test_corpus_file_parses_cleanly(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    result = parse_checked(text)
    assert isinstance(result, ParseResult), f"{path.name}: {result}"
    assert result.unknown_lines < result.lines


def test_there_is_an_eos_corpus() -> None:
    if not (_corpus() / "eos").is_dir():
        pytest.skip(f"shared corpus not found at {_corpus()} (set FABLINT_CORPUS)")
    assert len(_eos_corpus_files()) >= 5


@settings(max_examples=40, deadline=None)
@given(st.data())
@pytest.mark.parametrize("path", _corpus_params())
def test_corpus_prefix_truncation(path: Path, data: st.DataObject) -> None:
    text = path.read_text(encoding="utf-8")
    cut = data.draw(st.integers(min_value=0, max_value=len(text)), label="cut")
    parse_checked(text[:cut])


@settings(max_examples=25, deadline=None)
@given(st.data())
@pytest.mark.parametrize("path", _corpus_params())
def test_corpus_with_a_line_dropped_or_reindented(path: Path, data: st.DataObject) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    n = data.draw(st.integers(min_value=0, max_value=len(lines) - 1), label="line")
    indent = data.draw(st.sampled_from(["", " ", "   ", "      ", None]), label="indent")
    if indent is None:
        del lines[n]
    else:
        lines[n] = indent + lines[n].lstrip()
    parse_checked("\n".join(lines))


# -- known answers that the properties rely on -----------------------------------------------


def test_nul_byte_reports_its_line() -> None:
    with pytest.raises(ParseError) as info:
        EosParser().parse("hostname a\ninterface Ethernet1\n   mtu\x00 9214\n", FILE)
    assert info.value.file == FILE
    assert info.value.line == 3


def test_line_count_and_unknown_lines() -> None:
    text = "hostname sw1\nrouter bgp 65000\n   neighbor 10.0.0.1 remote-as 65001\n" \
           "interface Ethernet1\n   mtu 9214\n"
    result = parse_checked(text)
    assert isinstance(result, ParseResult)
    assert result.lines == 6
    assert result.unknown_lines == 2  # the bgp line and the line under it
    device = result.devices[0]
    assert device.name == "sw1"
    assert device.interfaces["Ethernet1"].field_src["mtu"] == SourceRef(FILE, 5)


def test_name_defaults_to_file_stem_without_hostname() -> None:
    result = EosParser().parse("interface Ethernet1\n   mtu 9214\n", "dir/leaf9.cfg")
    assert result.devices[0].name == "leaf9"


def test_very_long_number_is_a_problem_not_a_crash() -> None:
    # int() refuses strings over 4300 digits with ValueError; the parser turns it into a problem
    result = parse_checked("interface Ethernet1\n   mtu " + "9" * 5000 + "\n")
    assert isinstance(result, ParseResult)
    assert [p.line for p in result.problems] == [2]


NON_FINITE = {
    "ecn-threshold-inf": ("qos profile P\n   tx-queue 3\n      random-detect ecn "
                          "minimum-threshold inf kbytes maximum-threshold 1 kbytes\n", 3),
    "ecn-threshold-1e400": ("interface Ethernet1\n   tx-queue 3\n      random-detect ecn "
                            "minimum-threshold 1e400 bytes maximum-threshold 1 kbytes\n", 3),
    "speed-400-digits": ("interface Ethernet1\n   speed " + "9" * 400 + "g\n", 2),
    "speed-400-digits-mbps": ("interface Ethernet1\n   speed " + "9" * 400 + "\n", 2),
    "watchdog-inf": ("priority-flow-control pause watchdog default timeout inf\n", 1),
    "watchdog-1e400": ("interface Ethernet1\n   priority-flow-control pause watchdog port "
                       "timer timeout 1e400\n", 2),
}


@pytest.mark.parametrize(("text", "line"), NON_FINITE.values(), ids=NON_FINITE.keys())
def test_non_finite_numbers_are_problems_not_crashes(text: str, line: int) -> None:
    # Regression: int(float("inf")) used to escape the parser as OverflowError.
    result = parse_checked(text)
    assert isinstance(result, ParseResult)
    assert [p.line for p in result.problems] == [line]
    for iface in result.devices[0].interfaces.values():
        assert iface.speed_mbps is None
        assert iface.qos.pfc.watchdog.timeout_ms is None


@pytest.mark.parametrize(("text", "line"), NON_FINITE.values(), ids=NON_FINITE.keys())
def test_non_finite_numbers_through_parse_file(tmp_path: Path, text: str, line: int) -> None:
    path = tmp_path / "sw.cfg"
    path.write_text("hostname sw\nspanning-tree mode mstp\n" + text, encoding="utf-8")
    outcome = parse_file(str(path), True, "eos")
    assert [(p.line, p.fatal) for p in outcome.problems] == [(line + 2, False)]
    assert [d.name for d in outcome.devices] == ["sw"]


def test_tab_after_a_top_level_keyword() -> None:
    result = parse_checked("hostname\tsw1\ninterface\tEthernet1\n   mtu 9214\n")
    assert isinstance(result, ParseResult)
    device = result.devices[0]
    assert device.name == "sw1"
    assert device.interfaces["Ethernet1"].mtu == 9214


# -- ingest.parse_file on raw bytes ----------------------------------------------------------

EOS_HEAD = b"hostname sw\nspanning-tree mode mstp\nservice routing protocols model multi-agent\n"


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=600), st.booleans())
def test_parse_file_never_raises(tmp_path: Path, data: bytes, eos_head: bool) -> None:
    path = tmp_path / "input.cfg"
    path.write_bytes((EOS_HEAD if eos_head else b"") + data)
    outcome = parse_file(str(path), True)
    assert outcome.input.path == str(path)
    for problem in outcome.problems:
        assert problem.file == str(path)
    if outcome.devices:
        assert outcome.input.format == "eos"
        assert outcome.input.devices == [d.name for d in outcome.devices]
        assert not any(p.fatal for p in outcome.problems)
    else:
        assert any(p.fatal for p in outcome.problems), "no device and no fatal problem"


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300), st.binary(max_size=300), st.booleans())
def test_parse_file_with_nul_is_fatal_with_a_line(
    tmp_path: Path, before: bytes, after: bytes, eos_head: bool
) -> None:
    head = (EOS_HEAD if eos_head else b"") + before
    data = head + b"\x00" + after
    path = tmp_path / "damaged.cfg"
    path.write_bytes(data)
    outcome = parse_file(str(path), False)
    assert outcome.devices == []
    fatal = [p for p in outcome.problems if p.fatal]
    assert len(fatal) == 1
    problem = fatal[0]
    assert problem.file == str(path)
    assert problem.line is not None
    # The line of the first NUL, or for junk that is not UTF-8 of the first undecodable byte.
    lines = {data.count(b"\n", 0, data.index(b"\x00")) + 1}
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        lines.add(data.count(b"\n", 0, exc.start) + 1)
    assert problem.line in lines


def test_parse_file_nul_after_eos_start_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "sw.cfg"
    path.write_bytes(EOS_HEAD + b"interface Ethernet1\n   mtu 9214\x00\x00\n")
    outcome = parse_file(str(path), True)
    assert outcome.input.format == "eos"
    assert [(p.kind, p.line, p.fatal) for p in outcome.problems] == [("parse-error", 5, True)]
    assert "NUL" in outcome.problems[0].message
