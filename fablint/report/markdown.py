"""A Markdown summary for pull-request comments and ``$GITHUB_STEP_SUMMARY``: counts first,
then a table of findings (bounded, so a flood does not bury the page), fixes folded away."""

from __future__ import annotations

from collections import Counter

from fablint.engine import LintResult
from fablint.report.text import plain_summary

MAX_ROWS = 200
ICONS = {"error": "🔴", "warning": "🟡", "info": "🔵"}


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render(result: LintResult) -> str:
    out = ["## fablint", "", plain_summary(result), ""]
    if result.findings:
        by_rule = Counter(f.rule for f in result.findings)
        out += ["| Rule | Findings |", "|---|---:|"]
        out += [f"| {rule} | {n} |" for rule, n in sorted(by_rule.items())]
        out += ["", "| | Rule | Where | Device | Message |", "|---|---|---|---|---|"]
        for f in result.findings[:MAX_ROWS]:
            where = f"`{f.file}:{f.line}`" if f.file and f.line else f"`{f.file or '-'}`"
            out.append(f"| {ICONS[f.severity.value]} | {f.rule} | {where} | "
                       f"{_cell(f.device or '')} | {_cell(f.message)} |")
        if len(result.findings) > MAX_ROWS:
            out.append(f"\n… and {len(result.findings) - MAX_ROWS} more findings "
                       "(see the full report).")
        fixes = [f for f in result.findings[:MAX_ROWS] if f.fix]
        if fixes:
            out += ["", "<details><summary>Fixes</summary>", ""]
            for f in fixes:
                out += [f"**{f.rule}** `{f.file}:{f.line}` {_cell(f.device or '')}", "",
                        "```", f.fix, "```", ""]
            out.append("</details>")
    return "\n".join(out) + "\n"
