"""Applicability (issue 15 item 1): a switch with no lossless configuration at all gets one
QOS011 finding, and the per-port lossless rules leave it alone, unless the profile's
``roce_devices`` says it must carry RoCE."""

from __future__ import annotations

from pathlib import Path

import pytest

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.policy import RoceDevices
from fablint.profiles import load_policy

EVPN_LEAF = """hostname dc1-leaf1a
interface Ethernet1
   description P2P_SPINE1
   no switchport
   ip address 10.255.255.1/31
interface Ethernet2
   description P2P_SPINE2
   no switchport
   ip address 10.255.255.3/31
"""

LOSSY_PORT_ON_ROCE_LEAF = EVPN_LEAF + """interface Ethernet3
   mtu 9214
   no switchport
   priority-flow-control on
   priority-flow-control priority 3 no-drop
"""


def _lint(tmp_path: Path, text: str, overrides: dict | None = None) -> LintResult:
    path = tmp_path / "leaf.cfg"
    path.write_text(text, encoding="utf-8")
    return lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                            policy=load_policy("default", overrides or {}), jobs=1))


def test_non_roce_switch_gets_one_finding_only(tmp_path: Path) -> None:
    result = _lint(tmp_path, EVPN_LEAF)
    assert [(f.rule, f.severity.value) for f in result.findings] == [("QOS011", "info")]
    only = result.findings[0]
    assert [p.object for p in only.places] == ["Ethernet1", "Ethernet2"]
    assert "IP MTU 1500" in only.message  # the MTU is said once, inside it


def test_must_be_roce_by_name_is_an_error_and_checked_in_full(tmp_path: Path) -> None:
    result = _lint(tmp_path, EVPN_LEAF, {"roce_devices": {"names": ["DC1-LEAF*"]}})
    rules = {f.rule: f.severity.value for f in result.findings}
    assert rules["QOS011"] == "error"
    assert rules["PFC001"] == "error" and rules["MTU001"] == "error"


def test_lossless_intent_on_one_port_keeps_the_per_port_rules(tmp_path: Path) -> None:
    result = _lint(tmp_path, LOSSY_PORT_ON_ROCE_LEAF)
    rules = {f.rule for f in result.findings}
    assert "QOS011" not in rules
    pfc = next(f for f in result.findings if f.rule == "PFC001")
    assert [p.object for p in pfc.places] == ["Ethernet1", "Ethernet2"]
    assert "MTU001" in rules


@pytest.mark.parametrize(("names", "roles", "name", "role", "expected"), [
    (["leaf*"], [], "LEAF-01", None, True),
    (["leaf*"], [], "spine1", None, False),
    ([], ["*Router"], "t0", "ToRRouter", True),
    ([], ["ToRRouter"], "t0", None, False),
    (["gpu-leaf-[0-9]*"], [], "gpu-leaf-7", "LeafRouter", True),
])
def test_roce_device_patterns(names: list[str], roles: list[str], name: str,
                              role: str | None, expected: bool) -> None:
    assert RoceDevices(names=names, roles=roles).requires(name, role) is expected
