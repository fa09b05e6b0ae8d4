"""Inline suppression comments (``! fablint: disable=PFC001 reason``) in formats with comments."""

from __future__ import annotations

import re
from dataclasses import dataclass

_DIRECTIVE = re.compile(
    r"^fablint:\s*(?P<verb>[A-Za-z-]+)"
    r"(?:\s*=\s*(?P<rules>[A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*))?"
    r"(?:\s+(?P<reason>.*))?$"
)
VERBS = ("disable", "disable-file")


@dataclass
class Directive:
    scope: str
    """``next`` (the next line or block) or ``file``."""
    rules: list[str]
    reason: str | None


def parse_directive(comment: str) -> Directive | str | None:
    """Parse the text of a comment after its marker (``!``, ``#``).

    Returns a Directive, an error message for a malformed ``fablint:`` comment, or None when the
    comment is not meant for fablint.
    """
    text = comment.strip()
    if not text.startswith("fablint:"):
        return None
    match = _DIRECTIVE.match(text)
    if not match or match["verb"] not in VERBS:
        return f"malformed fablint directive; expected 'fablint: {VERBS[0]}=RULE[,RULE] [reason]'"
    rules = [r.strip() for r in match["rules"].split(",")] if match["rules"] else []
    reason = (match["reason"] or "").strip(" -") or None
    return Directive(
        scope="file" if match["verb"] == "disable-file" else "next", rules=rules, reason=reason
    )


class SuppressionTracker:
    """Turns the ``fablint:`` comments of an indented config into suppression ranges.

    A ``disable`` covers the next line and every line indented under it; ``disable-file`` the
    whole file. Shared by the line-oriented parsers (EOS, NX-OS). ``busy`` is a plain attribute
    so that the per-line check in a parser's hot loop costs one attribute read.
    """

    __slots__ = ("_open", "_pending", "busy", "path", "suppressions")

    def __init__(self, path: str) -> None:
        self.path = path
        self.suppressions: list[dict[str, object]] = []
        self._pending: list[tuple[int, Directive]] = []
        self._open: list[tuple[dict[str, object], int]] = []
        self.busy = False

    def comment(self, text: str, lineno: int) -> str | None:
        """Take a comment's text; returns an error message for a malformed directive."""
        parsed = parse_directive(text)
        if parsed is None:
            return None
        if isinstance(parsed, str):
            return parsed
        if parsed.scope == "file":
            self.suppressions.append(self._range(parsed, lineno, 1, lineno))
        else:
            self._pending.append((lineno, parsed))
            self.busy = True
        return None

    def line(self, indent: int, lineno: int) -> None:
        """A configuration line: extend the open ranges it is indented under, start pending."""
        for item in list(self._open):
            if indent > item[1]:
                item[0]["end"] = lineno
            else:
                self._open.remove(item)
        for at, directive in self._pending:
            supp = self._range(directive, at, lineno, lineno)
            self.suppressions.append(supp)
            self._open.append((supp, indent))
        self._pending.clear()
        self.busy = bool(self._open)

    def finish(self) -> list[dict[str, object]]:
        """All suppressions; a directive with nothing after it covers nothing."""
        for at, directive in self._pending:
            self.suppressions.append(self._range(directive, at, at, at))
        self._pending.clear()
        return self.suppressions

    def _range(self, directive: Directive, at: int, start: int, end: int) -> dict[str, object]:
        return {"rules": directive.rules, "file": self.path, "line": at, "start": start,
                "end": end, "scope": directive.scope, "reason": directive.reason}
