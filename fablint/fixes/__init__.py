"""Render a rule's vendor-neutral fix intent in the device's own syntax."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

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
    if renderer is None:
        return None
    ports = intent.params.get("interfaces")
    if intent.action in PER_PORT and ports and len(ports) > 1 and not intent.params.get(
            "profile"):
        return _each_port(vendor, renderer, intent, ports)
    return renderer(intent)


PER_PORT = frozenset({"mtu-set", "pfc-enable", "pfc-mode-on", "apply-profile"})
"""Fixes that renderers write for one port: a finding that groups ports (``interfaces``)
gets the change on each of them, device-wide parts once."""


def _each_port(vendor: str, renderer: Renderer, intent: FixIntent,
               ports: list[str]) -> str | None:
    texts = [t for port in ports if (t := renderer(FixIntent(
        intent.action, {**intent.params, "interface": port, "interfaces": None})))]
    if not texts:
        return None
    if vendor == "sonic":  # config_db fragments: one merged patch
        merged: dict[str, Any] = {}
        for text in texts:
            _merge(merged, json.loads(text))
        return json.dumps(merged, indent=2)
    # Indented configurations: the top-level blocks in order, a block the ports share (a
    # network-qos policy, a device-wide line) once.
    blocks: dict[str, None] = {}
    for text in texts:
        block: list[str] = []
        for line in text.splitlines():
            if block and not line.startswith((" ", "\t")):
                blocks.setdefault("\n".join(block))
                block = []
            block.append(line)
        if block:
            blocks.setdefault("\n".join(block))
    return "\n".join(blocks)


def _merge(into: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def attach_fixes(findings: Iterable[Finding], lines_of: Callable[[str], Sequence[str]]) -> None:
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
