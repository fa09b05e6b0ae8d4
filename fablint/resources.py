"""Where the data files that ship with fablint live: packaged, or in the source tree."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_SOURCE_ROOT = _PACKAGE.parent


def _pick(packaged: str, source: str) -> Path:
    """The wheel carries the files under ``fablint/_data``; a checkout keeps them at the top."""
    inside = _PACKAGE / "_data" / packaged
    if inside.is_dir():
        return inside
    return _SOURCE_ROOT / source


def profiles_dir() -> Path:
    return _pick("profiles", "rules")


def rule_docs_dir() -> Path:
    return _pick("rules-docs", "docs/rules")
