"""A lint whose models stay in the workers parses SONiC devices with every unresolved reference
but only the first resolved one of each kind (``parsers.base.one_resolved_reference_per_kind``):
QOS009, the only rule that reads references, must report exactly what it reports on the whole
list, on every SONiC input there is and on hypothesis documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from fablint import engine
from fablint.checks import REGISTRY, Context
from fablint.engine import FilePlan, LintOptions, _plan, analyse_unit, select_rules
from fablint.findings import Finding
from fablint.ingest import new_fabric
from fablint.model import Device
from fablint.parsers import sonic
from fablint.parsers.base import ParseError, one_resolved_reference_per_kind
from fablint.policy import Policy
from tests.conftest import CORPUS
from tests.test_sonic_construct import _inputs
from tests.test_sonic_parser_properties import DOCUMENTS

engine_parse_unit = engine.parse_unit


def _devices(docs: list[tuple[str, str]]) -> list[Device]:
    try:
        return sonic.SonicParser().parse_documents(docs).devices
    except ParseError:
        return []


def _qos009(devices: list[Device]) -> list[Finding]:
    ctx = Context(fabric=new_fabric({"devices": {d.name: d for d in devices}, "links": [],
                                     "ib_nodes": []}), policy=Policy())
    return list(REGISTRY["QOS009"]().check(ctx))


def _agree(docs: list[tuple[str, str]]) -> tuple[int, int]:
    """QOS009's findings and the unresolved references are the same both ways; returns the
    references recorded (all, per kind)."""
    every = _devices(docs)
    with one_resolved_reference_per_kind():
        lean = _devices(docs)
    assert [d.name for d in lean] == [d.name for d in every]
    for full, few in zip(every, lean, strict=True):
        assert [r for r in few.references if not r.resolved] == \
            [r for r in full.references if not r.resolved]
        assert {r.kind for r in few.references if r.resolved} == \
            {r.kind for r in full.references if r.resolved}
        assert few.model_dump(exclude={"references"}) == full.model_dump(exclude={"references"})
    assert _qos009(lean) == _qos009(every)
    return (sum(len(d.references) for d in every), sum(len(d.references) for d in lean))


@pytest.mark.parametrize("path", _inputs(), ids=lambda p: p.name)
def test_real_and_fixture_files_give_the_same_qos009(path: Path) -> None:
    _agree([(path.read_text(encoding="utf-8", errors="replace"), str(path))])


def test_the_comparison_is_not_vacuous() -> None:
    """Some input has dangling references (QOS009 findings) and many resolved ones."""
    found = dropped = 0
    for path in _inputs():
        docs = [(path.read_text(encoding="utf-8", errors="replace"), str(path))]
        found += len(_qos009(_devices(docs)))
        every, lean = _agree(docs)
        dropped += every - lean
    assert found >= 1 and dropped > 1000


def test_dangling_references_of_several_kinds() -> None:
    """Missing objects named from many rows, next to resolved references of the same kinds,
    and a whole table absent (QOS009's "incomplete" finding)."""
    ports = [f"Ethernet{4 * n}" for n in range(6)]
    doc = {
        "DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
        "PORT": {p: {"admin_status": "up", "mtu": "9100"} for p in ports},
        "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}},
        "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true"}},
        "DSCP_TO_TC_MAP": {"AZURE": {"3": "3", "4": "4"}},
        "PORT_QOS_MAP": {p: {"dscp_to_tc_map": "AZURE" if n % 2 else "MISSING",
                             "tc_to_queue_map": "AZURE", "pfc_enable": "3,4"}
                         for n, p in enumerate(ports)},
        "QUEUE": {f"{p}|{q}": {"scheduler": "scheduler.0" if q != 1 else "scheduler.9",
                               "wred_profile": "AZURE_LOSSLESS" if n % 3 else "GONE"}
                  for n, p in enumerate(ports) for q in (0, 1, 3, 4)},
        "BUFFER_PG": {f"{p}|3-4": {"profile": "pg_lossless"} for p in ports},
    }
    every, lean = _agree([(json.dumps(doc, indent=4), "config_db.json")])
    assert every > lean
    assert len(_qos009(_devices([(json.dumps(doc, indent=4), "config_db.json")]))) >= 3


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=DOCUMENTS)
def test_arbitrary_documents_give_the_same_qos009(data: dict[str, Any]) -> None:
    _agree([(json.dumps(data, indent=2, ensure_ascii=False), "config_db.json")])


def _plan_for(**options: Any) -> FilePlan:
    lint = LintOptions(paths=[], config=None, policy=Policy(), **options)  # type: ignore[arg-type]
    rules = select_rules([], [])
    return _plan(lint, rules, [r for r in rules if r.scope == "fabric"], frozenset())


def test_a_lint_reads_every_reference_only_when_something_needs_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert not _plan_for().references
    assert _plan_for(keep_devices=True).references
    assert _plan_for(digest=lambda device, ctx: None).references
    path = CORPUS / "sonic" / "s6000-real-config_db.json"
    if not path.is_file():
        pytest.skip("shared corpus not found")
    parsed: list[Any] = []

    def parse_unit(*args: Any) -> Any:
        parsed.append(engine_parse_unit(*args))
        return parsed[-1]

    monkeypatch.setattr(engine, "parse_unit", parse_unit)
    for plan in (_plan_for(keep_devices=True), _plan_for()):  # the worker honours the plan
        analyse_unit(([(str(path), True)], plan))
    every, lean = (outcome.devices[0].references for outcome in parsed)
    assert len(every) > 500
    assert len(lean) == len({(r.kind, r.resolved) for r in every if r.resolved}) + \
        sum(not r.resolved for r in every)
