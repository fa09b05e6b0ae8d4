"""Safe YAML loading that remembers where each key was, for error messages with a line."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent

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


class _RefusedYAML(MarkedYAMLError):
    """A well-formed YAML document that fablint will not read (bomb, foreign tag, depth)."""


class _GuardedComposer(Composer):
    """ruamel's composer, bounded: it counts the nodes the document would have once every
    alias is expanded (what any consumer walking the data pays), refuses an alias to the node
    that contains it, and refuses tags that are not YAML's plain data types."""

    local_tags: tuple[str, ...] = ()

    def compose_document(self) -> Any:
        self._own = 0
        self._expanded = 0
        self._sizes: dict[int, int] = {}
        return super().compose_document()

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        if isinstance(event, AliasEvent):
            target = self.anchors.get(event.anchor)
            if target is not None:
                size = self._sizes.get(id(target))
                if size is None:
                    raise _RefusedYAML(None, None, f"alias *{event.anchor} refers to the "
                                       "node that contains it", event.start_mark)
                self._expanded += size
                if self._expanded - self._own > ALIAS_ALLOWANCE + 10 * self._own:
                    raise _RefusedYAML(None, None, f"alias *{event.anchor} expands the "
                                       "document beyond what fablint reads (aliases may repeat "
                                       f"at most {ALIAS_ALLOWANCE:,} nodes plus ten times the "
                                       "document's own)", event.start_mark)
            return super().compose_node(parent, index)
        if self.depth >= MAX_DEPTH:
            raise _RefusedYAML(None, None, f"nested more than {MAX_DEPTH} levels deep",
                               event.start_mark)
        self._own += 1
        start = self._expanded
        self._expanded += 1
        node = super().compose_node(parent, index)
        if getattr(node, "anchor", None) is not None:
            self._sizes[id(node)] = self._expanded - start
        tag = str(getattr(node.tag, "value", node.tag))
        if tag not in STANDARD_TAGS and not tag.startswith(self.local_tags):
            shown = tag.replace("tag:yaml.org,2002:", "!!", 1)
            raise _RefusedYAML(None, None, f"YAML tag {shown} is not allowed",
                               node.start_mark)
        return node


def _plain(node: Any, path: tuple[str | int, ...], lines: KeyLines, where: str) -> Any:
    """Convert ruamel's round-trip nodes into plain data, recording the line of each key."""
    if isinstance(node, CommentedMap):
        out: dict[str, Any] = {}
        for key, value in node.items():
            key_path = (*path, str(key))
            try:
                lines[key_path] = node.lc.key(key)[0] + 1
            except (KeyError, TypeError, AttributeError):
                lines[key_path] = lines.get(path, 0)
            out[str(key)] = _plain(value, key_path, lines, where)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, value in enumerate(node):
            item_path = (*path, index)
            try:
                lines[item_path] = node.lc.item(index)[0] + 1
            except (KeyError, TypeError, AttributeError):
                lines[item_path] = lines.get(path, 0)
            items.append(_plain(value, item_path, lines, where))
        return items
    if node is None or isinstance(node, (bool, int, float, str)):
        return node if not isinstance(node, str) else str(node)
    return str(node)


def load_yaml(path: Path) -> tuple[Any, KeyLines]:
    """Load a YAML file safely. Raises ConfigError naming the file and line on any problem."""
    return load_yaml_text(read_yaml_file(path), str(path))


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
    lines: KeyLines = {}
    return _plain(load_yaml_nodes(text, where), (), lines, where), lines


def load_yaml_nodes(text: str, where: str, local_tags: tuple[str, ...] = ()) -> Any:
    """ruamel's round-trip nodes (tags and positions kept), for callers with their own
    conversion (inventories keep Ansible's ``!vault``: ``local_tags`` are the prefixes of the
    application tags a caller understands). Raises ConfigError with the line."""
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    yaml.Composer = type("Composer", (_GuardedComposer,), {"local_tags": local_tags})
    try:
        data = yaml.load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        kind = "refused YAML" if isinstance(exc, _RefusedYAML) else "invalid YAML"
        raise ConfigError(f"{where}{line}: {kind}: {problem}") from None
    except Exception as exc:  # ruamel raises assorted errors on hostile input
        raise ConfigError(f"{where}: invalid YAML: {exc}") from exc
    return data


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
