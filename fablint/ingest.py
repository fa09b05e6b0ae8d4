"""Files to fabric: find the inputs, recognise and parse each, gather the devices.

Parsing is per file and independent, so large fabrics are parsed in worker processes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from fablint.collect import snapshot
from fablint.model import Device, Fabric, IbNode, InputFile, Link, ParseProblem
from fablint.parallel import map_files
from fablint.parsers import PROVIDES
from fablint.parsers.base import ParseError
from fablint.parsers.coverage import coverage_problems, text_facts
from fablint.parsers.detect import (
    SNIFF_BYTES,
    InputError,
    detect,
    read_head,
    read_text,
    remember_sniffs,
    take_sniffs,
)
from fablint.plainbuild import made
from fablint.redact import find_secrets, remember
from fablint.trusted import Maker
from fablint.walk import SKIP_DIRS, GitIgnore, gitignored, load_gitignore, obviously_not_input


@dataclass
class FileOutcome:
    """What came of one parse unit: usually one file; several for a device split over files."""

    input: InputFile
    devices: list[Device] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    extra_inputs: list[InputFile] = field(default_factory=list)
    """The other files of a multi-file device (SONiC config_db.json + qos.json + …)."""
    ib_nodes: list[IbNode] = field(default_factory=list)
    """InfiniBand nodes of a discovery dump."""
    look: Look | None = None
    """What grouping learns of the file (``group_units``), when the parse was asked to look
    (a speculated unit: ``look_first``)."""

    @property
    def inputs(self) -> list[InputFile]:
        return [self.input, *self.extra_inputs]



Unit = list[tuple[str, bool]]
"""Files parsed together: (path, named on the command line)."""

MERGEABLE_SUFFIXES = frozenset({".json", ".conf"})
"""Only formats whose devices are routinely split over several files are grouped (SONiC JSON
fragments; an OpenSM opensm.conf with its partitions.conf)."""
HOST_NEVER_SUFFIXES = frozenset({".json", ".cfg", ".conf"})
"""Suffixes no GPU host capture has; any other file is grouped when a host format claims it."""


GROUP_PARALLEL_FILES = 64
"""Fewer files to look at than this are looked at in this process (a fork costs more)."""


@dataclass(frozen=True)
class Look:
    """What grouping learns of one file from its head (and, for SONiC, its text)."""

    group: str | None
    """The merge group (a format id or ``group_key``), None when the file is a unit alone."""
    format: str | None
    """The format recognised from the head (or the whole JSON text), when asked for."""
    host: str | None = None
    """``sonic.certain_hostname`` of a SONiC document."""
    sniffed: tuple[tuple[tuple[int, int, bool, bool], str | None], ...] = ()
    """Detection's answers found while looking, for the parent's memory (``detect``)."""


def group_units(files: list[tuple[str, bool]], forced: str | None = None,
                formats: dict[str, str] | None = None, jobs: int | None = None) -> list[Unit]:
    """Files to parse units, in input order: the fragments of one folder that a parser can
    merge (``parse_documents``) form one unit; every other file is a unit of its own.

    A fragment is recognised by its head alone, so grouping costs a 16 KB read per JSON file
    (and per file that is not a ``.cfg``/``.conf``, which may be a GPU host capture), and a
    whole read of each SONiC document (``_split_devices``). The format recognised from each
    head it read goes into ``formats`` (path -> format id). Many files are looked at in
    ``jobs`` processes; what detection found there is remembered here, so that the parse
    workers (forked later) do not sniff the same heads again.
    """
    looks = _look([path for path, _ in files if _may_merge(path)], forced, formats, jobs)
    return units_of(files, looks)


def look_first(files: list[tuple[str, bool]], forced: str | None = None,
               formats: dict[str, str] | None = None, jobs: int | None = None,
               ) -> tuple[dict[str, Look], frozenset[str]]:
    """``group_units``' looks at the files, except the JSON files, which are left to the
    parse (``speculated``: each a unit of its own until its parse says otherwise, see
    ``units_of``). Grouping read each SONiC document's head and then its whole text before
    the workers read it again; the parse reads it once and tells what grouping would have
    learnt (``FileOutcome.look``). Returns the looks and the speculated files."""
    wanted = [path for path, _ in files if _may_merge(path)]
    json_files: dict[str, list[str]] = {}
    for path in wanted:
        if path.lower().endswith(".json"):
            json_files.setdefault(str(Path(path).parent), []).append(path)
    speculated = frozenset(path for paths in json_files.values()
                           if len(paths) >= SPECULATED_FOLDER_FILES for path in paths)
    return _look([p for p in wanted if p not in speculated], forced, formats, jobs), speculated


SPECULATED_FOLDER_FILES = 8
"""JSON files a folder must hold for ``look_first`` to leave them to their parse: a folder of
whole switches, where the speculation holds. A folder of one switch's fragments (config_db.json,
qos.json, buffers.json) is looked at first as before: its fragments would be parsed twice."""


def _look(wanted: list[str], forced: str | None, formats: dict[str, str] | None,
          jobs: int | None) -> dict[str, Look]:
    """The looks at ``wanted`` (``_look_task``), in ``jobs`` processes when there are many."""
    looks: dict[str, Look] = {}
    if wanted:
        tasks = [(path, forced, formats is not None) for path in wanted]
        size = total_size([(path, False) for path in wanted]) if len(wanted) >= \
            GROUP_PARALLEL_FILES else 0
        for path, look in zip(wanted, map_files(_look_task, tasks, jobs=jobs,
                                                total_bytes=size), strict=True):
            looks[path] = look
            if look.sniffed:
                remember_sniffs(look.sniffed)
            if look.format is not None and formats is not None:
                formats[path] = look.format
    return looks


def units_of(files: list[tuple[str, bool]], looks: dict[str, Look]) -> list[Unit]:
    """The units of ``files`` given the looks at them (a file without one is a unit alone)."""
    units: list[Unit] = []
    by_folder: dict[tuple[str, str], Unit] = {}
    for path, explicit in files:
        look = looks.get(path)
        name = look.group if look is not None else None
        if name is None:
            units.append([(path, explicit)])
            continue
        key = (str(Path(path).parent), name)
        unit = by_folder.get(key)
        if unit is None:
            unit = by_folder[key] = []
            units.append(unit)
        unit.append((path, explicit))
    if by_folder:
        units = [part for unit in units for part in _split_devices(unit, by_folder, looks)]
    return units


def _split_devices(unit: Unit, grouped: dict[tuple[str, str], Unit],
                   looks: dict[str, Look]) -> list[Unit]:
    """A folder of whole SONiC switches as one unit per switch, so that they are parsed in
    parallel: only when every document certainly names its own hostname, which is all that
    merging goes by then (``fablint.parsers.sonic._group``). Any doubt keeps the unit."""
    if len(unit) < 2 or not any(u is unit for (_, name), u in grouped.items()
                                if name == "sonic"):
        return [unit]
    by_host: dict[str, Unit] = {}
    for path, explicit in unit:
        host = looks[path].host
        if host is None:
            return [unit]
        by_host.setdefault(host, []).append((path, explicit))
    return list(by_host.values())


def _may_merge(path: str) -> bool:
    """Whether grouping must look at the file: a JSON or ``.conf`` file, or one with a
    suffix no switch configuration has (a GPU host capture's)."""
    suffix = Path(path).suffix.lower()
    return suffix in MERGEABLE_SUFFIXES or suffix not in HOST_NEVER_SUFFIXES


def _look_task(task: tuple[str, str | None, bool]) -> Look:
    path, forced, want_format = task
    look = _look_head(path, forced, want_format)
    if look.group == "sonic":
        with contextlib.suppress(InputError):
            look = _with_host(look, read_text(Path(path)))
    return replace(look, sniffed=take_sniffs())


def _look_head(path: str, forced: str | None, want_format: bool = True) -> Look:
    """What grouping learns of a file from its head (``Look`` without the host)."""
    formats: dict[str, str] | None = {} if want_format else None
    group = _mergeable_format(path, forced, formats)
    return Look(group, (formats or {}).get(path))


def _with_host(look: Look, text: str) -> Look:
    """``look`` of a SONiC document with the hostname it certainly names (``text``: its
    whole text, as ``read_text`` gives it)."""
    from fablint.parsers.sonic import certain_hostname

    return replace(look, host=certain_hostname(text))


def _mergeable_format(path: str, forced: str | None,
                      formats: dict[str, str] | None = None) -> str | None:
    suffix = Path(path).suffix.lower()
    # GPU host captures (mlnx_qos output, sysfs dumps, host-facts YAML) carry any suffix but a
    # switch configuration's; their files in one folder are merged per host.
    host_candidate = suffix not in HOST_NEVER_SUFFIXES
    if suffix not in MERGEABLE_SUFFIXES and not host_candidate:
        return None
    try:
        head = read_head(Path(path))
    except InputError:
        return None
    mergeable = suffix in MERGEABLE_SUFFIXES or PROVIDES.get(forced or "") == "hosts"
    if not mergeable and formats is None:
        if not _host_input(head):
            return None
        mergeable = True
    parser = detect(head, forced).parser
    if parser is None and head.lstrip().startswith("{") and len(head) >= SNIFF_BYTES // 2:
        # a JSON document whose head names no known table (a linecard's SYSTEM_PORT table
        # can fill it): judged on the whole text, read once more only in this case
        with contextlib.suppress(InputError):
            parser = detect(read_text(Path(path)), forced).parser
    if parser is not None and formats is not None:
        formats[path] = parser.name
    if parser is None or not hasattr(parser, "parse_documents"):
        return None
    if not mergeable and not _host_input(head):
        # asked only of a head whose format merges (an LLDP table's never does): the host
        # sniffers' patterns cost more than detection, on every '.txt' file of a fabric
        return None
    group_key = getattr(parser, "group_key", None)  # formats that group across parsers
    return group_key(path) if group_key is not None else parser.name


def _host_input(head: str) -> bool:
    """Whether a GPU host format claims ``head`` (imported only when a file may be one)."""
    from fablint.parsers.host_facts import is_host_input  # no import for '.cfg' fabrics

    return is_host_input(head)


def brought(outcome: FileOutcome) -> set[str]:
    """What a parsed unit brings besides switch configurations (see ``PROVIDES``)."""
    out = set()
    if outcome.links or outcome.ib_nodes or any(
            i.neighbor is not None for d in outcome.devices for i in d.interfaces.values()):
        out.add("links")
    if any(d.host is not None for d in outcome.devices):
        out.add("hosts")
    return out


def provisions(files: list[tuple[str, bool]], formats: dict[str, str],
               forced: str | None = None) -> set[str]:
    """What the inputs are expected to bring besides switch configurations (``PROVIDES``):
    from the formats ``group_units`` recognised. A ``.cfg`` file is taken for a switch
    configuration without reading it; the parse tells for sure (``brought``)."""
    if forced:
        return {PROVIDES[forced]} if forced in PROVIDES else set()
    return {PROVIDES[f] for f in formats.values() if f in PROVIDES}


def parse_unit(unit: Unit, forced: str | None = None,
               look: bool = False) -> FileOutcome | list[FileOutcome]:
    """Parse a unit. One file: its outcome (with ``look``, also what grouping would learn of
    it: ``FileOutcome.look``). Several: the merged outcome plus one outcome for each file
    that could not be read. Never raises."""
    if len(unit) == 1:
        return parse_file(unit[0][0], unit[0][1], forced, look)
    readable: list[tuple[InputFile, str]] = []
    failed: list[FileOutcome] = []
    for path, explicit in unit:
        info = InputFile(path=path, explicit=explicit)
        try:
            text = read_text(Path(path))
        except InputError as exc:
            failed.append(FileOutcome(info, problems=[_input_problem(path, exc)]))
            continue
        info.bytes = len(text)
        info.secrets = find_secrets(text)
        readable.append((info, text))
    if not readable:
        return failed
    parser = detect(readable[0][1], forced).parser
    if parser is None or len(readable) == 1:
        return [*(parse_file(i.path, i.explicit, forced) for i, _ in readable), *failed]
    try:
        result = parser.parse_documents([(text, info.path) for info, text in readable])  # type: ignore[attr-defined]
    except ParseError as exc:
        problem = ParseProblem(file=exc.file, line=exc.line, message=exc.message,
                               kind="parse-error", fatal=True)
        return [FileOutcome(readable[0][0], problems=[problem]), *failed]
    except ValueError as exc:
        if not _too_many_digits(exc):
            raise
        problem = ParseProblem(file=readable[0][0].path, kind="parse-error", fatal=True,
                               message="a number too long to read (thousands of digits)")
        return [FileOutcome(readable[0][0], problems=[problem]), *failed]
    infos = [info for info, _ in readable]
    format_of = getattr(parser, "format_of", None)  # a unit may mix formats (host captures)
    for info, text in readable:
        info.format = format_of(text) if format_of is not None else parser.name
        info.vendor = parser.vendor
        info.lines = text.count("\n") + 1
    infos[0].unknown_lines = result.unknown_lines
    merged = FileOutcome(infos[0], devices=result.devices, problems=result.problems,
                         links=result.links, extra_inputs=infos[1:])
    _record_devices(merged)
    return [merged, *failed]


class PathNotFound(Exception):
    pass


def _outer_gitignores(root: Path) -> list[GitIgnore]:
    """The ``.gitignore`` files of the folders above a walk's root, up to its repository's top
    (the folder holding ``.git``), outermost first: git applies them to the walked files too."""
    found: list[GitIgnore] = []
    if (root / ".git").exists():
        return found
    for parent in root.parents:
        rule = load_gitignore(parent)
        if rule is not None:
            found.append(rule)
        if (parent / ".git").exists():
            break
    else:
        return []  # not inside a repository: ignore files above the root mean nothing
    return found[::-1]


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
        if path.is_file() or (not path.is_dir() and os.path.lexists(path)):
            # a FIFO, socket, device or symbolic link loop named on the command line is
            # reported by the read (read_text), not taken for a missing path
            key = str(path)
            with contextlib.suppress(OSError, RuntimeError):  # a link loop: the read reports it
                key = str(path.resolve())
            if key not in seen:
                seen.add(key)
                out.append((str(path), True))
            continue
        if not path.is_dir():
            raise PathNotFound(raw)
        ignores: dict[str, list[GitIgnore]] = {}
        for folder, dirs, files in os.walk(path):
            here = Path(folder)
            real = here.resolve()  # once per folder: resolving every file costs 50 ms
            # on a thousand files; a symlinked file is still resolved on its own
            rules = ignores.get(folder)
            if rules is None:  # the walk's root: the .gitignore files up to the repository's
                rules = _outer_gitignores(real)
            own = load_gitignore(real) if ".gitignore" in files else None
            if own is not None:
                rules = [*rules, own]
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS
                             and not (rules and gitignored(rules, real / d, True)))
            for d in dirs:
                ignores[f"{folder}{os.sep}{d}"] = rules  # as os.walk names it
            snap = snapshot.index_for(here)
            for name in sorted(files):
                if obviously_not_input(name):
                    continue
                if snap is not None and snapshot.skip_in_folder(snap, here, name):
                    continue  # a snapshot's manifest, or an output no parser reads yet
                file = str(here / name)
                if excluded(file) or (rules and gitignored(rules, real / name, False)):
                    continue
                entry = real / name
                key = str(entry)
                if entry.is_symlink():
                    with contextlib.suppress(OSError, RuntimeError):  # a loop: read reports it
                        key = str(entry.resolve())
                if key not in seen:
                    seen.add(key)
                    out.append((file, False))
    return out


