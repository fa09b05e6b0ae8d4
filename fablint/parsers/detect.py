"""Reading an input file and recognising its format from the content."""

from __future__ import annotations

import errno
import stat
from dataclasses import dataclass
from pathlib import Path

from fablint.parsers import PARSERS, Parser
from fablint.parsers.base import decode_input, starts_as_yaml, text_encoding

MAX_INPUT_BYTES = 256 * 1024 * 1024
SNIFF_BYTES = 16 * 1024
MIN_CONFIDENCE = 30
CERTAIN = 100
YAML_LIKE_FORMATS = frozenset({"host-facts", "iblinkinfo", "mlxconfig"})
"""Formats whose files may begin like a YAML mapping (``key: value``): the host-facts YAML,
iblinkinfo's ``CA: …`` / ``Switch: …`` lines and an mlxconfig query cut to its
``Configurations:`` table. Any other parser is not asked about such a
file: YAML test data and Ansible variables often hold whole configurations or dumps, indented
under a key, that must not pass for one."""

# Formats fablint recognises but does not read (yet), so the user gets a useful hint.
_KNOWN_UNSUPPORTED = (
    ("traffic.packet_priority_source_set", "Cumulus Linux traffic.conf"),
    ("## Running database", "NVIDIA MLNX-OS / Onyx configuration"),
    ("interface TenGigabitEthernet ", "Dell OS9 (FTOS) configuration"),
    ("{%", "Jinja2 template (render it first)"),
    ("{#", "Jinja2 template (render it first)"),
    ("# speed cable", "SONiC pg_profile_lookup.ini (a headroom lookup table; lint the rendered "
                      "BUFFER_PROFILE in config_db.json instead)"),
    ("qos_params:", "sonic-mgmt QoS test parameters (qos_params.*.yaml): test expectations, "
                    "not a device configuration"),
)


class InputError(Exception):
    """The file cannot be used at all (unreadable, binary, too large)."""

    def __init__(self, message: str, kind: str = "unreadable", line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.line = line


@dataclass
class Detection:
    parser: Parser | None
    hint: str | None = None


def read_text(path: Path) -> str:
    """Read an input as text (``decode_input``: any BOM, UTF-16, CRLF or CR line ends). Raises
    InputError for binary, oversized, unreadable and special files."""
    data = read_bytes(path)
    codec, _ = text_encoding(data)
    if codec == "utf-8":
        nul = data.find(b"\x00")
        if nul >= 0 and detect(decode_input(data[:min(nul, SNIFF_BYTES)], partial=True)[0]
                               ).parser is None:
            raise InputError(
                "binary file (NUL byte), not a text configuration", kind="unsupported",
                line=data.count(b"\n", 0, nul) + 1,
            )
    # A NUL after a recognisable start is damage in a configuration: the parser reports it.
    text, bad = decode_input(data)
    # Configurations are mostly ASCII; a few Latin-1 bytes in descriptions are common.
    if bad > max(16, len(text) // 100):
        where = text.find("\ufffd")
        name = "-".join(codec.upper().split("-")[:2])  # UTF-8, UTF-16, UTF-32
        raise InputError(f"not a text file (invalid {name})", kind="unsupported",
                         line=text.count("\n", 0, where) + 1)
    return text


def read_head(path: Path) -> str:
    """The first ``SNIFF_BYTES`` of an input as text, decoded as ``read_text`` would; raises
    InputError for special files (a FIFO would block the read)."""
    regular_file(path)
    try:
        with path.open("rb") as handle:
            return decode_input(handle.read(SNIFF_BYTES), partial=True)[0]
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from exc


def read_bytes(path: Path) -> bytes:
    """The bytes of a regular file within the size limit."""
    size = regular_file(path)
    if size > MAX_INPUT_BYTES:
        raise InputError(f"file is {size} bytes, larger than the {MAX_INPUT_BYTES} byte limit")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from exc


_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
            (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
            (stat.S_ISDIR, "a directory"))


def regular_file(path: Path) -> int:
    """The size of ``path``; InputError when it is not a regular file: a FIFO or a device would
    block or never end, a symbolic link loop has no content. Checked before any open."""
    try:
        info = path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError("symbolic link loop; not read", kind="special") from exc
        if exc.errno == errno.ENOENT and path.is_symlink():
            raise InputError("broken symbolic link (its target does not exist); not read",
                             kind="special") from exc
        raise InputError(f"cannot read: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        what = next((label for test, label in _SPECIAL if test(info.st_mode)), "not a regular file")
        raise InputError(f"{what}, not a regular file; not read", kind="special")
    return info.st_size


def detect(text: str, forced: str | None = None) -> Detection:
    """Pick the parser for ``text``; ``forced`` (a format id) skips detection."""
    if forced:
        return Detection(PARSERS[forced])
    head = text[:SNIFF_BYTES]
    yaml_head = starts_as_yaml(head)
    scored = []
    for name, parser in PARSERS.items():
        if yaml_head and name not in YAML_LIKE_FORMATS:
            continue
        score = parser.sniff(head)
        if score >= CERTAIN:  # no need to ask the others (sniffing is a tenth of a parse)
            return Detection(parser)
        scored.append((score, name))
    scored.sort(reverse=True)
    if scored and scored[0][0] >= MIN_CONFIDENCE:
        return Detection(PARSERS[scored[0][1]])
    for signal, label in _KNOWN_UNSUPPORTED:
        if signal in head:
            return Detection(None, f"looks like {label}, which fablint does not read yet")
    stripped = head.lstrip()
    if stripped.startswith(("{", "[")):
        return Detection(None, "a JSON document in no format fablint reads")
    if yaml_head:
        return Detection(None, "a YAML document in no format fablint reads (a host-facts file "
                               "begins with 'fablint-host: 1'; configurations inside YAML are "
                               "not read)")
    if not stripped:
        return Detection(None, "the file is empty")
    return Detection(None, None)
