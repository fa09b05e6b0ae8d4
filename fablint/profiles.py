"""Policy profiles: ``rules/*.yaml`` with ``extends:``, resolved into a typed Policy.

A profile names what it ``extends`` (a built-in profile or a file, one or several) and sets
only what differs; mappings merge key by key, anything else replaces the parent's value.
Resolution remembers which file and line set every value, so that an error, or ``fablint
profiles show``, can point at the line in whichever profile of the chain it came from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from fablint import policycache
from fablint.policy import Policy
from fablint.resources import profiles_dir
from fablint.yamlio import ConfigError, load_yaml

MAX_EXTENDS_DEPTH = 16

KeyPath = tuple[str, ...]


@dataclass(frozen=True)
class Origin:
    """Where a value of a resolved profile was set: a file and line, or the overrides."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass
class Resolved:
    """A profile with ``extends`` resolved: the merged data and where each value came from."""

    data: dict[str, Any]
    origins: dict[KeyPath, Origin] = field(default_factory=dict)
    chain: list[Path] = field(default_factory=list)
    """The files read, the profile first, then what it extends (depth first)."""


@dataclass(frozen=True)
class ProfileInfo:
    """One built-in profile, for ``fablint profiles``."""

    name: str
    extends: list[str]
    description: str
    file: Path


def builtin_profiles() -> dict[str, Path]:
    """Name -> file of every profile that ships with fablint."""
    return {p.stem: p for p in sorted(profiles_dir().glob("*.yaml"))}


def display_path(path: Path) -> str:
    """How messages name a profile file: ``rules/<name>.yaml`` for a built-in one (where it
    lives in the source tree), else the path relative to the working folder when inside it."""
    if path.parent == profiles_dir().resolve():
        return f"rules/{path.name}"
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _locate(ref: str, base_dir: Path | None) -> Path:
    if ref.endswith((".yaml", ".yml")) or "/" in ref or "\\" in ref:
        path = Path(ref)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        if not path.is_file():
            raise ConfigError(f"profile file {ref!r} not found (looked at {path})")
        return path
    builtin = builtin_profiles().get(ref)
    if builtin is None:
        known = ", ".join(builtin_profiles()) or "none"
        raise ConfigError(f"unknown profile {ref!r}; built-in profiles: {known}")
    return builtin


def deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key; anything else in ``top`` replaces ``base``."""
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _record(
    data: dict[str, Any], prefix: KeyPath, origins: dict[KeyPath, Origin],
    where: str, lines: dict[tuple[str | int, ...], int] | None,
) -> None:
    """Note ``where`` (and the line) as the origin of every key of ``data``, as deep_merge
    lays ``data`` over what is there: a value that is not a mapping hides what was below."""
    for key, value in data.items():
        path = (*prefix, str(key))
        if not isinstance(value, dict):
            for old in [p for p in origins if p[:len(path)] == path]:
                del origins[old]
        origins[path] = Origin(where, lines.get(path) if lines is not None else None)
        if isinstance(value, dict):
            _record(value, path, origins, where, lines)


def _extends(data: dict[str, Any], path: Path, lines: dict[Any, int]) -> list[str]:
    parents = data.pop("extends", None)
    if parents is None:
        return []
    items = [parents] if isinstance(parents, str) else parents
    if not isinstance(items, list) or not all(isinstance(p, str) for p in items):
        raise ConfigError(f"{path}:{lines.get(('extends',), 1)}: extends takes a profile name, "
                          "a file, or a list of them")
    return list(items)


def _load_file(path: Path) -> tuple[dict[str, Any], dict[Any, int]]:
    data, lines = load_yaml(path, cached=True)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: a profile must be a mapping of sections")
    return data, lines


def _resolve(ref: str, base_dir: Path | None, chain: tuple[Path, ...], out: Resolved) -> None:
    """Lay the profile ``ref`` (after what it extends) over ``out``."""
    path = _locate(ref, base_dir).resolve()
    if path in chain:
        cycle = " -> ".join(display_path(p) for p in (*chain, path))
        raise ConfigError(f"profile extends itself: {cycle}")
    if len(chain) >= MAX_EXTENDS_DEPTH:
        raise ConfigError(f"{path}: profiles extend each other more than {MAX_EXTENDS_DEPTH} deep")
    data, lines = _load_file(path)
    parents = _extends(data, path, lines)
    out.chain.append(path)
    for parent in parents:
        _resolve(parent, path.parent, (*chain, path), out)
    out.data = deep_merge(out.data, data)
    _record(data, (), out.origins, display_path(path), lines)


def resolve(
    ref: str = "default", overrides: dict[str, Any] | None = None,
    base_dir: Path | None = None, overrides_where: str = "policy overrides",
) -> Resolved:
    """Resolve a profile (built-in name or file path) and the project's overrides into merged
    data, remembering where each value was set."""
    out = Resolved(data={})
    _resolve(ref, base_dir, (), out)
    if overrides:
        out.data = deep_merge(out.data, overrides)
        _record(overrides, (), out.origins, overrides_where, None)
    return out


def load_policy(
    ref: str = "default", overrides: dict[str, Any] | None = None, base_dir: Path | None = None,
    overrides_where: str = "policy overrides",
) -> Policy:
    """Resolve a profile (built-in name or file path) plus overrides into a Policy.

    Raises ConfigError naming the file and line of every wrong value, in whichever profile of
    the ``extends`` chain (or the overrides) set it.
    """
    resolved = resolve(ref, overrides, base_dir, overrides_where)
    return validate(resolved)


def validate(resolved: Resolved) -> Policy:
    """The Policy of a resolved profile: what validation made of the same data before
    (``fablint.policycache``), else validated now; ConfigError names the file and line of
    every wrong value."""
    known = policycache.load(resolved.data)
    if known is not None:
        return known
    try:
        policy = Policy.model_validate(resolved.data)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, resolved)) from exc
    policycache.store(resolved.data, policy)
    return policy


def _explain(exc: ValidationError, resolved: Resolved) -> str:
    messages = []
    for error in exc.errors():
        loc = tuple(str(p) for p in error["loc"])
        origin = _origin_of(loc, resolved)
        key = ".".join(loc) or "(top level)"
        if error["type"] == "extra_forbidden":
            known = _known_keys(loc[:-1])
            import difflib  # only a profile with a mistake needs it

            hint = difflib.get_close_matches(loc[-1], known, n=1)
            suggestion = f" (did you mean '{hint[0]}'?)" if hint else ""
            messages.append(f"{origin}: unknown key '{key}'{suggestion}")
        else:
            messages.append(f"{origin}: {key}: {error['msg']}")
    return "\n".join(messages)


def _origin_of(loc: tuple[str, ...], resolved: Resolved) -> Origin:
    """The origin of the longest prefix of ``loc`` that a profile set (list items and
    pydantic's union tags are not keys of the file)."""
    for end in range(len(loc), 0, -1):
        origin = resolved.origins.get(loc[:end])
        if origin is not None:
            return origin
    first = resolved.chain[0] if resolved.chain else None
    return Origin(display_path(first) if first else "profile", 1 if first else None)


def _known_keys(parents: tuple[str, ...]) -> list[str]:
    model: Any = Policy
    for part in parents:
        field_info = getattr(model, "model_fields", {}).get(part)
        annotation = getattr(field_info, "annotation", None)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
        else:
            return []
    return list(getattr(model, "model_fields", {}))


# -- listing and showing ------------------------------------------------------------------------


def profile_infos() -> list[ProfileInfo]:
    """Every built-in profile with what it extends and its description (first sentence)."""
    infos = []
    for name, path in builtin_profiles().items():
        data, lines = _load_file(path)
        extends = _extends(data, path, lines)
        description = str(data.get("description") or "").strip()
        infos.append(ProfileInfo(name, extends, description, path))
    return infos


def show_yaml(ref: str, base_dir: Path | None = None) -> str:
    """The resolved profile as YAML, each value followed by the file and line that set it
    (``built-in default`` for values no profile sets)."""
    resolved = resolve(ref, None, base_dir)
    policy = validate(resolved)
    chain = " -> ".join(display_path(p) for p in resolved.chain)
    lines = [f"# fablint profile {policy.name}, resolved from {chain}"]
    _emit(policy.model_dump(mode="json"), (), 0, resolved.origins, lines)
    return "\n".join(lines) + "\n"


def show_json(ref: str, base_dir: Path | None = None) -> str:
    """The resolved profile and the origin of each value, as JSON."""
    resolved = resolve(ref, None, base_dir)
    policy = validate(resolved)
    values = policy.model_dump(mode="json")
    origins = {".".join(path): str(origin) for path, origin in sorted(resolved.origins.items())
               if _leaf(values, path)}
    document = {"profile": policy.name, "extends": [display_path(p) for p in resolved.chain],
                "values": values, "origins": origins}
    return json.dumps(document, indent=2) + "\n"


def _leaf(values: dict[str, Any], path: KeyPath) -> bool:
    node: Any = values
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return not isinstance(node, dict) or not node


COMMENT_COLUMN = 48


def _emit(
    node: dict[str, Any], prefix: KeyPath, depth: int, origins: dict[KeyPath, Origin],
    out: list[str],
) -> None:
    for key, value in node.items():
        path = (*prefix, key)
        indent = "  " * depth
        if isinstance(value, dict) and value:
            out.append(f"{indent}{key}:")
            _emit(value, path, depth + 1, origins, out)
            continue
        text = f"{indent}{key}: {json.dumps(value, ensure_ascii=False)}"
        origin = origins.get(path)
        note = str(origin) if origin is not None else "built-in default"
        out.append(f"{text.ljust(COMMENT_COLUMN)} # {note}")
