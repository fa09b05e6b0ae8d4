"""Machine-readable report. Its schema is versioned and published (docs/json-report.schema.json)."""

from __future__ import annotations

import json
from typing import Any

from fablint.engine import LintResult
from fablint.report.common import TOOL_NAME, summary, version

SCHEMA_VERSION = "1"


def document(result: LintResult) -> dict[str, Any]:
    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": version()},
        "findings": [
            {
                "rule": f.rule,
                "name": f.name,
                "severity": f.severity.value,
                "category": f.category,
                "device": f.device,
                "object": f.object,
                "file": f.file,
                "line": f.line,
                "message": f.message,
                "fix": f.fix,
                "fingerprint": f.fingerprint(),
            }
            for f in result.findings
        ],
        "summary": summary(result),
        "errors": [
            {"file": p.file, "line": p.line, "message": p.message, "kind": p.kind}
            for p in result.errors
        ],
    }


def render(result: LintResult) -> str:
    return json.dumps(document(result), indent=2) + "\n"