CONFIG_SUFFIXES = frozenset({".json", ".cfg", ".conf"})
"""Names that promise a configuration: binary content there is damage, not a stray file."""


def _input_problem(path: str, exc: InputError) -> ParseProblem:
    kind = exc.kind
    if kind == "special":  # a FIFO, device or link loop: skipped, an error only when named
        kind = "unsupported"
    elif kind == "unsupported" and Path(path).suffix.lower() in CONFIG_SUFFIXES:
        kind = "unreadable"
    return ParseProblem(file=path, line=exc.line, message=exc.message, kind=kind, fatal=True)


def _too_many_digits(exc: ValueError) -> bool:
    """Python's guard against quadratic int() of huge digit strings (a hostile input)."""
    return "integer string conversion" in str(exc)


def _foreign_xml(path: str) -> bool:
    """An XML file in a folder that is not lldpd's neighbour table (a build file, a NETCONF
    reply): skipped without a word, as folder walks always skipped XML."""
    if not path.lower().endswith(".xml"):
        return False
    from fablint.parsers.lldpctl_xml import HEAD

    return HEAD.search(read_head(Path(path))) is None


def parse_file(path: str, explicit: bool, forced: str | None = None,
               look: bool = False) -> FileOutcome:
    """Read, recognise and parse one file. Never raises: failures become problems. With
    ``look``, the outcome also tells what grouping would learn of the file (``_look_task``),
    from the one read of its text."""
    info = made(InputFile, {"path": path, "explicit": explicit})
    outcome = FileOutcome(info)
    if look:
        outcome.look = _look_head(path, forced)
    try:
        if not explicit and not forced and _foreign_xml(path):
            return outcome
        text = read_text(Path(path))
    except InputError as exc:
        outcome.problems.append(_input_problem(path, exc))
        return outcome
    if outcome.look is not None and outcome.look.group == "sonic":
        outcome.look = _with_host(outcome.look, text)
    info.bytes = len(text)
    info.secrets = find_secrets(text)
    detection = detect(text, forced or snapshot.format_for(path, text))
    if detection.parser is None:
        if detection.foreign and not explicit:
            return outcome  # a playbook in a config repository: skipped without a word
        reason = detection.hint or "not recognised as any supported format"
        outcome.problems.append(ParseProblem(
            file=path, message=f"unsupported input: {reason}", kind="unsupported", fatal=True,
        ))
        return outcome
    info.format = detection.parser.name
    info.vendor = detection.parser.vendor
    facts = text_facts(path, text, detection.parser.name)
    box = [text]
    del text  # the parser's alone: a large running-config's model is built without it
    try:
        result = detection.parser.parse(box.pop(), path)
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
    except ValueError as exc:
        if not _too_many_digits(exc):
            raise
        outcome.problems.append(ParseProblem(  # Python refuses int() of 4,300+ digits
            file=path, message="a number too long to read (thousands of digits)",
            kind="parse-error", fatal=True,
        ))
        return outcome
    info.lines = result.lines
    info.unknown_lines = result.unknown_lines
    info.first_unknown = result.first_unknown
    outcome.devices = result.devices
    snapshot.name_devices(path, outcome.devices)
    outcome.problems = [*result.problems,
                        *coverage_problems(path, facts, detection.parser.name, result)]
    outcome.links = result.links
    outcome.ib_nodes = result.ib_nodes
    info.ib_nodes = len(result.ib_nodes)
    _record_devices(outcome)
    return outcome


