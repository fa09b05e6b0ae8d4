"""The EOS parser remembers what each line it has read does, per process, and applies it to the
next line with the same text without reading it again. That must never change what a parse
gives: a file parsed with every cache empty, after other files filled them, and with caches so
small they are emptied all the time, comes out the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.parsers import eos
from fablint.parsers.base import ParseError

DEMO = Path(__file__).resolve().parent.parent / "fixtures" / "demo"

HEADS = [
    "interface Ethernet1/1", "interface Ethernet2/1", "interface Port-Channel5",
    "interface Vlan10", "interface Loopback0", "interface Ethernet1-4", "interface defaults",
    "interface Ethernet 1/1-2, Et3/1", "interface Ethernet1/1-2",
    "no interface Ethernet1/1", "ip access-list A", "ip access-list standard S",
    "mac access-list M", "ipv6 access-list V", "qos profile P", "qos profile Q", "router bgp 1",
    "vlan 10", "management api http-commands", "hostname h",
    "qos map dscp 24 26 to traffic-class 3", "qos map dscp 99 to traffic-class 3",
    "qos map traffic-class 3 to tx-queue 3", "priority-flow-control all off",
    "priority-flow-control pause watchdog default timeout 0.05",
    "priority-flow-control pause watchdog action drop", "ip routing", "end", "banner motd",
    "comment", "ip access-list", "interface", "qos", "no",
    "default qos map dscp 1 to traffic-class 1",
]
BODY = [
    "description x", "description  two words ", "description", "no description", "shutdown",
    "no shutdown", "default shutdown", "mtu 9214", "mtu 1500", "no mtu", "mtu x", "l2 mtu 9000",
    "speed 400g-8", "speed auto", "speed bogus", "switchport", "no switchport", "vrf X",
    "no vrf X", "channel-group 5 mode active", "no channel-group", "service-profile P",
    "service-profile Q", "no service-profile", "ip address 10.0.0.1/31",
    "ip address virtual 10.0.0.2/24", "ip address virtual", "ip address", "no ip address",
    "ip access-group A in", "ip access-group A out", "ip access-group A",
    "ip access-group A bad", "no ip access-group A in", "ipv6 access-group V in",
    "mac access-group M out", "ipv6 enable", "bfd interval 100 min-rx 100 multiplier 3",
    "10 permit udp any any eq 4791", "20 deny ip any any", "30 remark hi",
    "40 permit tcp any any eq bogusport", "permit any", "qos trust dscp", "qos trust cos",
    "default qos trust", "no qos trust", "priority-flow-control on",
    "priority-flow-control priority 3 no-drop", "priority-flow-control pause watchdog",
    "flowcontrol receive on", "tx-queue 3",
    "random-detect ecn minimum-threshold 1 kbytes maximum-threshold 2 kbytes",
    "bandwidth percent 30", "priority strict", "neighbor 10.0.0.1 remote-as 1", "EOF",
    "! fablint: disable=MTU001", "! fablint: disable=PFC001 why", "! fablint: nonsense", "!", "",
]
INDENTS = ["", "   ", "   ", "   ", "      ", "  ", "\t", " "]
TRAILS = ["", "", "", " ", "\r"]

line = st.one_of(
    st.tuples(st.sampled_from(HEADS), st.sampled_from(TRAILS)).map("".join),
    st.tuples(st.sampled_from(INDENTS), st.sampled_from(BODY), st.sampled_from(TRAILS))
    .map("".join),
)
config = st.lists(line, min_size=1, max_size=60).map("\n".join)


def _parse(text: str) -> Any:
    try:
        result = eos.EosParser().parse(text, "s.cfg")
    except ParseError as exc:
        return ("error", exc.line, exc.message)
    return json.dumps({
        "devices": [d.model_dump(mode="json") for d in result.devices],
        "problems": [p.model_dump(mode="json") for p in result.problems],
        "lines": result.lines, "unknown": result.unknown_lines,
    }, sort_keys=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=config, other=config)
def test_what_the_caches_remember_changes_nothing(text: str, other: str) -> None:
    eos.clear_caches()
    cold = _parse(text)
    assert _parse(text) == cold, "the same file again, its own lines remembered"
    eos.clear_caches()
    _parse(other)
    assert _parse(text) == cold, "after another file filled the caches"


@settings(max_examples=100, deadline=None)
@given(text=config)
def test_tiny_caches_change_nothing(text: str) -> None:
    eos.clear_caches()
    cold = _parse(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(eos, "_CACHE_LIMIT", 3)  # emptied every few lines
        eos.clear_caches()
        assert _parse(text) == cold


@pytest.mark.parametrize("path", sorted(DEMO.glob("*.cfg")), ids=lambda p: p.name)
def test_demo_configs_cold_and_warm(path: Path) -> None:
    text = path.read_text()
    eos.clear_caches()
    cold = _parse(text)
    for other in sorted(DEMO.glob("*.cfg")):
        _parse(other.read_text())
    assert _parse(text) == cold
