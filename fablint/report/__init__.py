"""Reporters: each renders a LintResult in one output format. They never decide anything.

A reporter's module is imported when its format is first asked for: a run renders one format,
and importing them all would add to the start-up of every run (``tests/test_startup.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fablint.engine import LintResult

Reporter = Callable[["LintResult"], str]

_MODULES = {
    "text": "text",
    "json": "json_report",
    "sarif": "sarif",
    "junit": "junit",
    "github": "github",
    "gitlab": "gitlab",
    "concise": "concise",
    "markdown": "markdown",
}
"""Format name -> the module of fablint.report whose ``render`` writes it."""


class _Reporters(Mapping[str, Reporter]):
    """Format name -> render function, importing the reporter on first use."""

    def __getitem__(self, name: str) -> Reporter:
        render: Reporter = import_module(f"fablint.report.{_MODULES[name]}").render
        return render

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)


REPORTERS: Mapping[str, Reporter] = _Reporters()

__all__ = ["REPORTERS", "Reporter"]
