"""``fablint lint --fix`` / ``--diff``: the fixes fablint shows, applied to the files.

Only where the target is unambiguous:

- EOS and NX-OS: a fix is a block snippet (``interface Ethernet1`` / ``   mtu 9214``). Each
  header must appear exactly once in its scope; under it, a line that already says the same is
  left alone, a line setting the same thing to another value is replaced (``mtu 1500``, ``no
  priority-flow-control ...``, or the very line the finding points at when it starts with the
  same two words), and anything else is appended at the end of its block, indented like its
  siblings. A header that is missing is added with its lines before ``end``.
- SONiC: a fix is a JSON patch, merged into a nested ``config_db.json`` (not into redis-dump
  ``TABLE|key`` files or documents with duplicate keys), written back with the file's indent.
- Host shell commands, InfiniBand and OpenSM fixes are shown, never applied.

Files are replaced atomically and keep their mode, line endings, encoding and byte-order mark.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from fablint.encodings import decode_exact
from fablint.findings import Finding
from fablint.fixes.edits import _indent, _same_setting

CLI_VENDORS = ("eos", "nxos")


@dataclass
class FileFix:
    path: str
    old: str
    new: str
    fixed: list[Finding] = field(default_factory=list)
    skipped: list[Finding] = field(default_factory=list)
    codec: str = "utf-8"
    bom: bytes = b""
    """The file's encoding and byte-order mark, kept when it is written back."""

    def diff(self) -> str:
        return "".join(difflib.unified_diff(
            self.old.splitlines(keepends=True), self.new.splitlines(keepends=True),
            fromfile=f"a/{self.path.lstrip('/')}", tofile=f"b/{self.path.lstrip('/')}"))


@dataclass
class _Node:
    text: str
    children: list[_Node] = field(default_factory=list)


def _tree(snippet: str) -> list[_Node]:
    """Snippet lines as a tree by indentation."""
    roots: list[_Node] = []
    stack: list[tuple[int, _Node]] = []
    for line in snippet.splitlines():
        if not line.strip() or line.lstrip().startswith(("!", "#")):
            continue
        node = _Node(line.strip())
        depth = _indent(line)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        (stack[-1][1].children if stack else roots).append(node)
        stack.append((depth, node))
    return roots


class _Ambiguous(Exception):
    """The snippet's place in the file is not certain: leave the file alone."""


def _block_end(lines: list[str], header: int) -> int:
    """Index after the last line of the block that starts at ``header``."""
    depth = _indent(lines[header])
    end = header + 1
    last = header + 1
    while end < len(lines):
        text = lines[end]
        if text.strip() and not text.strip().startswith("!"):
            if _indent(text) <= depth:
                break
            last = end + 1
        end += 1
    return last


def _children(lines: list[str], start: int, end: int) -> list[int]:
    """Indexes of the direct children of the scope lines[start:end]: its least indented
    lines that are not comments, blank or ``end``."""
    real = [i for i in range(start, end)
            if lines[i].strip() and not lines[i].strip().startswith(("!", "#"))
            and lines[i].strip() != "end"]
    if not real:
        return []
    floor = min(_indent(lines[i]) for i in real)
    return [i for i in real if _indent(lines[i]) == floor]


