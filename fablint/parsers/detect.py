"""Reading an input file and recognising its format from the content."""

from __future__ import annotations

import errno
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from fablint.encodings import text_encoding
from fablint.parsers import PARSERS, Parser
from fablint.parsers.base import decode_input, starts_as_yaml

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


_JSON_START = re.compile(r'\{|\[\s*(?:[\[{"\d\]-]|true|false|null|$)')
"""A JSON document: an object, or an array of values (``[defaults]`` opens an INI section)."""
_INI_START = re.compile(r"\[[\w .:@/-]+\]$")
RUNNING_CONFIGS = frozenset({"eos", "nxos"})
MAX_SNIFF_WINDOWS = 16
"""How far into a file detection looks when its head is inconclusive, in windows of SNIFF_BYTES:
text formats carry their signs near the top, past a banner or a long comment at most."""


def _first_line(text: str) -> str:
    for line in text.split("\n", 64):
        line = line.strip()
        if line and not line.startswith(("#", ";")):
            return line
    return ""


_SNIFFED: dict[tuple[int, int, bool, bool], Parser | None] = {}
"""``_sniff``'s answers by the window's hash and length. The parent sniffs the head of every
JSON or table file when it groups the inputs, then each worker (forked: it has this memory)
parses the file and would sniff the same head again, every parser in turn (1 ms a SONiC file)."""
_SNIFFED_MAX = 65_536


_NEW_SNIFFS: list[tuple[tuple[int, int, bool, bool], str | None]] = []
"""``_sniff``'s answers not yet handed on by ``take_sniffs`` (by format id)."""


def _sniff(window: str, yaml_head: bool, json_head: bool = False) -> Parser | None:
    """The parser most confident about ``window`` (at least MIN_CONFIDENCE), if any."""
    key = (hash(window), len(window), yaml_head, json_head)
    if key in _SNIFFED:
        return _SNIFFED[key]
    found = _sniff_window(window, yaml_head, json_head)
    if len(_SNIFFED) >= _SNIFFED_MAX:
        _SNIFFED.clear()
        _NEW_SNIFFS.clear()
    _SNIFFED[key] = found
    _NEW_SNIFFS.append((key, found.name if found is not None else None))
    return found


def take_sniffs() -> tuple[tuple[tuple[int, int, bool, bool], str | None], ...]:
    """The answers ``_sniff`` found since the last call: a process that looked at files for
    another (``fablint.ingest.group_units``) hands them to it. The keys hold ``hash`` of the
    text, which is the same in processes forked from one another."""
    found = tuple(_NEW_SNIFFS)
    _NEW_SNIFFS.clear()
    return found


def remember_sniffs(found: tuple[tuple[tuple[int, int, bool, bool], str | None], ...]) -> None:
    """Take answers of ``take_sniffs`` from a forked process into this one's memory."""
    if len(_SNIFFED) + len(found) >= _SNIFFED_MAX:
        return
    for key, name in found:
        _SNIFFED[key] = PARSERS[name] if name is not None else None


def _sniff_window(window: str, yaml_head: bool, json_head: bool = False) -> Parser | None:
    best = (0, False, "")  # a running-config wins a tie: a pasted table's lines are FAB005
    for name, parser in PARSERS.items():
        if yaml_head and name not in YAML_LIKE_FORMATS:
            continue
        if json_head and name in RUNNING_CONFIGS:
            # a file that opens as a JSON document is no running-config, whatever lines its
            # strings hold; not asking them is a sixth of a SONiC switch's detection-and-parse
            continue
        score = parser.sniff(window)
        if score >= CERTAIN:  # no need to ask the others (sniffing is a tenth of a parse)
            if name not in RUNNING_CONFIGS and best[0] >= MIN_CONFIDENCE and \
                    best[2] in RUNNING_CONFIGS:
                # a running-config with a table or dump pasted into it is a running-config
                # (the pasted lines are reported, FAB005); no table or dump file scores as one
                return PARSERS[best[2]]
            return parser
        best = max(best, (score, name in RUNNING_CONFIGS, name))
    return PARSERS[best[2]] if best[0] >= MIN_CONFIDENCE else None


def _sniff_further(text: str, yaml_head: bool) -> Parser | None:
    """Detection past the head: formats that can tell from the whole text (``sniff_whole``:
    SONiC tables in any order), then later windows of the text, cut at line starts."""
    for parser in PARSERS.values():
        whole = getattr(parser, "sniff_whole", None)
        if whole is not None and whole(text) >= MIN_CONFIDENCE:
            return parser
    if yaml_head or _JSON_START.match(text[:SNIFF_BYTES].lstrip()):
        return None  # a JSON document is judged whole; YAML data must not pass for a format
    start = SNIFF_BYTES
    for _ in range(MAX_SNIFF_WINDOWS - 1):
        start = text.find("\n", start - 1) + 1
        if start <= 0 or start >= len(text):
            return None
        found = _sniff(text[start:start + SNIFF_BYTES], False)
        if found is not None:
            return found
        start += SNIFF_BYTES
    return None


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
    foreign: bool = False
    """Obviously not a device input (an Ansible playbook or inventory): a folder walk skips it
    without a word; named on the command line it is still reported."""


_ANSIBLE_PLAY = re.compile(r"^-\s+(?:hosts|name)\s*:", re.MULTILINE)
_ANSIBLE_IMPORT = re.compile(r"^-\s+(?:ansible\.builtin\.)?import_playbook\s*:", re.MULTILINE)
_ANSIBLE_PLAY_KEYS = re.compile(r"^\s+(?:hosts|tasks|roles|gather_facts|pre_tasks|post_tasks|"
                                r"become|vars_files)\s*:", re.MULTILINE)
_ANSIBLE_INVENTORY = re.compile(r"^\s+(?:hosts|children|vars):", re.MULTILINE)


def _ansible(head: str) -> str | None:
    """An Ansible playbook (a list of plays) or YAML inventory, by its content."""
    first = _first_line(head.removeprefix("---"))
    if first.startswith("-") and (_ANSIBLE_IMPORT.search(head) or (
            _ANSIBLE_PLAY.search(head) and _ANSIBLE_PLAY_KEYS.search(head))):
        return "an Ansible playbook"
    if first.rstrip() == "all:" and _ANSIBLE_INVENTORY.search(head):
        return "an Ansible inventory"
    return None


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
    found = _sniff(head, yaml_head, _JSON_START.match(head.lstrip()) is not None)
    if found is not None:
        return Detection(found)
    for signal, label in _KNOWN_UNSUPPORTED:
        if signal in head:
            return Detection(None, f"looks like {label}, which fablint does not read yet")
    ansible = _ansible(head)
    if ansible is not None:
        return Detection(None, f"{ansible}, not a device input", foreign=True)
    if len(text) > len(head):
        found = _sniff_further(text, yaml_head)
        if found is not None:
            return Detection(found)
    stripped = head.lstrip()
    if _JSON_START.match(stripped):
        return Detection(None, "a JSON document in no format fablint reads")
    if _INI_START.match(_first_line(stripped)):
        return Detection(None, "an INI file (ansible.cfg, tox.ini, a lookup table …), not a "
                               "device configuration")
    if yaml_head:
        return Detection(None, "a YAML document in no format fablint reads (a host-facts file "
                               "begins with 'fablint-host: 1'; configurations inside YAML are "
                               "not read)")
    if not stripped:
        return Detection(None, "the file is empty")
    return Detection(None, None)
