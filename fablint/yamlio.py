"""Safe YAML loading that remembers where each key was, for error messages with a line."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

MAX_YAML_BYTES = 5 * 1024 * 1024
MAX_DEPTH = 100
"""Nesting deeper than this is refused (no fablint file nests more than a handful)."""
ALIAS_ALLOWANCE = 100_000
"""Nodes that aliases may add beyond ten times the document's own: a "billion laughs" is
refused after a few hundred thousand nodes instead of expanding into gigabytes."""
STANDARD_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in (
    "str", "int", "float", "bool", "null", "map", "seq", "timestamp", "merge"))
"""YAML's plain data types: any other tag (``!!python/object``, ``!!binary``, ``!custom``)
is refused wherever fablint reads YAML."""


class ConfigError(Exception):
    """A configuration or profile file is wrong. The message names the file and line."""


KeyLines = dict[tuple[str | int, ...], int]


def load_yaml(path: Path, *, cached: bool = False) -> tuple[Any, KeyLines]:
    """Load a YAML file safely. Raises ConfigError naming the file and line on any problem.

    ``cached``: take the parsed form from the cache of parsed YAML (``fablint.yamlcache``)
    when it holds this text, for the small files every run reads (fablint.yaml, profiles).
    """
    text = read_yaml_file(path)
    if cached:
        from fablint.yamlcache import load_yaml_cached

        return load_yaml_cached(text, str(path))
    return load_yaml_text(text, str(path))


def read_yaml_file(path: Path, max_bytes: int = MAX_YAML_BYTES) -> str:
    """A YAML file's text (ConfigError when too large, unreadable or not UTF-8)."""
    where = str(path)
    try:
        if path.stat().st_size > max_bytes:
            raise ConfigError(f"{where}: file is larger than {max_bytes} bytes")
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 text") from exc


def load_yaml_text(text: str, where: str) -> tuple[Any, KeyLines]:
    """Plain data (dicts, lists, scalars) and the line of every key and item."""
    from fablint.yamlparse import plain

    lines: KeyLines = {}
    return plain(load_yaml_nodes(text, where), (), lines, where), lines


def load_yaml_nodes(text: str, where: str, local_tags: tuple[str, ...] = ()) -> Any:
    """ruamel's round-trip nodes (tags and positions kept), for callers with their own
    conversion (inventories keep Ansible's ``!vault``: ``local_tags`` are the prefixes of the
    application tags a caller understands). Raises ConfigError with the line."""
    from fablint.yamlparse import parse_nodes  # ruamel: imported by the runs that parse YAML

    return parse_nodes(text, where, local_tags)


def validation_error(
    exc: ValidationError, where: str, lines: KeyLines, model: type[BaseModel],
    aliases: dict[str, str] | None = None,
) -> ConfigError:
    """Turn a pydantic error into one readable message with file, line and the key named."""
    messages = []
    for error in exc.errors():
        loc = tuple(str(p) if not isinstance(p, int) else p for p in error["loc"])
        line = _line_for(loc, lines)
        key = ".".join(str(p) for p in loc) or "(top level)"
        if error["type"] == "extra_forbidden":
            known = _known_keys(model, loc[:-1], aliases)
            import difflib  # only a file with a mistake needs it

            hint = difflib.get_close_matches(str(loc[-1]), known, n=1)
            suggestion = f" (did you mean '{hint[0]}'?)" if hint else ""
            messages.append(f"{where}:{line}: unknown key '{key}'{suggestion}")
        else:
            messages.append(f"{where}:{line}: {key}: {error['msg']}")
    return ConfigError("\n".join(messages))


def _line_for(loc: tuple[str | int, ...], lines: KeyLines) -> int:
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return 1


def _known_keys(
    model: type[BaseModel], parents: Iterable[str | int], aliases: dict[str, str] | None
) -> list[str]:
    current: Any = model
    for part in parents:
        field = getattr(current, "model_fields", {}).get(str(part))
        annotation = getattr(field, "annotation", None)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            current = annotation
        else:
            return []
    names = list(getattr(current, "model_fields", {}))
    if current is model and aliases:
        names = [aliases.get(n, n) for n in names]
    return names
