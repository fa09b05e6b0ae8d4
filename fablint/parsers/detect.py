"""Reading an input file and recognising its format from the content."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fablint.parsers import PARSERS, Parser
from fablint.parsers.base import starts_as_yaml

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
    """Read an input as text. Raises InputError for binary, oversized or unreadable files."""
    try:
        size = path.stat().st_size
        if size > MAX_INPUT_BYTES:
            raise InputError(f"file is {size} bytes, larger than the {MAX_INPUT_BYTES} byte limit")
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from exc
    nul = data.find(b"\x00")
    if nul >= 0 and detect(data[:min(nul, SNIFF_BYTES)].decode("utf-8", "replace")).parser is None:
        raise InputError(
            "binary file (NUL byte), not a text configuration", kind="unsupported",
            line=data.count(b"\n", 0, nul) + 1,
        )
    # A NUL after a recognisable start is damage in a configuration: the parser reports it.
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # Configurations are mostly ASCII; a few Latin-1 bytes in descriptions are common.
        text = data.decode("utf-8", errors="replace")
        bad = text.count("\ufffd")
        if bad > max(16, len(text) // 100):
            raise InputError(
                "not a text file (invalid UTF-8)", kind="unsupported",
                line=data.count(b"\n", 0, exc.start) + 1,
            ) from exc
        return text.lstrip("\ufeff")


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
