"""One intended RoCE leaf written in EOS, NX-OS and SONiC: the same model, the same findings.

``fixtures/equivalence/<vendor>/`` holds the switch (4 routed fabric ports, DSCP 26 -> TC 3
lossless with PFC and watchdog, ECN on queue 3, CNP DSCP 48 -> TC 6 strict, jumbo MTU), written
from each vendor's own syntax. The normalised facts must agree on everything RoCE depends on, and
the same fault planted in each rendering must produce the same rule ids on the same ports.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.facts import device_facts, diff
from fablint.ingest import build_fabric, discover, parse_all
from fablint.model import Device
from fablint.profiles import load_policy
from tests.conftest import FIXTURES

ROOT = FIXTURES / "equivalence"
VENDORS = ("eos", "nxos", "sonic")
PORTS = {
    "eos": ["Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4"],
    "nxos": ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"],
    "sonic": ["Ethernet0", "Ethernet8", "Ethernet16", "Ethernet24"],
}
FILES = {"eos": "leaf1.cfg", "nxos": "leaf1.cfg", "sonic": "config_db.json"}
ROCE_DSCP, CNP_DSCP = 26, 48
LOSSLESS, CNP_PRIORITY = 3, 6


def _device(folder: Path) -> Device:
    outcomes = parse_all(discover([str(folder)]))
    assert not [p for o in outcomes for p in o.problems], [o.problems for o in outcomes]
    fabric, _ = build_fabric(outcomes)
    assert list(fabric.devices) == ["leaf1"]
    return fabric.devices["leaf1"]


def _facts(vendor: str) -> dict[str, Any]:
    device = _device(ROOT / vendor)
    assert device.vendor == vendor
    return device_facts(device, ports=PORTS[vendor], dscps=[24, ROCE_DSCP, CNP_DSCP],
                        priorities=[LOSSLESS, CNP_PRIORITY])


def test_the_intended_switch_has_the_intended_facts() -> None:
    facts = _facts("eos")
    port = facts["ports"][0]
    assert port["dscp_to_tc"] == {"24": 3, "26": 3, "48": 6}
    assert (port["mtu"], port["routed"], port["pfc_enabled"]) == ("jumbo", True, True)
    assert port["pfc_priorities"] == [LOSSLESS]
    assert port["watchdog"] is True and port["link_pause"] is False
    lossless = port["priorities"][str(LOSSLESS)]
    assert lossless["ecn"] == {"min_bytes": 150 * 1024, "max_bytes": 1500 * 1024,
                               "probability": 100}
    assert lossless["wred_drop"] is False
    assert port["priorities"][str(CNP_PRIORITY)]["scheduling"] == "strict"
    assert facts["ports"][1:] == [port] * 3


@pytest.mark.parametrize("vendor", ["nxos", "sonic"])
def test_vendors_agree_on_every_roce_fact(vendor: str) -> None:
    assert diff(_facts("eos"), _facts(vendor)) == []


# -- the same faults, planted in each rendering -----------------------------------------------

Mutation = Callable[[str], str]


def _replace(old: str, new: str) -> Mutation:
    def apply(text: str) -> str:
        assert text.count(old) >= 1, f"fixture no longer contains {old!r}"
        return text.replace(old, new)
    return apply


def _json(change: Callable[[dict[str, Any]], None]) -> Mutation:
    def apply(text: str) -> str:
        data = json.loads(text)
        change(data)
        return json.dumps(data, indent=4)
    return apply


def _sonic_port(table: str, port: str, **fields: str) -> Mutation:
    def change(data: dict[str, Any]) -> None:
        data[table][port].update(fields)
    return _json(change)


def _sonic_drop_wred(data: dict[str, Any]) -> None:
    for key, entry in data["QUEUE"].items():
        if key.endswith("|3"):
            entry.pop("wred_profile")


def _sonic_swap_ecn(data: dict[str, Any]) -> None:
    wred = data["WRED_PROFILE"]["ROCE_LOSSLESS"]
    wred["green_min_threshold"], wred["green_max_threshold"] = (
        wred["green_max_threshold"], wred["green_min_threshold"])


ECN_EOS = ("random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
           "max-mark-probability 100")
ECN_NXOS = ("random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
            "drop-probability 100 weight 0 ecn")

FAULTS: dict[str, dict[str, Mutation]] = {
    "mtu-1500-on-port-2": {
        "eos": _replace("description SPINE2\n   mtu 9214", "description SPINE2\n   mtu 1500"),
        "nxos": _replace("description SPINE2\n  no switchport\n  mtu 9216",
                         "description SPINE2\n  no switchport\n  mtu 1500"),
        "sonic": _sonic_port("PORT", "Ethernet8", mtu="1500"),
    },
    "pfc-off-on-port-3": {
        "eos": _replace("description SPINE3\n",
                        "description SPINE3\n   priority-flow-control off\n"),
        "nxos": _replace("description SPINE3\n  no switchport\n  mtu 9216\n"
                         "  priority-flow-control mode on",
                         "description SPINE3\n  no switchport\n  mtu 9216\n"
                         "  priority-flow-control mode off"),
        "sonic": _sonic_port("PORT_QOS_MAP", "Ethernet16", pfc_enable=""),
    },
    "pfc-on-the-default-class": {
        "eos": _replace("priority 3 no-drop", "priority 3 no-drop\n"
                        "   priority-flow-control priority 0 no-drop"),
        "nxos": _replace("c-8q-nq-default\n", "c-8q-nq-default\n    pause pfc-cos 0\n"),
        # SONiC's own `config pfc` keeps the software watchdog on the same priorities.
        "sonic": _json(lambda d: [v.update(pfc_enable="0,3", pfcwd_sw_enable="0,3")
                                  for v in d["PORT_QOS_MAP"].values()]),
    },
    "no-ecn-on-the-lossless-queue": {
        "eos": _replace("\n      " + ECN_EOS, ""),
        "nxos": _replace("\n    " + ECN_NXOS, ""),
        "sonic": _json(_sonic_drop_wred),
    },
    "ecn-thresholds-inverted": {
        "eos": _replace("minimum-threshold 150 kbytes maximum-threshold 1500 kbytes",
                        "minimum-threshold 1500 kbytes maximum-threshold 150 kbytes"),
        "nxos": _replace("minimum-threshold 150 kbytes maximum-threshold 1500 kbytes",
                         "minimum-threshold 1500 kbytes maximum-threshold 150 kbytes"),
        "sonic": _json(_sonic_swap_ecn),
    },
    "link-pause-on-port-4": {  # config_db.json has no 802.3x setting: EOS and NX-OS only
        "eos": _replace("description SPINE4\n", "description SPINE4\n   flowcontrol receive on\n"),
        "nxos": _replace("description SPINE4\n", "description SPINE4\n  flowcontrol receive on\n"),
    },
}


def _lint(vendor: str, tmp_path: Path, mutate: Mutation | None) -> set[tuple[str, str]]:
    folder = tmp_path / vendor
    folder.mkdir()
    text = (ROOT / vendor / FILES[vendor]).read_text(encoding="utf-8")
    (folder / FILES[vendor]).write_text(mutate(text) if mutate else text, encoding="utf-8")
    result = lint(LintOptions(paths=[str(folder)], config=ProjectConfig(),
                              policy=load_policy("default"), jobs=1))
    assert not result.errors, result.errors
    where = {name: f"port{n}" for n, name in enumerate(PORTS[vendor], 1)}
    # Findings on a port are compared by its position; others (a QoS profile or policy) by rule.
    return {(f.rule, where.get(f.object or "", "device")) for f in result.findings}


@pytest.mark.parametrize("vendor", VENDORS)
def test_the_intended_switch_is_clean(vendor: str, tmp_path: Path) -> None:
    assert _lint(vendor, tmp_path, None) == set()


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_same_fault_gives_the_same_findings(fault: str, tmp_path: Path) -> None:
    got = {vendor: _by_rule(_lint(vendor, tmp_path, mutate))
           for vendor, mutate in FAULTS[fault].items()}
    reference = got["eos"]
    assert reference, f"{fault}: EOS found nothing"
    for vendor, found in got.items():
        assert set(found) == set(reference), f"{fault}: {vendor} {found} != eos {reference}"
        for rule, places in reference.items():
            # A fault in a shared template (EOS qos profile, NX-OS policy) is reported once on
            # the template where the vendor has one, and per port where it has not.
            if "device" not in places and "device" not in found[rule]:
                assert found[rule] == places, f"{fault}: {vendor} {rule} on {found[rule]}"


def _by_rule(found: set[tuple[str, str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for rule, place in found:
        out.setdefault(rule, set()).add(place)
    return out
