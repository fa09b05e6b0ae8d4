"""Files to fabric: find the inputs, recognise and parse each, gather the devices.

Parsing is per file and independent, so large fabrics are parsed in worker processes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path

from fablint.model import Device, Fabric, InputFile, ParseProblem
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
PARALLEL_MIN_BYTES = 4 * 1024 * 1024
"""Below this much input, worker start-up costs more than it saves."""


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
    outcome.devices = result.devices
    outcome.problems = result.problems
    return outcome


def _parse_batch(batch: list[tuple[str, bool, str | None]]) -> list[FileOutcome]:
    return [parse_file(path, explicit, forced) for path, explicit, forced in batch]


def _jobs(requested: int | None) -> int:
    if requested is not None and requested > 0:
        return requested
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def parse_all(
    files: list[tuple[str, bool]], forced: str | None = None, jobs: int | None = None
) -> list[FileOutcome]:
    """Parse every file, in worker processes when the input is large enough to pay off."""
    workers = min(_jobs(jobs), len(files))
    total = 0
    for path, _ in files:
        with contextlib.suppress(OSError):
            total += Path(path).stat().st_size
    tasks = [(path, explicit, forced) for path, explicit in files]
    if workers <= 1 or total < PARALLEL_MIN_BYTES or "fork" not in get_all_start_methods():
        return _parse_batch(tasks)
    # Few large batches: each result crosses the process boundary once, pickled.
    batches = [tasks[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        results = list(pool.map(_parse_batch, batches))
    by_path = {o.input.path: o for batch in results for o in batch}
    return [by_path[path] for path, _, _ in tasks]


def build_fabric(outcomes: list[FileOutcome]) -> Fabric:
    """Gather devices from every file; a second device with a taken name is renamed."""
    fabric = Fabric()
    for outcome in outcomes:
        fabric.inputs.append(outcome.input)
        fabric.problems.extend(outcome.problems)
        for device in outcome.devices:
            name = device.name
            if name in fabric.devices:
                other = fabric.devices[name]
                device.name = f"{name}@{Path(outcome.input.path).name}"
                ref = device.where("name")
                fabric.problems.append(ParseProblem(
                    file=outcome.input.path, line=ref.line if ref else None,
                    message=f"hostname {name!r} is also used by {other.files[0]}; this device "
                    f"is linted as {device.name!r}",
                    kind="invalid-value",
                ))
                outcome.input.devices = [device.name if d == name else d
                                         for d in outcome.input.devices]
            fabric.devices[device.name] = device
    return fabric
