"""What a worker sends back: FileResult, findings and summaries pickle to equal objects of the
same types (they are sent in a form of their own, ``FileResult.__reduce__`` and
``Finding.__reduce__``), and ``consistency.tally`` names the same ports as counting port by
port."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fablint import engine
from fablint.checks.base import PortsAlone
from fablint.checks.consistency import MAX_NAMED_PORTS, tally
from fablint.config import ProjectConfig
from fablint.engine import LintOptions, _plan, analyse_unit, select_rules
from fablint.findings import Consequence, Finding, FixIntent, LineEdit, Place, Severity
from fablint.model import Interface, SourceRef
from fablint.profiles import load_policy


def _results(path: Path) -> list[engine.FileResult]:
    """What a worker makes of ``path``, with the topology's port tables (as a lint of a fabric
    with cables asks for)."""
    options = LintOptions(paths=[str(path)], config=ProjectConfig(), policy=load_policy(),
                          topology=True)
    rules = select_rules([], [])
    plan = _plan(options, rules, [r for r in rules if r.scope == "fabric"],
                 frozenset({"links", "hosts"}))
    return analyse_unit(([(str(path), True)], plan))


def _same_types(a: Any, b: Any) -> None:
    assert type(a) is type(b), (a, b)
    if isinstance(a, tuple):
        for x, y in zip(a, b, strict=True):
            _same_types(x, y)


@pytest.mark.parametrize("pattern", ["sonic/*.json", "nxos/*.cfg", "*/*.cfg", "lldp/*"])
def test_a_file_result_pickles_to_an_equal_one(corpus: Path, pattern: str) -> None:
    paths = sorted(corpus.glob(pattern))[:8]
    assert paths
    tables = links = 0
    for path in paths:
        for result in _results(path):
            back = pickle.loads(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
            assert type(back) is engine.FileResult and back == result
            for link, again in zip(result.links, back.links, strict=True):
                for a, b in ((link, again), (link.a, again.a), (link.b, again.b)):
                    assert type(a) is type(b) and list(a.__dict__) == list(b.__dict__)
                    assert a.model_fields_set == b.model_fields_set
                assert again.model_dump_json() == link.model_dump_json()
                links += 1
            for device, table in result.ports.items():
                assert list(back.ports[device]) == list(table)
                for row, again in zip(table.values(), back.ports[device].values(), strict=True):
                    _same_types(row, again)
                tables += bool(table)
            for finding, again in zip(result.findings, back.findings, strict=True):
                assert again == finding and type(again.severity) is Severity
    assert tables or links, "neither a port table nor a link was sent"


def test_an_odd_port_table_is_sent_as_it_is() -> None:
    """A table of anything but PortRow tuples (or an empty one) crosses unchanged."""
    from fablint.topology import PortRow

    row = PortRow(100000, 9214, True, True, (3,), "dscp", SourceRef("a.cfg", 3), ("h1", "eth0"),
                  None, None)
    result = engine.FileResult(input=None, ports={  # type: ignore[arg-type]
        "leaf1": {}, "leaf2": {"Ethernet1": ("not", "a", "row")},
        "leaf3": {"Ethernet1": row, "Ethernet2": row._replace(src=None, neighbor=None)}})
    back = pickle.loads(pickle.dumps(result))
    assert back.ports == result.ports
    assert type(back.ports["leaf3"]["Ethernet1"].src) is SourceRef
    assert back.ports["leaf3"]["Ethernet2"].src is None


def _value(kind: type, name: str) -> Any:
    """A value of each field of the findings' classes that is not its default."""
    return {
        "severity": Severity.INFO, "line": 7, "fix": "fix text",
        "edit": LineEdit(7, "mtu 1500", "mtu 9214"),
        "intent": FixIntent("mtu-set", {"interface": "Ethernet1", "mtu": 9214}),
        "related": [SourceRef("leaf1.cfg", 3)], "objects": ["Ethernet1", "Ethernet2"],
        "places": [Place("Ethernet1", "leaf1.cfg", 3), Place("Ethernet2")],
        "consequences": [Consequence("ECN001", "Ethernet1 queue 3", "no ECN")],
        "explains": [("ecn", "Ethernet1")], "params": {"queue": 3}, "old": "a", "new": "b",
    }.get(name, f"{kind.__name__}.{name}")


