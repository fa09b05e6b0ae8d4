"""The SONiC parser builds its most numerous objects (references, queues, buffer assignments)
without pydantic validation (``sonic._Trusted``, for speed). These tests parse every SONiC input
there is (the corpus, the fixtures, generated switches, hypothesis documents) both ways and
require the very same objects: types, field order, values, defaults and the set of fields
given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from fablint.model import BufferAssignment, Queue, Reference
from fablint.parsers import sonic
from fablint.parsers.base import ParseError, ParseResult
from tests.conftest import CORPUS, FIXTURES, bench_module
from tests.test_ib_construct import _same
from tests.test_sonic_parser_properties import DOCUMENTS

TRUSTED = {"_REFERENCE": Reference, "_QUEUE": Queue, "_ASSIGNMENT": BufferAssignment}


def _parse(docs: list[tuple[str, str]]) -> ParseResult | str:
    try:
        return sonic.SonicParser().parse_documents(docs)
    except ParseError as exc:
        return str(exc)


def _both(docs: list[tuple[str, str]]) -> ParseResult | None:
    """Parse ``docs`` as the parser does and with every object validated; they must agree."""
    built = _parse(docs)
    with pytest.MonkeyPatch.context() as patch:
        for name, cls in TRUSTED.items():
            patch.setattr(sonic, name, cls.model_validate)
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
    ECN, buffer assignments naming a profile and dynamic ones, and a folder of one device's
    files that merges."""
    seen: set[str] = set()
    for path in _inputs():
        result = _both([(path.read_text(encoding="utf-8", errors="replace"), str(path))])
        for device in result.devices if result is not None else []:
            seen |= {f"resolved {r.resolved}" for r in device.references}
            for iface in device.interfaces.values():
                seen |= {f"ecn {q.ecn is not None}" for q in iface.qos.queues.values()}
                seen |= {f"dynamic {a.dynamic}" for a in [*iface.buffer_pgs.values(),
                                                          *iface.buffer_queues.values()]}
    assert seen == {"resolved True", "resolved False", "ecn True", "ecn False",
                    "dynamic True", "dynamic False"}
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
