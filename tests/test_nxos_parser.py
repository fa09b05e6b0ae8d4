"""The NX-OS parser: values read from real configurations, and what is in effect.

The corpus tests pin values of real files (a Nexus 3132 RDMA ToR and batfish grammar snippets);
the fixture tests pin the NX-OS semantics the rules rely on: a policy does nothing until it is
bound, a port's own policy wins over ``system qos``, DSCP lists and units are read right.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fablint.findings import FixIntent
from fablint.fixes import render_fix
from fablint.model import Device, SourceRef
from fablint.parsers.base import ParseResult
from fablint.parsers.detect import detect
from fablint.parsers.nxos import NxosParser, normalise_interface
from fablint.testing import Case, findings_of, run_case

F = "leaf.cfg"


def parse(text: str, path: str = F) -> ParseResult:
    return NxosParser().parse(text, path)


def device_of(text: str) -> Device:
    return parse(text).devices[0]


def corpus_device(corpus: Path, name: str) -> Device:
    path = corpus / "nxos" / name
    return parse(path.read_text(encoding="utf-8"), name).devices[0]


# -- the Nexus 3132 RDMA ToR ---------------------------------------------------------------

TOR = "msft-sdn-n3132-tor1.cfg"


def test_tor_identity_and_detection(corpus: Path) -> None:
    text = (corpus / "nxos" / TOR).read_text(encoding="utf-8")
    assert detect(text).parser is not None and detect(text).parser.name == "nxos"
    result = parse(text, TOR)
    assert result.problems == []
    assert 0 < result.unknown_lines < result.lines
    device = result.devices[0]
    assert (device.name, device.vendor, device.os_version) == ("TOR1", "nxos", "6.0(2)U6(1)")
    assert device.where("name") == SourceRef(TOR, 5)


def test_tor_interfaces(corpus: Path) -> None:
    device = corpus_device(corpus, TOR)
    uplink = device.interfaces["Ethernet1/27"]
    assert (uplink.kind, uplink.routed, uplink.mtu, uplink.admin_up) == ("physical", True, 9100,
                                                                        True)
    assert uplink.description == "Uplink to Spine1"
    assert uplink.ip_addresses == ["10.0.0.177/31"]
    assert uplink.field_src["mtu"] == SourceRef(TOR, 741)
    host = device.interfaces["Ethernet1/3/1"]  # breakout port to a host
    assert (host.speed_mbps, host.routed, host.admin_up) == (10000, False, True)
    assert device.interfaces["Ethernet1/3/2"].speed_mbps is None
    # 'system default switchport shutdown': unconfigured layer-2 ports are down
    assert device.interfaces["Ethernet1/11"].admin_up is False
    assert device.interfaces["Ethernet1/1"].port_channel == "port-channel1"
    assert device.interfaces["port-channel1"].kind == "port-channel"
    assert device.interfaces["Vlan1"].admin_up is False  # SVIs are down unless 'no shutdown'
    assert device.interfaces["Vlan7"].admin_up is True
    mgmt = device.interfaces["mgmt0"]
    assert (mgmt.kind, mgmt.vrf, mgmt.routed, mgmt.mtu) == ("mgmt", "management", True, 1500)
    assert device.interfaces["loopback0"].kind == "loopback"


def test_tor_pfc_from_network_qos_no_drop_class(corpus: Path) -> None:
    device = corpus_device(corpus, TOR)
    host = device.interfaces["Ethernet1/3/1"].qos.pfc
    assert (host.mode, host.enabled, host.no_drop) == ("on", True, {3})
    assert host.field_src["priority[3]"] == SourceRef(TOR, 131)  # 'pause no-drop'
    uplink = device.interfaces["Ethernet1/27"].qos.pfc
    assert (uplink.mode, uplink.enabled) == ("auto", True)  # NX-OS default, DCBX negotiated
    assert not uplink.configured("mode")
    assert uplink.watchdog.enabled is False
    assert device.qos.class_mtu == {3: 2240, 0: 9216}
    assert device.qos.no_drop_classes == {3}  # 'pause no-drop' on the class matching qos-group 3
    assert device.qos.field_src["no_drop_classes[3]"] == SourceRef(TOR, 131)
    assert device.qos.class_names == {3: "RDMA", 0: "class-default"}


def test_tor_classification_and_queues(corpus: Path) -> None:
    device = corpus_device(corpus, TOR)
    assert device.qos.name == "QOS_MARKING"
    assert device.qos.cos_to_tc == {3: 3}
    assert device.qos.field_src["cos_to_tc[3]"] == SourceRef(TOR, 113)
    assert device.qos.dscp_to_tc == {}
    assert device.qos.src == SourceRef(TOR, 138)  # the system qos binding of QOS_MARKING
    uplink = device.interfaces["Ethernet1/27"]
    # NX-OS has no trust setting: a CoS-only policy leaves trust unset, and the DSCP map says
    # what happens to untagged RoCE (qos-group 0).
    assert uplink.qos.trust is None and device.maps_for(uplink).tc_for_dscp(26) == 0
    assert uplink.profile == "QOS_QUEUEING"
    queue = uplink.qos.queues[3]
    assert (queue.name, queue.scheduling, queue.bandwidth_percent) == ("RDMA", "dwrr", 50)
    assert queue.ecn is None and queue.wred is None  # the ToR marks no ECN
    assert uplink.qos.queues[0].name == "class-default"
    assert device.profile_of(uplink, "queues") == "QOS_QUEUEING"


def test_tor_policies_and_acls(corpus: Path) -> None:
    device = corpus_device(corpus, TOR)
    assert device.policies["queuing:INPUT_QUEUING"].bound  # bound on the host ports only
    assert device.policies["network-qos:QOS_NETWORK"].bound
    assert not device.policies["network-qos:jumbo-queuing"].bound
    assert device.policies["network-qos:QOS_NETWORK"].classes == ["RDMA", "class-default"]
    assert all(r.resolved for r in device.references)
    ntp = device.acls["ntp-peers"]
    assert [(e.seq, e.action, e.protocol) for e in ntp.entries] == [(10, "permit", "ip"),
                                                                   (20, "deny", "ip")]
    assert ntp.entries[1].src == SourceRef(TOR, 104)
    assert device.acls["BGP-QoS"].entries[0].dscp == [48]  # 'dscp cs6'


def test_tor_lint_findings(corpus: Path) -> None:
    text = (corpus / "nxos" / TOR).read_text(encoding="utf-8")
    case = Case(rule="ECN001", name="tor", kind="bad", vendor="nxos", files={"tor1.cfg": text})
    result = run_case(case)
    found = findings_of(result, "ECN001")
    # One finding per port or one on the shared queuing policy: either way about queue 3.
    assert found and all((f.object or "").endswith("queue 3") for f in found)
    assert found[0].fix is not None
    assert "policy-map type queuing QOS_QUEUEING\n  class type queuing RDMA" in found[0].fix
    assert findings_of(result, "PFC001") == [] and findings_of(result, "MTU001") == []


def test_tor_classification_findings(corpus: Path) -> None:
    """The real ToR classifies RDMA by CoS 3 (its host ports are tagged layer 2); on its routed
    uplinks untagged RoCE meets that policy and lands in qos-group 0."""
    text = (corpus / "nxos" / TOR).read_text(encoding="utf-8")
    result = run_case(Case(rule="QOS001", name="tor", kind="bad", vendor="nxos",
                           files={"tor1.cfg": text}))
    uplinks = [f"Ethernet1/{n}" for n in (27, 28, 29, 30)]
    (qos001,) = findings_of(result, "QOS001")
    assert all(name in qos001.message for name in uplinks) and qos001.line == 138
    assert "DSCP 26 -> traffic class 0" in qos001.message
    assert findings_of(result, "QOS003") == []  # NX-OS has no trust setting
    (mtu004,) = findings_of(result, "MTU004")  # 'mtu 2240' on the no-drop RDMA class
    assert (mtu004.line, mtu004.object) == (130, "RDMA")
    assert mtu004.fix == ("policy-map type network-qos QOS_NETWORK\n"
                          "  class type network-qos RDMA\n    mtu 9216")
    (pfc004,) = findings_of(result, "PFC004")  # auto mode, the platform default: one cause
    assert [p.object for p in pfc004.places] == uplinks
    assert findings_of(result, "QOS006") == [] and findings_of(result, "QOS007") == []


# -- batfish snippets ------------------------------------------------------------------------


def test_batfish_interface_properties(corpus: Path) -> None:
    device = corpus_device(corpus, "batfish-nxos-interface-properties.cfg")
    eth = device.interfaces["Ethernet1/1"]
    assert (eth.routed, eth.mtu, eth.admin_up) == (True, 9216, True)
    assert eth.description and eth.description.startswith("here is a description")
    assert [(a.name, a.direction, a.family) for a in eth.acls] == [
        ("acl_in", "in", "ipv4"), ("acl_out", "out", "ipv4"), ("FOO", "in", "ipv6"),
        ("BAR", "out", "ipv6")]
    assert eth.qos.maps is not None and eth.qos.maps.name == "pm_qos_in"
    assert {(b.kind, b.direction, b.name) for b in eth.qos.policies} == {
        ("qos", "in", "pm_qos_in"), ("qos", "out", "pm_qos_out"),
        ("queuing", "in", "pm_queuing_in"), ("queuing", "out", "pm_queuing_out")}
    assert eth.profile == "pm_queuing_out"
    eth2 = device.interfaces["Ethernet1/2"]
    assert (eth2.description, eth2.routed) == (None, False)
    fex = device.interfaces["Ethernet100/100"]
    assert fex.qos.pfc.mode == "auto" and fex.qos.pfc.configured("mode")
    assert fex.qos.pause.rx is False and fex.qos.pause.configured("rx")
    assert ("AG", "in", "ipv4") in [(a.name, a.direction, a.family) for a in fex.acls]
    assert device.policies["qos:pm_qos_in"].bound


def test_batfish_policy_map_duplicate_blocks_merge(corpus: Path) -> None:
    device = corpus_device(corpus, "batfish-nxos-policy-map.cfg")
    nq = device.policies["network-qos:pm_network_qos"]
    assert nq.classes == ["class-default", "cm_network_qos"] and nq.bound
    assert device.qos.class_mtu == {0: 1500}
    assert device.qos.name == "pm_qos"
    assert all(r.resolved for r in device.references)  # c-in-q1 is a system class


def test_batfish_show_run_all_interface(corpus: Path) -> None:
    device = corpus_device(corpus, "batfish-nxos-interface-show-all-1.cfg")
    eth = device.interfaces["Ethernet1/21"]
    assert (eth.routed, eth.mtu, eth.l2_mtu, eth.speed_mbps) == (False, None, 1500, None)
    assert eth.description == "Made it to the end of Ethernet1/21"
    assert eth.qos.pfc.mode == "auto"


def test_batfish_system_qos_references(corpus: Path) -> None:
    device = corpus_device(corpus, "batfish-nxos-system-jumbo.cfg")
    refs = {(r.kind, r.name): r.resolved for r in device.references}
    assert refs[("policy-map type network-qos", "jumbo")] is False  # named, never defined
    assert refs[("policy-map type queuing", "default-out-policy")] is True  # built in


# -- in effect, not as written ---------------------------------------------------------------

HEAD = "hostname leaf1\n"
QOS = ("""class-map type qos match-any ROCE
  match dscp 24-27,af41 cs6 ef
