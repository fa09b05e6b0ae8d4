"""Secrets never leave fablint: one layer that finds them in the inputs and masks them in
everything fablint prints or writes.

Configurations carry passwords, SNMP communities and shared keys. fablint models none of them,
but a message may quote an input (a duplicate SONiC ``SNMP_COMMUNITY`` key *is* the community
string). So each input's secret values are found once when it is read (``find_secrets``, by
the secret-bearing fields of each vendor), remembered (``remember``), and every report, parse
dump, drift or topology output passes through ``scrub`` on its way out, whatever its format
(JSON, SARIF, JUnit XML and GitHub annotations escape text their own way: each spelling is
masked).

A value is masked only as a whole token (``admin`` in ``admin_status`` is not the password
``admin``), and values shorter than ``MIN_LENGTH`` are not masked: they cannot be told apart
from ordinary words and numbers, and masking them would garble every report.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable

MASK = "********"
MIN_LENGTH = 4

# -- finding secrets in an input -------------------------------------------------------------

_CLI_TRIGGERS = ("secret", "password", "passwd", "passphrase", "key", "community", "snmp-server",
                 "Secret", "Password", "Key", "Community", "SECRET", "PASSWORD", "KEY")
"""Substrings without which a CLI line holds no secret (a fast C search rules out most files)."""

_ENC = r"(?:0|3|5|6|7|8|9|sha512|sha256|md5|encrypted|cleartext|plaintext)"
_CLI = re.compile(rf"""
    (?:^|\s)(?:
        (?:authentication-key|message-digest-key)\s+\d+\s+(?:md5|sha\S*)(?:\s+{_ENC})?
      | (?:secret|password|passwd|passphrase|key-string|authentication-key|passkey|key)
        (?:\s+{_ENC})?
      | community
      | auth\s+(?:md5|sha\S*)
      | priv(?:\s+(?:aes\S*|des\S*|3des))?
      | snmp-server\s+host\s+\S+(?:\s+vrf\s+\S+)?(?:\s+(?:traps|informs))?
        (?:\s+version\s+(?:1|2c|3\s+(?:auth|noauth|priv)))?
    )\s+("[^"]*"|'[^']*'|\S+)""", re.I | re.X)
"""EOS / NX-OS / IOS-style fields: ``username u secret sha512 V``, ``enable password V``,
``snmp-server community V``, ``snmp-server host H version 2c V``, ``snmp-server user u r auth
md5 V priv aes-128 V``, ``tacacs-server [host H] key 7 V``, ``radius-server ... key V``,
``neighbor N password 7 V``, ``key-string 7 V``, ``ip ospf message-digest-key 1 md5 V``."""

_NOT_SECRETS = frozenset({
    "chain", "generate", "string", "config-key", "use-vrf", "vrf", "view", "group", "ro", "rw",
    "network-admin", "network-operator", "encrypted", "auth", "priv", "localizedkey", "md5",
    "sha", "version", "traps", "informs", "none", "required", "optional", "exchange", "rsa",
    "strength-check", "secure", "udp-port", "filter", "source-interface", "timeout", "retransmit",
    "enable", "disable", "local", "default", "aes-128", "engineid", "context", "notify",
    "contact", "location", "host", "user", "community", "key", "password", "secret",
})
"""Keywords that can follow a secret-bearing word without being a secret themselves."""

_JSON_TRIGGERS = ("pass", "PASS", "Pass", "secret", "SECRET", "ommunity", "OMMUNITY", '"key"')
_JSON_FIELD = re.compile(
    r'"([\w-]*(?:pass(?:word|wd|key|phrase)|secret|community)[\w-]*|key|auth_?key)"'
    r'\s*:\s*"((?:[^"\\]|\\.)*)"', re.I)
"""SONiC ``TACPLUS``/``RADIUS`` ``passkey``, ``SNMP_USER_*_PASSWORD``, BGP ``password``..."""
_FLAT_COMMUNITY = re.compile(r'"SNMP_COMMUNITY\|((?:[^"\\]|\\.)+)"')
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')
_SECRET_TABLES = ("SNMP_COMMUNITY",)
"""SONiC tables whose row keys are the secrets: the community string names the row."""


def find_secrets(text: str) -> list[str]:
    """The secret values an input holds, by the secret-bearing fields of each vendor."""
    found: set[str] = set()
    if any(t in text for t in _CLI_TRIGGERS):
        for line in _lines_with(text, _CLI_TRIGGERS):
            for match in _CLI.finditer(line):
                _keep(found, match.group(1))
    if any(t in text for t in _JSON_TRIGGERS):
        for match in _JSON_FIELD.finditer(text):
            _keep(found, _unescape(match.group(2)))
    for table in _SECRET_TABLES:
        if table in text:
            found.update(_table_keys(text, table))
            for match in _FLAT_COMMUNITY.finditer(text):
                _keep(found, _unescape(match.group(1)))
    return sorted(found)


