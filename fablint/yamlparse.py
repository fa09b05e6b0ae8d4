"""ruamel.yaml behind fablint's YAML loading: the guarded composer and the conversion to plain
data. Imported only when a YAML text is actually parsed (``fablint.yamlio`` imports it on
first use): ruamel costs tens of milliseconds to import, and a run whose fablint.yaml and
profiles are in the parsed-YAML cache (``fablint.yamlcache``) reads none.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent

from fablint.yamlio import ALIAS_ALLOWANCE, MAX_DEPTH, STANDARD_TAGS, ConfigError, KeyLines


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


def plain(node: Any, path: tuple[str | int, ...], lines: KeyLines, where: str) -> Any:
    """Convert ruamel's round-trip nodes into plain data, recording the line of each key."""
    if isinstance(node, CommentedMap):
        out: dict[str, Any] = {}
        for key, value in node.items():
            key_path = (*path, str(key))
            try:
                lines[key_path] = node.lc.key(key)[0] + 1
            except (KeyError, TypeError, AttributeError):
                lines[key_path] = lines.get(path, 0)
            out[str(key)] = plain(value, key_path, lines, where)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, value in enumerate(node):
            item_path = (*path, index)
            try:
                lines[item_path] = node.lc.item(index)[0] + 1
            except (KeyError, TypeError, AttributeError):
                lines[item_path] = lines.get(path, 0)
            items.append(plain(value, item_path, lines, where))
        return items
    if node is None or isinstance(node, (bool, int, float, str)):
        return node if not isinstance(node, str) else str(node)
    return str(node)


def parse_nodes(text: str, where: str, local_tags: tuple[str, ...] = ()) -> Any:
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
