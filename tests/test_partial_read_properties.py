"""A partial read is never silent (issue 13): appending or interleaving lines of another format,
or cutting a file at any byte, leaves either the original findings or a parse finding (FAB001,
FAB005) that says what was lost."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.profiles import load_policy
from tests.conftest import FIXTURES

EOS = (FIXTURES / "ingest" / "crlf-eos" / "crlf-leaf1.cfg").read_bytes().replace(b"\r\n", b"\n")
SONIC = (FIXTURES / "ingest" / "qos-two-devices" / "qos-leafB.json").read_bytes()
NXOS = (FIXTURES / "reference" / "cisco-nexus-roce-enable.faulty.cfg").read_bytes()
NXOS = b"!Command: show running-config\n!Time: Thu Nov 26 10:15:54 2026\n\n" + NXOS

FOREIGN_SOURCES = [
    FIXTURES / "demo" / "lldp" / "leaf1_show_lldp_neighbors.txt",  # an LLDP table
    FIXTURES / "ingest" / "qos-two-devices" / "qos-leafA.json",  # SONiC JSON
    FIXTURES / "ib" / "ibnetdiscover-noisy-ndr.topo",  # an InfiniBand dump
    FIXTURES / "ingest" / "config-repo" / "playbooks" / "deploy.yml",  # YAML
]
FOREIGN_LINES = sorted({line for path in FOREIGN_SOURCES
                        for line in path.read_text(encoding="utf-8").splitlines()
                        if line.strip()})
PARSE_RULES = ("FAB001", "FAB002", "FAB005")  # category parse: the file was not read whole
Key = tuple[str, str | None, str | None]


def _lint(name: str, data: bytes) -> list[tuple[str, str | None, str | None, int | None]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        result = lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                                  policy=load_policy(), jobs=1))
        return [(f.rule, f.device, f.object, f.line) for f in result.findings]


BASELINE = {name: _lint(name, data) for name, data in
            (("leaf1.cfg", EOS), ("config_db.json", SONIC), ("nx1.cfg", NXOS))}


def _kept_or_said(name: str, found: list[tuple[str, str | None, str | None, int | None]],
                  same_lines: bool = True) -> None:
    if any(rule in PARSE_RULES for rule, *_ in found):
        return
    def key(f: tuple) -> tuple:
        return f if same_lines else f[:3]
    original = {key(f) for f in BASELINE[name]}
    assert original <= {key(f) for f in found}, "findings lost without a parse finding"


def test_the_originals_have_findings_and_no_parse_finding() -> None:
    for name, found in BASELINE.items():
        assert found, name
        assert not [f for f in found if f[0] in PARSE_RULES], name


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_cutting_an_eos_export_at_any_byte(data: st.DataObject) -> None:
    cut = data.draw(st.integers(1, len(EOS) - 1))
    _kept_or_said("leaf1.cfg", _lint("leaf1.cfg", EOS[:cut]))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_cutting_a_sonic_document_at_any_byte(data: st.DataObject) -> None:
    body = SONIC.rstrip()
    cut = data.draw(st.integers(1, len(body) - 1))
    found = _lint("config_db.json", body[:cut])
    assert any(rule in PARSE_RULES for rule, *_ in found)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_cutting_an_nxos_export_inside_a_line(data: st.DataObject) -> None:
    # NX-OS writes no end marker: a cut at a line boundary cannot be told from a whole file
    # (docs/rules/FAB005.md); a cut inside a line can
    starts = {i + 1 for i, b in enumerate(NXOS) if b == ord("\n")}
    cut = data.draw(st.integers(1, len(NXOS) - 2).filter(
        lambda i: i not in starts and NXOS[i - 1:i] != b"\n" and NXOS[i:i + 1] != b"\n"))
    _kept_or_said("nx1.cfg", _lint("nx1.cfg", NXOS[:cut]))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(FOREIGN_LINES), min_size=1, max_size=8))
def test_appending_lines_of_another_format(lines: list[str]) -> None:
    found = _lint("leaf1.cfg", EOS + "\n".join(lines).encode() + b"\n")
    assert any(rule == "FAB005" for rule, *_ in found)
    _kept_or_said("leaf1.cfg", [f for f in found if f[0] != "FAB005"])


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_interleaving_lines_of_another_format(data: st.DataObject) -> None:
    lines = EOS.decode().split("\n")
    inserted = data.draw(st.lists(st.tuples(st.integers(0, len(lines)),
                                            st.sampled_from(FOREIGN_LINES)),
                                  min_size=1, max_size=6))
    for at, line in sorted(inserted, reverse=True):
        lines.insert(at, line)
    found = _lint("leaf1.cfg", "\n".join(lines).encode())
    # the foreign lines are said (FAB005; or FAB002 when one lands first and makes the file
    # start like a YAML document, 'ibwarn: ...'), and what is kept is kept by rule, device
    # and object (lines moved)
    assert any(rule in PARSE_RULES for rule, *_ in found)
    if any(rule == "FAB005" for rule, *_ in found):
        original = {f[:3] for f in BASELINE["leaf1.cfg"]}
        assert original <= {f[:3] for f in found}


def test_dump_header_lines_after_an_eos_export_leave_it_an_eos_export() -> None:
    # found by the property above: two ibnetdiscover header lines scored as high as the
    # whole EOS export, and the tie went to the dump (FAB001 and nothing of the config linted)
    tail = b"switchguid=0xb83fd20300a1b2c0(b83fd20300a1b2c0)\nvendid=0x2c9\n"
    found = _lint("leaf1.cfg", EOS + tail)
    parse = [f for f in found if f[0] in PARSE_RULES]
    assert [f[0] for f in parse] == ["FAB005"]  # the foreign lines, said once
    _kept_or_said("leaf1.cfg", [f for f in found if f[0] != "FAB005"])


@pytest.mark.parametrize(("name", "data"), [
    ("leaf1.cfg", b"Leaf1#show running-config\n" + EOS + b"Leaf1#\n"),
    ("leaf1.cfg", b"leaf1# sh run\n" + EOS + b"leaf1#exit\n"),
    ("leaf1.cfg", b"leaf1>terminal length 0\nleaf1>show running-config\n" + EOS),
    ("nx1.cfg", b"nx1# show running-config\n" + NXOS + b"nx1#\n"),
])
def test_a_terminal_capture_of_the_config_is_read_without_a_word(name: str,
                                                                data: bytes) -> None:
    """The prompt lines that frame a captured 'show running-config' lose nothing: no parse
    finding, the same findings."""
    found = _lint(name, data)
    assert not [f for f in found if f[0] in PARSE_RULES], found
    assert {f[:3] for f in BASELINE[name]} == {f[:3] for f in found}


def test_another_command_of_the_session_inside_a_block_is_foreign_and_the_block_kept() -> None:
    # found by the interleaving property: 'leaf1#show lldp neighbors' inside an interface
    # block closed the block silently, and the port's MTU, ECN and watchdog findings were lost
    lines = EOS.decode().split("\n")
    at = lines.index("interface Ethernet1/1") + 1
    found = _lint("leaf1.cfg", "\n".join([*lines[:at], "leaf1#show lldp neighbors",
                                          *lines[at:]]).encode())
    assert [(f[0], f[3]) for f in found if f[0] in PARSE_RULES] == [("FAB005", at + 1)]
    assert {f[:3] for f in BASELINE["leaf1.cfg"]} <= {f[:3] for f in found}
