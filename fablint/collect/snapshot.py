"""Snapshot folders: ``OUT/<timestamp>/<device>/<command>.txt`` plus ``manifest.json``.

Writing: every file goes through a temporary file in the same folder and a rename, so an
interrupted collection leaves complete files or none; names from the inventory or from device
output are reduced to plain file names and checked to stay inside the snapshot.

Reading: ``fablint lint`` and ``fablint drift`` accept a snapshot like any folder of configs.
The manifest says which device and command produced each file, so each output is parsed with
the parser for its platform, and outputs no parser reads yet (LLDP before the topology parsers,
say) are left out quietly instead of being reported as unsupported files.
"""

# No "from __future__ import annotations" here: pydantic would compile the text of every
# field's annotation when the classes are made (a sixth of the import). An annotation
# that names a class defined further down is a string.

import contextlib
import hashlib
import os
import re
import tempfile
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MANIFEST = "manifest.json"
KIND = "fablint-snapshot"
MANIFEST_VERSION = 1
_MARKER = f'"kind": "{KIND}"'
SNIFF_BYTES = 16 * 1024
"""As much of an output as format detection looks at (fablint.parsers.detect)."""
_SAFE = re.compile(r"[^A-Za-z0-9._+@-]+")

DeviceStatus = Literal["pending", "ok", "partial", "failed", "cancelled"]
CommandStatus = Literal["ok", "failed", "skipped"]


class CommandRecord(BaseModel):
    """One command run on one device.

    The snapshot models are built on first use (``defer_build``): most lint runs read no
    snapshot, and building them costs every run a few milliseconds of start-up.
    """

    model_config = ConfigDict(extra="ignore", defer_build=True)

    command: str
    kind: str
    file: str | None = None
    """Path of the output relative to the snapshot folder; None when nothing was saved."""
    formats: list[str] = Field(default_factory=list)
    """fablint input formats that read this output, most specific first."""
    started: str | None = None
    finished: str | None = None
    status: CommandStatus = "failed"
    error: str | None = None
    sha256: str | None = None
    bytes: int | None = None


class DeviceRecord(BaseModel):
    """One device of a collection: where it is, how it went, what was saved."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    device: str
    folder: str
    address: str
    port: int
    platform: str
    device_type: str
    status: DeviceStatus = "pending"
    error: str | None = None
    error_kind: str | None = None
    """``auth``, ``unreachable``, ``timeout``, ``disconnected``, ``host-key``, … (see docs)."""
    attempts: int = 0
    started: str | None = None
    finished: str | None = None
    rdma_interfaces: list[str] | None = None
    notes: list[str] = Field(default_factory=list)
    """Things worth knowing that are not failures (device output that was ignored)."""
    commands: list[CommandRecord] = Field(default_factory=list)


class Manifest(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)

    kind: Literal["fablint-snapshot"] = KIND
    version: int = MANIFEST_VERSION
    fablint: str = ""
    started: str | None = None
    finished: str | None = None
    inventory: str | None = None
    devices: list[DeviceRecord] = Field(default_factory=list)

    def summary(self) -> dict[str, int]:
        counts = {"ok": 0, "partial": 0, "failed": 0, "cancelled": 0, "pending": 0}
        for device in self.devices:
            counts[device.status] += 1
        return counts


def now() -> str:
    """UTC time stamp for the manifest, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- names and paths -------------------------------------------------------------------------


def folder_name(name: str) -> str:
    """A device name as a plain folder name: no separators, no ``..``, no hidden names.

    ``leaf1.dc1`` stays; ``../etc`` becomes ``_etc``; an empty result is ``_``.
    """
    cleaned = _SAFE.sub("_", name.strip())
    cleaned = cleaned.lstrip(".")
    cleaned = re.sub(r"\.{2,}", "_", cleaned)
    return cleaned[:128] or "_"


def inside(root: Path, *parts: str) -> Path:
    """``root / parts`` after checking that it stays inside ``root`` (no ``..``, no symlinks
    that lead out, no absolute parts)."""
    target = root.joinpath(*parts)
    real_root = root.resolve()
    real = target.resolve()
    if real != real_root and real_root not in real.parents:
        raise ValueError(f"refusing to write outside the snapshot: {target}")
    return target


def snapshot_folder(out: Path, when: datetime | None = None) -> Path:
    """Create and return a new ``OUT/<timestamp>`` folder (``-2``, ``-3`` … if taken)."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    for n in range(1, 1000):
        candidate = out / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(f"{out}: too many snapshots named {stamp}")


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a hidden temporary file and a rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise


def save_output(root: Path, folder: str, name: str, text: str) -> tuple[str, str, int]:
    """Save one command's output; returns (relative path, sha256, size in bytes)."""
    device_dir = inside(root, folder)
    if device_dir.is_symlink():
        raise ValueError(f"refusing to write through a symbolic link: {device_dir}")
    device_dir.mkdir(exist_ok=True)
    target = inside(root, folder, f"{name}.txt")
    data = text.encode("utf-8")
    write_atomic(target, data)
    return f"{folder}/{name}.txt", hashlib.sha256(data).hexdigest(), len(data)