policy-map type qos CLASSIFY
  class ROCE
    set qos-group 3
class-map type qos match-any OTHER
  match dscp 10
policy-map type qos PORT_CLASSIFY
  class OTHER
    set qos-group 5
policy-map type network-qos NQ
  class type network-qos c-8q-nq3
    pause pfc-cos 3
    mtu 9216
policy-map type queuing OUT
  class type queuing c-out-8q-q3
    bandwidth remaining percent 40
    random-detect minimum-threshold 150 kbytes maximum-threshold 1 mbytes """
    """drop-probability 7 weight 0 ecn
  class type queuing c-out-8q-q7
    priority level 1
  class type queuing c-out-8q-q1
    random-detect minimum-threshold 100000 bytes maximum-threshold 200000 bytes """
    """drop-probability 5 weight 1
""")
SYSTEM = """system qos
  service-policy type qos input CLASSIFY
  service-policy type network-qos NQ
  service-policy type queuing output OUT
"""
PORT = "interface Ethernet1/1\n  no switchport\n"


def test_unbound_policies_do_nothing() -> None:
    device = device_of(HEAD + QOS + PORT)
    eth = device.interfaces["Ethernet1/1"]
    assert device.qos.dscp_to_tc == {}
    assert device.qos.tc_for_dscp(26) == 0  # unclassified traffic is qos-group 0
    assert eth.qos.pfc.no_drop == set() and eth.qos.pfc.active_priorities == set()
    assert eth.qos.queues == {} and eth.profile is None
    assert not any(p.bound for p in device.policies.values())
    assert set(device.policies) == {"qos:CLASSIFY", "qos:PORT_CLASSIFY", "network-qos:NQ",
                                    "queuing:OUT"}
    # The default network-qos policy drops in every class.
    assert device.qos.no_drop_classes == set() and device.qos.class_mtu == {}
    assert not device.qos.class_is_no_drop(3, {3})


def test_bound_policies_take_effect() -> None:
    device = device_of(HEAD + QOS + SYSTEM + PORT)
    roce = {24: 3, 25: 3, 26: 3, 27: 3, 34: 3, 48: 3, 46: 3}  # af41 = 34, cs6 = 48, ef = 46
    assert device.qos.dscp_to_tc == roce
    assert device.qos.field_src["dscp_to_tc[26]"] == SourceRef(F, 6)  # the set qos-group line
    eth = device.interfaces["Ethernet1/1"]
    assert device.maps_for(eth) is device.qos
    pfc = eth.qos.pfc
    assert (pfc.mode, pfc.enabled, pfc.no_drop) == ("auto", True, {3})
    assert device.qos.class_mtu == {3: 9216}
    queues = eth.qos.queues
    assert (queues[3].scheduling, queues[3].bandwidth_percent) == ("dwrr", 40)
    assert queues[7].scheduling == "strict"
    ecn = queues[3].ecn
    assert ecn is not None and queues[3].wred is None
    assert ecn.min_threshold is not None and ecn.min_threshold.bytes == 150 * 1024
    assert ecn.max_threshold is not None and ecn.max_threshold.bytes == 1024 * 1024
    assert (ecn.probability, ecn.weight, ecn.profile) == (7, 0, "c-out-8q-q3")
    wred = queues[1].wred  # random-detect without 'ecn' drops
    assert wred is not None and queues[1].ecn is None
    assert wred.min_threshold is not None and wred.min_threshold.bytes == 100000
    assert eth.profile == "OUT" and device.profile_of(eth, "queues") == "OUT"
    assert device.qos.no_drop_classes == {3} and device.qos.class_names == {3: "c-8q-nq3"}
    assert eth.qos.trust == "dscp" and eth.qos.field_src["trust"] == SourceRef(F, 25)
    assert [(s.kind, s.direction, s.device_wide) for s in device.qos.policy_slots] == [
        ("qos", "in", False), ("network-qos", None, True), ("queuing", "out", False)]
    assert {(b.kind, b.direction) for b in eth.qos.policies} == {
        ("qos", "in"), ("network-qos", None), ("queuing", "out")}


def test_interface_policy_overrides_system() -> None:
    port = PORT + "  service-policy type qos input PORT_CLASSIFY\n"
    device = device_of(HEAD + QOS + SYSTEM + port + "interface Ethernet1/2\n  no switchport\n")
    eth1, eth2 = device.interfaces["Ethernet1/1"], device.interfaces["Ethernet1/2"]
    assert eth1.qos.maps is not None
    assert device.maps_for(eth1).dscp_to_tc == {10: 5}
    assert device.maps_for(eth1).tc_for_dscp(26) == 0
    assert device.maps_for(eth2).dscp_to_tc[26] == 3
    bindings = {(b.kind, b.name) for b in eth1.qos.policies}
    assert ("qos", "PORT_CLASSIFY") in bindings and ("qos", "CLASSIFY") not in bindings
    assert ("network-qos", "NQ") in bindings


def test_first_matching_class_wins_and_class_default() -> None:
    text = HEAD + """class-map type qos match-any A
  match dscp 26