def _merge(lines: list[str], nodes: list[_Node], start: int, end: int, child_indent: str,
           step: str, target: int | None, written: set[str]) -> None:
    """Merge ``nodes`` into the scope lines[start:end] (mutates ``lines``). Lines in
    ``written`` came from an earlier fix of this round: changing them again is a conflict."""
    for node in nodes:
        kids = _children(lines, start, end)
        same = [i for i in kids if lines[i].strip() == node.text]
        if node.children:
            if len(same) > 1:
                raise _Ambiguous(node.text)
            if not same:
                at = _block_insert_at(lines, node, kids, start, end)
                node.text = _BEFORE.sub("", node.text)
                block = _render(node, child_indent, step)
                lines[at:at] = block
                written.update(block)
                end += len(block)
                continue
            header = same[0]
            block_end = _block_end(lines, header)
            inner = _children(lines, header + 1, block_end)
            indent = (lines[inner[0]][: _indent(lines[inner[0]])] if inner
                      else lines[header][: _indent(lines[header])] + step)
            before = len(lines)
            _merge(lines, node.children, header + 1, block_end, indent, step, target, written)
            end += len(lines) - before
            continue
        if same:
            continue
        words = node.text.split()
        if words[0] == "no" and len(words) > 1:
            # 'no X' removes what sets X (random-detect thresholds that drop); where nothing
            # did, the line itself says so, as a running-config would.
            gone = [i for i in kids if lines[i].split()[: len(words) - 1] == words[1:]]
            if any(lines[i] in written for i in gone):
                raise _Ambiguous(node.text)
            for i in reversed(gone):
                del lines[i]
            end -= len(gone)
            if gone:
                continue
        replace = [i for i in kids if _same_setting(lines[i].split(), words)
                   or _same_setting(words, lines[i].split())]
        key = _setting_key(words)
        if not replace and key:
            replace = [i for i in kids if _setting_key(lines[i].split()) == key]
        if len(replace) > 1 and target in replace:
            replace = [target]  # the finding names the line among several that set it
        if len(replace) > 1 or any(lines[i] in written for i in replace):
            raise _Ambiguous(node.text)
        if replace:
            lines[replace[0]] = child_indent + node.text
            written.add(lines[replace[0]])
            continue
        at = _insert_at(lines, start, end)
        if words[0].isdigit():  # a sequenced entry (ACL, prefix list): in number order
            later = [i for i in kids if lines[i].split()[0].isdigit()
                     and int(lines[i].split()[0]) > int(words[0])]
            at = later[0] if later else at
        lines.insert(at, child_indent + node.text)
        written.add(lines[at])
        end += 1


REPEATABLE = frozenset({
    ("priority-flow-control", "priority"), ("qos", "map"), ("ip", "address"),
    ("ipv6", "address"), ("match", "dscp"), ("match", "cos"), ("set", "qos-group"),
    ("set", "dscp"), ("channel-group",), ("switchport", "trunk"), ("vlan",),
})
"""Commands a block may hold several of with different numbers: never replaced by key."""


def _setting_key(words: list[str]) -> tuple[str, ...] | None:
    """The keywords before a command's first number (``random-detect minimum-threshold``):
    a block sets such a thing once, so a line with the same keywords is the one to replace.
    None for commands a block repeats, and for one-word keys (too little to be sure)."""
    key: list[str] = []
    for word in words:
        if any(ch.isdigit() for ch in word):
            break
        key.append(word)
    if len(key) < 2 or len(key) == len(words) or key[0] == "no":
        return None
    if any(tuple(key[: len(r)]) == r for r in REPEATABLE):
        return None
    return tuple(key)


_BEFORE = re.compile(r"\s+insert-before\s+\S+$")
"""NX-OS ``class X insert-before Y``: a CLI instruction; in the file, X's block goes before Y's."""


def _block_insert_at(lines: list[str], node: _Node, kids: list[int], start: int,
                     end: int) -> int:
    """Where a new block goes: before the sibling that ``insert-before`` names, else after the
    last sibling block of the same kind (class-maps with class-maps, before the policy-maps
    that use them), else at the end of the scope."""
    before = _BEFORE.search(node.text)
    if before:
        name = before.group(0).split()[-1]
        for i in kids:
            if lines[i].split()[-1:] == [name] and lines[i].split()[0] == node.text.split()[0]:
                return i
    kind = node.text.split()[:2]
    same_kind = [i for i in kids if lines[i].split()[:2] == kind]
    if same_kind:
        return _block_end(lines, same_kind[-1])
    return _insert_at(lines, start, end)


def _insert_at(lines: list[str], start: int, end: int) -> int:
    """Where a new line of the scope goes: after its last line; at top level, before ``end``."""
    if start == 0:
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].strip() == "end":
                return i
        while end > 0 and not lines[end - 1].strip():
            end -= 1
        return end
    return end


