"""The SONiC CONFIG_DB parser: values from real files of the shared corpus, and small documents
for each shape and quirk (flat keys, legacy references, ranges in keys, VOQ keys, dangling
references, duplicate keys, wrong types, several documents of one switch)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from fablint.checks.buffer import headroom_estimate
from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.findings import FixIntent
from fablint.fixes import sonic as sonic_fix
from fablint.model import Device
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.detect import detect
from fablint.parsers.jsonlines import load
from fablint.parsers.sonic import SonicParser
from fablint.profiles import load_policy

PARSER = SonicParser()


def _parse(corpus: Path, name: str) -> tuple[Device, ParseResult, str]:
    text = (corpus / "sonic" / name).read_text(encoding="utf-8")
    result = PARSER.parse(text, name)
    assert len(result.devices) == 1
    return result.devices[0], result, text


def _doc(data: dict, name: str = "config_db.json") -> tuple[Device, ParseResult]:
    text = json.dumps(data, indent=2)
    result = PARSER.parse(text, name)
    return result.devices[0], result


def _line(text: str, needle: str, after: int = 0) -> int:
    """1-based line of the first line containing ``needle`` at or after line ``after``."""
    for number, line in enumerate(text.splitlines(), 1):
        if number >= after and needle in line:
            return number
    raise AssertionError(f"{needle!r} not found")


# -- real files ------------------------------------------------------------------------------


def test_s6000_config_db(corpus: Path) -> None:
    device, result, text = _parse(corpus, "s6000-real-config_db.json")
    assert (device.name, device.vendor, device.role, device.platform) == (
        "str-s6000-acs-14", "sonic", "ToRRouter", "Force10-S6000")
    assert device.where("name").line == _line(text, '"hostname": "str-s6000-acs-14"')
    ports = [i for i in device.interfaces.values() if i.kind == "physical"]
    assert len(ports) == 32
    assert {i.speed_mbps for i in ports} == {40000} and {i.mtu for i in ports} == {9100}
    eth0, eth4 = device.interfaces["Ethernet0"], device.interfaces["Ethernet4"]
    assert not eth0.admin_up and eth4.admin_up  # no admin_status: down
    assert eth4.lanes == 4 and eth4.description == "Servers0:eth0"
    port_table = _line(text, '"PORT": {', after=790)
    assert eth0.src.line == _line(text, '"Ethernet0": {', after=port_table)
    assert eth0.where("mtu").line == eth0.src.line + 4
    # Servers sit on VLAN members (bridged); the uplinks are routed port-channel members.
    assert not eth4.routed
    uplink = device.interfaces["Ethernet112"]
    assert (uplink.port_channel, uplink.routed) == ("PortChannel0001", True)
    assert "10.0.0.56/31" in device.interfaces["PortChannel0001"].ip_addresses
    # PFC 3,4 on 28 ports, none on the other 4.
    pfc = [i.name for i in ports if i.qos.pfc.enabled]
    assert len(pfc) == 28 and not eth0.qos.pfc.enabled
    assert eth4.qos.pfc.no_drop == {3, 4} and eth4.qos.pfc.mode == "on"
    queue = eth4.qos.queues[3]
    assert queue.scheduling == "dwrr" and queue.wred is None
    assert queue.ecn is not None and queue.ecn.profile == "AZURE_LOSSLESS"
    assert (queue.ecn.min_threshold.bytes, queue.ecn.max_threshold.bytes) == (1048576, 2097152)
    assert queue.ecn.probability == 5
    assert queue.ecn.src.line == _line(text, '"AZURE_LOSSLESS": {')
    maps = device.maps_for(eth4)
    assert maps.name == "AZURE" and maps.dscp_to_tc[3] == 3 and maps.dscp_to_tc[26] == 1
    assert maps.tc_to_pg[4] == 4 and eth4.qos.trust == "dscp"
    assert eth4.buffer_pgs[3].profile == "pg_lossless_40000_5m_profile"
    assert eth4.cable_length_m == 5.0
    assert eth4.neighbor is not None and eth4.neighbor.device == "Servers0"
    pool = device.buffer_pools["ingress_lossless_pool"]
    assert (pool.type, pool.mode, pool.size) == ("ingress", "dynamic", 12766208)
    assert device.buffer_profiles["pg_lossless_40000_300m_profile"].xoff == 55120
    assert device.buffer_profiles["pg_lossless_40000_300m_profile"].lossless
    binding = device.interfaces["PortChannel0001"].acls
    assert [(b.name, b.direction) for b in binding if b.name == "DATAACL"] == [("DATAACL", "in")]
    assert "SNMP_ACL" not in device.acls  # control plane
    assert all(r.resolved for r in device.references)
    assert result.problems == []
    assert 0 < result.unknown_lines < result.lines == text.count("\n") + 1


def test_flat_redis_dump(corpus: Path) -> None:
    device, _, text = _parse(corpus, "utilities-mock-config_db-flat.json")
    assert device.name == "sonic-switch"
    eth0 = device.interfaces["Ethernet0"]
    assert eth0.routed and eth0.ip_addresses == ["14.14.0.1/24"]
    assert eth0.src.line == _line(text, '"PORT|Ethernet0"')
    assert eth0.qos.pfc.no_drop == {3, 4}
    assert not device.interfaces["Ethernet8"].qos.pfc.enabled  # PORT_QOS_MAP|Ethernet8 is {}
    watchdog = eth0.qos.pfc.watchdog
    assert (watchdog.enabled, watchdog.action, watchdog.timeout_ms, watchdog.recovery_ms,
            watchdog.polling_ms) == (True, "drop", 600.0, 600.0, 600.0)
    assert eth0.qos.queues[3].scheduling == "dwrr"  # "[SCHEDULER|scheduler.1]"
    assert eth0.buffer_pgs[3].dynamic and eth0.buffer_pgs[3].profile is None
    assert device.interfaces["Ethernet112"].port_channel == "PortChannel0001"
    acl = device.acls["NULL_ROUTE_V4"]
    assert acl.implicit_action == "permit"
    assert [e.seq for e in acl.entries] == sorted((e.seq for e in acl.entries), reverse=True)
    assert acl.entries[-1].action == "deny" and acl.entries[-1].text.startswith("DEFAULT_RULE")
    assert "DATAACLV4V6" in device.acls  # {"type": "hash", "value": {…}} wrapper
    bound = {b.name for b in device.interfaces["PortChannel0002"].acls}
    assert {"NULL_ROUTE_V4", "DATAACL"} <= bound  # "ports@" list field
    # The mock binds ACLs to port-channels that do not exist: dangling, never fatal.
    missing = [r for r in device.references if not r.resolved]
    assert {r.kind for r in missing} >= {"PORTCHANNEL"}


def test_qos_fragment_ports_are_fabric_ports(corpus: Path) -> None:
    device, result, _ = _parse(corpus, "qos-dell9332.json")
    assert device.name == "qos-dell9332"  # no DEVICE_METADATA: the file stem
    assert len(device.interfaces) == 32
    assert all(i.routed and i.admin_up and i.mtu is None for i in device.interfaces.values())
    eth0 = device.interfaces["Ethernet0"]
    assert eth0.qos.pfc.no_drop == {3, 4}
    assert eth0.qos.pfc.watchdog.priorities == {3, 4}
    assert eth0.qos.queues[3].ecn is not None
    assert eth0.qos.queues[3].ecn.min_threshold.bytes == 1048576
    assert device.qos.name == "AZURE" and device.qos.dscp_to_tc[4] == 4  # PORT_QOS_MAP|global
    assert device.queue_for_priority(3, eth0) == 3
    assert result.problems == []


def test_buffers_file(corpus: Path) -> None:
    device, _, _ = _parse(corpus, "buffers-mellanox4600c-t1-dynamic.json")
    assert set(device.buffer_pools) == {"ingress_lossless_pool", "egress_lossless_pool",
                                        "egress_lossy_pool"}
    assert device.buffer_pools["ingress_lossless_pool"].size is None  # dynamic model
    assert device.buffer_pools["egress_lossless_pool"].size == 60817392
    assert device.buffer_profiles["ingress_lossy_profile"].dynamic_th == 3
    eth0 = device.interfaces["Ethernet0"]
    assert eth0.buffer_pgs[3].dynamic and eth0.buffer_pgs[4].dynamic
    assert eth0.buffer_pgs[0].profile == "ingress_lossy_profile"
    assert eth0.buffer_queues[3].profile == "egress_lossless_profile"
    assert eth0.cable_length_m == 300.0
    assert not eth0.routed  # only buffers: not taken for a fabric port


def test_dangling_references_of_a_fragment(corpus: Path) -> None:
    device, _, _ = _parse(corpus, "qos-mellanox4700-o28-t1-smartswitch.json")
    missing = {(r.kind, r.name) for r in device.references if not r.resolved}
    assert ("WRED_PROFILE", "AZURE_LOSSLESS") in missing
    assert ("SCHEDULER", "scheduler.0") in missing
    assert device.interfaces["Ethernet216"].qos.queues[3].ecn is None


def test_yang_sample_is_unwrapped(corpus: Path) -> None:
    device, result, _ = _parse(corpus, "yang-sample_config_db.json")
    assert device.name == "asw.dc" and device.buffer_model == "dynamic"
    assert device.interfaces["Ethernet0"].speed_mbps == 11100
    assert any("duplicate key" in p.message for p in result.problems)
    assert device.acls["V4-ACL-TABLE"].entries[0].seq == 991110


def test_voq_keys_of_a_fragment_are_its_first_linecards(corpus: Path) -> None:
    # QUEUE keys of 4 linecards x 2 ASICs and no DEVICE_METADATA: one linecard's rendering,
    # whose own system ports come first (sonic1|asic0); the others' are not this device's
    device, _, _ = _parse(corpus, "qos-no-config.json")
    assert len(device.interfaces) == 18
    for iface in device.interfaces.values():
        assert sorted(iface.qos.queues) == [3, 4]
        assert all(q.ecn is not None for q in iface.qos.queues.values())
        assert iface.src.line is not None


def test_templates_and_lookup_tables_are_not_claimed(corpus: Path) -> None:
    for path in sorted((corpus / "sonic").iterdir()):
        head = path.read_text(encoding="utf-8")[:16384]
        claimed = PARSER.sniff(head) >= 30
        assert claimed == path.name.endswith(".json"), path.name
        if not claimed:
            assert detect(head).hint, path.name


def test_other_json_is_not_claimed(corpus: Path) -> None:
    for path in (corpus / "lldp").glob("*.json"):
        assert PARSER.sniff(path.read_text(encoding="utf-8")) == 0


def test_a_100_kb_config_db_is_fast(corpus: Path) -> None:
    text = (corpus / "sonic" / "utilities-mock-config_db-flat.json").read_text(encoding="utf-8")
    start = time.perf_counter()
    load(text)
    assert time.perf_counter() - start < 0.5
    start = time.perf_counter()
    PARSER.parse(text, "x.json")
    assert time.perf_counter() - start < 2.0


# -- shapes and quirks -----------------------------------------------------------------------

BASE = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "asic_name": "asic0"}},
    "PORT": {"Ethernet0": {"admin_status": "up"}, "Ethernet4": {"admin_status": "up"}},
    "INTERFACE": {"Ethernet0|10.0.0.0/31": {}, "Ethernet4|10.0.0.2/31": {}},
}


def test_references_in_both_forms() -> None:
    device, _ = _doc({**BASE,
        "DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
        "WRED_PROFILE": {"ECN": {"ecn": "ecn_green", "green_min_threshold": "100",
                                 "green_max_threshold": "200"}},
        "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|AZURE]"},
                         "Ethernet4": {"dscp_to_tc_map": "AZURE"}},
        "QUEUE": {"Ethernet0|3": {"wred_profile": "[WRED_PROFILE|ECN]"},
                  "Ethernet4|3": {"wred_profile": ["[WRED_PROFILE|ECN]"]}},
    })
    for name in ("Ethernet0", "Ethernet4"):
        iface = device.interfaces[name]
        assert device.maps_for(iface).dscp_to_tc == {26: 3}
        assert iface.qos.queues[3].ecn is not None
    assert all(r.resolved for r in device.references)


def test_ranges_and_lists_in_keys() -> None:
    device, _ = _doc({**BASE,
        "BUFFER_PROFILE": {"lossless": {"xoff": "1000", "size": "2000"}},
        "BUFFER_PG": {"Ethernet0,Ethernet4|3-4": {"profile": "lossless"}},
        "BUFFER_QUEUE": {"Ethernet0|0,1": {"profile": "NULL"}},
        "QUEUE": {"Ethernet0,Ethernet4|5-6": {}},
    })
    for name in ("Ethernet0", "Ethernet4"):
        iface = device.interfaces[name]
        assert set(iface.buffer_pgs) == {3, 4} and iface.buffer_pgs[3].profile == "lossless"
        assert set(iface.qos.queues) == {5, 6}
    queues = device.interfaces["Ethernet0"].buffer_queues
    assert set(queues) == {0, 1} and queues[0].dynamic


def test_multi_asic_keys() -> None:
    device, _ = _doc({**BASE,
        "WRED_PROFILE": {"ECN": {"ecn": "ecn_all"}},
        "QUEUE": {"leaf1|asic0|Ethernet0|3": {"wred_profile": "ECN"},
                  "leaf2|asic0|Ethernet4|3": {"wred_profile": "ECN"},
                  "leaf1|asic1|Ethernet4|4": {"wred_profile": "ECN"}},
    })
    assert set(device.interfaces["Ethernet0"].qos.queues) == {3}
    assert device.interfaces["Ethernet4"].qos.queues == {}


def test_dangling_references_are_recorded() -> None:
    data = {**BASE,
            "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "NOPE", "pfc_enable": "3"}},
            "QUEUE": {"Ethernet0|3": {"wred_profile": "MISSING"}},
            "BUFFER_PG": {"Ethernet0|3": {"profile": "[BUFFER_PROFILE|GONE]"},
                          "Ethernet9|3": {"profile": "NULL"}}}
    device, result = _doc(data)
    text = json.dumps(data, indent=2)
    missing = {(r.kind, r.name, r.owner): r for r in device.references if not r.resolved}
    assert set(missing) == {
        ("DSCP_TO_TC_MAP", "NOPE", "PORT_QOS_MAP|Ethernet0"),
        ("WRED_PROFILE", "MISSING", "QUEUE|Ethernet0|3"),
        ("BUFFER_PROFILE", "GONE", "BUFFER_PG|Ethernet0|3"),
        ("PORT", "Ethernet9", "BUFFER_PG|Ethernet9|3"),
    }
    ref = missing[("WRED_PROFILE", "MISSING", "QUEUE|Ethernet0|3")]
    assert ref.src.line == _line(text, '"wred_profile": "MISSING"')
    assert device.interfaces["Ethernet0"].qos.queues[3].ecn is None
    assert result.problems == []


def test_duplicate_keys_are_problems_and_the_last_wins() -> None:
    text = ('{\n "PORT": {\n  "Ethernet0": {"mtu": "1500"},\n  "Ethernet0": {"mtu": "9100",'
            ' "mtu": "9000", "admin_status": "up"}\n },\n'
            ' "INTERFACE": {"Ethernet0|1.1.1.1/31": {}}\n}')
    result = PARSER.parse(text, "c.json")
    iface = result.devices[0].interfaces["Ethernet0"]
    assert iface.mtu == 9000
    lines = sorted((p.line, p.message) for p in result.problems)
    assert [line for line, _ in lines] == [4, 4]
    assert all("duplicate key" in message for _, message in lines)


def test_wrong_types_name_file_and_line() -> None:
    data = {"PORT": {"Ethernet0": {"admin_status": "up", "mtu": "jumbo", "speed": ["x"]}},
            "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,9"}},
            "QUEUE": {"Ethernet0|x": {}},
            "WRED_PROFILE": {"W": {"ecn": "ecn_all", "green_min_threshold": "-1"}},
            "SCHEDULER": 7}
    text = json.dumps(data, indent=2)
    result = PARSER.parse(text, "c.json")
    iface = result.devices[0].interfaces["Ethernet0"]
    assert iface.mtu == 9100 and not iface.configured("mtu")
    assert iface.speed_mbps is None and not iface.qos.pfc.enabled
    by_line = {p.line: p.message for p in result.problems}
    assert "jumbo" in by_line[_line(text, '"mtu": "jumbo"')]
    assert "pfc_enable" in by_line[_line(text, '"pfc_enable"')]
    assert any("SCHEDULER" in m for m in by_line.values())
    assert len(result.problems) == 6
    assert all(p.file == "c.json" for p in result.problems)
    kinds = {p.line: p.kind for p in result.problems}
    # Not a number at all breaks the schema (parse-error, exit 2); a number out of range, or a
    # priority 9, is an invalid value.
    assert kinds[_line(text, '"mtu": "jumbo"')] == "parse-error"
    assert kinds[_line(text, '"pfc_enable"')] == "invalid-value"


@pytest.mark.parametrize("text", ['{"PORT": {"Ethernet0": {"mtu": "9100"}', "", "[1, 2]",
                                  '{"PORT": {}}\n{"PORT": {}}', '{"A": 1}\n\n  x'])
def test_unusable_json_is_a_parse_error_with_a_line(text: str) -> None:
    with pytest.raises(ParseError) as exc:
        PARSER.parse(text, "c.json")
    assert exc.value.file == "c.json"
    assert exc.value.line is not None and 1 <= exc.value.line <= text.count("\n") + 1


def test_several_documents_of_one_switch() -> None:
    config_db = json.dumps({**BASE, "PORT": {"Ethernet0": {"admin_status": "up", "mtu": "9100"}},
                            "INTERFACE": {"Ethernet0|10.0.0.0/31": {}}}, indent=2)
    qos = json.dumps({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}},
                      "WRED_PROFILE": {"ECN": {"ecn": "ecn_all"}},
                      "QUEUE": {"Ethernet0|3": {"wred_profile": "ECN"}},
                      "PORT": {"Ethernet0": {"mtu": "1500"}}}, indent=2)
    buffers = json.dumps({"BUFFER_PG": {"Ethernet0|3": {"profile": "NULL"}}})
    other = json.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "leaf2"}}})
    result = PARSER.parse_documents([(config_db, "d/config_db.json"), (qos, "d/qos.json"),
                                     (buffers, "d/buffers.json")])
    [device] = result.devices
    assert device.name == "leaf1"
    assert device.files == ["d/config_db.json", "d/qos.json", "d/buffers.json"]
    eth0 = device.interfaces["Ethernet0"]
    assert eth0.admin_up and eth0.mtu == 1500  # the later document wins, field by field
    assert eth0.where("mtu").file == "d/qos.json"
    assert eth0.where("admin_up").file == "d/config_db.json"
    assert eth0.qos.queues[3].src.file == "d/qos.json"
    assert eth0.buffer_pgs[3].src.file == "d/buffers.json"
    assert result.lines == sum(t.count("\n") + 1 for t in (config_db, qos, buffers))
    # Two hostnames: the nameless document stands alone, named after its file.
    result = PARSER.parse_documents([(config_db, "a/config_db.json"), (other, "a/b.json"),
                                     (buffers, "a/buffers.json"), ("{", "a/broken.json")])
    assert sorted(d.name for d in result.devices) == ["buffers", "leaf1", "leaf2"]
    [fatal] = [p for p in result.problems if p.fatal]
    assert (fatal.file, fatal.line, fatal.kind) == ("a/broken.json", 1, "parse-error")


def test_acl_rules() -> None:
    device, _ = _doc({**BASE,
        "ACL_TABLE": {"DATAACL": {"type": "L3", "stage": "EGRESS", "ports": ["Ethernet0"]},
                      "V6": {"type": "L3V6", "ports": ["Ethernet4"]},
                      "SSH_ONLY": {"type": "CTRLPLANE", "services": ["SSH"]}},
        "ACL_RULE": {
            "DATAACL|LOW": {"PRIORITY": "10", "PACKET_ACTION": "DROP"},
            "DATAACL|NONIP": {"PRIORITY": "30", "PACKET_ACTION": "DROP", "IP_TYPE": "NON_IP"},
            "DATAACL|BTH": {"PRIORITY": "20", "PACKET_ACTION": "DROP", "BTH_OPCODE": "0x11/0xbf"},
            "DATAACL|ROCE": {"PRIORITY": "40", "PACKET_ACTION": "FORWARD", "IP_PROTOCOL": "17",
                             "L4_DST_PORT_RANGE": "4000-5000"},
            "NOTABLE|X": {"PRIORITY": "1"},
        },
    })
    acl = device.acls["DATAACL"]
    assert [e.seq for e in acl.entries] == [40, 30, 20, 10]
    assert acl.entries[0].protocol == "udp" and acl.entries[0].dst_port.matches(4791)
    assert acl.entries[1].udp_dport_match(4791) == "none"
    assert acl.entries[2].udp_dport_match(4791) == "some"
    assert acl.udp_dport_verdict(4791).action == "permit"
    assert device.interfaces["Ethernet0"].acls[0].direction == "out"
    assert device.acls["V6"].family == "ipv6" and "SSH_ONLY" not in device.acls
    assert device.acls["V6"].udp_dport_verdict(4791).action == "permit"  # no rules: permit
    assert [(r.kind, r.name) for r in device.references if not r.resolved] == [
        ("ACL_TABLE", "NOTABLE")]


def test_watchdog_default_status() -> None:
    meta = {"localhost": {"hostname": "leaf1", "default_pfcwd_status": "enable"}}
    device, _ = _doc({**BASE, "DEVICE_METADATA": meta})
    watchdog = device.interfaces["Ethernet0"].qos.pfc.watchdog
    assert watchdog.enabled and watchdog.timeout_ms == 200 and not watchdog.configured("action")


# -- fixes -----------------------------------------------------------------------------------


def _fix(action: str, **params: object) -> dict | None:
    text = sonic_fix.render(FixIntent(action, params))
    return None if text is None else json.loads(text)


def test_fix_fragments() -> None:
    assert _fix("pfc-enable", interface="Ethernet0", priorities=[3], no_drop=[4]) == {
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}
    assert _fix("pfc-disable-priority", interface="Ethernet0", priorities=[6],
                no_drop=[3, 6]) == {"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}
    assert _fix("mtu-set", interface="PortChannel0001", min_mtu=9000) == {
        "PORTCHANNEL": {"PortChannel0001": {"mtu": "9100"}}}
    ecn = _fix("ecn-enable", interface="Ethernet0", queue=3, min_bytes=1, max_bytes=2,
               probability=100)
    assert ecn["QUEUE"] == {"Ethernet0|3": {"wred_profile": sonic_fix.ECN_PROFILE}}
    assert ecn["WRED_PROFILE"][sonic_fix.ECN_PROFILE]["ecn"] == "ecn_all"
    assert _fix("ecn-enable", interface=None, profile="P", queue=3, min_bytes=1, max_bytes=2,
                probability=5) is None
    acl = _fix("acl-permit-udp", acl="DATAACL", family="ipv4", standard=False, port=4791,
               seq=None, before_seq=1)
    assert acl["ACL_RULE"]["DATAACL|ALLOW_ROCEV2"]["PRIORITY"] == "2"
    assert _fix("wred-remove", interface="Ethernet0", queue=3, aqm_profile="W", then=None) == {
        "WRED_PROFILE": {"W": {"wred_green_enable": "false"}}}
    assert _fix("watchdog-enable", interface="Ethernet0", priorities=[3, 4], timeout_ms=200,
                has_timeout=False)["PFC_WD"]["Ethernet0"]["detection_time"] == "200"
    assert _fix("dscp-map", interface="Ethernet0", dscp=[26], tc=3, map=None,
                port_map=True)["PORT_QOS_MAP"] == {"Ethernet0": {"dscp_to_tc_map": "ROCE"}}
    assert _fix("queue-strict", interface="Ethernet0", queue=6, profile=None)["QUEUE"] == {
        "Ethernet0|6": {"scheduler": sonic_fix.STRICT_SCHEDULER}}
    assert _fix("link-pause-disable", interface="Ethernet0", directions=["receive"]) is None
    assert _fix("apply-profile", interface="Ethernet0", profile="X") is None


def test_lone_surrogates_do_not_reach_the_reports() -> None:
    text = '{"DEVICE_METADATA": {"localhost": {"hostname": "a\\ud800b \\ud83d\\ude00"}}}'
    [device] = PARSER.parse(text, "c.json").devices
    assert device.name == "a\ufffdb \U0001f600"
    device.model_dump_json()


# -- buffers, watchdog settings and RoCE header matches (issue 4) ------------------------------


def test_buffer_semantics_of_a_broadcom_config_db(corpus: Path) -> None:
    device, _, text = _parse(corpus, "s6000-real-config_db.json")
    pools = device.buffer_pools
    assert (pools["ingress_lossless_pool"].lossless, pools["egress_lossy_pool"].lossless) == (
        True, False)
    assert not any(p.shared_headroom for p in pools.values())  # no pool xoff
    # A Dell S6000 is a Broadcom Trident II: size is not the headroom there.
    assert device.headroom_in_size is None
    eth4 = device.interfaces["Ethernet4"]
    # pfc_enable is where a missing priority goes: it sets both the mode and the list.
    qos_map = _line(text, '"Ethernet4": {', after=_line(text, '"PORT_QOS_MAP": {'))
    pfc_line = _line(text, '"pfc_enable"', after=qos_map)
    assert eth4.qos.pfc.where("no_drop").line == eth4.qos.pfc.where("mode").line == pfc_line
    assert eth4.qos.pfc.field_src["priority[3]"].line == pfc_line


def test_buffer_semantics_of_a_spectrum_config_db(corpus: Path) -> None:
    device, _, text = _parse(corpus, "utilities-mock-config_db-flat.json")
    assert device.headroom_in_size is True  # platform x86_64-mlnx_msn3800-r0
    assert device.where("headroom_in_size").line == _line(text, '"platform": "x86_64-mlnx')
    pool = device.buffer_pools["ingress_lossless_pool"]
    # No pool xoff, but DEFAULT_LOSSLESS_BUFFER_PARAMETER over_subscribe_ratio 2 shares headroom.
    assert pool.xoff is None and pool.shared_headroom
    assert pool.where("shared_headroom").line == _line(text, '"over_subscribe_ratio": "2"')
    assert not device.buffer_pools["egress_lossless_pool"].shared_headroom
    alpha = device.buffer_profiles["alpha_profile"]  # headroom_type dynamic, no xoff
    assert alpha.dynamic_headroom and alpha.lossless and alpha.xoff is None
    assert not device.buffer_profiles["ingress_lossy_profile"].lossless
    headroom = device.buffer_profiles["headroom_profile"]
    assert (headroom.size, headroom.xon, headroom.xoff) == (51200, 18432, 32768)
    # PFC_WD: per-port settings and the global polling interval, each with its line.
    watchdog = device.interfaces["Ethernet0"].qos.pfc.watchdog
    entry = _line(text, '"PFC_WD|Ethernet0"')
    assert watchdog.where("action").line == _line(text, '"action": "drop"', after=entry)
    assert watchdog.where("timeout_ms").line == _line(text, '"detection_time"', after=entry)
    assert watchdog.where("recovery_ms").line == _line(text, '"restoration_time"', after=entry)
    defaults = device.qos.watchdog_defaults
    assert defaults is not None and defaults.polling_ms == 600
    assert defaults.where("polling_ms").line == _line(text, '"POLL_INTERVAL": "600"')
    # ACL entries keep their rule name (fixes address ACL_RULE by it).
    names = {e.name for e in device.acls["DATAACL"].entries}
    assert {"DEFAULT_RULE", "RULE_1", "RULE_9"} <= names


def test_shared_headroom_pool_and_dynamic_model(corpus: Path) -> None:
    device, _, _ = _parse(corpus, "yang-sample_config_db.json")
    assert device.headroom_in_size is True  # buffer_model dynamic (hwsku "Stone" says nothing)
    assert device.buffer_pools["ingress_lossless_pool"].shared_headroom  # xoff 196608
    assert not device.buffer_pools["egress_lossless_pool"].shared_headroom  # egress: no headroom
    assert device.buffer_pools["ingress_percentage_pool"].lossless is None
    profile = device.buffer_profiles["pg_lossless_100000_300m_profile"]
    assert (profile.size, profile.xon, profile.xoff) == (9427, 0, 50176)
    assert device.qos.watchdog_defaults is not None
    assert device.qos.watchdog_defaults.polling_ms == 100


def test_rendered_buffers_without_metadata(corpus: Path) -> None:
    device, _, _ = _parse(corpus, "buffers-dell6100.json")
    assert device.headroom_in_size is None  # no DEVICE_METADATA: the platform is unknown
    pool = device.buffer_pools["ingress_lossless_pool"]
    assert pool.xoff == 4194112 and pool.shared_headroom
    eth0 = device.interfaces["Ethernet0"]
    # The traditional template writes the lossy PG 0 only; buffermgrd adds the lossless ones.
    assert set(eth0.buffer_pgs) == {0} and eth0.cable_length_m == 5.0


def test_roce_header_matches() -> None:
    data = {**BASE,
            "ACL_TABLE": {"ROCE": {"type": "ROCE", "ports": ["Ethernet0"]}},
            "ACL_RULE": {
                "ROCE|CNP": {"PRIORITY": "30", "PACKET_ACTION": "DROP",
                             "BTH_OPCODE": "0x81/0xff"},
                "ROCE|NAK": {"PRIORITY": "20", "PACKET_ACTION": "DROP",
                             "AETH_SYNDROME": "0x60/0xE0"},
                "ROCE|PLAIN": {"PRIORITY": "15", "PACKET_ACTION": "DROP", "BTH_OPCODE": "17"},
                "ROCE|JUNK": {"PRIORITY": "10", "PACKET_ACTION": "DROP", "BTH_OPCODE": "0x1ff"},
            }}
    device, result = _doc(data)
    text = json.dumps(data, indent=2)
    cnp, nak, plain, junk = device.acls["ROCE"].entries
    assert (cnp.name, cnp.bth_opcode.value, cnp.bth_opcode.mask) == ("CNP", 0x81, 0xFF)
    assert cnp.bth_opcode.matches(0x81) and not cnp.bth_opcode.matches(0x11)
    assert cnp.where("bth_opcode").line == _line(text, '"BTH_OPCODE": "0x81/0xff"')
    assert str(nak.aeth_syndrome) == "0x60/0xe0" and nak.aeth_syndrome.matches(0x7F)
    assert not nak.aeth_syndrome.matches(0x00)  # an ACK is not a NAK
    assert (plain.bth_opcode.value, plain.bth_opcode.mask) == (17, 0xFF)
    # Not a byte: kept as an opaque qualifier, which still narrows the entry.
    assert junk.bth_opcode is None and junk.qualifiers == ["BTH_OPCODE 0x1ff"]
    # A header match narrows a deny: it drops some RoCE, not all of it.
    assert all(e.udp_dport_match(4791) == "some" for e in (cnp, nak, plain, junk))
    assert result.problems == []


def test_fix_fragments_for_buffers_watchdog_and_acls() -> None:
    assert _fix("buffer-pg-set", interface="Ethernet0", pgs=[3, 4], profile="NULL") == {
        "BUFFER_PG": {"Ethernet0|3-4": {"profile": "NULL"}}}
    assert _fix("buffer-pg-set", interface="Ethernet0", pgs=[2, 4], profile="P") == {
        "BUFFER_PG": {"Ethernet0|2": {"profile": "P"}, "Ethernet0|4": {"profile": "P"}}}
    assert _fix("buffer-pg-set", interface="Ethernet0", pgs=[3], profile=None) is None
    assert _fix("buffer-queue-set", interface="Ethernet0", queues=[3], profile="Q") == {
        "BUFFER_QUEUE": {"Ethernet0|3": {"profile": "Q"}}}
    assert _fix("buffer-profile-set", profile="P", fields={"xoff": 1024, "size": 2048}) == {
        "BUFFER_PROFILE": {"P": {"size": "2048", "xoff": "1024"}}}
    assert _fix("cable-length-set", interface="Ethernet0", metres=40) == {
        "CABLE_LENGTH": {"AZURE": {"Ethernet0": "40m"}}}
    assert _fix("watchdog-settings", interface="Ethernet0",
                settings={"timeout_ms": 200.0, "recovery_ms": 400.0, "action": "drop"}) == {
        "PFC_WD": {"Ethernet0": {"detection_time": "200", "restoration_time": "400",
                                 "action": "drop"}}}
    assert _fix("watchdog-settings", interface=None, settings={"polling_ms": 1000.0}) == {
        "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "1000"}}}
    assert _fix("watchdog-settings", interface=None, settings={"timeout_ms": 200.0}) is None
    assert _fix("acl-entry-permit", acl="ROCE", entry="CNP", seq=30) == {
        "ACL_RULE": {"ROCE|CNP": {"PACKET_ACTION": "FORWARD"}}}


def test_buffer_and_watchdog_rules_stay_quiet_on_the_real_corpus(corpus: Path) -> None:
    """Real config_db files (rendered templates, a production S6000, sonic-utilities' mock)
    hold consistent buffers: the only finding is the YANG sample's Ethernet9, whose lossless
    PGs have no CABLE_LENGTH entry (the sample lists Ethernet0 and Ethernet1 only)."""
    result = lint(LintOptions(paths=[str(corpus / "sonic")], config=ProjectConfig(),
                              policy=load_policy("default"), jobs=1,
                              select=["buffer", "WD002", "ACL002"]))
    found = sorted((Path(f.file or "").name, f.rule, f.object) for f in result.findings)
    assert found == [("yang-sample_config_db.json", "BUF004", "Ethernet9")]


def test_headroom_estimate_is_below_nvidias_own_table(corpus: Path) -> None:
    """BUF003's estimate is meant as a lower bound: NVIDIA's SN5600 lookup table (speed x
    cable -> xoff) must pass it, except its one inconsistent row (10G over 1000 m, 24576 bytes:
    less than its own 250 m and 300 m rows imply once the cable term is added)."""
    rows = [line.split() for line in
            (corpus / "sonic" / "sn5600-c256s1-pg_profile_lookup.ini").read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]
    assert len(rows) == 40
    short = [(int(speed), cable) for speed, cable, _size, _xon, xoff, _th in rows
             if headroom_estimate(int(speed), float(cable[:-1]), 9100) > int(xoff)]
    assert short == [(10000, "1000m")]
    # The 400G rows are where a copied profile hurts: 5 m needs about 69 KB, 300 m about 215 KB.
    assert headroom_estimate(400_000, 5, 9100) == 69487
    assert headroom_estimate(400_000, 300, 9100) == 214985


def test_a_queue_key_without_a_port_is_reported_after_one_with_an_empty_port() -> None:
    """``|3`` names no port (nothing to say) and ``3`` is no ``PORT|ID`` key at all: the ports
    a key names are looked up by the text before its last ``|``, which is empty for both, so
    the first must not stand in for the second (a fast path once answered ``3`` from ``|3``)."""
    data = {"PORT": {"Ethernet0": {"admin_status": "up"}},
            "SCHEDULER": {"s0": {"type": "DWRR", "weight": "1"}},
            "QUEUE": {"|3": {"scheduler": "s0"}, "3": {"scheduler": "s0"},
                      "Ethernet0|3": {"scheduler": "s0"}},
            "BUFFER_PG": {"|3": {"profile": "NULL"}, "3": {"profile": "NULL"}}}
    device, result = _doc(data)
    said = [p.message for p in result.problems]
    assert "QUEUE|3: key is not PORT|ID; ignored" in said
    assert "BUFFER_PG|3: key is not PORT|ID; ignored" in said
    assert not any(m.startswith(("QUEUE||3", "BUFFER_PG||3")) for m in said)
    assert list(device.interfaces["Ethernet0"].qos.queues) == [3]