class-map type qos match-any B
  match dscp 24-26
policy-map type qos P
  class A
    set qos-group 3
  class B
    set qos-group 1
  class class-default
    set qos-group 2
system qos
  service-policy type qos input P
"""
    maps = device_of(text).qos
    assert (maps.dscp_to_tc[26], maps.dscp_to_tc[24], maps.dscp_to_tc[0]) == (3, 1, 2)


def test_pfc_cos_other_than_the_qos_group() -> None:
    text = HEAD + """policy-map type network-qos NQ
  class type network-qos c-8q-nq3
    pause pfc-cos 4
system qos
  service-policy type network-qos NQ
""" + PORT
    device = device_of(text)
    assert device.interfaces["Ethernet1/1"].qos.pfc.no_drop == {4}
    assert device.qos.tc_to_pfc_priority == {3: 4}
    assert device.queue_for_priority(4) == 3
    assert device.qos.lossless_class(4) == 3  # fixes send traffic for priority 4 to group 3
    assert device.qos.class_mtu == {3: 1500}  # no 'mtu' line: the class default, not configured
    assert "class_mtu[3]" not in device.qos.field_src


def test_port_policy_keeps_the_device_no_drop_classes() -> None:
    """A port's own qos policy changes DSCP -> qos-group only; no-drop is device-wide."""
    text = HEAD + """class-map type qos match-any ROCE
  match dscp 26
policy-map type qos PORT
  class ROCE
    set qos-group 4
policy-map type network-qos NQ
  class type network-qos c-8q-nq4
    pause pfc-cos 3
system qos
  service-policy type network-qos NQ
interface Ethernet1/1
  no switchport
  service-policy type qos input PORT
"""
    device = device_of(text)
    eth = device.interfaces["Ethernet1/1"]
    maps = device.maps_for(eth)
    assert maps is eth.qos.maps and maps.dscp_to_tc == {26: 4}
    assert (maps.no_drop_classes, maps.tc_to_pfc_priority) == ({4}, {4: 3})
    assert maps.field_src["no_drop_classes[4]"] == SourceRef(F, 9)
    assert maps.class_is_no_drop(4, eth.qos.pfc.active_priorities)
    assert not maps.class_is_no_drop(3, eth.qos.pfc.active_priorities)
    assert device.queue_for_priority(3, eth) == 4
    assert maps.dscps_by_priority()[3] == [26]  # priority 3 holds back DSCP 26 only


