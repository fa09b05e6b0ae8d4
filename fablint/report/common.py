"""Small helpers shared by reporters."""

from __future__ import annotations

from fablint import __version__
from fablint.engine import LintResult

TOOL_NAME = "fablint"
TOOL_URI = "https://github.com/fablint/fablint"
DOCS_URL = f"{TOOL_URI}/blob/main/docs/rules/"


def summary(result: LintResult) -> dict[str, object]:
    counts = result.counts()
    by_rule: dict[str, int] = {}
    for finding in result.findings:
        by_rule[finding.rule] = by_rule.get(finding.rule, 0) + 1
    return {
        "errors": counts.get("error", 0),
        "warnings": counts.get("warning", 0),
        "infos": counts.get("info", 0),
        "total": len(result.findings),
        "suppressed": result.suppressed,
        "baselined": result.baselined,
        "baseline_stale": result.baseline_stale,
        "files": len(result.fabric.inputs),
        "devices": len({name for i in result.fabric.inputs for name in i.devices}),
        "ib_nodes": sum(i.ib_nodes for i in result.fabric.inputs),
        "unparsed_files": len({p.file for p in result.errors}),
        "by_rule": dict(sorted(by_rule.items())),
        "exit_code": result.exit_code,
    }


def version() -> str:
    return __version__
