"""A cache of parsed YAML: fablint.yaml and the policy profiles, as JSON, keyed by content.

Every lint reads the project's fablint.yaml and its profile chain (the built-in default is
10 KB). ruamel.yaml takes about 10 ms to import and 20 ms to parse that profile, a tenth of
what a pre-commit hook waits for; the same data read back from JSON takes a fraction of a
millisecond. What is cached is exactly what ``yamlio.load_yaml_text`` returns (plain data and
the line of every key), under the SHA-256 of the text together with fablint's version and the
YAML loader's own source, so an edited file, a new fablint or a changed loader never meets an
old entry.

The cache is an optimisation only, and fablint writes nothing the user did not ask for: the
entries of the built-in profiles ship with fablint (``fablint/shipped_cache``, read only,
written by ``python -m tests.shipped_cache``), and a writable cache is kept only where
``$FABLINT_CACHE_DIR`` names one (for a project's own fablint.yaml and profiles). An entry
that cannot be read, is not valid JSON or has the wrong shape is parsed again from the YAML; a
folder that cannot be written is simply not used. Entries are JSON, never pickle: reading one
runs no code.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from fablint import __version__
from fablint.yamlio import KeyLines, load_yaml_text

CACHE_ENV = "FABLINT_CACHE_DIR"
FORMAT = 1
"""Bumped when the layout of an entry changes."""
MAX_ENTRIES = 64
"""Entries kept: the oldest go when a new one is written beyond this (edited configs leave
one behind each)."""
FOLDER = "yaml"


_HERE = Path(__file__).resolve().parent
SHIPPED = _HERE / "shipped_cache"
"""The entries of the built-in profiles, made when fablint was built (read only)."""


def cache_dir(folder: str = FOLDER) -> Path | None:
    """Where fablint may write parsed YAML (or another of its caches, ``folder``): only in
    the folder ``$FABLINT_CACHE_DIR`` names; None (nothing written) without it."""
    chosen = os.environ.get(CACHE_ENV)
    return Path(chosen) / folder if chosen else None


def stamp(*modules: str, extra: str = "") -> str:
    """What identifies the behaviour of the code that made an entry: the entry format,
    fablint's version, ``extra`` and the content of ``modules`` (fablint's own files; a
    checkout's edits count, not only releases, and an installed copy gives the same stamp as
    its source)."""
    digest = hashlib.sha256(f"{FORMAT}\n{__version__}\n{extra}".encode())
    for name in modules:
        with contextlib.suppress(OSError):
            digest.update(b"\0" + (_HERE / name).read_bytes())
    return digest.hexdigest()


def entry_name(stamped: str, text: str) -> str:
    """The file name of the entry of ``text`` under a ``stamp``."""
    digest = hashlib.sha256(stamped.encode())
    digest.update(b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return f"{digest.hexdigest()}.json"


def places(folder: str, name: str) -> tuple[Path | None, Path | None]:
    """Where the entry ``name`` of the cache ``folder`` ships, and where it may be written
    (None when nothing may be)."""
    writable = cache_dir(folder)
    return SHIPPED / folder / name, (writable / name if writable is not None else None)


@functools.cache
def _loader_stamp() -> str:
    """What the YAML loader's behaviour depends on: its modules (read once a process)."""
    return stamp("yamlio.py", "yamlparse.py")


def _key(text: str) -> str:
    return entry_name(_loader_stamp(), text)


def load_yaml_cached(text: str, where: str) -> tuple[Any, KeyLines]:
    """``yamlio.load_yaml_text(text, where)``, from the cache when it holds this text."""
    shipped, writable = places(FOLDER, _key(text))
    for entry in (shipped, writable):
        found = _read(entry) if entry is not None else None
        if found is not None:
            return found
    data, lines = load_yaml_text(text, where)  # ConfigError propagates: nothing is cached
    if writable is not None:
        write(writable, data, lines)
    return data, lines


def _read(entry: Path) -> tuple[Any, KeyLines] | None:
    try:
        document = json.loads(entry.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return None
    pairs = document.get("lines")
    if "data" not in document or not isinstance(pairs, list):
        return None
    lines: KeyLines = {}
    for pair in pairs:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], list)
                and type(pair[1]) is int
                and all(type(part) in (str, int) for part in pair[0])):
            return None
        lines[tuple(pair[0])] = pair[1]
    return document["data"], lines


def write(entry: Path, data: Any, lines: KeyLines) -> None:
    """Store an entry if it reads back as the same data (else leave the cache alone)."""
    document = {"format": FORMAT, "data": data,
                "lines": [[list(key), line] for key, line in lines.items()]}
    try:
        text = json.dumps(document, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return
    if not _same(json.loads(text)["data"], data):
        return
    write_entry(entry, text)


def write_entry(entry: Path, text: str) -> None:
    """Write a cache entry whole or not at all (a hook may run beside this one), then drop
    the oldest entries beyond ``MAX_ENTRIES``; a folder that cannot be written is left be."""
    with contextlib.suppress(OSError):
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = entry.with_name(f".{entry.name}.{os.getpid()}")
        try:
            temporary.write_text(text, encoding="utf-8")
            temporary.replace(entry)
        finally:
            temporary.unlink(missing_ok=True)
        _prune(entry.parent)


def _same(left: Any, right: Any) -> bool:
    """Equal, with the same kinds of value throughout (JSON must not turn 1.0 into 1, a key
    into another type, or lose anything). ruamel's scalar types read back as the plain ones
    they extend (a ``ScalarFloat`` as a float), except its anchored booleans, which are ints
    and would come back as 1 and 0."""
    from ruamel.yaml.scalarbool import ScalarBoolean  # loaded: this text was just parsed

    if isinstance(right, ScalarBoolean):
        return False
    if isinstance(right, bool) or right is None:
        return left is right
    if isinstance(right, dict):
        return (isinstance(left, dict) and list(left) == list(right)
                and all(_same(left[k], right[k]) for k in right))
    if isinstance(right, list):
        return (isinstance(left, list) and len(left) == len(right)
                and all(_same(a, b) for a, b in zip(left, right, strict=True)))
    for kind in (str, int, float):
        if isinstance(right, kind):
            return type(left) is kind and left == right
    return False


def _prune(folder: Path) -> None:
    entries = list(folder.glob("*.json"))
    if len(entries) <= MAX_ENTRIES:
        return
    def age(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    for old in sorted(entries, key=age)[:len(entries) - MAX_ENTRIES]:
        old.unlink(missing_ok=True)
