"""One line per finding, ``path:line:col: RULE [severity] message``, as compilers and ruff print
them: editors, terminals and ``grep`` turn each into a link to the line."""

from __future__ import annotations

from fablint.engine import LintResult
from fablint.report.text import plain_summary


def render(result: LintResult) -> str:
    lines = []
    for f in result.findings:
        where = f"{f.file or '(fabric)'}:{f.line or 1}:1"
        who = f"{f.device}: " if f.device and not f.message.startswith(f"{f.device} ") else ""
        message = " ".join(f.message.split())  # one physical line, whatever the message holds
        lines.append(f"{where}: {f.rule} [{f.severity.value}] {who}{message}")
    lines.append(plain_summary(result))
    return "\n".join(lines) + "\n"
