"""The SONiC parser builds its most numerous objects (references, queues, buffer assignments)
without pydantic validation (``trusted.Maker``, for speed). These tests parse every SONiC input
there is (the corpus, the fixtures, generated switches, hypothesis documents) both ways and
require the very same objects: types, field order, values, defaults and the set of fields
given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.model import AclBinding, BufferAssignment, Endpoint, Interface, Queue, Reference
from fablint.parsers import sonic
from fablint.parsers.base import ParseError, ParseResult
from tests.conftest import CORPUS, FIXTURES, bench_module
from tests.test_ib_construct import _same
from tests.test_sonic_parser_properties import DOCUMENTS, VALUES


def _validated_reference(kind: str, name: str, owner: str, src: Any, resolved: bool) -> Any:
    given = {"kind": kind, "name": name, "owner": owner, "src": src}
    return Reference.model_validate(given if resolved else {**given, "resolved": False})


VALIDATED = {
    "_reference": _validated_reference,
    "_queue": lambda queue_id, src, refs, plan: Queue.model_validate(
        {"id": queue_id, "src": src, "field_src": refs.copy(),
         **{name: value for name, value in (("scheduling", plan.mode), ("ecn", plan.ecn),
                                            ("wred", plan.drop)) if value is not None}}),
    "_buffer_assignment": lambda src, profile, ref: BufferAssignment.model_validate(
        {"src": src, "field_src": {}, "dynamic": True} if profile is None else
        {"src": src, "field_src": {"profile": ref}, "profile": profile}),
    "_interface": Interface.model_validate,
    "_acl_binding": lambda name, direction, family, src: AclBinding.model_validate(
        {"name": name, "direction": direction, "family": family, "src": src, "field_src": {}}),
    "_endpoint": lambda device, interface: Endpoint.model_validate(
        {"device": device, "interface": interface}),
}


def _parse(docs: list[tuple[str, str]]) -> ParseResult | str:
    try:
        return sonic.SonicParser().parse_documents(docs)
    except ParseError as exc:
        return str(exc)


def _both(docs: list[tuple[str, str]]) -> ParseResult | None:
    """Parse ``docs`` as the parser does and with every object validated; they must agree."""
    built = _parse(docs)
    with pytest.MonkeyPatch.context() as patch:
        for name, validated in VALIDATED.items():
            patch.setattr(sonic, name, validated)
        validated = _parse(docs)
    if isinstance(validated, str):
        assert built == validated
        return None
    assert isinstance(built, ParseResult)
    _same(built.devices, validated.devices, "devices")
    assert [d.model_dump_json() for d in built.devices] == \
        [d.model_dump_json() for d in validated.devices]
    assert built.problems == validated.problems
    return built


def _inputs() -> list[Path]:
    found = [p for p in sorted((CORPUS / "sonic").glob("*.json")) if p.is_file()]
    for root in (FIXTURES / "reference", FIXTURES / "equivalence", FIXTURES / "ingest"):
        found += sorted(p for p in root.rglob("*.json") if p.is_file())
    return found


@pytest.mark.parametrize("path", _inputs(), ids=lambda p: p.name)
def test_real_and_fixture_files_build_what_validation_builds(
        path: Path) -> None:
    _both([(path.read_text(encoding="utf-8", errors="replace"), str(path))])


def test_the_comparison_meets_every_trusted_object() -> None:
    """Not vacuous: the inputs hold references (resolved and not), queues with and without
    ECN, buffer assignments naming a profile and dynamic ones, ports with ACLs, neighbours and
    a PFC watchdog, and a folder of one device's files that merges."""
    seen: set[str] = set()
    for path in _inputs():
        result = _both([(path.read_text(encoding="utf-8", errors="replace"), str(path))])
        for device in result.devices if result is not None else []:
            seen |= {f"resolved {r.resolved}" for r in device.references}
            for iface in device.interfaces.values():
                seen |= {f"ecn {q.ecn is not None}" for q in iface.qos.queues.values()}
                seen |= {f"dynamic {a.dynamic}" for a in [*iface.buffer_pgs.values(),
                                                          *iface.buffer_queues.values()]}
                seen |= {"acl binding"} if iface.acls else set()
                seen |= {"neighbor"} if iface.neighbor is not None else set()
                seen |= {"watchdog"} if iface.qos.pfc.watchdog.enabled else set()
    assert seen == {"resolved True", "resolved False", "ecn True", "ecn False",
                    "dynamic True", "dynamic False", "acl binding", "neighbor", "watchdog"}
    folder = FIXTURES / "reference" / "sonic-azure-dell-z9332f"
    merged = _both([(p.read_text(encoding="utf-8"), str(p))
                    for p in sorted(folder.glob("*.json"))])
    assert merged is not None and len(merged.devices) == 1


