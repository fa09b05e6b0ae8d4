"""The JSON report is built as plain data and written by its own encoder: both must give
exactly what validating it as ``JsonReport`` and ``json.dumps(indent=2)`` give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.findings import Consequence, LineEdit, Place
from fablint.profiles import load_policy
from fablint.report.json_report import JsonReport, document, dumps

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[LintResult]:
    """Findings of every kind the report shows: fixes, one-line edits, grouped places,
    consequences, unreadable inputs, non-ASCII text."""
    damaged = tmp_path_factory.mktemp("damaged")
    (damaged / "config_db.json").write_text('{"PORT": {"Ethernet0": {"mtu": "9100"}', "utf-8")
    (damaged / "leaf-é.cfg").write_text("hostname leaf-é\ninterface Ethernet1\n   mtu 1500\n",
                                        "utf-8")
    out = []
    for paths, profile in (([REPO / "fixtures" / "demo"], "default"),
                           ([REPO / "fixtures" / "reference"], "cisco-nexus-ai"),
                           ([damaged], "default")):
        out.append(lint(LintOptions(paths=[str(p) for p in paths], config=ProjectConfig(),
                                    policy=load_policy(profile), jobs=1)))
    first = out[0].findings[0]  # make sure each optional part is there at least once
    first.edit = first.edit or LineEdit(line=1, old="a \"quoted\"\tline", new="b")
    first.places = first.places or [Place("Ethernet1", "x.cfg", 3), Place("Ethernet2")]
    first.consequences = first.consequences or [Consequence("PFC001", "Ethernet1", "ü")]
    return out


def test_the_document_is_what_validation_gives(results: list[LintResult]) -> None:
    for result in results:
        doc = document(result)
        assert doc["findings"], "no findings to compare"
        assert JsonReport.model_validate(doc).model_dump(mode="json") == doc
        assert json.dumps(JsonReport.model_validate(doc).model_dump(mode="json"),
                          indent=2) == dumps(doc)
    assert any(f["edit"] for r in results for f in document(r)["findings"])
    assert any(f["places"] for r in results for f in document(r)["findings"])
    assert any(f["consequences"] for r in results for f in document(r)["findings"])
    assert any(r.errors for r in results)


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text()),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=5), inner, max_size=4),
                            st.tuples(inner, inner)),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(_json)
def test_dumps_is_json_dumps_with_an_indent_of_two(value: Any) -> None:
    assert dumps(value) == json.dumps(value, indent=2)


@pytest.mark.parametrize("key", [1, 2.5, None, True, False])
def test_keys_that_are_not_strings(key: object) -> None:
    value = {key: [1, {"a": key}], "b": []}
    assert dumps(value) == json.dumps(value, indent=2)