_GROUPS = st.lists(st.tuples(st.integers(0, 7), st.sets(st.integers(0, 7), min_size=1,
                                                         max_size=2)),
                   max_size=4, unique_by=lambda item: item[0])


@settings(max_examples=60, deadline=None)
@given(_GROUPS)
def test_no_drop_facts_follow_the_network_qos_classes(
        classes: list[tuple[int, set[int]]]) -> None:
    """Whatever classes pause, the port's no-drop priorities are the union of their pfc-cos,
    the no-drop classes are exactly the paused qos-groups, and a class paused with one priority
    is paused with that priority in the chain."""
    lines = ["policy-map type network-qos NQ"]
    for group, cos in classes:
        lines += [f"  class type network-qos c-8q-nq{group}",
                  f"    pause pfc-cos {','.join(str(c) for c in sorted(cos))}"]
    text = HEAD + "\n".join(lines) + "\nsystem qos\n  service-policy type network-qos NQ\n" + PORT
    device = device_of(text)
    port = device.interfaces["Ethernet1/1"]
    assert port.qos.pfc.no_drop == set().union(*(cos for _, cos in classes))
    assert device.qos.no_drop_classes == {group for group, _ in classes}
    for group, cos in classes:
        if len(cos) == 1:
            assert device.qos.pfc_priority_of(group) == next(iter(cos))
        assert device.qos.class_mtu[group] == 1500


