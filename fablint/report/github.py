"""GitHub Actions workflow commands: annotations on the pull request's files."""

from __future__ import annotations

from fablint.engine import LintResult

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render(result: LintResult) -> str:
    lines = []
    for f in result.findings:
        props = []
        if f.file:
            props.append(f"file={_escape_property(f.file)}")
        if f.line:
            props.append(f"line={f.line}")
        props.append(f"title={_escape_property(f'{f.rule} {f.name}')}")
        message = f.message if not f.device else f"{f.device}: {f.message}"
        lines.append(f"::{LEVELS[f.severity.value]} {','.join(props)}::{_escape_data(message)}")
    return "\n".join(lines) + ("\n" if lines else "")
