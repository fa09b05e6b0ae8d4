"""Fix snippets in OpenSM syntax: opensm.conf ``key value`` lines and partitions.conf entries."""

from __future__ import annotations

from typing import Any

from fablint.findings import FixIntent


def _value(value: Any) -> str:
    """An opensm.conf value: TRUE/FALSE, comma lists (routing engines, SL2VL tables), text."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def _flag(name: str, value: Any) -> str:
    return name if value is None else f"{name}={value}"


def _partition(params: dict[str, Any]) -> str:
    """``Name=PKey,flags: members;`` as partition-config.txt writes entries. An ``mgid=`` group
    takes the rest of its line in OpenSM's parser, so each goes on a line of its own."""
    head = params.get("name") or ""
    if params.get("pkey") is not None:
        head += f"=0x{params['pkey']:04x}"
    head += "".join("," + _flag(name, value) for name, value in params.get("flags", []))
    members = ", ".join(_flag(name, membership) for name, membership in params.get("members", []))
    groups = [",".join([f"mgid={mgid}", *(_flag(n, v) for n, v in flags)])
              for mgid, flags in params.get("groups", [])]
    if not groups:
        return f"{head}: {members};"
    lines = [f"{head}: {members}," if members else f"{head}:"]
    lines += [f"    {group}" for group in groups]
    return "\n".join(lines) + ";"


def render(intent: FixIntent) -> str | None:
    p = intent.params
    if intent.action == "opensm-set":
        return "\n".join(f"{key} {_value(value)}" for key, value in p["options"])
    if intent.action == "partition-entry":
        return _partition(p)
    return None
