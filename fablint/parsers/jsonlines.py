"""JSON objects that remember the line of each key.

Python's json module gives no positions, but findings must point at the line of the key that set
a value. This loader walks the outer levels of the document itself (where configuration keys
live) and records the line where each key string starts; deeper values are handed to the
C-accelerated scanner of the json module, so the cost stays close to ``json.loads`` and is linear
in the input. Runs of rows whose fields are plain strings (most of a config_db) are checked and
split by regular expressions rather than walked member by member. Duplicate keys, which
``json.loads`` silently collapses, are reported (the last one wins, as in ``json.loads``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import accumulate, chain, islice, repeat
from json.decoder import scanstring
from typing import Any

_WS = re.compile(r"[ \t\n\r]*")
_PLAIN_PAIR = re.compile(r'"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*')
"""``"key": "value"`` without escapes: most of a config_db, read in one regex match."""
_STR = r'"[^"\\\x00-\x1f]*"'
_PAIR = _STR + r"[ \t\n\r]*:[ \t\n\r]*" + _STR + r"[ \t\n\r]*"
_FLAT = r"\{[ \t\n\r]*(?:" + _PAIR + r"(?:,[ \t\n\r]*" + _PAIR + r")*)?\}"
_ROW = _STR + r"[ \t\n\r]*:[ \t\n\r]*" + _FLAT + r"[ \t\n\r]*"
_ROW_RUN = re.compile(_ROW + r"(?:,[ \t\n\r]*" + _ROW + r")*")
"""Consecutive members ``"key": {"field": "value", …}`` whose values are objects of plain
strings: config_db rows, most of a document, checked in one match."""
_ROWS = re.compile(r'"([^"]*)"([^"{]*\{[^"}]*)((?:"[^"]*"[^"}]*)*)\}([^"]*)')
"""The rows of a ``_ROW_RUN`` match: (key, text from the key to the first field, the fields,
text after the row). Only whitespace and punctuation lie between the strings of a run; each
pattern starts with a quote so that ``findall`` skips ahead to it."""
_NEWLINES = repeat("\n")
MAX_INT_DIGITS = 1000
"""Longer integers are read as floats: ``int()`` refuses more than 4300 digits."""


class LinedDict(dict[str, Any]):
    """A JSON object with ``lines``: key -> line (1-based) where the key starts."""

    __slots__ = ("lines",)

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[str, int] = {}


_new_dict = dict.__new__


class JsonSyntaxError(Exception):
    """The text is not a JSON object; ``line`` is where the damage was found."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.message = message
        self.line = line


@dataclass
class Duplicate:
    """A key that appears twice in one object (the last value is kept)."""

    key: str
    line: int
    path: tuple[str, ...]


@dataclass
class Loaded:
    value: LinedDict
    duplicates: list[Duplicate] = field(default_factory=list)


def _int(digits: str) -> int | float:
    return int(digits) if len(digits) <= MAX_INT_DIGITS else float(digits)


