"""Run rule cases (``fixtures/rules/<ID>.yaml``): the data behind both the tests and the docs.

A case is a small fabric written inline (file name -> text), the rule it is about, whether it is
a bad or a good example, and, for bad ones, the findings expected. Users can test their own
profiles and site rules with the same format.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from fablint.checks import REGISTRY
from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.findings import Finding
from fablint.intent import load_intent
from fablint.model import SourceRef
from fablint.profiles import load_policy
from fablint.yamlio import ConfigError, load_yaml


@dataclass
class Case:
    rule: str
    name: str
    kind: str
    """``bad`` or ``good``."""
    vendor: str
    files: dict[str, str]
    findings: list[dict[str, Any]] = field(default_factory=list)
    policy: dict[str, Any] = field(default_factory=dict)
    doc: bool = False
    description: str = ""
    source: str = ""


def case_files(folder: Path, rule_id: str | None = None) -> list[Path]:
    """Case files of one rule (or all): ``<ID>.yaml`` and per-vendor ``<ID>.<vendor>.yaml``."""
    stem = rule_id or "*"
    return sorted({*folder.glob(f"{stem}.yaml"), *folder.glob(f"{stem}.*.yaml")})


def load_cases(path: Path) -> list[Case]:
    data, _ = load_yaml(path)
    if not isinstance(data, dict) or "rule" not in data or "cases" not in data:
        raise ConfigError(f"{path}: a rule case file needs 'rule' and 'cases'")
    rule = data["rule"]
    if rule not in REGISTRY:
        raise ConfigError(f"{path}: unknown rule {rule}")
    cases = []
    for raw in data["cases"]:
        unknown = set(raw) - {"name", "kind", "vendor", "files", "findings", "policy", "doc",
                              "description"}
        if unknown:
            raise ConfigError(f"{path}: case {raw.get('name')}: unknown keys {sorted(unknown)}")
        if raw.get("kind") not in ("bad", "good"):
            raise ConfigError(f"{path}: case {raw.get('name')}: kind must be bad or good")
        cases.append(Case(
            rule=rule, name=raw["name"], kind=raw["kind"], vendor=raw.get("vendor", "eos"),
            files=raw["files"], findings=raw.get("findings", []), policy=raw.get("policy", {}),
            doc=bool(raw.get("doc", False)), description=raw.get("description", ""),
            source=str(path),
        ))
    return cases


INTENT_FILE = "intent.yaml"
"""A case file of this name is the intended topology (``--intent``), not an input."""


def run_case(case: Case, workdir: Path | None = None) -> LintResult:
    """Lint the case's files with every rule and the default profile plus the case's policy."""
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as aside:
        root = workdir or Path(tmp)
        intent = None
        for name, text in case.files.items():
            if name == INTENT_FILE:  # the intended topology is an option, not an input
                path = Path(aside) / name
                path.write_text(text, encoding="utf-8")
                intent = load_intent(path)
                continue
            (root / name).write_text(text, encoding="utf-8")
        policy = load_policy("default", case.policy)
        options = LintOptions(paths=[str(root)], config=ProjectConfig(), policy=policy, jobs=1,
                              intent=intent)
        result = lint(options)
        for finding in result.findings:
            if finding.file:
                finding.file = Path(finding.file).name
        return result


def findings_of(result: LintResult, rule: str) -> list[Finding]:
    return [f for f in result.findings if f.rule == rule]


def mismatches(case: Case, result: LintResult) -> list[str]:
    """What differs between the case's expectations and the result (empty: the case holds)."""
    parse_rule = REGISTRY[case.rule].category == "parse"
    problems = [] if parse_rule else [
        f"parse problem {p.file}:{p.line}: {p.message}" for p in result.fabric.problems
    ]
    got = findings_of(result, case.rule)
    if case.kind == "good":
        out = [f"unexpected {f.rule} at {f.file}:{f.line}: {f.message}" for f in got]
        if case.doc:
            out += [f"published good example is not clean: {f.rule} {f.file}:{f.line} {f.message}"
                    for f in result.findings if f.rule != case.rule]
        return out + problems
    out = []
    if not case.findings:
        out.append("a bad case must list the findings it expects")
    remaining = list(got)
    for expected in case.findings:
        match = next((f for f in remaining if _matches(f, expected)), None)
        if match is None:
            out.append(f"expected finding not produced: {expected}")
        else:
            remaining.remove(match)
    out += [f"unexpected {f.rule} at {f.file}:{f.line} ({f.object}): {f.message}"
            for f in remaining]
    return out + problems


def _matches(finding: Finding, expected: dict[str, Any]) -> bool:
    for key, value in expected.items():
        if key == "message":
            if str(value) not in finding.message:
                return False
        elif key == "fix":
            if (finding.fix or "").strip() != str(value).strip():
                return False
        elif key == "places":
            # the objects a grouped finding names, in order (each has its file and line)
            if [p.object for p in finding.places] != list(value):
                return False
        elif key == "consequences":
            # the findings folded into this one, as "RULE object"
            if [f"{c.rule} {c.object}" for c in finding.consequences] != list(value):
                return False
        elif key == "severity":
            if finding.severity.value != value:
                return False
        elif getattr(finding, key) != value:
            return False
    return True


def source_refs(value: Any) -> list[SourceRef]:
    """Every SourceRef in a model, however deeply nested (tests check where each points)."""
    if isinstance(value, SourceRef):
        return [value]
    if isinstance(value, BaseModel):
        return [r for name in type(value).model_fields for r in source_refs(getattr(value, name))]
    if isinstance(value, dict):
        return [r for item in value.values() for r in source_refs(item)]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [r for item in value for r in source_refs(item)]
    return []
