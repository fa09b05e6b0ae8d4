"""Vendor-published RoCEv2 configurations (fixtures/reference/, sources in its README.md): each
lints with exactly the findings judged right for it under its matching profile (usually none),
every QoS, PFC, ECN, MTU and ACL line of the guide is understood by the parser, and each faulty
copy reports exactly the faults planted in it, at the planted line.

Expected lines are found by searching the files for the planted text, so a test failure names
the fault rather than a bare number."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.parsers import PARSERS
from fablint.profiles import load_policy
from tests.conftest import FIXTURES

REF = FIXTURES / "reference"

Key = tuple[str, str, int]
"""(rule, file name, line) of one finding."""


def line_of(path: Path, pattern: str, after: str | None = None) -> int:
    """1-based line of the first line matching ``pattern`` (a regular expression), searching
    from the first line matching ``after`` when given."""
    lines = path.read_text(encoding="utf-8").split("\n")
    start = 0
    if after is not None:
        start = next(i for i, text in enumerate(lines) if re.search(after, text))
    for number in range(start, len(lines)):
        if re.search(pattern, lines[number]):
            return number + 1
    raise AssertionError(f"{pattern!r} not in {path}")


def findings(path: Path, profile: str, overrides: dict[str, Any] | None = None) -> Counter[Key]:
    result = lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                              policy=load_policy(profile, overrides), jobs=1))
    assert not result.errors, result.errors
    return Counter((f.rule, Path(f.file or "").name, f.line or 0) for f in result.findings)


def places(path: Path, profile: str, rule: str) -> list[list[Key]]:
    """(rule, file name, line) of every object each ``rule`` finding names: a finding that
    groups the ports sharing one cause lists each of them at its own line."""
    result = lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                              policy=load_policy(profile), jobs=1))
    return [[(f.rule, Path(p.file or "").name, p.line or 0) for p in f.places]
            for f in result.findings if f.rule == rule]


def consequences(path: Path, profile: str, rule: str) -> list[list[str]]:
    """``RULE object`` of the findings folded into each ``rule`` finding (its consequences)."""
    result = lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                              policy=load_policy(profile), jobs=1))
    return [[f"{c.rule} {c.object}" for c in f.consequences]
            for f in result.findings if f.rule == rule]


def once(*keys: Key) -> Counter[Key]:
    return Counter(keys)


# -- the vendor configurations as published ---------------------------------------------------

NEXUS_TME = REF / "cisco-nexus-roce-enable.cfg"
NEXUS_BLUEPRINT = REF / "cisco-nexus-ai-blueprint.cfg"
NEXUS_AMD = REF / "cisco-nexus-amd-instinct-dcqcn.cfg"
ARISTA_AMD = REF / "arista-amd-instinct-dcqcn.cfg"
SONIC_AZURE = REF / "sonic-azure-dell-z9332f"


def test_cisco_tme_roce_enable_is_clean() -> None:
    assert findings(NEXUS_TME, "cisco-nexus-ai") == Counter()


def test_cisco_blueprint_reports_only_pfc_mode_auto() -> None:
    # The blueprint walk-through binds PFC with `priority-flow-control mode auto`: PFC then
    # depends on DCBX with the NIC. A deliberate warning, as PFC004 documents.
    # One line on each port, the same: one finding naming the three ports, each at its line.
    name = NEXUS_BLUEPRINT.name
    lines = [("PFC004", name, line_of(NEXUS_BLUEPRINT, r"mode auto", f"^interface {p}"))
             for p in ("Ethernet1/14", "Ethernet1/24", "Ethernet2/24")]
    assert findings(NEXUS_BLUEPRINT, "cisco-nexus-ai") == once(lines[0])
    assert places(NEXUS_BLUEPRINT, "cisco-nexus-ai", "PFC004") == [lines]


def test_amd_nexus_is_clean_for_hosts_marking_dscp_26() -> None:
    # AMD's guide pairs Broadcom Thor2 NICs (RoCE on DSCP 26) with Cisco's thresholds: the
    # user names the NICs' DSCP, as fablint.yaml `policy:` would.
    assert findings(NEXUS_AMD, "default", {"classification": {"roce_dscp": [26]}}) == Counter()


def test_amd_nexus_under_default_flags_dscp_24() -> None:
    # `default` expects RoCE on DSCP 24 and 26; the guide classifies only 26, so DSCP 24 would
    # land in the default class: right for a fabric whose hosts mark 24. One qos policy bound
    # on three ports, each on its own line: one finding naming them.
    name = NEXUS_AMD.name
    ports = ("Ethernet1/1/1", "Ethernet1/1/2", "Ethernet1/64/1")
    expected = once(("QOS001", name, line_of(NEXUS_AMD, r"service-policy type qos input",
                                             r"^interface Ethernet1/1/1$")))
    assert findings(NEXUS_AMD, "default") == expected
    assert places(NEXUS_AMD, "default", "QOS001") == [
        [("QOS001", name, line_of(NEXUS_AMD, rf"^interface {p}$")) for p in ports]]


def test_amd_arista_reports_only_the_missing_watchdog() -> None:
    # AMD's Arista example has PFC and ECN but no `priority-flow-control pause watchdog`.
    expected = once(("WD001", ARISTA_AMD.name,
                     line_of(ARISTA_AMD, r"^interface Ethernet2/5/1$")))
    assert findings(ARISTA_AMD, "default") == expected


def test_sonic_stock_azure_qos_reports_only_the_dwrr_cnp_queue() -> None:
    # qos_config.j2 schedules the CNP queue (DSCP 48 -> TC 6 -> queue 6) DWRR like the others;
    # NVIDIA, Cisco and Dell's own SONiC `roce enable` make it strict priority.
    qos = SONIC_AZURE / "qos.json"
    expected = once(("QOS004", "qos.json", line_of(qos, r'"scheduler"', r'"Ethernet0\|6"')))
    assert findings(SONIC_AZURE, "sonic-azure") == expected


# -- every QoS line of the guides is understood -----------------------------------------------

QOS_WORDS = re.compile(r"qos|priority-flow-control|random-detect|pause|mtu|service-policy|"
                       r"access-(list|group)|tx-queue|service-profile|flowcontrol|class|bandwidth|"
                       r"priority|match|set ")
UNDERSTOOD_EXCEPTIONS = {
    # Not NX-OS syntax as far as Cisco's documentation goes (the watchdog is
    # `priority-flow-control watch-dog-interval on`, here also configured globally): the blog
    # reproduction of the blueprint writes it so. Counted as unknown, not guessed at.
    ("cisco-nexus-ai-blueprint.cfg", "priority-flow-control watch-dog"),
}


def _unknown_lines(path: Path, fmt: str) -> list[str]:
    """Lines the parser does not understand: blanking one lowers the unknown count."""
    parser = PARSERS[fmt]
    lines = path.read_text(encoding="utf-8").split("\n")
    base = parser.parse("\n".join(lines), path.name).unknown_lines
    out = []
    for i, text in enumerate(lines):
        if text.strip() and not text.lstrip().startswith("!"):
            blanked = "\n".join([*lines[:i], "", *lines[i + 1:]])
            if parser.parse(blanked, path.name).unknown_lines < base:
                out.append(text.strip())
    return out


@pytest.mark.parametrize(("path", "fmt"), [
    (NEXUS_TME, "nxos"), (NEXUS_BLUEPRINT, "nxos"), (NEXUS_AMD, "nxos"), (ARISTA_AMD, "eos"),
])
def test_every_qos_line_is_understood(path: Path, fmt: str) -> None:
    result = PARSERS[fmt].parse(path.read_text(encoding="utf-8"), path.name)
    assert not result.problems
    missed = [line for line in _unknown_lines(path, fmt)
              if QOS_WORDS.search(line) and (path.name, line) not in UNDERSTOOD_EXCEPTIONS]
    assert missed == []


def test_sonic_reference_parses_without_problems() -> None:
    docs = [(str(p), p.read_text(encoding="utf-8")) for p in sorted(SONIC_AZURE.glob("*.json"))]
    parser: Any = PARSERS["sonic"]
    result = parser.parse_documents([(text, name) for name, text in docs])
    assert not result.problems
    (device,) = result.devices
    assert device.name == "z9332f-leaf1"
    assert all(device.interfaces[p].qos.pfc.no_drop == {3, 4} for p in ("Ethernet0", "Ethernet248"))


# -- faulty copies: the faults the guides warn about ------------------------------------------


def test_nexus_faulty_copy_reports_the_planted_faults() -> None:
    path = REF / "cisco-nexus-roce-enable.faulty.cfg"
    name = path.name
    pause = line_of(path, r"pause pfc-cos 4")  # PFC on priority 4 instead of 3
    wred = line_of(path, r"random-detect .* weight 0$")  # WRED without `ecn`
    queue3 = line_of(path, r"c-out-8q-q3$")
    acl = line_of(path, r"ip access-group GPU-PROTECT in")  # drops UDP 4791
    no_mtu = line_of(path, r"^interface Ethernet1/34$")  # mtu 9216 removed: 1500
    ports = ("Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4", "Ethernet1/33",
             "Ethernet1/34")
    expected = Counter({
        # the RoCE class paused with priority 4: priority 3 not no-drop on any port (PFC001)
        # and priority 4 paused (PFC002) are this one line, folded into it
        ("QOS007", name, pause): 1,
        # WRED drops instead of marking: ECN002, whose fix adds the marking (ECN001 on queue 3
        # would say the same line again)
        ("ECN002", name, wred): 1,  # one finding for the ports that share the WRED line
        ("ACL001", name, acl): 1,
        ("MTU001", name, no_mtu): 1,
    })
    assert queue3 < wred
    assert findings(path, "cisco-nexus-ai") == expected
    assert consequences(path, "cisco-nexus-ai", "QOS007") == [
        [f"PFC001 {ports[0]}", f"PFC002 {ports[0]}"]]


def test_arista_faulty_pfc_copy_reports_the_planted_faults() -> None:
    path = REF / "arista-amd-instinct-dcqcn.faulty-pfc.cfg"
    name = path.name
    ports = ("Ethernet2/5/1", "Ethernet2/5/5", "Ethernet3/1/1", "Ethernet3/2/1")
    first = line_of(path, r"^interface Ethernet2/5/1$")
    # Priority 4 no-drop instead of 3 in the qos profile: one finding at that line, naming
    # the four ports, each at its line. Priority 4 paused (DSCP 32-39, PFC002), RoCE's DSCP
    # 24/26 -> TC 3 left unpaused (QOS001) and queue 4's missing ECN (lossy, "lossless" only
    # because of the misplaced no-drop) are that one mistake, folded into it.
    expected = Counter({
        ("PFC001", name, line_of(path, r"priority 4 no-drop")): 1,
        ("WD001", name, first): 1,  # as in the reference
        ("ACL001", name, line_of(path, r"ip access-group GPU-PROTECT in")): 1,
    })
    assert findings(path, "default") == expected
    assert places(path, "default", "PFC001") == [
        [("PFC001", name, line_of(path, rf"^interface {port}$")) for port in ports]]
    assert consequences(path, "default", "PFC001") == [
        ["ECN001 qos profile QOS_ROCE_DCQCN queue 4", "QOS001 qos map", f"PFC002 {ports[0]}"]]


def test_arista_faulty_ecn_copy_reports_the_planted_faults() -> None:
    path = REF / "arista-amd-instinct-dcqcn.faulty-ecn.cfg"
    name = path.name
    expected = once(
        ("ECN001", name, line_of(path, r"uc-tx-queue 3")),  # random-detect ecn removed
        ("MTU001", name, line_of(path, r"mtu 1500")),
        ("WD001", name, line_of(path, r"^interface Ethernet2/5/1$")),  # as in the reference
    )
    assert findings(path, "default") == expected


def test_sonic_faulty_copy_reports_the_planted_faults() -> None:
    folder = REF / "sonic-azure-dell-z9332f.faulty"
    qos, config = folder / "qos.json", folder / "config_db.json"
    expected = Counter({
        # pfc_enable "2,4" on Ethernet8: priority 3 unprotected; lossy priority 2 paused, RoCE
        # DSCP 3 not lossless there, queue 2 asked for ECN and the watchdog (pfcwd_sw_enable
        # "3,4") missing 2 are that one mistake, folded into it.
        ("PFC001", "qos.json", line_of(qos, r'"pfc_enable".*"2,4"')): 1,
        # WRED_PROFILE AZURE_LOSSLESS "ecn": "ecn_none" (SONiC's default) with WRED on: every
        # lossless queue of every port drops instead of marking; one finding per queue (3, 4)
        # for all the ports that use the profile.
        ("ECN002", "qos.json", line_of(qos, r'"AZURE_LOSSLESS" *: *\{')): 2,
        ("MTU001", "config_db.json", line_of(config, r'"mtu": "1500"')): 1,
        # ACL001 points at the binding of the ACL to the port, as on EOS and NX-OS.
        ("ACL001", "config_db.json", line_of(config, r'"ports"', r'"ACL_TABLE"')): 1,
        # As in the reference:
        ("QOS004", "qos.json", line_of(qos, r'"scheduler"', r'"Ethernet0\|6"')): 1,
    })
    # (ECN001 on the same queues would name the same line again: ECN002's fix makes the
    # profile mark.)
    assert findings(folder, "sonic-azure") == expected
    assert consequences(folder, "sonic-azure", "PFC001") == [
        ["ECN001 Ethernet8 queue 2", "QOS001 Ethernet8", "PFC002 Ethernet8", "WD001 Ethernet8"]]


def test_faulty_copies_differ_from_their_reference_only_where_planted() -> None:
    """The faulty copies keep every other line of the vendor configuration."""
    pairs = [
        # 3 lines changed (one removed), 5 added for the ACL and 1 to apply it
        (NEXUS_TME, REF / "cisco-nexus-roce-enable.faulty.cfg", 2 + 2 + 1 + 5 + 1),
        # 1 line changed, 5 added for the ACL and 1 to apply it
        (ARISTA_AMD, REF / "arista-amd-instinct-dcqcn.faulty-pfc.cfg", 2 + 5 + 1),
        # the ECN line removed, 1 mtu changed
        (ARISTA_AMD, REF / "arista-amd-instinct-dcqcn.faulty-ecn.cfg", 1 + 2),
        # pfc_enable of Ethernet8 and the WRED profile's ecn mode changed
        (SONIC_AZURE / "qos.json", REF / "sonic-azure-dell-z9332f.faulty" / "qos.json", 2 + 2),
    ]
    for reference, faulty, changed in pairs:
        ref_lines = reference.read_text(encoding="utf-8").split("\n")
        bad_lines = faulty.read_text(encoding="utf-8").split("\n")
        only_ref = Counter(ref_lines) - Counter(bad_lines)
        only_bad = Counter(bad_lines) - Counter(ref_lines)
        assert sum(only_ref.values()) + sum(only_bad.values()) == changed, (faulty, only_ref,
                                                                            only_bad)