def test_pfc_mode_watchdog_and_link_pause() -> None:
    text = HEAD + """priority-flow-control watch-dog-interval on
interface Ethernet1/1
  priority-flow-control mode off
  flowcontrol receive on
interface Ethernet1/2
  priority-flow-control mode on
  priority-flow-control watch-dog-interval off
interface Ethernet1/3
"""
    device = device_of(text)
    e1, e2, e3 = (device.interfaces[f"Ethernet1/{n}"].qos for n in (1, 2, 3))
    assert (e1.pfc.mode, e1.pfc.enabled, e1.pause.rx, e1.pause.tx) == ("off", False, True, False)
    assert e1.pfc.watchdog.enabled and e1.pfc.watchdog.polling_ms == 100
    assert e1.pfc.watchdog.field_src["enabled"] == SourceRef(F, 2)
    assert (e2.pfc.mode, e2.pfc.watchdog.enabled) == ("on", False)
    assert e3.pfc.watchdog.enabled and e3.pfc.mode == "auto"


def test_switchport_and_shutdown_defaults() -> None:
    text = HEAD + """no system default switchport
interface Ethernet1/1
interface Ethernet1/2
  switchport
interface port-channel10
  no switchport
interface Ethernet1/3
  channel-group 10 mode active
interface Ethernet1/4.100
interface Vlan10
"""
    device = device_of(text)
    ifs = device.interfaces
    assert ifs["Ethernet1/1"].routed and ifs["Ethernet1/1"].mtu == 1500
    assert not ifs["Ethernet1/2"].routed and ifs["Ethernet1/2"].mtu is None
    assert ifs["Ethernet1/3"].routed and ifs["Ethernet1/3"].port_channel == "port-channel10"
    assert ifs["Ethernet1/4.100"].kind == "subinterface"
    assert all(ifs[n].admin_up for n in ("Ethernet1/1", "Ethernet1/2", "port-channel10"))
    assert ifs["Vlan10"].admin_up is False
    l2 = device_of(HEAD + "interface Ethernet1/1\n").interfaces["Ethernet1/1"]
    assert (l2.routed, l2.admin_up) == (False, True)  # N9K: switchport, admin up


