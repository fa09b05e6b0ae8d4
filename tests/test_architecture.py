"""Structure the project promises: one-way data flow, and rules that only read the model."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fablint.checks import REGISTRY
from fablint.policy import Policy
from tests.conftest import REPO

PACKAGE = REPO / "fablint"
RULE_MODULE_IMPORTS = {
    "fablint.model", "fablint.policy", "fablint.findings", "fablint.checks",
    "fablint.checks.base",
}
STDLIB_OK = {"__future__", "collections", "collections.abc", "dataclasses", "itertools", "re",
             "typing", "math", "enum", "functools", "operator"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize(
    "module", sorted((PACKAGE / "checks").glob("*.py")), ids=lambda p: p.name
)
def test_rules_import_only_the_model_and_their_config(module: Path) -> None:
    allowed = RULE_MODULE_IMPORTS | STDLIB_OK
    extra = {
        name for name in _imports(module)
        if name not in allowed and not name.startswith("fablint.checks.")
    }
    assert not extra, f"{module.name} imports {sorted(extra)}; rules read only model and policy"


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [
        ("model.py", ("fablint.parsers", "fablint.checks", "fablint.report", "fablint.engine")),
        ("policy.py", ("fablint.parsers", "fablint.checks", "fablint.report", "fablint.engine")),
        ("parsers", ("fablint.checks", "fablint.report", "fablint.engine", "fablint.fixes")),
        ("fixes", ("fablint.parsers", "fablint.report", "fablint.engine")),
        ("report", ("fablint.parsers",)),
    ],
)
def test_data_flows_one_way(layer: str, forbidden: tuple[str, ...]) -> None:
    target = PACKAGE / layer
    files = [target] if target.is_file() else sorted(target.glob("*.py"))
    for path in files:
        bad = {n for n in _imports(path) if n.startswith(forbidden)}
        assert not bad, f"{path.relative_to(REPO)} imports {sorted(bad)}"


def test_no_eval_or_unsafe_loading_anywhere() -> None:
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("eval", "exec"), f"{path}: {node.func.id}()"
        text = path.read_text(encoding="utf-8")
        assert "pickle.load" not in text and 'typ="unsafe"' not in text, path


@pytest.mark.parametrize("rule_id", sorted(REGISTRY))
def test_rule_metadata_and_docstring(rule_id: str) -> None:
    rule = REGISTRY[rule_id]
    doc = rule.doc()
    for heading in ("## What it checks", "## Why it matters", "## How to fix"):
        assert heading in doc, f"{rule_id} docstring lacks '{heading}'"
    assert doc.index("## What it checks") < doc.index("## Why it matters") < doc.index(
        "## How to fix")
    assert rule.title and len(rule.title) < 80
    for setting in getattr(rule, "settings", ()):
        section, _, key = setting.partition(".")
        assert key in Policy.model_fields[section].annotation.model_fields, setting


@pytest.mark.parametrize("rule_id", sorted(REGISTRY))
def test_every_rule_has_a_docs_page(rule_id: str) -> None:
    page = REPO / "docs" / "rules" / f"{rule_id}.md"
    assert page.is_file(), f"missing {page}"
    text = page.read_text(encoding="utf-8")
    assert text.startswith(f"# {rule_id} ")