def _keep(found: set[str], value: str) -> None:
    value = value.strip()
    if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    if len(value) >= MIN_LENGTH and value.lower() not in _NOT_SECRETS:
        found.add(value)


def _lines_with(text: str, triggers: Iterable[str]) -> list[str]:
    """Each line holding one of ``triggers``, once (found by C-speed searches, not a regex
    over the whole text)."""
    starts: dict[int, str] = {}
    for trigger in triggers:
        at = text.find(trigger)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            if start not in starts:
                starts[start] = text[start:end]
            at = text.find(trigger, end)
    return list(starts.values())


def _unescape(value: str) -> str:
    if "\\" not in value:
        return value
    try:
        return str(json.loads(f'"{value}"'))
    except ValueError:
        return value


def _table_keys(text: str, table: str) -> set[str]:
    """The row keys of every ``"TABLE": {...}`` object in a JSON text (duplicates included,
    which a JSON loader would collapse)."""
    keys: set[str] = set()
    needle = f'"{table}"'
    at = text.find(needle)
    while at >= 0:
        position = at + len(needle)
        depth = 0
        pending: str | None = None
        for match in _JSON_TOKEN.finditer(text, position):
            piece = match.group()
            gap = text[position:match.start()].strip()
            if pending is not None and gap.startswith(":") and depth == 1:
                _keep(keys, _unescape(pending))
            pending = None
            position = match.end()
            if piece in "{[":
                if depth == 0 and (piece != "{" or gap != ":"):
                    break  # the name of the table used as a plain string
                depth += 1
            elif piece in "}]":
                depth -= 1
                if depth <= 0:
                    break
            elif depth == 1:
                pending = piece[1:-1]
            elif depth == 0:
                break
        at = text.find(needle, at + len(needle))
    return keys


# -- masking them in what fablint prints -----------------------------------------------------

_KNOWN: set[str] = set()
_PATTERNS: dict[frozenset[str], re.Pattern[str] | None] = {}


def remember(values: Iterable[str]) -> None:
    """Add secrets found in an input (or given by the user) to those ``scrub`` masks."""
    for value in values:
        if len(value) >= MIN_LENGTH:
            _KNOWN.add(value)


def forget() -> None:
    """Drop every remembered secret (between independent runs in one process: tests)."""
    _KNOWN.clear()
    _PATTERNS.clear()


def known() -> frozenset[str]:
    return frozenset(_KNOWN)


def _spellings(value: str) -> set[str]:
    """The ways each output format writes ``value``: as is, JSON (ASCII or not), XML/HTML,
    GitHub workflow commands."""
    return {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        html.escape(value, quote=True),
        html.escape(value, quote=False),
        value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"),
        value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
             .replace(":", "%3A").replace(",", "%2C"),
    }


def scrub(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every secret (the remembered ones, or ``secrets``) masked as a token."""
    values = _KNOWN if secrets is None else {s for s in secrets if len(s) >= MIN_LENGTH}
    if not values or not text:
        return text
    present = frozenset(s for v in values for s in _spellings(v) if s and s in text)
    if not present:
        return text
    pattern = _PATTERNS.get(present)
    if pattern is None:
        pattern = _token_pattern(present)
        _PATTERNS[present] = pattern
    return pattern.sub(MASK, text)


def _token_pattern(values: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return re.compile(rf"(?<![\w])(?:{alternatives})(?![\w])")


# -- the collector: a credential the device echoed as one ------------------------------------

_PROMPT_ECHO = re.compile(r"(?i)\b(?:password|passphrase|passcode|secret)\s*(?:for\s+\S+\s*)?:")


def mask_credential(text: str, credential: str | None) -> str:
    """``text`` (a device's output) with ``credential`` masked only where the device echoed it
    as a credential: a password prompt's line, or the value of a secret-bearing field. Device
    data that merely contains the same letters (``admin_status`` for ``admin``) is untouched."""
    if not credential or credential not in text:
        return text
    pattern = _token_pattern({credential})
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        if credential in line and pattern.search(line) and _is_credential_line(line, credential):
            line = pattern.sub(MASK, line)
        out.append(line)
    return "".join(out)


def _is_credential_line(line: str, credential: str) -> bool:
    if _PROMPT_ECHO.search(line):
        return True
    if credential in find_secrets(line):
        return True
    return len(credential) < MIN_LENGTH and any(
        _keep_raw(m.group(1)) == credential for m in _CLI.finditer(line))


def _keep_raw(value: str) -> str:
    value = value.strip()
    if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value
