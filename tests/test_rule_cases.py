"""Every rule case in fixtures/rules runs here: the same data the rule pages publish."""

from __future__ import annotations

import pytest

from fablint.checks import REGISTRY
from fablint.testing import Case, case_files, load_cases, mismatches, run_case
from tests.conftest import FIXTURES

CASE_FILES = case_files(FIXTURES / "rules")
CASES: list[Case] = [case for path in CASE_FILES for case in load_cases(path)]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.rule}-{c.kind}-{c.name}" for c in CASES])
def test_rule_case(case: Case) -> None:
    result = run_case(case)
    assert mismatches(case, result) == []


@pytest.mark.parametrize("rule_id", sorted(REGISTRY))
def test_every_rule_has_published_good_and_bad_examples(rule_id: str) -> None:
    mine = [c for c in CASES if c.rule == rule_id]
    kinds = {c.kind for c in mine if c.doc}
    assert kinds == {"good", "bad"}, f"{rule_id} needs a doc: true good and bad case"


def test_case_names_are_unique() -> None:
    keys = [(c.rule, c.name) for c in CASES]
    assert len(keys) == len(set(keys))


def test_a_roce_header_drop_is_reported_by_acl002_only() -> None:
    """A SONiC rule dropping CNPs by BTH opcode is ACL002's; ACL001 does not repeat it."""
    cases = [c for c in CASES if c.rule == "ACL002" and c.kind == "bad"]
    assert cases
    for case in cases:
        rules = {f.rule for f in run_case(case).findings}
        assert "ACL002" in rules and "ACL001" not in rules, case.name