def test_dangling_class_reference() -> None:
    text = HEAD + """policy-map type qos P
  class MISSING
    set qos-group 3
  class class-default
system qos
  service-policy type qos input P
  service-policy type queuing output NOPE
"""
    refs = {(r.kind, r.name, r.owner): r for r in device_of(text).references}
    missing = refs[("class-map type qos", "MISSING", "policy-map type qos P")]
    assert not missing.resolved and missing.src == SourceRef(F, 3)
    assert refs[("class-map type qos", "class-default", "policy-map type qos P")].resolved
    assert not refs[("policy-map type queuing", "NOPE", "system qos")].resolved


def test_out_of_range_values_are_problems_with_lines() -> None:
    text = HEAD + ("""interface Ethernet1/1
  mtu 99999
  speed 100000
class-map type qos match-any X
  match dscp 64
policy-map type queuing Q
  class type queuing c-out-8q-q3
    random-detect minimum-threshold 1 parsecs maximum-threshold 2 kbytes """
    """drop-probability 7 weight 0 ecn
system jumbomtu 9999
""")
    result = parse(text)
    assert [p.line for p in result.problems] == [3, 6, 9, 10]
    eth = result.devices[0].interfaces["Ethernet1/1"]
    assert eth.speed_mbps == 100000 and eth.l2_mtu is None


def test_interface_name_forms() -> None:
    assert normalise_interface(["Ethernet1/1/2"]) == ("Ethernet1/1/2", "physical")
    assert normalise_interface(["eth", "1/3"]) == ("Ethernet1/3", "physical")
    assert normalise_interface(["Po20"]) == ("port-channel20", "port-channel")
    assert normalise_interface(["port-channel20.5"]) == ("port-channel20.5", "subinterface")
    assert normalise_interface(["Ethernet1/1-4"]) is None
    assert normalise_interface(["breakout", "module", "1"]) is None


def test_suppression_directives() -> None:
    text = HEAD + """! fablint: disable-file=ECN001 no DCQCN in this pod
! fablint: disable=PFC001 host port, PFC via DCBX
interface Ethernet1/1
  no switchport
  mtu 9216
interface Ethernet1/2
"""
    supps = device_of(text).suppressions
    assert [(s.rules, s.scope, s.start, s.end) for s in supps] == [
        (["ECN001"], "file", 1, 2), (["PFC001"], "next", 4, 6)]
    assert supps[1].reason == "host port, PFC via DCBX"


def test_banner_is_skipped() -> None:
    text = HEAD + "banner motd #\ninterface Ethernet9/9\n#\ninterface Ethernet1/1\n"
    assert list(device_of(text).interfaces) == ["Ethernet1/1"]


def test_acl_bindings_and_object_groups() -> None:
    text = HEAD + """ip access-list A
  statistics per-entry
  10 permit udp addrgroup HOSTS any eq 4791
  20 deny ip any any
ipv6 access-list B
  10 permit udp any any eq 4791
interface Ethernet1/1
  no switchport
  ip access-group A in
  ipv6 traffic-filter B out
"""
    device = device_of(text)
    assert device.acls["A"].udp_dport_verdict(4791).action == "deny"
    assert device.acls["B"].family == "ipv6"
    assert [(a.name, a.family, a.direction) for a in device.interfaces["Ethernet1/1"].acls] == [
        ("A", "ipv4", "in"), ("B", "ipv6", "out")]