class _Loader:
    """One load. Positions only move forward, so line counting is incremental."""

    def __init__(self, text: str, depth: int) -> None:
        self.text = text
        self.depth = depth
        self.pos = 0
        self.line = 1
        self.duplicates: list[Duplicate] = []
        self.deep_dups: list[str] = []
        decoder = json.JSONDecoder(object_pairs_hook=self.hook, parse_int=_int)
        self.scan_once = decoder.scan_once

    def hook(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.deep_dups.append(key)
                seen.add(key)
        return obj

    def line_at(self, idx: int) -> int:
        if idx > self.pos:
            self.line += self.text.count("\n", self.pos, idx)
            self.pos = idx
        return self.line

    def fail(self, message: str, idx: int) -> JsonSyntaxError:
        return JsonSyntaxError(message, self.line_at(min(idx, len(self.text))))

    def load(self) -> Loaded:
        text = self.text
        idx = _WS.match(text, 0).end()  # type: ignore[union-attr]
        if idx >= len(text):
            raise self.fail("empty document, expected a JSON object", idx)
        if text[idx] != "{":
            self.value(idx)  # a syntax error in the value is reported as such
            raise self.fail("the document is not a JSON object", idx)
        obj, idx = self.object(idx + 1, 1, ())
        idx = _WS.match(text, idx).end()  # type: ignore[union-attr]
        if idx != len(text):
            raise self.fail("extra data after the JSON object", idx)
        return Loaded(obj, self.duplicates)

    def value(self, idx: int) -> tuple[Any, int]:
        """A value parsed by the json module's scanner."""
        try:
            return self.scan_once(self.text, idx)
        except StopIteration as exc:
            raise self.fail("expecting a value", exc.value) from None
        except json.JSONDecodeError as exc:
            raise JsonSyntaxError(exc.msg, exc.lineno) from None
        except RecursionError:
            raise self.fail("nested too deeply", idx) from None
        except ValueError as exc:  # e.g. a number the scanner cannot convert
            raise self.fail(str(exc), idx) from None

    def rows(self, obj: LinedDict, start: int, end: int, path: tuple[str, ...]) -> None:
        """Add to ``obj`` (at ``path``) the members ``text[start:end]`` that ``_ROW_RUN``
        matched: one ``findall`` and a split per row instead of the member-by-member walk of
        ``object``, which costs several times more per row."""
        text = self.text
        lines = obj.lines
        line = self.line + text.count("\n", self.pos, start)
        for key, between, fields, after in _ROWS.findall(text, start, end):
            if key in lines:
                self.duplicates.append(Duplicate(key, line, path))
            lines[key] = line
            obj[key] = row = _new_dict(LinedDict)  # without the Python-level __init__
            line += between.count("\n")
            # ``fields`` is '"name" : "value" , "name" : "value"': split at the quotes, the
            # names, values and the text between them are slices, and a row is built by
            # C-level calls rather than a Python loop over its fields.
            parts = fields.split('"')
            names, values = parts[1::4], parts[3::4]
            row.update(zip(names, values, strict=True))
            if "\n" not in fields:
                starts = [line] * len(names)
            else:  # the line of each name: the newlines before it, accumulated
                starts = list(accumulate(map(str.count, parts[2::2], _NEWLINES), initial=line))
                line = starts[-1]
                starts = starts[:-1:2]
            row.lines = dict(zip(names, starts, strict=True))
            if len(row) != len(names):  # a name given twice: the last value is kept
                seen: set[str] = set()
                for name, at in zip(names, starts, strict=True):
                    if name in seen:
                        self.duplicates.append(Duplicate(name, at, (*path, key)))
                    seen.add(name)
            line += after.count("\n")
        self.line = line  # the run ends at ``end``: every newline in it is counted above
        self.pos = end

    def object(self, idx: int, depth: int, path: tuple[str, ...]) -> tuple[LinedDict, int]:
        """The members of an object whose ``{`` is just before ``idx``."""
        text = self.text
        ws = _WS.match
        count = text.count
        obj = LinedDict()
        lines = obj.lines
        deeper = depth < self.depth
        idx = ws(text, idx).end()  # type: ignore[union-attr]
        if text[idx:idx + 1] == "}":
            return obj, idx + 1
        plain = _PLAIN_PAIR.match
        row_run = _ROW_RUN.match if deeper else None
        while True:
            self.line = line = self.line + count("\n", self.pos, idx)
            self.pos = idx
            match = plain(text, idx)
            if match is not None:
                key, value = match.groups()
                if key in lines:
                    self.duplicates.append(Duplicate(key, line, path))
                lines[key] = line
                obj[key] = value
                idx = match.end()
                char = text[idx:idx + 1]
                if char == "}":
                    return obj, idx + 1
                if char != ",":
                    raise self.fail("expecting ',' or '}' in an object", idx)
                idx = ws(text, idx + 1).end()  # type: ignore[union-attr]
                continue
            run = row_run(text, idx) if row_run is not None else None
            if run is not None:
                self.rows(obj, idx, run.end(), path)
                idx = run.end()
                char = text[idx:idx + 1]
                if char == "}":
                    return obj, idx + 1
                if char != ",":
                    raise self.fail("expecting ',' or '}' in an object", idx)
                idx = ws(text, idx + 1).end()  # type: ignore[union-attr]
                continue
            if text[idx:idx + 1] != '"':
                raise self.fail("expecting a property name in double quotes", idx)
            try:
                key, idx = scanstring(text, idx + 1, True)
            except json.JSONDecodeError as exc:
                raise JsonSyntaxError(exc.msg, exc.lineno) from None
            idx = ws(text, idx).end()  # type: ignore[union-attr]
            if text[idx:idx + 1] != ":":
                raise self.fail("expecting ':' after a property name", idx)
            idx = ws(text, idx + 1).end()  # type: ignore[union-attr]
            if key in lines:
                self.duplicates.append(Duplicate(key, line, path))
            lines[key] = line
            char = text[idx:idx + 1]
            if char == '"':
                try:
                    value, idx = scanstring(text, idx + 1, True)
                except json.JSONDecodeError as exc:
                    raise JsonSyntaxError(exc.msg, exc.lineno) from None
            elif deeper and char == "{":
                value, idx = self.object(idx + 1, depth + 1, (*path, key))
            else:
                value, idx = self.value(idx)
                if self.deep_dups:
                    self.duplicates += [Duplicate(k, line, (*path, key)) for k in self.deep_dups]
                    self.deep_dups.clear()
            obj[key] = value
            idx = ws(text, idx).end()  # type: ignore[union-attr]
            char = text[idx:idx + 1]
            if char == "}":
                return obj, idx + 1
            if char != ",":
                raise self.fail("expecting ',' or '}' in an object", idx)
            idx = ws(text, idx + 1).end()  # type: ignore[union-attr]


_CONTAINERS = frozenset({dict, list})
_DICT_ONLY = frozenset({dict})
FAST_MAX_CHARS = 8 * 1024 * 1024
"""Larger documents are walked: the fast path holds ``json.loads``'s objects, their copies and
a string per line at once (a few times the text), the walk only the objects it builds."""
_SPACED_COLON = re.compile(r'"[ \t\n\r]+:')
"""A key with space before its colon (rendered SONiC templates write ``"type"  : "DWRR"``),
or a string that begins so."""
_SPACED_ON_A_LINE = re.compile(r'"[ \t]+:')
_COLON_ON_A_LINE = re.compile(r'"[ \t]*[\n\r][ \t\n\r]*:')
"""A key whose colon is on a later line: ``load``'s fast path leaves such a text to the walk."""


def _keys_in(value: Any) -> int:
    """The keys of every object inside ``value`` (a list, or an object deeper than lines are
    kept for): the key lines to pass over."""
    if value.__class__ is dict:
        values = value.values()
        if _CONTAINERS.isdisjoint(map(type, values)):
            return len(value)
        if _DICT_ONLY.issuperset(map(type, values)) and _CONTAINERS.isdisjoint(
                map(type, chain.from_iterable(map(dict.values, values)))):
            return len(value) + sum(map(len, values))  # a table of rows of scalars: no call
        return len(value) + sum(map(_keys_in, values))
    if value.__class__ is list:
        return sum(map(_keys_in, value)) if not _CONTAINERS.isdisjoint(map(type, value)) else 0
    return 0


def _lined(obj: dict[str, Any], depth: int, limit: int, starts: Iterator[int]) -> LinedDict:
    """``obj`` as a LinedDict (and its objects down to ``limit`` levels), each key's line the
    next of ``starts``; the keys of deeper objects and of lists pass over theirs."""
    out = _new_dict(LinedDict)
    lines = out.lines = {}
    deeper = depth < limit
    for key, value in obj.items():
        lines[key] = next(starts)
        cls = value.__class__
        if cls is dict and deeper:
            if _CONTAINERS.isdisjoint(map(type, value.values())):  # a row of scalars: most
                row = _new_dict(LinedDict)
                row.update(value)
                row.lines = dict(zip(value, starts, strict=False))  # to the row's end
                value = row
            else:
                value = _lined(value, depth + 1, limit, starts)
        elif cls is dict or cls is list:
            skip = _keys_in(value)
            if skip:
                next(islice(starts, skip, skip), None)
        out[key] = value
    return out


def key_lines(text: str) -> tuple[dict[str, Any], list[int], int] | None:
    """``json.loads(text)`` (an object), the line of each of its keys, in the order of a
    walk of the parsed objects, and the text's count of lines (``text.count("\\n") + 1``),
    for a document written one key per line (what sonic-cfggen, SONiC's rendered templates
    and every ``json.dump(indent=…)`` write): the lines that hold ``":`` once the space
    between a quote and a colon is taken out, which is text order.

    None when that is not certain (then the document is walked). Every key ends in ``":``
    when the colons are on the keys' lines; the other places a valid text holds it are an
    escaped quote (``\\":``, refused) and the start of a string that begins with a colon,
    which would make more of them than keys. So their count, the count of lines holding one
    and the count of keys found by the walk must be equal: a line with two keys, a duplicate
    key (``json.loads`` keeps one) or such a string makes them differ. This checks the first
    two; the caller, whose walk takes one line per key, the third (``_lined``)."""
    if len(text) > FAST_MAX_CHARS:
        return None
    data = text.encode("utf-8", "surrogatepass")
    if b"\r" in data:  # (decoded inputs have none: ``decode_input`` makes every line end LF)
        keyed = text
        if _SPACED_COLON.search(text) is not None:
            if _COLON_ON_A_LINE.search(text) is not None:
                return None
            keyed = _SPACED_ON_A_LINE.sub('":', text)  # the same lines, the keys' ends alike
        data = keyed.encode("utf-8", "surrogatepass")
    else:
        # Without the spaces and tabs (outside strings only JSON whitespace; inside, a quote
        # is escaped, so that no new '":' but an escaped one is made), a key's end is '":'
        # wherever spaces stood between its quote and colon, as the substitution above
        # makes it; a colon that starts a line is one on a later line than its key.
        data = data.translate(None, b" \t")
        if b"\n:" in data:
            return None
    if b"\\" in data and b'\\":' in data:  # (the byte first: a memchr, the pair is slow)
        return None
    # The numbers of the lines holding '":', with no call per line: each '":' becomes one
    # \x01 byte and every other byte but the newlines goes, so that what lies between two
    # keys is their newlines, whose lengths add up to the keys' lines. A valid JSON text has
    # no raw control character such as \x01 (``json.loads`` takes none).
    skeleton = data.replace(b'":', b"\x01").translate(None, _NOT_KEY_OR_NEWLINE)
    between = skeleton.split(b"\x01")
    if len(between) == 1 or b"\x01\x01" in skeleton:
        return None  # no key, or a line holding two keys (or more)
    try:
        value = json.loads(text, parse_int=_int)
    except (ValueError, RecursionError):
        return None
    if value.__class__ is not dict:
        return None
    starts = list(accumulate(map(len, between), initial=1))
    lines = starts.pop()  # (after the last key: the newlines to the end of the text)
    del starts[0]
    return value, starts, lines


_NOT_KEY_OR_NEWLINE = bytes(b for b in range(256) if b not in b"\n\x01")


def _load_fast(text: str, depth: int) -> Loaded | None:
    """``load`` through ``key_lines``: ``json.loads`` in C, then LinedDicts from the walk."""
    found = key_lines(text)
    if found is None:
        return None
    return lined(found[0], found[1], depth)


def lined(value: dict[str, Any], starts: list[int], depth: int = 4) -> Loaded | None:
    """``key_lines``'s answer as ``load`` gives it (LinedDicts), or None when the walk does not
    take exactly one line per key."""
    lines = iter([*starts, 0])  # 0: taken by a walk that finds more keys than key lines
    try:
        root = _lined(value, 1, depth, lines)
        if next(lines) != 0:
            return None  # fewer keys than key lines
    except StopIteration:
        return None
    return Loaded(root)


def load(text: str, depth: int = 4) -> Loaded:
    """Parse ``text`` as a JSON object, with key lines for objects up to ``depth`` levels deep.

    Raises JsonSyntaxError (with a line) for anything that is not a JSON object.
    """
    return _load_fast(text, depth) or _Loader(text, depth).load()
