"""Fixes that are a pure text change: one configuration line replaced in place.

SARIF ``fixes`` (and editors that apply them) need an exact edit, not a snippet to paste. Only
the safe case is offered: the finding points at a line of an indented CLI configuration, and the
fix sets the same command with a different value (``mtu 1500`` -> ``mtu 9214``, ``qos trust cos``
-> ``qos trust dscp``, ``no priority-flow-control pause watchdog`` -> ``priority-flow-control
pause watchdog``). Anything else (new blocks, several lines, JSON patches) stays a snippet.
"""

from __future__ import annotations

from fablint.findings import LineEdit

LINE_EDIT_VENDORS = ("eos", "nxos")
"""Indented CLI configurations, where one line is one complete setting."""


def _same_setting(old: list[str], new: list[str]) -> bool:
    """Do two commands set the same thing (differing only in the value they give it)?"""
    if old[:1] == ["no"] and old[1:] == new:
        return True  # 'no X' -> 'X': switch a disabled setting back on
    if len(old) != len(new) or len(old) < 2 or "no" in (old[0], new[0]):
        return False
    return old[:-1] == new[:-1] and old[-1] != new[-1]


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def line_edit(vendor: str | None, fix: str | None, line: int | None,
              old_text: str | None) -> LineEdit | None:
    """The fix as a one-line replacement of ``old_text`` (line ``line``), or None."""
    if vendor not in LINE_EDIT_VENDORS or not fix or not line or old_text is None:
        return None
    old_words = old_text.split()
    if not old_words or old_words[0].startswith(("!", "#")):
        return None
    fix_lines = [text for text in fix.splitlines() if text.strip()]
    candidates = [text for text in fix_lines if _same_setting(old_words, text.split())]
    if len(candidates) != 1:
        return None
    # At most one other line, first and less indented: the block header (interface, profile)
    # the old line already sits in. Then replacing the one line is the whole fix.
    setting = candidates[0]
    others = [text for text in fix_lines if text is not setting]
    if others and (len(others) > 1 or fix_lines[0] is not others[0]
                   or _indent(others[0]) >= _indent(setting)):
        return None
    indent = old_text[: _indent(old_text)]
    return LineEdit(line=line, old=old_text.rstrip("\r\n"), new=indent + setting.strip())