def write_manifest(root: Path, manifest: Manifest) -> None:
    text = manifest.model_dump_json(indent=2)
    write_atomic(root / MANIFEST, (text + "\n").encode("utf-8"))


# -- reading a snapshot (for lint and drift) -------------------------------------------------


class SnapshotFile(BaseModel):
    model_config = ConfigDict(defer_build=True)  # built by the runs that read a snapshot

    device: str
    command: str
    kind: str
    formats: list[str]


class SnapshotIndex(BaseModel):
    """What the manifest says about each file of one snapshot."""

    model_config = ConfigDict(defer_build=True)

    root: str
    files: dict[str, SnapshotFile]
    """Absolute path of an output file -> its record (only outputs saved complete)."""


def _manifest_of(folder: Path) -> Path | None:
    for candidate in (folder / MANIFEST, folder.parent / MANIFEST):
        if candidate.is_file():
            return candidate
    return None


@lru_cache(maxsize=256)
def _load_index(manifest: str, mtime_ns: int) -> SnapshotIndex | None:
    path = Path(manifest)
    try:
        with path.open("rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
        if _MARKER not in head:
            return None
        data = Manifest.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError):
        return None
    root = path.parent.resolve()
    files: dict[str, SnapshotFile] = {}
    for device in data.devices:
        for command in device.commands:
            if command.status != "ok" or not command.file:
                continue
            target = (root / command.file).resolve()
            if root not in target.parents:
                continue
            files[str(target)] = SnapshotFile(device=device.device, command=command.command,
                                              kind=command.kind, formats=command.formats)
    return SnapshotIndex(root=str(root), files=files)


def snapshot_index(folder: Path) -> SnapshotIndex | None:
    """The snapshot that ``folder`` is the root of, or a device folder of; else None."""
    manifest = _manifest_of(folder)
    if manifest is None:
        return None
    try:
        mtime = manifest.stat().st_mtime_ns
    except OSError:
        return None
    return _load_index(str(manifest.resolve()), mtime)


def snapshot_file(path: str | Path) -> SnapshotFile | None:
    """The manifest's record of an output file, if ``path`` is one."""
    file = Path(path)
    index = snapshot_index(file.parent)
    if index is None:
        return None
    return index.files.get(str(file.resolve()))


# -- what ingest asks ------------------------------------------------------------------------


def index_for(folder: Path) -> SnapshotIndex | None:
    """The snapshot a folder being walked belongs to (cheap for folders that are not one)."""
    return snapshot_index(folder)


def skip_in_folder(index: SnapshotIndex, folder: Path, name: str) -> bool:
    """Leave a file of a snapshot out of a folder walk: the manifest itself, and outputs that
    no parser of this fablint reads (so they are neither errors nor noise)."""
    path = (folder / name).resolve()
    if name == MANIFEST and str(path.parent) == index.root:
        return True
    record = index.files.get(str(path))
    if record is None:
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES).decode("utf-8", "replace").lstrip("\ufeff")
    except OSError:
        return False  # let the reader report it
    if _known_format(record, head) is not None:
        return False
    from fablint.parsers.detect import detect

    return detect(head).parser is None


def _known_format(record: SnapshotFile, head: str) -> str | None:
    """The parser for an output: the manifest's first format that this fablint has and that
    recognises the output. A running configuration is taken on the manifest's word (the
    platform is known; a sparse configuration may not sniff); other outputs must also look
    right (an empty LLDP table, a SONiC `show lldp` layout the LLDP parser does not read)."""
    from fablint.parsers import PARSERS

    for name in record.formats:
        parser = PARSERS.get(name)
        if parser is None:
            continue
        if record.kind == "running-config" or parser.sniff(head[:SNIFF_BYTES]) > 0:
            return name
    return None


def format_for(path: str, text: str) -> str | None:
    """The parser a snapshot output must be read with, when the manifest knows it."""
    record = snapshot_file(path)
    return _known_format(record, text) if record is not None else None


def device_for(path: str) -> str | None:
    """The inventory name of the device a snapshot output came from."""
    record = snapshot_file(path)
    return record.device if record is not None else None


def name_devices(path: str, devices: list[Any]) -> None:
    """A device that took its name from a snapshot file name (its configuration has no
    hostname) is named after the inventory's device instead of ``show_running-config``."""
    if not devices:
        return
    record = snapshot_file(path)
    if record is None:
        return
    stem = Path(path).stem
    for device in devices:
        if device.name == stem:
            device.name = record.device
