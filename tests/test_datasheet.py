"""The fabric datasheet (``fablint topo --format markdown`` / ``json``), checked field by field
on the demo fabric and on generated three-tier fabrics whose truth is known by construction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fablint.cli import app
from fablint.testing_fabrics import ThreeTier
from tests.conftest import FIXTURES

DEMO = FIXTURES / "demo"


def _sheet(*paths: Path | str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["topo", *map(str, paths), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.output)
    assert "datasheet" in data
    return data["datasheet"]


def _markdown(*paths: Path | str) -> str:
    result = CliRunner().invoke(app, ["topo", *map(str, paths), "--format", "markdown"])
    assert result.exit_code in (0, 1), result.output
    return result.output


def _row(markdown: str, figure: str) -> tuple[str, str]:
    """(value, source) of one row of the Markdown table."""
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if cells[0] == figure:
            return cells[1], cells[2]
    raise AssertionError(f"no row {figure!r} in:\n{markdown}")


def test_demo_datasheet_field_by_field() -> None:
    ds = _sheet(DEMO)
    assert ds["kind"]["kind"] == "RoCE Ethernet"
    assert "4 Arista EOS, 1 Cisco NX-OS, 1 SONiC" in ds["kind"]["source"]
    assert [(r["tiers"], r["rate_mbps"], r["generation"], r["cables"])
            for r in ds["links"]["rates"]] == [("host-leaf", 200_000, "200GbE", 16),
                                               ("leaf-spine", 400_000, "400GbE", 8)]
    counts = ds["counts"]
    assert counts["switches"] == {"spine": 2, "leaf": 4}
    assert (counts["hosts"], counts["nics"], counts["nics_per_host"], counts["rails"]) == \
        (16, 16, 1, None)
    assert (ds["injection"]["per_nic_mbps"], ds["injection"]["per_host_mbps"]) == \
        (200_000, 200_000)
    assert ds["injection"]["uniform"] is True
    topo = ds["topology"]
    assert topo["name"].startswith("2-tier fat tree")
    assert (topo["tiers"], topo["pods"], topo["rail_optimised"], topo["director_based"],
            topo["single_spine"]) == (2, 1, False, False, False)
    over = ds["oversubscription"]
    assert (over["leaves"], over["minimum"], over["median"], over["maximum"]) == (4, 1, 1, 1)
    assert [(r["leaf"], r["host_mbps"], r["uplink_mbps"]) for r in over["per_leaf"]] == \
        [(f"leaf{n}", 800_000, 800_000) for n in range(1, 5)]
    assert [(t["tier"], t["down_mbps"], t["up_mbps"], t["ratio"]) for t in over["tiers"]] == \
        [("leaf", 3_200_000, 3_200_000, 1.0)]
    bis = ds["bisection"]
    assert (bis["mbps"], bis["ideal_mbps"], bis["percent"], bis["exact"], bis["method"],
            bis["per_host_mbps"]) == (1_600_000, 1_600_000, 100.0, True, "clos", 200_000)
    assert ds["non_blocking"]["value"] is True
    ll = ds["lossless"]
    assert ll["applies"] is True and ll["switches"] == 6
    # leaf4's Ethernet16 has PFC off (planted PFC001); leaf4's AZURE map sends the RoCE DSCPs
    # to the lossy traffic class 1 (planted: QOS010, QOS001 folded in); leaf3 has 802.3x
    # pause (planted PFC003)
    assert [(s["what"], s["where"]) for s in ll["pfc"]] == [("priority 3", []),
                                                            ("off", ["leaf4"])]
    assert ll["pfc"][1]["count"] == 1
    # EOS's default map puts DSCP 24-31 in traffic class 3; NX-OS (leaf3) maps 24 and 26 only;
    # SONiC's AZURE map (leaf4) makes DSCP 3 lossless and sends the RoCE DSCPs to TC 1
    assert [(s["what"], s["count"], s["where"]) for s in ll["roce_path"]] == [
        ("DSCP 24-31 -> TC 3 -> priority 3 -> queue 3 (lossless)", 4, []),
        ("DSCP 24, 26 -> TC 3 -> priority 3 -> queue 3 (lossless)", 1, ["leaf3"]),
        ("DSCP 24, 26 -> TC 1 -> priority 1 -> queue 1 (lossy)", 1, ["leaf4"]),
        ("DSCP 3 -> TC 3 -> priority 3 -> queue 3 (lossless)", 1, ["leaf4"])]
    assert (ll["ecn"]["count"], ll["ecn"]["of"]) == (6, 6)
    assert ("1500 kbytes - 150 kbytes, 100 %", ["spine2"]) in [
        (s["what"], s["where"]) for s in ll["ecn_thresholds"]]  # planted ECN003
    assert (ll["link_pause"]["count"], ll["link_pause"]["where"]) == (1, ["leaf3"])
    assert ll["dcqcn"] is None and "DCQCN on NICs: not known" in ll["note"]


def test_demo_markdown_says_where_each_figure_comes_from() -> None:
    text = _markdown(DEMO)
    assert text.startswith("# Fabric datasheet\n")
    assert _row(text, "Fabric kind")[0] == "RoCE Ethernet"
    assert _row(text, "Switches per tier")[0] == "2 spines, 4 leaves"
    assert _row(text, "Hosts and NICs")[0] == "16 hosts, 16 NICs (1 per host)"
    assert _row(text, "Injection bandwidth")[0] == "200G per NIC, 200G per host"
    value, source = _row(text, "Bisection bandwidth")
    assert value == "1.6T of an ideal 1.6T (100 %, exact); 200G per host"
    assert "two-tier Clos" in source
    assert _row(text, "Non-blocking")[0].startswith("yes")
    assert _row(text, "PFC")[0] == ("priority 3 on 31 of 32 fabric ports; off on 1 of 32 "
                                    "fabric ports (leaf4)")
    assert _row(text, "802.3x pause")[0] == ("802.3x pause on a fabric port on 1 of 6 "
                                             "switches (leaf3)")
    for line in text.splitlines()[4:]:
        if line.startswith("| ") and not line.startswith("| leaf"):
            if "Leaf |" in line:
                break
            assert line.count(" | ") == 2 and line.split(" | ")[2].strip(" |"), line


def test_nic_inputs_give_the_dcqcn_regime() -> None:
    ds = _sheet(DEMO, FIXTURES / "hosts" / "constructed-gpu01",
                FIXTURES / "hosts" / "constructed-gpu02")
    ll = ds["lossless"]
    assert (ll["dcqcn"]["count"], ll["dcqcn"]["of"]) == (2, 2)
    assert [(s["what"], s["count"]) for s in ll["nic_pfc"]] == [("priority 3", 2)]


def test_generated_three_tier_fabric_field_by_field(tmp_path: Path) -> None:
    dump = tmp_path / "fabric.topo"
    fabric = ThreeTier(pods=2, rails=2, spines=2, supers=2, servers=4)
    dump.write_text(fabric.ibnetdiscover())
    ds = _sheet(dump)
    assert ds["kind"]["kind"] == "InfiniBand"
    assert [(r["tiers"], r["generation"], r["cables"]) for r in ds["links"]["rates"]] == [
        ("host-leaf", "4x NDR", 16), ("leaf-spine", "4x NDR", 8),
        ("spine-super-spine", "4x NDR", 8)]
    counts = ds["counts"]
    assert counts["switches"] == {"super-spine": 2, "spine": 4, "leaf": 4}
    assert (counts["hosts"], counts["nics"], counts["nics_per_host"], counts["rails"]) == \
        (8, 16, 2, 2)
    assert (ds["injection"]["per_nic_mbps"], ds["injection"]["per_host_mbps"]) == \
        (400_000, 800_000)
    topo = ds["topology"]
    assert topo["name"].startswith("3-tier fat tree") and "rail-optimised" in topo["name"]
    assert (topo["tiers"], topo["rail_optimised"]) == (3, True)
    assert topo["pods"] == 2 and "2 pods" in topo["name"]
    over = ds["oversubscription"]
    # each leaf: 4 NICs x 400G down, one 400G cable to each of its pod's 2 spines
    assert (over["minimum"], over["median"], over["maximum"]) == (2, 2, 2)
    assert [(t["tier"], t["members"], t["down_mbps"], t["up_mbps"], t["ratio"])
            for t in over["tiers"]] == [("leaf", 4, 6_400_000, 3_200_000, 2.0),
                                        ("spine", 4, 3_200_000, 3_200_000, 1.0)]
    bis = ds["bisection"]
    # the thinnest tier (leaf uplinks, 3.2T) halved; ideal: half the 6.4T host capacity
    assert (bis["mbps"], bis["ideal_mbps"], bis["exact"], bis["per_host_mbps"]) == \
        (1_600_000, 3_200_000, True, 400_000)
    nb = ds["non_blocking"]
    assert nb["value"] is False
    assert "the leaf tier is oversubscribed 2.00:1" in nb["reasons"]
    assert ds["lossless"]["applies"] is False and "InfiniBand" in ds["lossless"]["note"]


def test_generated_non_blocking_three_tier_fabric(tmp_path: Path) -> None:
    dump = tmp_path / "fabric.topo"
    dump.write_text(ThreeTier(leaf_spine=2, spine_super=2).ibnetdiscover())
    ds = _sheet(dump)
    over = ds["oversubscription"]
    assert (over["maximum"], [t["ratio"] for t in over["tiers"]]) == (1, [1.0, 1.0])
    assert (ds["bisection"]["mbps"], ds["bisection"]["ideal_mbps"]) == (3_200_000, 3_200_000)
    assert ds["non_blocking"]["value"] is True


@pytest.mark.parametrize("rails", [1, 4])
def test_rails_follow_the_cabling(tmp_path: Path, rails: int) -> None:
    dump = tmp_path / "fabric.topo"
    dump.write_text(ThreeTier(rails=rails).ibnetdiscover())
    counts = _sheet(dump)["counts"]
    assert counts["nics_per_host"] == rails
    assert counts["rails"] == (rails if rails > 1 else None)


def test_one_switch_is_non_blocking_and_has_no_pods(corpus: Path) -> None:
    ds = _sheet(corpus / "ib" / "ibtopotool-4-oracle-sun-qdr.topo")  # one QDR switch, one HCA
    assert ds["counts"]["switches"] == {"leaf": 1}
    assert (ds["counts"]["hosts"], ds["counts"]["nics"]) == (1, 1)
    assert ds["topology"]["name"] == "single switch tier" and ds["topology"]["note"] is None
    assert ds["non_blocking"]["value"] is True
    text = _markdown(corpus / "ib" / "ibtopotool-4-oracle-sun-qdr.topo")
    assert _row(text, "Hosts and NICs")[0] == "1 host, 1 NIC (1 per host)"
