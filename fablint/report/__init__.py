"""Reporters: each renders a LintResult in one output format. They never decide anything."""

from __future__ import annotations

from collections.abc import Callable

from fablint.engine import LintResult
from fablint.report import concise, github, gitlab, json_report, junit, markdown, sarif, text

Reporter = Callable[[LintResult], str]

REPORTERS: dict[str, Reporter] = {
    "text": text.render,
    "json": json_report.render,
    "sarif": sarif.render,
    "junit": junit.render,
    "github": github.render,
    "gitlab": gitlab.render,
    "concise": concise.render,
    "markdown": markdown.render,
}

__all__ = ["REPORTERS", "Reporter"]
