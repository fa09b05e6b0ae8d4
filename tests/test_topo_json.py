"""``fablint topo --format json`` writes its document itself (``dumps_indented``, cables from
a template): the text must be exactly ``json.dumps(document, indent=2)``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.profiles import load_policy
from fablint.report.topo import document, dumps_indented, render_json
from tests.conftest import FIXTURES
from tests.test_trusted import _bench

_scalars = (st.none() | st.booleans() | st.integers(-10**20, 10**20)
            | st.floats(allow_nan=True, allow_infinity=True)
            | st.text(st.characters(codec="utf-8"), max_size=12))
_keys = (st.text(st.characters(codec="utf-8"), max_size=8) | st.integers(-99, 99)
         | st.floats(allow_nan=False) | st.booleans() | st.none())
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=30)


@given(_values)
@settings(max_examples=400, deadline=None)
def test_dumps_indented_is_json_dumps_with_indent_2(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2)


def test_dumps_indented_on_the_edge_values() -> None:
    value = {"nan": math.nan, "inf": [math.inf, -math.inf], 1.5: {}, True: [], None: "é\n\"",
             2: (1, 2.0, -0.0), "big": 10**30, "nested": [[{}], [[]], {"a": {"b": [None]}}]}
    assert dumps_indented(value) == json.dumps(value, indent=2)


def _topo_json(paths: list[str]) -> None:
    result = lint(LintOptions(paths=paths, config=ProjectConfig(), policy=load_policy(),
                              select=["topology"], topology=True))
    topo = result.fabric.topology
    assert topo is not None and topo.cables
    expected = json.dumps(document(topo, result.findings), indent=2) + "\n"
    assert render_json(topo, result.findings) == expected


def test_ethernet_cables_with_port_configurations(tmp_path: Path) -> None:
    """Cables with a_port / b_port (configured ends), one-sided ones and unknown speeds."""
    eth = _bench("gen_ethernet")
    files, _truth = eth.fabric(eth.EthSpec(4, 2, 8, 1))
    eth.write({name: text for name, text in files.items() if name != "spine01.cfg"}, tmp_path)
    _topo_json([str(tmp_path)])


def test_demo_and_ib_fixtures() -> None:
    _topo_json([str(FIXTURES / "demo")])
    _topo_json([str(FIXTURES / "ib")])


def test_generated_three_tier_ib_fabric(tmp_path: Path) -> None:
    gen = _bench("gen_ib")
    text, _truth = gen.fabric(gen.FabricSpec(
        pods=2, leaves=4, spines=2, hosts=4, uplinks=1, super_spines=4, aggregation_nodes=True,
        management_hosts=1, names="default", dialect="ibdiagnet"))
    (tmp_path / "fabric.topo").write_text(text, encoding="utf-8")
    _topo_json([str(tmp_path / "fabric.topo")])
