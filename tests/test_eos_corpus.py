"""Values parsed from real Arista EOS configurations (the shared corpus), checked one by one.

The files come from AVD's rendered configs and Batfish's grammar tests (see the corpus
MANIFEST.tsv); each assertion was read off the file by hand, with its line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fablint.model import Device
from fablint.parsers.eos import EosParser


def _device(corpus: Path, name: str) -> tuple[Device, int, int]:
    path = corpus / "eos" / name
    result = EosParser().parse(path.read_text(encoding="utf-8"), name)
    assert not result.problems, result.problems
    assert len(result.devices) == 1
    return result.devices[0], result.lines, result.unknown_lines


def test_avd_qos_profiles(corpus: Path) -> None:
    device, _, _ = _device(corpus, "avd-molecule-qos.cfg")
    assert set(device.qos_profiles) >= {"test", "test_with_pfc", "wred_queues_test",
                                        "uc_mc_queues_test", "no_qos_trust"}
    test = device.qos_profiles["test"]
    assert (test.trust, test.default_dscp) == ("dscp", 46)
    q2 = test.queues[2]
    assert q2.scheduling == "strict"
    assert q2.bandwidth_percent == 10
    assert q2.ecn is not None and q2.ecn.src is not None and q2.ecn.src.line == 53
    assert q2.ecn.min_threshold is not None and q2.ecn.min_threshold.bytes == 320 * 1024
    assert q2.ecn.probability == 90
    # Segments cannot be converted to bytes: the unit is kept and bytes stays unknown.
    q4 = test.queues[4].ecn
    assert q4 is not None and q4.min_threshold is not None
    assert (q4.min_threshold.value, q4.min_threshold.unit, q4.min_threshold.bytes) == (
        320, "segments", None)
    assert q4.weight == 10
    assert device.qos_profiles["no_qos_trust"].trust == "none"


def test_avd_qos_pfc_watchdog_and_wred(corpus: Path) -> None:
    device, _, _ = _device(corpus, "avd-molecule-qos.cfg")
    pfc = device.qos_profiles["test_with_pfc"].pfc
    assert (pfc.mode, pfc.no_drop, pfc.drop) == ("on", {0}, {1})
    assert pfc.field_src["priority[0]"].line == 73
    wd = pfc.watchdog
    assert (wd.enabled, wd.action, wd.timeout_ms, wd.recovery_ms) == (True, "drop", 50.0, 1110.0)
    wred = device.qos_profiles["wred_queues_test"].queues[1].wred
    assert wred is not None and wred.min_threshold is not None and wred.max_threshold is not None
    assert (wred.min_threshold.bytes, wred.max_threshold.bytes, wred.probability) == (
        1024, 10240, 100)
    # Milliseconds thresholds (latency-based ECN) keep their unit.
    ms = device.qos_profiles["uc_mc_queues_test"].queues[1].ecn
    assert ms is not None and ms.min_threshold is not None
    assert ms.min_threshold.unit == "milliseconds" and ms.min_threshold.bytes is None


def test_avd_qos_device_maps(corpus: Path) -> None:
    device, _, _ = _device(corpus, "avd-molecule-qos.cfg")
    qos = device.qos
    assert qos.dscp_to_tc[26] == 4 and qos.dscp_to_tc[46] == 5 and qos.dscp_to_tc[8] == 1
    assert qos.field_src["dscp_to_tc[26]"].line == 237
    assert qos.cos_to_tc == {1: 2, 2: 2, 3: 3, 4: 2}
    assert qos.tc_to_queue == {6: 2}
    assert qos.pfc_disabled_globally is True
    assert qos.ecn_allow_non_ect is True
    assert qos.watchdog_defaults is not None
    assert qos.watchdog_defaults.timeout_ms == 50.0
    assert set(device.acls) >= {"acl_qos_tc0_v4", "acl_qos_tc0_v6"}


def test_avd_single_dc_leaf(corpus: Path) -> None:
    device, lines, unknown = _device(corpus, "avd-example-single-dc-leaf1a.cfg")
    assert device.name == "dc1-leaf1a"
    assert lines == 365 and 0 < unknown < lines
    eth1 = device.interfaces["Ethernet1"]
    assert (eth1.routed, eth1.mtu, eth1.ip_addresses) == (True, 1500, ["10.255.255.1/31"])
    assert eth1.description == "P2P_dc1-spine1_Ethernet1"
    assert eth1.field_src["mtu"].line == 100
    assert eth1.qos.trust == "dscp"  # routed port default
    eth3 = device.interfaces["Ethernet3"]
    assert (eth3.routed, eth3.port_channel, eth3.qos.trust) == (False, "Port-Channel3", "cos")
    assert [i.name for i in device.members("Port-Channel3")] == ["Ethernet3", "Ethernet4"]
    assert device.interfaces["Loopback0"].mtu == 65535
    assert device.interfaces["Management1"].kind == "mgmt"
    assert device.interfaces["Vlan4094"].kind == "svi"
    assert device.interfaces["Vxlan1"].kind == "tunnel"


def test_avd_five_stage_leaf(corpus: Path) -> None:
    device, _, _ = _device(corpus, "avd-5stage-dc1-pod1-leaf1a.cfg")
    assert device.name == "DC1-POD1-LEAF1A"
    uplink = device.interfaces["Ethernet1"]
    assert uplink.routed and uplink.ip_addresses == ["172.17.110.1/31"]
    assert uplink.mtu == 1500 and not uplink.configured("mtu")  # EOS default, not written
    assert device.interfaces["Ethernet3"].port_channel == "Port-Channel3"


def test_batfish_show_running_config_all(corpus: Path) -> None:
    device, _, _ = _device(corpus, "batfish-eos-show-run-all-interfaces.cfg")
    eth = device.interfaces["Ethernet1/1"]
    assert eth.mtu == 9212 and eth.routed
    assert eth.speed_mbps == 100  # the last of several speed lines wins: 'speed 100full'
    assert eth.field_src["speed_mbps"].line == 29
    assert eth.qos.trust == "dscp"
    switchport = device.interfaces["Ethernet1/2"]
    assert switchport.routed is False
    # 'default qos trust' resets to the switchport default (cos); 'no qos trust' would untrust.
    assert switchport.qos.trust == "cos" and not switchport.qos.configured("trust")
    assert switchport.speed_mbps is None


@pytest.mark.parametrize("name", ["batfish-eos-qos-show-run-all.cfg", "avd-molecule-platform.cfg"])
def test_small_files_give_one_named_device(corpus: Path, name: str) -> None:
    device, lines, unknown = _device(corpus, name)
    assert device.vendor == "eos"
    assert lines > 0 and unknown < lines