def _render(node: _Node, indent: str, step: str) -> list[str]:
    out = [indent + node.text]
    for child in node.children:
        out.extend(_render(child, indent + step, step))
    return out


def _fix_cli(text: str, findings: list[Finding], vendor: str) -> tuple[str, list[Finding],
                                                                         list[Finding]]:
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    step = "   " if vendor == "eos" else "  "
    fixed, skipped = [], []
    written: set[str] = set()
    for finding in findings:
        trial, wrote = list(lines), set(written)
        try:
            target = finding.line - 1 if finding.line else None
            _merge(trial, _tree(finding.fix or ""), 0, len(trial), "", step, target, wrote)
        except _Ambiguous:
            skipped.append(finding)
            continue
        lines, written = trial, wrote
        fixed.append(finding)
    return newline.join(lines), fixed, skipped


def _deep_merge(into: dict, patch: dict) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = value


def _leaves(patch: dict, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    out = []
    for key, value in patch.items():
        if isinstance(value, dict) and value:
            out.extend(_leaves(value, (*path, key)))
        else:
            out.append(((*path, key), value))
    return out


def _conflicts(document: dict, patch: dict, written: dict[tuple[str, ...], object]) -> bool:
    """Does ``patch`` set a value that an earlier fix of this round set differently?"""
    return any(path in written and written[path] != value for path, value in _leaves(patch))


def _record(patch: dict, written: dict[tuple[str, ...], object]) -> None:
    written.update(_leaves(patch))


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise _Ambiguous("duplicate keys")
    return dict(pairs)


def _fix_sonic(text: str, findings: list[Finding]) -> tuple[str, list[Finding], list[Finding]]:
    try:
        document = json.loads(text, object_pairs_hook=_no_duplicates)
    except (ValueError, _Ambiguous):
        return text, [], list(findings)
    if not isinstance(document, dict) or any("|" in key for key in document):
        return text, [], list(findings)
    fixed, skipped = [], []
    written: dict[tuple[str, ...], object] = {}
    for finding in findings:
        try:
            patch = json.loads(finding.fix or "")
        except ValueError:
            skipped.append(finding)
            continue
        if not isinstance(patch, dict):
            skipped.append(finding)
            continue
        if _conflicts(document, patch, written):
            skipped.append(finding)  # another fix of this round set it otherwise: next round
            continue
        _deep_merge(document, patch)
        _record(patch, written)
        fixed.append(finding)
    if not fixed:
        return text, fixed, skipped
    second = text.lstrip("\ufeff").split("\n", 2)[1:2]
    indent = _indent(second[0]) if second and second[0].strip() else 4
    newline = "\r\n" if "\r\n" in text else "\n"
    out = json.dumps(document, indent=indent or 4, ensure_ascii=False) + "\n"
    return out.replace("\n", newline), fixed, skipped


def plan(findings: list[Finding]) -> list[FileFix]:
    """What ``--fix`` would write, per file, for the findings that carry a fix."""
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.fix and finding.file and finding.vendor in (*CLI_VENDORS, "sonic"):
            by_file.setdefault(finding.file, []).append(finding)
    out = []
    for path, group in sorted(by_file.items()):
        try:
            text, codec, bom = decode_exact(Path(path).read_bytes())
        except (OSError, UnicodeDecodeError):
            continue
        vendor = group[0].vendor
        group.sort(key=lambda f: (f.line or 0, f.rule))
        if vendor == "sonic":
            new, fixed, skipped = _fix_sonic(text, group)
        else:
            new, fixed, skipped = _fix_cli(text, group, vendor or "eos")
        if new != text or skipped:
            out.append(FileFix(path, text, new, fixed, skipped, codec, bom))
    return out


def write(fix: FileFix) -> None:
    """Replace the file atomically, keeping its mode."""
    path = Path(fix.path)
    mode = path.stat().st_mode
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(fix.bom + fix.new.encode(fix.codec))
        Path(tmp).chmod(mode & 0o7777)
        Path(tmp).replace(path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        raise
