"""``fablint.plainbuild`` makes model objects without building pydantic's validators (a
one-file lint's start-up); these tests require the very objects validation makes (types, field
order, values, defaults, the set of fields given), and validation itself wherever a value is
not exactly of its field's type: the same object, or the same error.

The EOS parser builds its devices, shared port QoS and ACL port matches this way, and
``units.threshold`` and ``ingest.parse_file`` their thresholds and input records: every EOS
input there is (the corpus, the fixtures, generated switches, hypothesis texts) is parsed both
ways and compared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel, ValidationError

from fablint import ingest, plainbuild, units
from fablint.ingest import FileOutcome, parse_file
from fablint.model import (
    AclEntry,
    BufferAssignment,
    Device,
    Interface,
    PortMatch,
    QosSettings,
    SourceRef,
    Suppression,
    Threshold,
)
from fablint.parsers import eos
from fablint.plainbuild import NotPlain, build, made
from fablint.policy import Classification, Policy, WatchdogPolicy
from tests.conftest import CORPUS, FIXTURES, bench_module
from tests.test_eos_parser_properties import EOS_LIKE
from tests.test_ib_construct import _same

SRC = SourceRef("x.cfg", 3)

# -- build against model_validate, value by value ----------------------------------------------

PLAIN: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (Threshold, {"value": 1.5, "unit": "kbytes", "bytes": 1536}),
    (Threshold, {"value": 2.0, "unit": "segments"}),
    (PortMatch, {"op": "range", "ranges": [(1, 2), (5, 9)]}),
    (PortMatch, {"op": "eq", "ranges": [[4791, 4791]]}),  # a list for a tuple: lax, as validated
    (Interface, {"name": "Ethernet1", "src": SRC, "field_src": {"mtu": SRC}, "mtu": 9214,
                 "qos": {"pfc": {"no_drop": {3, 4}, "watchdog": {"enabled": True}},
                         "queues": {3: {"id": 3, "ecn": {"min_threshold": {
                             "value": 1.0, "unit": "mbytes", "bytes": 1 << 20}}}}},
                 "buffer_pgs": {3: {"profile": "lossless"}},  # a forward reference
                 "neighbor": {"device": "spine1", "interface": "Ethernet9"}}),
    (Interface, {"name": "Ethernet2", "qos": QosSettings(name="shared")}),  # a model kept
    (QosSettings, {"maps": {"dscp_to_tc": {26: 3}}}),  # ClassMaps | None, forward
    (AclEntry, {"action": "permit", "dscp": [26], "qualifiers": ["ttl"]}),
    (Suppression, {"rules": ["PFC001"], "file": "x.cfg", "line": 1, "start": 2, "end": 3,
                   "other": "ignored"}),  # a class that ignores unknown keys
    (Device, {"name": "leaf1", "vendor": "eos", "files": ["x.cfg"],
              "interfaces": {"Ethernet1": {"name": "Ethernet1"}}, "qos": {},
              "references": [{"kind": "qos profile", "name": "p", "owner": "o", "src": None}]}),
    (Device, {"name": "leaf2"}),  # every default factory (model classes among them)
]


@pytest.mark.parametrize(("cls", "data"), PLAIN, ids=lambda v: getattr(v, "__name__", ""))
def test_build_makes_what_validation_makes(cls: type[BaseModel], data: dict[str, Any]) -> None:
    _same(build(cls, data), cls.model_validate(data), cls.__name__)
    assert build(cls, data).model_dump_json() == cls.model_validate(data).model_dump_json()


def test_build_copies_containers_and_defaults_as_validation_does() -> None:
    data = {"name": "Ethernet1", "ip_addresses": ["10.0.0.1/31"]}
    built = build(Interface, data)
    assert built.ip_addresses == data["ip_addresses"]
    assert built.ip_addresses is not data["ip_addresses"]
    other = build(Interface, {"name": "Ethernet2"})
    assert other.qos is not built.qos and other.qos.pfc.no_drop is not built.qos.pfc.no_drop
    assert not built.qos.model_fields_set  # a default factory's object: nothing given


NOT_PLAIN: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (Threshold, {"value": 1, "unit": "bytes"}),  # an int for a float: validation converts
    (Threshold, {"value": True, "unit": "bytes"}),
    (Threshold, {"value": "1.5", "unit": "bytes"}),
    (Threshold, {"unit": "bytes"}),  # required field missing: an error
    (Interface, {"name": "Ethernet1", "kind": "bogus"}),  # not one of the literals
    (Interface, {"name": "Ethernet1", "mtu": True}),  # a bool for an int
    (Interface, {"name": "Ethernet1", "colour": "red"}),  # unknown key, forbidden
    (Interface, {"name": "Ethernet1", "src": ("x.cfg", 3)}),  # a tuple for a SourceRef
    (Interface, {"name": "Ethernet1", "field_src": {"mtu": ("x.cfg", 3)}}),
    (Interface, {"name": "Ethernet1", "qos": {"pfc": {"no_drop": [3]}}}),  # a list for a set
    (Interface, {"name": "Ethernet1", "buffer_pgs": {"3": {}}}),  # a str key for an int
    (PortMatch, {"op": "eq", "ranges": [(1, 2, 3)]}),
    (Device, {"name": "leaf1", "interfaces": {"Ethernet1": {"name": 1}}}),
    (Classification, {}),  # validators: only validation may build it
    (WatchdogPolicy, {}),
    (Policy, {}),
]


@pytest.mark.parametrize(("cls", "data"), NOT_PLAIN, ids=lambda v: getattr(v, "__name__", ""))
def test_anything_validation_may_change_or_refuse_is_left_to_it(
        cls: type[BaseModel], data: dict[str, Any]) -> None:
    with pytest.raises(NotPlain):
        build(cls, data)
    try:
        validated: BaseModel | str = cls.model_validate(data)
    except ValidationError as exc:
        validated = str(exc)
    try:
        via_made: BaseModel | str = made(cls, data)
    except ValidationError as exc:
        via_made = str(exc)
    if isinstance(validated, str):
        assert via_made == validated
    else:
        _same(via_made, validated, cls.__name__)


def _no_build(cls: type[BaseModel], data: Any) -> Any:
    raise AssertionError("built without validation")


def test_made_validates_once_the_budget_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plainbuild, "_made", [plainbuild.PLAIN_BUDGET])
    monkeypatch.setattr(plainbuild, "build", _no_build)
    _same(made(BufferAssignment, {"profile": "p"}), BufferAssignment(profile="p"), "budget")


def test_made_builds_while_the_budget_lasts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plainbuild, "_made", [0])
    monkeypatch.setattr(BufferAssignment, "__pydantic_complete__", False)
    built = made(BufferAssignment, {"profile": "p"})
    assert plainbuild._made == [1]
    _same(built, BufferAssignment.model_validate({"profile": "p"}), "budget")


# -- every EOS input, both ways ----------------------------------------------------------------


def _forced_plain(counts: dict[str, int]) -> Any:
    """``made`` that always tries ``build`` first, whatever validators this test process has
    built already, and counts what it made and what it left to validation."""

    def plain_first(cls: type[BaseModel], data: Any, validate: Any = None) -> Any:
        try:
            made_here = build(cls, data)
        except NotPlain:
            counts["validated"] += 1
            return cls.model_validate(data) if validate is None else validate(data)
        counts["plain"] += 1
        return made_here
    return plain_first


def _validating(cls: type[BaseModel], data: Any, validate: Any = None) -> Any:
    return cls.model_validate(data) if validate is None else validate(data)


def _parse_both(path: Path) -> tuple[FileOutcome, FileOutcome, dict[str, int]]:
    counts = {"plain": 0, "validated": 0}
    with pytest.MonkeyPatch.context() as patch:
        for module in (eos, units, ingest):
            patch.setattr(module, "made", _forced_plain(counts))
        built = parse_file(str(path), True)
    with pytest.MonkeyPatch.context() as patch:
        for module in (eos, units, ingest):
            patch.setattr(module, "made", _validating)
        validated = parse_file(str(path), True)
    return built, validated, counts


def _compare(path: Path) -> dict[str, int]:
    built, validated, counts = _parse_both(path)
    _same(built.input, validated.input, f"{path.name}: input")
    _same(built.devices, validated.devices, f"{path.name}: devices")
    assert [d.model_dump_json() for d in built.devices] == \
        [d.model_dump_json() for d in validated.devices]
    assert built.problems == validated.problems
    return counts


def _eos_inputs() -> list[Path]:
    found = sorted(p for p in (CORPUS / "eos").glob("*") if p.is_file())
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in (".cfg", ".conf", ".txt", "") and \
                parse_file(str(path), True).input.format == "eos":
            found.append(path)
    return found


@pytest.mark.parametrize("path", _eos_inputs(), ids=lambda p: p.name)
def test_every_eos_input_builds_what_validation_builds(path: Path) -> None:
    _compare(path)


def test_the_eos_comparison_is_not_vacuous() -> None:
    """The devices of the corpus are made by ``build``, not left to validation."""
    totals = {"plain": 0, "validated": 0}
    devices = 0
    for path in sorted((CORPUS / "eos").glob("*.cfg")):
        counts = _compare(path)
        totals = {key: totals[key] + counts[key] for key in totals}
        devices += len(parse_file(str(path), True).devices)
    assert devices >= 5
    assert totals["plain"] >= devices  # every device, its thresholds and shared port QoS
    assert totals["validated"] == 0, totals


def test_generated_switches_build_what_validation_builds(tmp_path: Path) -> None:
    gen = bench_module("gen_eos")
    gen.generate(4, tmp_path, seed=3)
    paths = sorted(tmp_path.glob("*.cfg"))
    assert paths
    for path in paths:
        counts = _compare(path)
        assert counts["plain"] > 0 and counts["validated"] == 0, counts


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=EOS_LIKE)
def test_arbitrary_eos_texts_build_what_validation_builds(text: str, tmp_path_factory:
                                                          pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("eos") / "switch.cfg"
    path.write_text("! device: leaf1 (DCS-7050, EOS-4.30)\nhostname leaf1\n" + text + "\n",
                    encoding="utf-8")
    _compare(path)
