"""Plain-data builders that parsers fill in, shaped exactly like the model.

Parsers build dicts, lists and sets (cheap to create and to update line by line) and validate the
result into the pydantic model once, at the end. pydantic-core builds the nested models far
faster than constructing them one by one, and the validation doubles as a check that every
parser produces a well-typed model.

An "object" here is a dict with a ``field_src`` key: the same convention as ``Located``.
"""

from __future__ import annotations

from typing import Any

from fablint.model import SourceRef

Obj = dict[str, Any]


def new_watchdog() -> Obj:
    return {"field_src": {}}


def new_pfc() -> Obj:
    return {"field_src": {}, "no_drop": set(), "drop": set(), "watchdog": new_watchdog()}


def new_qos(name: str | None = None, src: SourceRef | None = None) -> Obj:
    return {
        "name": name, "src": src, "field_src": {}, "pfc": new_pfc(),
        "pause": {"field_src": {}}, "queues": {}, "policies": [],
    }


def new_interface(name: str, kind: str, src: SourceRef, routed: bool) -> Obj:
    return {
        "name": name, "kind": kind, "src": src, "field_src": {}, "routed": routed,
        "ip_addresses": [], "acls": [], "qos": new_qos(),
    }


def new_queue(queue_id: int, src: SourceRef) -> Obj:
    return {"id": queue_id, "src": src, "field_src": {}}


def new_device(name: str, vendor: str, file: str) -> Obj:
    return {
        "name": name, "vendor": vendor, "files": [file], "field_src": {}, "interfaces": {},
        "qos": {"field_src": {}}, "qos_profiles": {}, "acls": {}, "suppressions": [],
        "references": [],
    }


def overlay(base: Obj, top: Obj) -> Obj:
    """A new object: ``base`` with every field that ``top`` configured taken from ``top``.

    "Configured" is what ``field_src`` records, so defaults in ``top`` never hide ``base``.
    Nested objects merge field by field, dicts of objects key by key, lists concatenate. PFC
    priority sets merge priority by priority: each ``priority N no-drop|drop`` is its own
    command, and the port's win over the profile's.
    """
    configured = top["field_src"]
    out = dict(base)
    for key, value in top.items():
        if key in ("src", "field_src"):
            continue
        mine = base.get(key)
        if isinstance(value, dict) and isinstance(mine, dict):
            if "field_src" in value:
                out[key] = overlay(mine, value)
            elif value:
                merged = dict(mine)
                for sub, item in value.items():
                    old = merged.get(sub)
                    both = isinstance(item, dict) and isinstance(old, dict) and "field_src" in item
                    merged[sub] = overlay(old, item) if both else item
                out[key] = merged
        elif isinstance(value, list) and isinstance(mine, list):
            out[key] = [*mine, *value]
        elif key in configured or key not in base:
            out[key] = value
    if "no_drop" in top and "no_drop" in base:
        out["no_drop"] = (base["no_drop"] - top["drop"]) | top["no_drop"]
        out["drop"] = (base["drop"] - top["no_drop"]) | top["drop"]
    out["field_src"] = {**base["field_src"], **configured}
    out["src"] = top.get("src") or base.get("src")
    return out