# -- fix rendering for the actions the rule cases do not show --------------------------------


@pytest.mark.parametrize(("action", "params", "expected"), [
    ("apply-profile", {"interface": "Ethernet1/1", "profile": "OUT"},
     "interface Ethernet1/1\n  service-policy type queuing output OUT"),
    ("queue-strict", {"interface": "Ethernet1/1", "queue": 7, "profile": "OUT"},
     "policy-map type queuing OUT\n  class type queuing c-out-8q-q7\n    priority level 1"),
    ("watchdog-enable", {"interface": "Ethernet1/1"},
     "interface Ethernet1/1\n  priority-flow-control watch-dog-interval on"),
    ("pfc-disable-priority", {"interface": "Ethernet1/1", "priorities": [6], "policies": []},
     None),
    ("acl-permit-udp", {"acl": "V6", "family": "ipv6", "port": 4791, "seq": None},
     "ipv6 access-list V6\n  permit udp any any eq 4791"),
    ("dscp-map", {"interface": "Ethernet1/1", "dscp": [24, 26], "tc": 3, "map": "CLASSIFY"},
     "class-map type qos match-any QOS_GROUP_3\n  match dscp 24,26\n"
     "policy-map type qos CLASSIFY\n  class QOS_GROUP_3\n    set qos-group 3"),
    ("trust-dscp", {"interface": "Ethernet1/1"}, None),
    ("dscp-map", {"interface": "Ethernet1/1", "dscp": [48], "tc": 7, "map": "CLASSIFY",
                  "before": "ROCE"},
     "class-map type qos match-any QOS_GROUP_7\n  match dscp 48\n"
     "policy-map type qos CLASSIFY\n  class QOS_GROUP_7 insert-before ROCE\n    set qos-group 7"),
    ("dscp-map", {"interface": "Ethernet1/1", "dscp": [26], "tc": 3, "map": None},
     "class-map type qos match-any QOS_GROUP_3\n  match dscp 26\n"
     "policy-map type qos ROCE_CLASSIFICATION\n  class QOS_GROUP_3\n    set qos-group 3\n"
     "system qos\n  service-policy type qos input ROCE_CLASSIFICATION"),
    ("pfc-mode-on", {"interface": "Ethernet1/1"},
     "interface Ethernet1/1\n  priority-flow-control mode on"),
    ("policy-bind", {"kind": "network-qos", "direction": None, "name": "NQ", "interface": None},
     "system qos\n  service-policy type network-qos NQ"),
    ("policy-bind", {"kind": "qos", "direction": "in", "name": "C", "interface": "Ethernet1/2"},
     "interface Ethernet1/2\n  service-policy type qos input C"),
    ("policy-bind", {"kind": "queuing", "direction": "out", "name": None, "interface": None},
     None),
    ("policy-bind", {"kind": "network-qos", "direction": None, "name": None, "interface": None,
                     "priorities": [3], "mtu": 9216},
     "policy-map type network-qos ROCE_NETWORK_QOS\n  class type network-qos c-8q-nq3\n"
     "    mtu 9216\n    pause pfc-cos 3\nsystem qos\n"
     "  service-policy type network-qos ROCE_NETWORK_QOS"),
    ("no-drop-class", {"tc": 3, "priority": 3, "remove": [(4, 3)], "mtu": None,
                       "class_names": {4: "RDMA"},
                       "policies": [("network-qos", None, "NQ")]},
     "policy-map type network-qos NQ\n  class type network-qos RDMA\n    no pause pfc-cos 3\n"
     "  class type network-qos c-8q-nq3\n    pause pfc-cos 3"),
    ("class-mtu", {"tc": 3, "mtu": 9216, "class_names": {3: "RDMA"},
                   "policies": [("network-qos", None, "NQ")]},
     "policy-map type network-qos NQ\n  class type network-qos RDMA\n    mtu 9216"),
    ("pfc-disable-priority", {"interface": "Ethernet1/1", "priorities": [3],
                              "pause_classes": {3: 4}, "class_names": {},
                              "policies": [("network-qos", None, "NQ")]},
     "policy-map type network-qos NQ\n  class type network-qos c-8q-nq4\n"
     "    no pause pfc-cos 3"),
])
def test_nxos_fix_rendering(action: str, params: dict[str, object], expected: str | None) -> None:
    assert render_fix("nxos", FixIntent(action, params)) == expected
