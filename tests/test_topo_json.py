"""``fablint topo --format json`` writes its document itself (cables from a template, the rest
by the JSON report's encoder): the text must be exactly ``json.dumps(document, indent=2)``."""

from __future__ import annotations

import json
from pathlib import Path

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.profiles import load_policy
from fablint.report.topo import document, render_json
from tests.conftest import FIXTURES, bench_module


def _topo_json(paths: list[str]) -> None:
    result = lint(LintOptions(paths=paths, config=ProjectConfig(), policy=load_policy(),
                              select=["topology"], topology=True))
    topo = result.fabric.topology
    assert topo is not None and topo.cables
    expected = json.dumps(document(topo, result.findings), indent=2) + "\n"
    assert render_json(topo, result.findings) == expected


def test_ethernet_cables_with_port_configurations(tmp_path: Path) -> None:
    """Cables with a_port / b_port (configured ends), one-sided ones and unknown speeds."""
    eth = bench_module("gen_ethernet")
    files, _truth = eth.fabric(eth.EthSpec(4, 2, 8, 1))
    eth.write({name: text for name, text in files.items() if name != "spine01.cfg"}, tmp_path)
    _topo_json([str(tmp_path)])


def test_demo_and_ib_fixtures() -> None:
    _topo_json([str(FIXTURES / "demo")])
    _topo_json([str(FIXTURES / "ib")])


def test_generated_three_tier_ib_fabric(tmp_path: Path) -> None:
    gen = bench_module("gen_ib")
    text, _truth = gen.fabric(gen.FabricSpec(
        pods=2, leaves=4, spines=2, hosts=4, uplinks=1, super_spines=4, aggregation_nodes=True,
        management_hosts=1, names="default", dialect="ibdiagnet"))
    (tmp_path / "fabric.topo").write_text(text, encoding="utf-8")
    _topo_json([str(tmp_path / "fabric.topo")])