@pytest.mark.parametrize("kind", [Finding, FixIntent, LineEdit, Place, Consequence])
def test_findings_pickle_with_every_field(kind: type) -> None:
    """Every field crosses, in its place: a field added to one of these classes must be
    added to its ``__reduce__`` too."""
    values = {f.name: _value(kind, f.name) for f in dataclasses.fields(kind)}
    obj = kind(**values)
    back = pickle.loads(pickle.dumps(obj))
    assert type(back) is kind and back == obj
    assert {name: getattr(back, name) for name in values} == values


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=40), st.integers(0, 2**16),
       st.booleans())
def test_tally_names_the_first_ports_of_each_value(values: list[int], seed: int,
                                                   alone: bool) -> None:
    """``tally`` of ports grouped by QoS settings names, for each value, the first few ports
    that have it in port order, and counts all of them: as counting port by port."""
    import random

    ports = [Interface.model_validate({"name": f"Ethernet{n}"}) for n in range(len(values))]
    value_of = {id(p): v for p, v in zip(ports, values, strict=True)}
    if alone:
        groups: Any = PortsAlone(ports)
    else:  # ports of one value grouped at random, each group in port order, groups by first
        rng = random.Random(seed)
        parts: dict[tuple[int, int], list[Interface]] = {}
        for port in ports:
            parts.setdefault((value_of[id(port)], rng.randrange(3)), []).append(port)
        groups = sorted(parts.values(), key=lambda g: ports.index(g[0]))
    device = type("Device", (), {"name": "leaf1",
                                 "interfaces": {p.name: p for p in ports}})()
    ctx = type("Ctx", (), {"port_order": lambda self, _d: {id(p): n
                                                            for n, p in enumerate(ports)}})()
    out = tally(ctx, device, groups,  # type: ignore[arg-type]
                lambda port: [("", value_of[id(port)], {})])
    expected = {}
    for port in ports:
        expected.setdefault(value_of[id(port)], []).append(port.name)
    assert list(out[""]) == list(expected)
    for value, names in expected.items():
        usage = out[""][value]
        assert usage.count == len(names)
        assert usage.ports == names[:MAX_NAMED_PORTS]



def test_links_of_another_form_are_sent_as_they_are() -> None:
    """Anything but plain Link objects with plain ends crosses unchanged (the packed form is
    only a way of sending those)."""
    from fablint.model import Endpoint, Link

    link = Link(a=Endpoint(device="leaf1", interface="Ethernet1"),
                b=Endpoint(device="spine1", interface="Ethernet9"), origin="lldp")
    odd = ["not a link"]
    for links in ([link, link], odd, []):
        result = engine.FileResult(input=None, links=links)  # type: ignore[arg-type]
        back = pickle.loads(pickle.dumps(result))
        assert back.links == links


def test_dscps_by_priority_is_worked_out_once_per_values() -> None:
    """Chains with the same values share one answer; another value gives another."""
    from fablint.model import ClassMaps

    one = ClassMaps(name="A", dscp_to_tc={26: 3, 48: 6}, tc_to_pfc_priority={})
    same = ClassMaps(name="B", dscp_to_tc={26: 3, 48: 6}, src=SourceRef("x.cfg", 9))
    other = ClassMaps(name="A", dscp_to_tc={26: 3, 48: 3})
    assert one.dscps_by_priority() is same.dscps_by_priority()
    assert one.dscps_by_priority()[3] == [26] and other.dscps_by_priority()[3] == [26, 48]
    no_drop = ClassMaps(dscp_to_tc={26: 3, 48: 6}, no_drop_classes={3})
    assert list(no_drop.dscps_by_priority()) == [3]
