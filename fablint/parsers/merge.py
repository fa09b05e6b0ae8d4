"""Overlaying one model object on another: a port's own settings on the profile it applies."""

from __future__ import annotations

from typing import TypeVar

from fablint.model import Located, Pfc

L = TypeVar("L", bound=Located)


def overlay(base: L, top: L) -> L:
    """A copy of ``base`` with every field that ``top`` configured taken from ``top``.

    "Configured" is what ``field_src`` records, so defaults in ``top`` never hide ``base``.
    Nested objects merge field by field, dicts of objects key by key, lists concatenate.
    """
    result = base.model_copy(deep=True)
    for name in type(top).model_fields:
        if name in ("src", "field_src"):
            continue
        value = getattr(top, name)
        mine = getattr(result, name)
        if isinstance(value, Located) and isinstance(mine, Located):
            setattr(result, name, overlay(mine, value))
        elif isinstance(value, dict) and isinstance(mine, dict):
            merged = dict(mine)
            for key, item in value.items():
                old = merged.get(key)
                if isinstance(item, Located) and isinstance(old, Located):
                    merged[key] = overlay(old, item)
                else:
                    merged[key] = item
            setattr(result, name, merged)
        elif isinstance(value, list) and isinstance(mine, list):
            setattr(result, name, [*mine, *value])
        elif name in top.field_src:
            setattr(result, name, value)
    if isinstance(top, Pfc) and isinstance(result, Pfc) and isinstance(base, Pfc):
        # Per-priority settings are separate commands: the port's win priority by priority.
        result.no_drop = (base.no_drop - top.drop) | top.no_drop
        result.drop = (base.drop - top.no_drop) | top.drop
    result.field_src.update(top.field_src)
    result.src = top.src or base.src
    return result
