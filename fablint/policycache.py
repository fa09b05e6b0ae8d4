"""A cache of validated policies: what ``Policy.model_validate`` made of a profile's data.

Every lint validates its profile (the built-in default is some 200 values over 15 sections):
building the policy classes' validators and running them is a fifth of what a pre-commit
hook's one-file lint costs beyond its imports, to get the same object from the same data
every time. The entry of a data is the validated policy's values with the set of fields given
of each object, as JSON, under the SHA-256 of the data (as JSON, keys in order) together with
fablint's and pydantic's versions and the source of the policy classes and of this module. A
data that validation refuses is never cached (its error is raised every time, naming the file
and line); a data with a value JSON cannot tell apart (a tuple, a non-string key, NaN) is
validated every time. An entry is written only when it reads back as the very object
validation made (types, field order, fields given), and read back with each value checked
against its field's type; anything else, a damaged or foreign entry, means validating again.

It lives beside the parsed-YAML cache (``fablint.yamlcache``): the entries of the built-in
profiles ship with fablint, and others are written only where ``$FABLINT_CACHE_DIR`` names a
folder. Entries are JSON, never pickle: reading one runs no code.
"""

from __future__ import annotations

import functools
import json
import types
from pathlib import Path
from typing import Any, ForwardRef, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.version import VERSION as PYDANTIC_VERSION

from fablint.plainbuild import _resolve
from fablint.policy import Policy
from fablint.trusted import bare
from fablint.yamlcache import entry_name, places, stamp, write_entry

FORMAT = 1
"""Bumped when the layout of an entry changes."""
FOLDER = "policy"



@functools.cache
def _stamp() -> str:
    """What validation's behaviour depends on: pydantic's major version (its releases within
    one keep what plain JSON values validate to, and the shipped entries must serve whichever
    one pip picks; every value read back is still checked against its field's type), this
    cache's format and the modules that define the policy and this cache (read once a
    process)."""
    return stamp("policy.py", "policycache.py",
                 extra=f"policy {FORMAT}\npydantic {PYDANTIC_VERSION.split('.')[0]}")


class _Unfit(Exception):
    """A data or an entry this cache does not hold: validate instead."""


def _entry(data: dict[str, Any]) -> tuple[Path | None, Path | None]:
    """Where the entry of ``data`` ships and where it may be written (``yamlcache.places``);
    (None, None) when JSON cannot hold ``data`` exactly."""
    if not _json_exact(data):
        return None, None
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return None, None
    return places(FOLDER, entry_name(_stamp(), text))


def _json_exact(value: Any) -> bool:
    """Plain data whose JSON names it alone: dicts with string keys, lists, and str, int,
    float, bool, None exactly (not a tuple, which JSON would make a list, or a subclass)."""
    kind = value.__class__
    if kind is dict:
        return all(key.__class__ is str and _json_exact(item) for key, item in value.items())
    if kind is list:
        return all(_json_exact(item) for item in value)
    return kind in (str, int, float, bool) or value is None


def load(data: dict[str, Any]) -> Policy | None:
    """The policy validation made of ``data`` before, if the cache holds it."""
    for entry in _entry(data):
        found = _read(entry) if entry is not None else None
        if found is not None:
            return found
    return None


def _read(entry: Path) -> Policy | None:
    try:
        document = json.loads(entry.read_bytes())
        if document.__class__ is not dict or document.get("format") != FORMAT:
            return None
        return _load(Policy, document["policy"])  # type: ignore[no-any-return]
    except (OSError, ValueError, RecursionError, KeyError, TypeError, AttributeError, _Unfit):
        return None


def store(data: dict[str, Any], policy: Policy, entry: Path | None = None) -> None:
    """Keep what validation made of ``data``, if it reads back as the very same object: in
    the writable cache, or at ``entry``."""
    if entry is None:
        entry = _entry(data)[1]
    if entry is None:
        return
    try:
        dumped = _dump(policy)
        text = json.dumps({"format": FORMAT, "policy": dumped}, ensure_ascii=False,
                          allow_nan=False)
        if not identical(_load(Policy, json.loads(text)["policy"]), policy):
            return
    except (TypeError, ValueError, RecursionError, _Unfit):
        return
    write_entry(entry, text)


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        if value.__pydantic_extra__ or value.__pydantic_private__:
            raise _Unfit(type(value).__name__)
        return {"set": sorted(value.model_fields_set),
                "values": {name: _dump(item) for name, item in value.__dict__.items()}}
    kind = value.__class__
    if kind is list or kind is tuple:
        return [_dump(item) for item in value]
    if kind is dict:
        if not all(key.__class__ is str for key in value):
            raise _Unfit("key")
        return {key: _dump(item) for key, item in value.items()}
    if kind in (str, int, float, bool) or value is None:
        return value
    raise _Unfit(kind.__name__)


def _load(cls: type[BaseModel], entry: Any) -> Any:
    """The object ``_dump`` wrote, each value checked against its field's type."""
    if entry.__class__ is not dict or entry.keys() != {"set", "values"}:
        raise _Unfit(cls.__name__)
    fields = cls.__pydantic_fields__
    stored = entry["values"]
    if stored.__class__ is not dict or list(stored) != list(fields):
        raise _Unfit(cls.__name__)
    given = entry["set"]
    if given.__class__ is not list or not set(given) <= stored.keys():
        raise _Unfit(cls.__name__)
    values = {name: _value(info.annotation, stored[name], cls.__module__)
              for name, info in fields.items()}
    return bare(cls, values, set(given))


def _value(annotation: Any, value: Any, module: str) -> Any:
    if isinstance(annotation, ForwardRef):
        annotation = _resolve(annotation.__forward_arg__, module)
    if annotation in (str, int, float, bool):
        if value.__class__ is annotation:
            return value
        raise _Unfit(annotation.__name__)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _load(annotation, value)
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Literal:
        if any(value.__class__ is arg.__class__ and value == arg for arg in args):
            return value
        raise _Unfit("literal")
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        others = [arg for arg in args if arg is not type(None)]
        if len(others) != 1:
            raise _Unfit("union")
        return _value(others[0], value, module)
    if origin is list and value.__class__ is list:
        return [_value(args[0], item, module) for item in value]
    if origin is tuple and value.__class__ is list and Ellipsis not in args \
            and len(args) == len(value):
        return tuple([_value(arg, item, module) for arg, item in zip(args, value, strict=True)])
    if origin is dict and value.__class__ is dict:
        return {_value(args[0], key, module): _value(args[1], item, module)
                for key, item in value.items()}
    raise _Unfit(repr(annotation))


def identical(left: Any, right: Any) -> bool:
    """The same value of the same types throughout: models with the same values in the same
    order and the same fields given."""
    if left.__class__ is not right.__class__:
        return False
    if isinstance(right, BaseModel):
        return (list(left.__dict__) == list(right.__dict__)
                and left.model_fields_set == right.model_fields_set
                and left.__pydantic_extra__ == right.__pydantic_extra__
                and left.__pydantic_private__ == right.__pydantic_private__
                and all(identical(left.__dict__[k], v) for k, v in right.__dict__.items()))
    if isinstance(right, dict):
        return list(left) == list(right) and all(identical(left[k], v) for k, v in right.items())
    if isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(
            identical(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)
