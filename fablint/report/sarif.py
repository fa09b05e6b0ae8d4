"""SARIF 2.1.0 for code-scanning dashboards (GitHub, GitLab, Azure DevOps)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from fablint.checks import REGISTRY
from fablint.engine import LintResult
from fablint.findings import Finding
from fablint.report.common import DOCS_URL, TOOL_NAME, TOOL_URI, version

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str) -> tuple[str, bool]:
    """A repository-relative URI when the file is under the working folder, else absolute."""
    return _uri_from(path, str(Path.cwd()))


@lru_cache(maxsize=4096)
def _uri_from(path: str, cwd: str) -> tuple[str, bool]:
    # Resolving is a few system calls, and a file has many findings.
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(Path(cwd).resolve()).as_posix(), True
    except ValueError:
        return resolved.as_uri(), False


def _rule_descriptor(rule_id: str, docs_url: str) -> dict[str, Any]:
    rule = REGISTRY[rule_id]
    doc = rule.doc()
    first = doc.split("\n", 1)[0]
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": first},
        "helpUri": f"{docs_url}{rule.id}.md",
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": LEVELS[rule.severity.value]},
        "properties": {"category": rule.category, "tags": [rule.category, "fablint"]},
    }


def _result(finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": index[finding.rule],
        "level": LEVELS[finding.severity.value],
        "message": {"text": finding.message},
        "partialFingerprints": {"fablint/v1": finding.fingerprint()},
        "properties": {"category": finding.category},
    }
    location: dict[str, Any] = {}
    if finding.file:
        uri, relative = _uri(finding.file)
        artifact: dict[str, Any] = {"uri": uri}
        if relative:
            artifact["uriBaseId"] = "%SRCROOT%"
        physical: dict[str, Any] = {"artifactLocation": artifact}
        if finding.line:
            physical["region"] = {"startLine": finding.line}
        location["physicalLocation"] = physical
    if finding.device:
        name = finding.device if not finding.object else f"{finding.device}/{finding.object}"
        location["logicalLocations"] = [
            {"name": finding.object or finding.device, "fullyQualifiedName": name,
             "kind": "object"}
        ]
    if location:
        result["locations"] = [location]
    related = [_related(n, ref.file, ref.line) for n, ref in enumerate(finding.related)]
    # Every object of a grouped finding (the ports sharing one cause), each where it is
    # configured and named, after the finding's other related places.
    for place in finding.places:
        item = _related(len(related), place.file, place.line)
        item["message"] = {"text": place.object}
        if finding.device:
            item["logicalLocations"] = [{
                "name": place.object, "kind": "object",
                "fullyQualifiedName": f"{finding.device}/{place.object}"}]
        related.append(item)
    if related:
        result["relatedLocations"] = related
    if finding.consequences:
        result["properties"]["consequences"] = [
            {"rule": c.rule, "object": c.object, "message": c.message}
            for c in finding.consequences]
    if finding.device:
        result["properties"]["device"] = finding.device
    if finding.fix:
        result["properties"]["fix"] = finding.fix
    if finding.edit and finding.file:
        result["fixes"] = [_fix(finding)]
    return result


def _related(n: int, file: str | None, line: int | None) -> dict[str, Any]:
    """A SARIF related location: a place in a file (or only an id, without one)."""
    item: dict[str, Any] = {"id": n}
    if file:
        uri, relative = _uri(file)
        physical: dict[str, Any] = {
            "artifactLocation": {"uri": uri, **({"uriBaseId": "%SRCROOT%"} if relative else {})}}
        if line:
            physical["region"] = {"startLine": line}
        item["physicalLocation"] = physical
    return item


def _fix(finding: Finding) -> dict[str, Any]:
    """A SARIF fix: the one line the finding points at, replaced (a pure text change)."""
    assert finding.edit is not None and finding.file is not None
    edit = finding.edit
    uri, relative = _uri(finding.file)
    artifact: dict[str, Any] = {"uri": uri, **({"uriBaseId": "%SRCROOT%"} if relative else {})}
    return {
        "description": {"text": f"Replace '{edit.old.strip()}' with '{edit.new.strip()}'"},
        "artifactChanges": [{
            "artifactLocation": artifact,
            "replacements": [{
                "deletedRegion": {"startLine": edit.line, "startColumn": 1,
                                  "endLine": edit.line, "endColumn": len(edit.old) + 1},
                "insertedContent": {"text": edit.new},
            }],
        }],
    }


def document(result: LintResult, docs_url: str = DOCS_URL) -> dict[str, Any]:
    rule_ids = sorted({r.id for r in result.rules} | {f.rule for f in result.findings})
    index = {rule_id: n for n, rule_id in enumerate(rule_ids)}
    notifications = [
        {
            "level": "error",
            "message": {"text": f"{p.file}: {p.message}"},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(p.file)[0]},
                **({"region": {"startLine": p.line}} if p.line else {}),
            }}],
        }
        for p in result.errors
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": TOOL_NAME,
                "version": version(),
                "semanticVersion": version(),
                "informationUri": TOOL_URI,
                "rules": [_rule_descriptor(rule_id, docs_url) for rule_id in rule_ids],
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
            "invocations": [{
                "executionSuccessful": not result.errors,
                "toolExecutionNotifications": notifications,
            }],
            "results": [_result(f, index) for f in result.findings],
        }],
    }


def render(result: LintResult, docs_url: str = DOCS_URL) -> str:
    return json.dumps(document(result, docs_url), indent=2) + "\n"