def _record_devices(outcome: FileOutcome) -> None:
    """Note in each input which devices it describes, and where each got its name."""
    for info in outcome.inputs:
        info.devices = [d.name for d in outcome.devices if info.path in d.files]
    outcome.input.devices = [d.name for d in outcome.devices]
    for device in outcome.devices:
        ref = device.where("name")
        if ref is not None and ref.line:
            outcome.input.hostname_lines[device.name] = ref.line


def parse_all(
    files: list[tuple[str, bool]], forced: str | None = None, jobs: int | None = None
) -> list[FileOutcome]:
    """Parse every file, in worker processes when the input is large enough to pay off."""
    tasks = [(unit, forced) for unit in group_units(files, forced)]
    done = map_files(_parse_task, tasks, jobs=jobs, total_bytes=total_size(files))
    return [o for item in done for o in (item if isinstance(item, list) else [item])]


def _parse_task(task: tuple[Unit, str | None]) -> FileOutcome | list[FileOutcome]:
    return parse_unit(*task)


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


new_fabric = Maker(Fabric)
"""``Fabric(**parts)`` of parts that are models already, without validation (which would build
the validators of every model a Fabric can hold) and without pydantic's ``model_construct``:
that asks ``inspect.signature`` of each default factory (``dict``, ``list``), which parses their
text signatures by defining classes on the fly, 35 KB of cyclic garbage a call that the
collector, paused while workers parse, never freed (36 MB of peak RSS on the mixed fabric)."""


def build_fabric(outcomes: list[FileOutcome]) -> tuple[Fabric, dict[tuple[str, str], str]]:
    """Gather every file's devices; a second device with a taken name is renamed.

    Works from the device names each file reports, so it also serves runs that did not keep
    the device models. Returns the fabric and the renames, keyed by (file, original name).
    """
    fabric = new_fabric({})  # as Fabric(), without building its validator
    owners: dict[str, str] = {}
    renames: dict[tuple[str, str], str] = {}
    for outcome in outcomes:
        info = outcome.input
        fabric.inputs.extend(outcome.inputs)
        for read in outcome.inputs:
            remember(read.secrets)  # whatever fablint prints from now on masks them
        fabric.problems.extend(outcome.problems)
        fabric.links.extend(outcome.links)
        fabric.ib_nodes.extend(outcome.ib_nodes)
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
