"""Labelled InfiniBand fabrics (fixtures/ib/cases): each dump, written the way rdma-core's tools
print it, must give the figures its label (labels.yaml, written from the fabric's design) says:
the switches of each tier, the hosts and service ends, each leaf's capacity, the bisection, and
exactly the labelled findings (good fabrics: none). The three forms of the faulty fabric
(topology file, ports report, iblinkinfo) must agree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.profiles import load_policy
from tests.conftest import FIXTURES

CASES = FIXTURES / "ib" / "cases"
LABELS: dict[str, dict[str, Any]] = yaml.safe_load((CASES / "labels.yaml").read_text())
FILES = [(name, form) for name, label in LABELS.items()
         for form in label.get("forms", [name])]


def _lint(path: Path) -> LintResult:
    return lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                            policy=load_policy("default"), topology=True))


def test_the_dumps_are_what_build_py_writes(tmp_path: Path) -> None:
    """The fixtures are build.py's output, unedited (run it after changing it)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("ib_cases_build", CASES / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up)
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    module.HERE = tmp_path
    module.main()
    for _name, form in FILES:
        assert (tmp_path / form).read_bytes() == (CASES / form).read_bytes(), form


@pytest.mark.parametrize(("name", "form"), FILES, ids=[form for _, form in FILES])
def test_labelled_figures(name: str, form: str) -> None:
    label = LABELS[name]
    result = _lint(CASES / form)
    assert [p.kind for p in result.fabric.problems] == label.get("problems", []), \
        result.fabric.problems
    topo = result.fabric.topology
    assert topo is not None

    def members(role: str, service: bool = False) -> list[str]:
        return sorted(n for n, node in topo.nodes.items()
                      if node.role == role and node.service == service)

    assert members("spine") == label["spines"]
    assert members("leaf") == label["leaves"]
    assert members("super-spine") == label["super_spines"]
    assert len(members("host")) == label["hosts"]
    assert members("host", service=True) == label["service"]
    assert not members("switch") and not members("unknown")
    for chassis, chips in label.get("chips", {}).items():
        assert topo.nodes[chassis].chips == chips
    if "cables" in label:
        assert len(topo.cables) == label["cables"]

    caps = topo.capacity_table()
    for leaf in label["leaves"]:
        down, up, unknown = caps[leaf]
        assert unknown == 0
        if "leaf" in label:
            assert (down, up) == (label["leaf"]["host"], label["leaf"]["uplink"]), leaf
        else:
            assert [down, up] == label["leaves_at"][leaf], leaf
    for spine in label["spines"] if "spine" in label else ():
        assert caps[spine][:2] == (label["spine"]["host"], label["spine"]["uplink"]), spine

    b = topo.bisection
    want = label["bisection"]
    if want is None:
        assert b is None
    else:
        _bisection(b, want)

    got = sorted([f.rule, f.object] for f in result.findings)
    assert got == sorted(label["findings"])


def _bisection(b: Any, want: dict[str, Any]) -> None:
    assert b is not None and b.ideal_mbps == want["ideal"]
    if want.get("at_most_ideal"):
        assert b.mbps <= b.ideal_mbps
    else:
        assert (b.mbps, b.exact) == (want["mbps"], want["exact"])


def test_the_forms_of_one_fabric_name_one_cause_each() -> None:
    """The faulty fabric's dumps (and the wrapped copy) report the same causes on the same
    ports."""
    seen = []
    for form in LABELS["faults-hdr"]["forms"]:
        result = _lint(CASES / form)
        seen.append(sorted((f.rule, f.device, f.object) for f in result.findings))
    assert all(one == seen[0] for one in seen)


WRAPPED = ["faults-hdr.topo", "faults-hdr-ports.txt", "faults-hdr.iblinkinfo",
           "three-tier-hdr-subnet.lst", "director-cs8500.topo"]


@pytest.mark.parametrize("width", [72, 100, 132])
@pytest.mark.parametrize("form", WRAPPED)
def test_a_console_wrap_changes_nothing(form: str, width: int, tmp_path: Path) -> None:
    """The dump hard-wrapped at a console's width (every character kept, newlines added) gives
    the findings, tiers and capacities of the dump itself."""
    text = (CASES / form).read_text()
    pieces = []
    for line in text.splitlines():
        while len(line) > width:
            pieces.append(line[:width])
            line = line[width:]
        pieces.append(line)
    path = tmp_path / form
    path.write_text("\n".join(pieces) + "\n")

    def seen(result: LintResult) -> tuple[object, ...]:
        topo = result.fabric.topology
        assert topo is not None
        return (sorted((f.rule, f.object, f.message) for f in result.findings),
                sorted((n, node.role) for n, node in topo.nodes.items()),
                topo.capacity_table(), len(topo.cables))

    assert seen(_lint(path)) == seen(_lint(CASES / form))


def test_a_director_that_is_the_whole_fabric_is_not_an_unrated_leaf() -> None:
    """`fablint topo` of a director with every host on its line chips: one switch, nothing to
    rate, said in words (not a leaf row with 0G of uplinks and an "unknown" ratio)."""
    from fablint.report.topo import render_text

    for form in LABELS["director-only.ibnetdiscover"]["forms"]:
        result = _lint(CASES / form)
        assert result.fabric.topology is not None
        text = render_text(result.fabric.topology, result.findings)
        assert "One switch is the whole fabric: ibdir01 (a director of 28 chips) with 12.8T of " \
            "host links" in text, text
        assert "Ratio" not in text and "unknown" not in text
        assert "Bisection: not computed (one switch is the whole fabric" in text
    # a leaf tier still gets its table
    result = _lint(CASES / "director-cs8500.topo")
    assert result.fabric.topology is not None
    text = render_text(result.fabric.topology, result.findings)
    assert "One switch" not in text and "leaf01                         1.6T       1.6T   1.00:1" \
        in text
