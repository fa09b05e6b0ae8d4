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
