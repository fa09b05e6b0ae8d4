"""GitLab Code Quality report: the JSON array GitLab shows in merge requests.

Fields as GitLab documents them (``description``, ``check_name``, ``fingerprint``, ``severity``,
``location.path``, ``location.lines.begin``); severities are GitLab's five words.
"""

from __future__ import annotations

import json

from fablint.engine import LintResult

SEVERITIES = {"error": "major", "warning": "minor", "info": "info"}


def render(result: LintResult) -> str:
    issues = []
    for f in result.findings:
        issues.append({
            "description": f"{f.device}: {f.message}" if f.device else f.message,
            "check_name": f.rule,
            "fingerprint": f.fingerprint(),
            "severity": SEVERITIES[f.severity.value],
            "categories": [f.category],
            "location": {"path": f.file or ".", "lines": {"begin": f.line or 1}},
        })
    return json.dumps(issues, indent=2) + "\n"

