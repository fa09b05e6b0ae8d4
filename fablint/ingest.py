"""Files to fabric: find the inputs, recognise and parse each, gather the devices.

Parsing is per file and independent, so large fabrics are parsed in worker processes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from fablint.model import Device, Fabric, InputFile, ParseProblem
from fablint.parallel import map_files
from fablint.parsers.base import ParseError
from fablint.parsers.detect import InputError, detect, read_text

# Files in a folder that are obviously not device inputs.
SKIP_SUFFIXES = frozenset({
    ".md", ".rst", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".zip", ".gz", ".tgz",
    ".tar", ".bz2", ".xz", ".py", ".pyc", ".sarif", ".html", ".css", ".js", ".xml",
})
SKIP_NAMES = frozenset({
    "fablint.yaml", ".fablint.yaml", "fablint.yml", ".fablint.yml", "fablint-baseline.json",
    ".fablint-baseline.json", "README", "LICENSE", "MANIFEST.tsv",
})


@dataclass
class FileOutcome:
    input: InputFile
    devices: list[Device] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)


class PathNotFound(Exception):
    pass


def discover(
    paths: Iterable[str], excluded: Callable[[str], bool] = lambda _p: False
) -> list[tuple[str, bool]]:
    """Expand files and folders into (file, named-explicitly) pairs, in a stable order.

    Hidden files and folders, and files that are clearly not configurations, are skipped in
    folders; a file named on the command line is always read.
    """
    out: list[tuple[str, bool]] = []
    seen: set[str] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            key = str(path.resolve())
            if key not in seen:
                seen.add(key)
                out.append((str(path), True))
            continue
        if not path.is_dir():
            raise PathNotFound(raw)
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            for name in sorted(files):
                if name.startswith(".") or name in SKIP_NAMES:
                    continue
                if Path(name).suffix.lower() in SKIP_SUFFIXES:
                    continue
                file = str(Path(folder) / name)
                if excluded(file):
                    continue
                key = str(Path(file).resolve())
                if key not in seen:
                    seen.add(key)
                    out.append((file, False))
    return out


def parse_file(path: str, explicit: bool, forced: str | None = None) -> FileOutcome:
    """Read, recognise and parse one file. Never raises: failures become problems."""
    info = InputFile(path=path, explicit=explicit)
    outcome = FileOutcome(info)
    try:
        text = read_text(Path(path))
    except InputError as exc:
        outcome.problems.append(ParseProblem(
            file=path, line=exc.line, message=exc.message, kind=exc.kind, fatal=True,
        ))
        return outcome
    info.bytes = len(text)
    detection = detect(text, forced)
    if detection.parser is None:
        reason = detection.hint or "not recognised as any supported format"
        outcome.problems.append(ParseProblem(
            file=path, message=f"unsupported input: {reason}", kind="unsupported", fatal=True,
        ))
        return outcome
    info.format = detection.parser.name
    try:
        result = detection.parser.parse(text, path)
    except ParseError as exc:
        outcome.problems.append(ParseProblem(
            file=path, line=exc.line, message=exc.message, kind="parse-error", fatal=True,
        ))
        return outcome
    except RecursionError:
        outcome.problems.append(ParseProblem(
            file=path, message="input nested too deeply to parse", kind="parse-error",
            fatal=True,
        ))
        return outcome
    info.lines = result.lines
    info.unknown_lines = result.unknown_lines
    info.devices = [d.name for d in result.devices]
    for device in result.devices:
        ref = device.where("name")
        if ref is not None and ref.line:
            info.hostname_lines[device.name] = ref.line
    outcome.devices = result.devices
    outcome.problems = result.problems
    return outcome


def parse_all(
    files: list[tuple[str, bool]], forced: str | None = None, jobs: int | None = None
) -> list[FileOutcome]:
    """Parse every file, in worker processes when the input is large enough to pay off."""
    tasks = [(path, explicit, forced) for path, explicit in files]
    return map_files(_parse_task, tasks, jobs=jobs, total_bytes=total_size(files))


def _parse_task(task: tuple[str, bool, str | None]) -> FileOutcome:
    return parse_file(*task)


def total_size(files: list[tuple[str, bool]]) -> int:
    total = 0
    for path, _ in files:
        with contextlib.suppress(OSError):
            total += Path(path).stat().st_size
    return total


def _free_name(name: str, path: str, taken: dict[str, str]) -> str:
    """A name for a second device called ``name``: ``name@file``, then ``name@dir/file``, …"""
    parts = Path(path).parts
    for depth in range(1, len(parts) + 1):
        candidate = f"{name}@{'/'.join(parts[-depth:])}"
        if candidate not in taken:
            return candidate
    n = 2
    while f"{name}@{path}#{n}" in taken:
        n += 1
    return f"{name}@{path}#{n}"


def build_fabric(outcomes: list[FileOutcome]) -> tuple[Fabric, dict[tuple[str, str], str]]:
    """Gather every file's devices; a second device with a taken name is renamed.

    Works from the device names each file reports, so it also serves runs that did not keep
    the device models. Returns the fabric and the renames, keyed by (file, original name).
    """
    fabric = Fabric()
    owners: dict[str, str] = {}
    renames: dict[tuple[str, str], str] = {}
    for outcome in outcomes:
        info = outcome.input
        fabric.inputs.append(info)
        fabric.problems.extend(outcome.problems)
        by_name = {d.name: d for d in outcome.devices}
        names = []
        for name in info.devices:
            final = name
            if name in owners:
                final = _free_name(name, info.path, owners)
                renames[(info.path, name)] = final
                fabric.problems.append(ParseProblem(
                    file=info.path, line=info.hostname_lines.get(name),
                    message=f"hostname {name!r} is also used by {owners[name]}; this device "
                    f"is linted as {final!r}",
                    kind="invalid-value",
                ))
            owners.setdefault(final, info.path)
            names.append(final)
            device = by_name.get(name)
            if device is not None:
                device.name = final
                fabric.devices[final] = device
        info.devices = names
    return fabric, renames