def test_generated_switches_build_what_validation_builds(
        tmp_path: Path) -> None:
    gen = bench_module("gen_sonic")
    paths = gen.generate(3, tmp_path)
    _both([(p.read_text(encoding="utf-8"), str(p)) for p in paths])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=DOCUMENTS)
def test_arbitrary_documents_build_what_validation_builds(data: dict[str, Any]) -> None:
    _both([(json.dumps(data, indent=2, ensure_ascii=False), "config_db.json")])


# -- the plain read of a document (``_DocumentLoader.read_plain``) ---------------------------


def _document(text: str, plain: bool) -> sonic.Document | str:
    with pytest.MonkeyPatch.context() as patch:
        if not plain:
            patch.setattr(sonic, "key_lines", lambda _text: None)
        try:
            return sonic.load_document(text, "config_db.json")
        except ParseError as exc:
            return str(exc)


def _documents_agree(text: str) -> None:
    """The plain read and the LinedDict walk make the same tables, lines and problems."""
    plain, walked = _document(text, True), _document(text, False)
    if isinstance(walked, str):
        assert plain == walked
        return
    assert isinstance(plain, sonic.Document)
    assert (plain.lines, plain.unknown, plain.first_unknown, plain.problems) == \
        (walked.lines, walked.unknown, walked.first_unknown, walked.problems)
    assert list(plain.tables) == list(walked.tables)
    for table, rows in walked.tables.items():
        assert list(plain.tables[table]) == list(rows), table
        for key, row in rows.items():
            mine = plain.tables[table][key]
            assert (mine.table, mine.key, mine.src, mine.merged) == \
                (row.table, row.key, row.src, row.merged), key
            assert list(mine.fields.items()) == list(row.fields.items()), key
            assert [mine.ref(name) for name in row.fields] == \
                [row.ref(name) for name in row.fields], key


@pytest.mark.parametrize("path", _inputs(), ids=lambda p: p.name)
def test_plain_read_of_real_files_is_the_walk(path: Path) -> None:
    _documents_agree(path.read_text(encoding="utf-8", errors="replace"))


def test_plain_read_is_taken_for_a_real_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: the corpus's switch is read the plain way, not walked."""
    text = (CORPUS / "sonic" / "s6000-real-config_db.json").read_text(encoding="utf-8")
    monkeypatch.setattr(sonic, "load", None)  # the walk would fail
    document = sonic.load_document(text, "config_db.json")
    assert len(document.tables["QUEUE"]) > 100 and document.unknown > 0


OTHER_TABLES = st.dictionaries(
    st.sampled_from(["FEATURE", "VLAN_MEMBER", "X", "BGP_NEIGHBOR|10.0.0.1", "PORT|Ethernet0",
                     "QUEUE|Ethernet0|3"]), VALUES, max_size=4)
"""Tables fablint does not model (and flat ``TABLE|key`` rows) among the modelled ones."""


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=DOCUMENTS, other=OTHER_TABLES, indent=st.sampled_from([None, 1, 4]))
def test_plain_read_of_arbitrary_documents_is_the_walk(
        data: dict[str, Any], other: dict[str, Any], indent: int | None) -> None:
    _documents_agree(json.dumps({**other, **data, **other}, indent=indent, ensure_ascii=False))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=DOCUMENTS, extra=st.sampled_from(['\n', '\n\n', '  ', ' :', '{"x": 1}']))
def test_plain_read_of_odd_layouts_is_the_walk(data: dict[str, Any], extra: str) -> None:
    """Blank lines, spaces before colons, two keys on a line: the same, or read the other way."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    _documents_agree(text.replace('": ', '"' + extra.replace(":", "") + ': ', 3)
                     .replace(",\n", "," + extra + "\n", 3))


def test_queues_of_one_key_own_their_sources() -> None:
    """A QUEUE key naming several ports and ids gives each queue a ``field_src`` of its own
    (equal, not shared: a later change to one must not reach the others); a key of one port
    and one queue keeps its row's, placed on the field's line."""
    doc = {
        "PORT": {"Ethernet0": {"admin_status": "up"}, "Ethernet4": {"admin_status": "up"}},
        "SCHEDULER": {"s0": {"type": "DWRR", "weight": "1"}},
        "QUEUE": {"Ethernet0,Ethernet4|0-1": {"scheduler": "s0"},
                  "Ethernet4|3": {"scheduler": "s0"}},
    }
    text = json.dumps(doc, indent=4)
    result = _both([(text, "config_db.json")])
    assert result is not None
    ports = result.devices[0].interfaces
    shared = [ports[p].qos.queues[q] for p in ("Ethernet0", "Ethernet4") for q in (0, 1)]
    assert len({id(q.field_src) for q in shared}) == 4
    line = text.splitlines().index('            "scheduler": "s0"') + 1
    assert all(q.field_src == {"scheduling": (("config_db.json", line))} for q in shared)
    alone = ports["Ethernet4"].qos.queues[3]
    assert alone.field_src["scheduling"].line == line + 3
    assert alone.scheduling == "dwrr"
