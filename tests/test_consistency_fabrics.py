"""Who fabric rules compare with whom: cabling components, else all inputs together."""

from __future__ import annotations

from fablint.checks.base import Context, DeviceSummary
from fablint.checks.consistency import fabrics
from fablint.model import Endpoint, Fabric, Link
from fablint.profiles import load_policy


def _summaries(*names: str) -> list[DeviceSummary]:
    return [DeviceSummary(name, "eos", None, (f"{name}.cfg",), {}) for name in names]


def _link(a: str, b: str) -> Link:
    return Link(a=Endpoint(device=a, interface="Ethernet1"),
                b=Endpoint(device=b, interface="Ethernet1"))


def _ctx(*links: Link) -> Context:
    return Context(fabric=Fabric(links=list(links)), policy=load_policy("default"))


def test_without_cables_the_inputs_are_one_fabric() -> None:
    groups = fabrics(_summaries("leaf1", "leaf2", "leaf3"), _ctx())
    assert len(set(groups.values())) == 1


def test_cabling_components_are_separate_fabrics() -> None:
    groups = fabrics(_summaries("leaf1", "leaf2", "leaf3", "leaf4"),
                     _ctx(_link("leaf1", "spine1"), _link("leaf2", "spine1"),
                          _link("leaf3", "spine9")))
    assert groups["leaf1"] == groups["leaf2"]  # joined through a spine not linted
    assert groups["leaf3"] != groups["leaf1"]
    # leaf4 has no cable: nothing says which fabric it is in, so it is compared with neither
    assert groups["leaf4"] not in (groups["leaf1"], groups["leaf3"])
