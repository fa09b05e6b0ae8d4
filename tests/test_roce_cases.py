"""Lossless RoCE configurations written the way each vendor documents them (fixtures/roce):
quiet when right, and exactly one finding, naming the cause at its line, for each single
mistake made in them (the red-team cases of fixtures/roce/README.md)."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.profiles import load_policy

ROCE = Path(__file__).resolve().parents[1] / "fixtures" / "roce"


@dataclass(frozen=True)
class Variant:
    """One mistake made in a correct configuration: ``edits`` (old, new, every occurrence?)
    applied to ``file`` of the ``base`` folder; the one finding expected, as (rule, device,
    text of the line it must cite)."""

    name: str
    base: str
    file: str
    edits: tuple[tuple[str, str, bool | str], ...]
    rule: str
    device: str
    line_text: str


def _v(name: str, base: str, file: str,
       edits: list[tuple[str, str] | tuple[str, str, bool | str]],
       rule: str, device: str, line_text: str) -> Variant:
    full = tuple((e[0], e[1], e[2] if len(e) > 2 else False) for e in edits)  # type: ignore[misc]
    return Variant(name, base, file, full, rule, device, line_text)


EOS_ECN = ("      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
           "max-mark-probability 100\n")
NXOS_ECN = ("    random-detect minimum-threshold 150 kbytes maximum-threshold 3000 kbytes "
            "drop-probability 7 weight 0 ecn")

VARIANTS = [
    # Arista EOS leaf: QoS profile applied with service-profile, global watchdog
    _v("eos-pfc-wrong-priority", "eos", "ai-leaf1.cfg",
       [("priority 3 no-drop", "priority 4 no-drop")],
       "PFC001", "ai-leaf1", "   priority-flow-control priority 4 no-drop"),
    _v("eos-ecn-missing", "eos", "ai-leaf1.cfg", [(EOS_ECN, "")],
       "ECN001", "ai-leaf1", "   tx-queue 3"),
    _v("eos-mtu-1500-uplink", "eos", "ai-leaf1.cfg",
       [("P2P_ai-spine2_Ethernet1/1\n   mtu 9214", "P2P_ai-spine2_Ethernet1/1\n   mtu 1500")],
       "MTU001", "ai-leaf1", "   mtu 1500"),
    _v("eos-acl-drops-4791", "eos", "ai-leaf1.cfg",
       [("interface Port-Channel10", "ip access-list PROTECT-FABRIC\n"
         "   10 permit tcp any any eq bgp\n   20 deny udp any any eq 4791\n"
         "   30 permit ip any any\n!\ninterface Port-Channel10"),
        ("   ip address 10.0.1.1/31\n",
         "   ip address 10.0.1.1/31\n   ip access-group PROTECT-FABRIC in\n")],
       "ACL001", "ai-leaf1", "   ip access-group PROTECT-FABRIC in"),
    _v("eos-dscp-to-lossy-class", "eos", "ai-leaf1.cfg",
       [("qos map dscp 26 to traffic-class 3", "qos map dscp 26 to traffic-class 1")],
       "QOS001", "ai-leaf1", "qos map dscp 26 to traffic-class 1"),
    _v("eos-watchdog-off", "eos", "ai-leaf1.cfg",
       [("priority-flow-control pause watchdog default timeout 0.05\n", ""),
        ("priority-flow-control pause watchdog default polling-interval 0.01\n", ""),
        ("priority-flow-control pause watchdog default recovery-time 0.2\n", ""),
        ("priority-flow-control pause watchdog action drop\n", ""),
        ("   priority-flow-control pause watchdog\n", "")],
       "WD001", "ai-leaf1", "interface Ethernet1/1"),
    _v("eos-cnp-in-roce-class", "eos", "ai-leaf1.cfg",
       [("qos map dscp 48 to traffic-class 6", "qos map dscp 48 to traffic-class 3")],
       "QOS004", "ai-leaf1", "qos map dscp 48 to traffic-class 3"),
    _v("eos-pfc-off-uplink", "eos", "ai-leaf1.cfg",
       [("   ip address 10.0.2.1/31\n   service-profile ROCE_LOSSLESS\n",
         "   ip address 10.0.2.1/31\n")],
       "PFC001", "ai-leaf1", "interface Ethernet64/1"),
    _v("eos-trust-cos-in-profile", "eos", "ai-leaf1.cfg",
       [("   qos trust dscp", "   qos trust cos")],
       "QOS003", "ai-leaf1", "   qos trust cos"),
    _v("eos-pfc-all-off-device-wide", "eos", "ai-leaf1.cfg",
       [("priority-flow-control pause watchdog action drop\n",
         "priority-flow-control pause watchdog action drop\npriority-flow-control all off\n")],
       "PFC001", "ai-leaf1", "priority-flow-control all off"),
    _v("eos-link-pause-on-host-port", "eos", "ai-leaf1.cfg",
       [("   ip address 10.10.0.0/31\n",
         "   ip address 10.10.0.0/31\n   flowcontrol receive on\n")],
       "PFC003", "ai-leaf1", "   flowcontrol receive on"),
    _v("eos-ecn-thresholds-swapped", "eos", "ai-leaf1.cfg",
       [("minimum-threshold 150 kbytes maximum-threshold 1500 kbytes",
         "minimum-threshold 1500 kbytes maximum-threshold 150 kbytes")],
       "ECN003", "ai-leaf1", "      random-detect ecn minimum-threshold 1500 kbytes"),
    # Cisco Nexus 9000: qos / queuing / network-qos policies, system qos, mode on per port
    _v("nxos-pfc-wrong-cos", "nxos", "ai-leaf2.cfg", [("pause pfc-cos 3", "pause pfc-cos 4")],
       "QOS007", "ai-leaf2", "    pause pfc-cos 4"),
    _v("nxos-wred-without-ecn", "nxos", "ai-leaf2.cfg", [(" weight 0 ecn\n", " weight 0\n")],
       "ECN002", "ai-leaf2", "    random-detect minimum-threshold 150 kbytes"),
    _v("nxos-ecn-missing", "nxos", "ai-leaf2.cfg", [(NXOS_ECN + "\n", "")],
       "ECN001", "ai-leaf2", "  class type queuing c-out-8q-q3"),
    _v("nxos-mtu-1500-uplink", "nxos", "ai-leaf2.cfg",
       [("to ai-spine2 Eth1/2\n  mtu 9216", "to ai-spine2 Eth1/2\n  mtu 1500")],
       "MTU001", "ai-leaf2", "  mtu 1500"),
    _v("nxos-acl-drops-4791", "nxos", "ai-leaf2.cfg",
       [("  20 permit udp any any eq 4791", "  20 deny udp any any eq 4791")],
       "ACL001", "ai-leaf2", "  ip access-group FABRIC-IN in"),
    _v("nxos-roce-to-lossy-qos-group", "nxos", "ai-leaf2.cfg",
       [("    set qos-group 3", "    set qos-group 1")],
       "QOS001", "ai-leaf2", "    set qos-group 1"),
    _v("nxos-watchdog-off", "nxos", "ai-leaf2.cfg",
       [("priority-flow-control watch-dog-interval on\n", "")],
       "WD001", "ai-leaf2", "interface Ethernet1/1/1"),
    _v("nxos-cnp-not-strict", "nxos", "ai-leaf2.cfg",
       [("c-out-8q-q7\n    priority level 1", "c-out-8q-q7\n    bandwidth remaining percent 0")],
       "QOS004", "ai-leaf2", "  class type queuing c-out-8q-q7"),
    _v("nxos-network-qos-unbound", "nxos", "ai-leaf2.cfg",
       [("  service-policy type network-qos custom-8q-nq-policy\n", "")],
       "QOS006", "ai-leaf2", "policy-map type network-qos custom-8q-nq-policy"),
    _v("nxos-pfc-mode-auto-uplink", "nxos", "ai-leaf2.cfg",
       [("to ai-spine1 Eth1/2\n  mtu 9216\n  priority-flow-control mode on\n",
         "to ai-spine1 Eth1/2\n  mtu 9216\n")],
       "PFC004", "ai-leaf2", "interface Ethernet1/49"),
    _v("nxos-link-pause", "nxos", "ai-leaf2.cfg",
       [("to ai-spine1 Eth1/2\n  mtu 9216\n", "to ai-spine1 Eth1/2\n  mtu 9216\n"
         "  flowcontrol receive on\n  flowcontrol send on\n")],
       "PFC003", "ai-leaf2", "  flowcontrol receive on"),
    _v("nxos-no-drop-class-mtu-1500", "nxos", "ai-leaf2.cfg",
       [("    mtu 9216\n    pause pfc-cos 3", "    mtu 1500\n    pause pfc-cos 3")],
       "MTU004", "ai-leaf2", "    mtu 1500"),
    _v("nxos-ecn-thresholds-swapped", "nxos", "ai-leaf2.cfg",
       [("minimum-threshold 150 kbytes maximum-threshold 3000 kbytes",
         "minimum-threshold 3000 kbytes maximum-threshold 150 kbytes")],
       "ECN003", "ai-leaf2", "    random-detect minimum-threshold 3000 kbytes"),
    _v("nxos-cnp-in-roce-qos-group", "nxos", "ai-leaf2.cfg",
       [("  class CNP\n    set qos-group 7", "  class CNP\n    set qos-group 3")],
       "QOS004", "ai-leaf2", "  class CNP>>    set qos-group 3"),
    _v("nxos-roce-matched-by-cos-only", "nxos", "ai-leaf2.cfg",
       [("  match dscp 24,26", "  match cos 3")],
       "QOS001", "ai-leaf2", "interface Ethernet1/1/1>>  service-policy type qos input"),
    # SONiC config_db.json (Mellanox SN4700, traditional buffers, CRLF line ends)
    _v("sonic-pfc-wrong-priority", "sonic", "config_db.json",
       [('"pfc_enable": "3"', '"pfc_enable": "4"', True),
        ('"pfcwd_sw_enable": "3"', '"pfcwd_sw_enable": "4"', True)],
       "PFC001", "ai-leaf3", '"pfc_enable": "4"'),
    _v("sonic-wred-profile-ecn-none", "sonic", "config_db.json",
       [('"ecn": "ecn_all"', '"ecn": "ecn_none"')],
       "ECN002", "ai-leaf3", '"ROCE_LOSSLESS": {'),
    _v("sonic-queue-rows-without-wred", "sonic", "config_db.json",
       [('"scheduler": "scheduler.1",\r\n            "wred_profile": "ROCE_LOSSLESS"',
         '"scheduler": "scheduler.1"', True)],
       "ECN001", "ai-leaf3", '"QUEUE": {>>"Ethernet0|3": {'),
    _v("sonic-mtu-1500-uplink", "sonic", "config_db.json",
       [('"lanes": "232,233,234,235,236,237,238,239",\r\n            "mtu": "9100"',
         '"lanes": "232,233,234,235,236,237,238,239",\r\n            "mtu": "1500"')],
       "MTU001", "ai-leaf3", '"mtu": "1500"'),
    _v("sonic-acl-drops-4791", "sonic", "config_db.json",
       [('"PACKET_ACTION": "FORWARD",\r\n            "PRIORITY": "9999"',
         '"PACKET_ACTION": "DROP",\r\n            "PRIORITY": "9999"')],
       "ACL001", "ai-leaf3", '"ACL_TABLE": {>>"ports": ['),
    _v("sonic-dscp-to-lossy-class", "sonic", "config_db.json",
       [('"24": "3"', '"24": "1"'), ('"26": "3"', '"26": "1"')],
       "QOS001", "ai-leaf3", '"24": "1"'),
    _v("sonic-watchdog-off", "sonic", "config_db.json",
       [(',\r\n            "pfcwd_sw_enable": "3"', "", True),
        ('"default_pfcwd_status": "enable"', '"default_pfcwd_status": "disable"'),
        (r'("PFC_WD": \{\r\n)(.*?)(        "GLOBAL": )', r"\1\3", "re")],
       "WD001", "ai-leaf3", '"PORT": {>>"Ethernet0": {'),
    _v("sonic-cnp-into-roce-class", "sonic", "config_db.json", [('"48": "6"', '"48": "3"')],
       "QOS004", "ai-leaf3", '"48": "3"'),
    _v("sonic-pfc-off-uplink", "sonic", "config_db.json",
       [('"Ethernet232": {\r\n            "dscp_to_tc_map": "ROCE",\r\n            '
         '"pfc_enable": "3"',
         '"Ethernet232": {\r\n            "dscp_to_tc_map": "ROCE",\r\n            '
         '"pfc_enable": ""')],
       "PFC001", "ai-leaf3", '"PORT": {>>"Ethernet232": {'),
    _v("sonic-ports-classify-by-dot1p", "sonic", "config_db.json",
       [('"dscp_to_tc_map": "ROCE",\r\n            "pfc_enable"',
         '"dot1p_to_tc_map": "ROCE",\r\n            "pfc_enable"', True),
        (',\r\n        "global": {\r\n            "dscp_to_tc_map": "ROCE"\r\n        }', ""),
        ('"DSCP_TO_TC_MAP": {', '"DOT1P_TO_TC_MAP": {\r\n        "ROCE": {\r\n'
         '            "3": "3"\r\n        }\r\n    },\r\n    "DSCP_TO_TC_MAP": {')],
       "QOS003", "ai-leaf3", '"PORT_QOS_MAP": {>>"Ethernet0": {>>"dot1p_to_tc_map"'),
    _v("sonic-headroom-below-estimate", "sonic", "config_db.json",
       [('"xoff": "96256"', '"xoff": "8192"')],
       "BUF003", "ai-leaf3", '"xoff": "8192"'),
    _v("sonic-uplink-without-cable-length", "sonic", "config_db.json",
       [('"Ethernet232": "40m",\r\n', "")],
       "BUF004", "ai-leaf3", '"BUFFER_PG": {>>"Ethernet232|3": {'),
    _v("sonic-watchdog-alert-only", "sonic", "config_db.json",
       [('"action": "drop"', '"action": "alert"', True)],
       "WD002", "ai-leaf3", '"PFC_WD": {>>"action": "alert"'),
    _v("sonic-watchdog-detection-too-short", "sonic", "config_db.json",
       [('"detection_time": "200"', '"detection_time": "50"', True)],
       "WD002", "ai-leaf3", '"detection_time": "50"'),
    _v("sonic-lossless-pg-on-lossy-profile", "sonic", "config_db.json",
       [('"profile": "pg_lossless_200000_5m_profile"', '"profile": "ingress_lossy_profile"',
         True),
        ('"profile": "pg_lossless_400000_40m_profile"', '"profile": "ingress_lossy_profile"',
         True)],
       "BUF001", "ai-leaf3", '"BUFFER_PG": {>>"Ethernet0|3": {>>"profile"'),
    _v("sonic-lossless-queue-on-lossy-buffer", "sonic", "config_db.json",
       [('"profile": "egress_lossless_profile"', '"profile": "q_lossy_profile"', True)],
       "BUF005", "ai-leaf3", '"BUFFER_QUEUE": {>>"Ethernet0|3": {>>"profile"'),
    # Two EOS switches and their LLDP tables: the cause once, not its echo on the cable
    _v("fabric-mtu-1500-on-leaf-uplink", "fabric", "ai-leaf1.cfg",
       [("P2P_ai-spine1_Ethernet1/1\n   mtu 9214", "P2P_ai-spine1_Ethernet1/1\n   mtu 1500")],
       "MTU001", "ai-leaf1", "   mtu 1500"),
    _v("fabric-pfc-off-on-spine", "fabric", "ai-spine1.cfg",
       [("   ip address 10.0.1.0/31\n   service-profile ROCE_LOSSLESS\n",
         "   ip address 10.0.1.0/31\n")],
       "PFC001", "ai-spine1", "interface Ethernet1/1"),
    _v("fabric-spine-dscp-to-lossy-class", "fabric", "ai-spine1.cfg",
       [("qos map dscp 26 to traffic-class 3", "qos map dscp 26 to traffic-class 1")],
       "QOS001", "ai-spine1", "qos map dscp 26 to traffic-class 1"),
    _v("fabric-spine-pfc-on-priority-4", "fabric", "ai-spine1.cfg",
       [("priority 3 no-drop", "priority 4 no-drop")],
       "PFC001", "ai-spine1", "   priority-flow-control priority 4 no-drop"),
    # An EOS leaf and an NX-OS leaf cabled together (both LLDP tables): each vendor's mistake
    # once, with the fabric comparisons (PFC007, QOS010) and the cable (PFC008, MTU005) folded
    _v("mixed-nxos-pfc-cos-4", "mixed", "ai-leaf2.cfg", [("pause pfc-cos 3", "pause pfc-cos 4")],
       "QOS007", "ai-leaf2", "    pause pfc-cos 4"),
    _v("mixed-nxos-uplink-mode-off", "mixed", "ai-leaf2.cfg",
       [("to ai-spine1 Eth1/2\n  mtu 9216\n  priority-flow-control mode on",
         "to ai-spine1 Eth1/2\n  mtu 9216\n  priority-flow-control mode off")],
       "PFC001", "ai-leaf2", "interface Ethernet1/49"),
    _v("mixed-nxos-uplink-mtu-1500", "mixed", "ai-leaf2.cfg",
       [("to ai-spine1 Eth1/2\n  mtu 9216", "to ai-spine1 Eth1/2\n  mtu 1500")],
       "MTU001", "ai-leaf2", "  mtu 1500"),
    _v("mixed-eos-pfc-on-priority-4", "mixed", "ai-leaf1.cfg",
       [("priority 3 no-drop", "priority 4 no-drop")],
       "PFC001", "ai-leaf1", "   priority-flow-control priority 4 no-drop"),
]


def _lint(folder: Path) -> list:
    options = LintOptions(paths=[str(folder)], config=ProjectConfig(),
                          policy=load_policy("default"), jobs=1)
    return lint(options).findings


def _apply(text: str, edits: tuple[tuple[str, str, bool | str], ...]) -> str:
    for old, new, every in edits:
        if every == "re":  # a regular expression (a whole block of rows)
            text, count = re.subn(old, new, text, count=1, flags=re.DOTALL)
            assert count == 1, f"edit does not apply: {old!r}"
            continue
        assert old in text, f"edit does not apply: {old!r}"
        text = text.replace(old, new) if every else text.replace(old, new, 1)
    return text


def _line_of(lines: list[str], wanted: str) -> int:
    """Number of the first line that starts with ``wanted`` (leading blanks ignored); with
    ``A>>B``, the first line starting with B after one starting with A (A may chain)."""
    start = 0
    if ">>" in wanted:
        before, wanted = wanted.rsplit(">>", 1)
        start = _line_of(lines, before)
    return next(i for i, line in enumerate(lines, 1)
                if i > start and line.strip().startswith(wanted.strip()))


@pytest.mark.parametrize("base", ["eos", "nxos", "sonic", "fabric", "mixed"])
def test_correct_lossless_config_is_quiet(base: str) -> None:
    findings = _lint(ROCE / base)
    assert [(f.rule, f.device, f.line, f.message) for f in findings] == []


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_one_mistake_one_finding_at_its_line(variant: Variant, tmp_path: Path) -> None:
    folder = tmp_path / variant.base
    shutil.copytree(ROCE / variant.base, folder)
    path = folder / variant.file
    text = _apply(path.read_bytes().decode("utf-8"), variant.edits)
    path.write_bytes(text.encode("utf-8"))
    lines = text.replace("\r\n", "\n").split("\n")
    wanted = _line_of(lines, variant.line_text)
    findings = _lint(folder)
    got = [(f.rule, f.device, Path(f.file or "").name, f.line) for f in findings]
    assert got == [(variant.rule, variant.device, variant.file, wanted)], [
        f"{f.rule} {f.file}:{f.line} {f.message}" for f in findings]
