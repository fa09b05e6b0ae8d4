"""Render a rule's vendor-neutral fix intent in the device's own syntax."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fablint.findings import Finding, FixIntent
from fablint.fixes import eos, host, ib, nxos, opensm, sonic
from fablint.fixes.edits import LINE_EDIT_VENDORS, line_edit

Renderer = Callable[[FixIntent], str | None]

RENDERERS: dict[str, Renderer] = {"eos": eos.render, "nxos": nxos.render,
                                  "sonic": sonic.render, "opensm": opensm.render}
RENDERERS["host"] = host.render  # GPU host NICs: shell commands (fablint/fixes/host.py)
RENDERERS["ib"] = ib.render  # InfiniBand dumps: what to do at the rack (fablint/fixes/ib.py)


def render_fix(vendor: str | None, intent: FixIntent | None) -> str | None:
    """The fix as configuration text for ``vendor``, or None when there is no renderer."""
    if intent is None or vendor is None:
        return None
    renderer = RENDERERS.get(vendor)
    return renderer(intent) if renderer else None


def attach_fixes(findings: Iterable[Finding], lines_of: Callable[[str], list[str]]) -> None:
    """Render each finding's fix, and its in-place line edit where the fix is that simple.

    ``lines_of(file)`` gives a file's lines (as the parsers numbered them) and is only called
    for files with a candidate edit.
    """
    for finding in findings:
        finding.fix = render_fix(finding.vendor, finding.intent)
        if finding.fix and finding.line and finding.file and finding.vendor in LINE_EDIT_VENDORS:
            lines = lines_of(finding.file)
            old = lines[finding.line - 1] if finding.line <= len(lines) else None
            finding.edit = line_edit(finding.vendor, finding.fix, finding.line, old)
