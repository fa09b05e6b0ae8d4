"""Overlaying one model object on another: a port's own settings on the profile it applies."""

from __future__ import annotations

from typing import Any, TypeVar

from fablint.model import Located, Pfc

L = TypeVar("L", bound=Located)


def overlay(base: L, top: L) -> L:
    """A new object: ``base`` with every field that ``top`` configured taken from ``top``.

    "Configured" is what ``field_src`` records, so defaults in ``top`` never hide ``base``.
    Nested objects merge field by field, dicts of objects key by key, lists concatenate.
    Leaves of ``base`` that ``top`` does not touch are shared, not copied: the merged object
    must be treated as read-only except for the nested objects this function creates.
    """
    values: dict[str, Any] = {}
    configured = top.field_src
    for name, value in top.__dict__.items():
        if name in ("src", "field_src"):
            continue
        mine = base.__dict__[name]
        if isinstance(value, Located) and isinstance(mine, Located):
            values[name] = overlay(mine, value)
        elif isinstance(value, dict) and isinstance(mine, dict):
            if value:
                merged = dict(mine)
                for key, item in value.items():
                    old = merged.get(key)
                    both = isinstance(item, Located) and isinstance(old, Located)
                    merged[key] = overlay(old, item) if both else item
                values[name] = merged
        elif isinstance(value, list) and isinstance(mine, list):
            if value:
                values[name] = [*mine, *value]
        elif name in configured:
            values[name] = value
    if isinstance(top, Pfc) and isinstance(base, Pfc):
        # Per-priority settings are separate commands: the port's win priority by priority.
        values["no_drop"] = (base.no_drop - top.drop) | top.no_drop
        values["drop"] = (base.drop - top.no_drop) | top.drop
    values["field_src"] = {**base.field_src, **configured}
    values["src"] = top.src or base.src
    return base.model_copy(update=values)
