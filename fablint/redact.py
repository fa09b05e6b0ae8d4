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

import json
import re
from collections.abc import Iterable

MASK = "********"
MIN_LENGTH = 4

# -- finding secrets in an input -------------------------------------------------------------

_TRIGGERS = ("pass", "secret", "key", "community", "snmp-server")
"""Substrings without which a line holds no secret: a few C-speed searches find the lines worth
reading (``pass`` covers password, passwd, passphrase; ``key`` passkey, key-string and
authentication-key)."""
_JSON_TRIGGERS = (*_TRIGGERS, "PASS", "SECRET")
"""In a JSON document (SONiC), also the capitals of ``SNMP_USER_AUTH_PASSWORD`` and the like."""

_ENCRYPTIONS = frozenset({"0", "3", "5", "6", "7", "8", "9", "sha512", "sha256", "md5",
                          "encrypted", "cleartext", "plaintext"})
_VALUE_AFTER = frozenset({"secret", "password", "passwd", "passphrase", "key-string", "passkey",
                          "key"})
"""EOS / NX-OS / IOS-style fields, read word by word (a regular expression tried at every
position of every such line cost more than the rest of the parse): ``username u secret sha512
V``, ``enable password V``, ``snmp-server community V``, ``snmp-server host H version 2c V``,
``snmp-server user u r auth md5 V priv aes-128 V``, ``tacacs-server [host H] key 7 V``,
``radius-server ... key V``, ``neighbor N password 7 V``, ``key-string 7 V``,
``ip ospf message-digest-key 1 md5 V``, ``ntp authentication-key 1 md5 V``."""


def _cli_values(line: str) -> list[str]:
    words = line.split()
    values: list[str] = []
    if words and words[0] in ("set", "match"):  # route-map clauses: BGP communities, no secret
        return values
    for i, word in enumerate(words):
        low = word.lower()
        at = -1
        if low in _VALUE_AFTER:
            at = i + 1
        elif low in ("authentication-key", "message-digest-key"):
            at = i + 1
            if at + 1 < len(words) and words[at].isdigit() and \
                    words[at + 1].lower().startswith(("md5", "sha")):
                at += 2
        elif low == "community":
            at = i + 1
        elif low == "auth" and i + 1 < len(words) and words[i + 1].lower().startswith(
                ("md5", "sha")):
            at = i + 2
        elif low == "priv":
            at = i + 1
            if at + 1 < len(words) and words[at].lower().startswith(("aes", "des", "3des")):
                at += 1
        elif low == "host" and i and words[i - 1].lower() == "snmp-server":
            at = _snmp_host_community(words, i + 2)
        if 0 <= at < len(words) and words[at].lower() in _ENCRYPTIONS and at + 1 < len(words):
            at += 1
        if 0 <= at < len(words):
            values.append(words[at])
    return values


def _snmp_host_community(words: list[str], at: int) -> int:
    """``snmp-server host H [vrf V] [traps|informs] [version 1|2c|3 LEVEL] COMMUNITY``."""
    if at + 1 < len(words) and words[at].lower() == "vrf":
        at += 2
    if at < len(words) and words[at].lower() in ("traps", "informs"):
        at += 1
    if at + 1 < len(words) and words[at].lower() == "version":
        at += 3 if words[at + 1] == "3" else 2
    return at


_NOT_SECRETS = frozenset({
    "chain", "generate", "string", "config-key", "use-vrf", "vrf", "view", "group", "ro", "rw",
    "network-admin", "network-operator", "encrypted", "auth", "priv", "localizedkey", "md5",
    "sha", "version", "traps", "informs", "none", "required", "optional", "exchange", "rsa",
    "strength-check", "secure", "udp-port", "filter", "source-interface", "timeout", "retransmit",
    "enable", "disable", "local", "default", "aes-128", "engineid", "context", "notify",
    "contact", "location", "host", "user", "community", "key", "password", "secret",
    "true", "false", "yes", "null", "enabled", "disabled", "<hash>", "<password>", "<secret>",
})
"""Keywords that can follow a secret-bearing word without being a secret themselves."""

_JSON_FIELD = re.compile(
    r'"([\w-]*(?:pass(?:word|wd|key|phrase)|secret|community)|key|auth_?key)"'
    r'\s*:\s*"((?:[^"\\]|\\.)*)"', re.I)
"""SONiC ``TACPLUS``/``RADIUS`` ``passkey``, ``SNMP_USER_*_PASSWORD``, BGP ``password``: a
field whose name ends with the secret word (``password_authentication`` is a setting)."""
_FLAT_COMMUNITY = re.compile(r'"SNMP_COMMUNITY\|((?:[^"\\]|\\.)+)"')
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')
_SECRET_TABLES = ("SNMP_COMMUNITY",)
"""SONiC tables whose row keys are the secrets: the community string names the row."""


def find_secrets(text: str) -> list[str]:
    """The secret values an input holds, by the secret-bearing fields of each vendor."""
    found: set[str] = set()
    is_json = text[:256].lstrip().startswith(("{", "["))
    for line in _lines_with(text, _JSON_TRIGGERS if is_json else _TRIGGERS):
        for value in _cli_values(line):
            _keep(found, value)
        if '"' in line:
            for match in _JSON_FIELD.finditer(line):
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
_INDEX: dict[str, list[str]] = {}
"""Every spelling of every remembered secret, by its first ``MIN_LENGTH`` characters."""
_PLAIN = re.compile(r"[\w$./+=@!#^*()\-\[\]{}|~?;]*\Z")
"""Characters that no output format escapes: such a secret is spelled one way only."""
_CANDIDATE = re.compile(r"(?<!\w)(?<!\w[-.])\S")
"""Where a masked token may begin: not inside a word, nor inside a hyphenated or dotted name
(the community ``msft`` is not in the file name ``msft-sdn-n3132-tor1.cfg``, nor in
``tor1-msft.cfg``: masking there would garble the path every report points at)."""


def remember(values: Iterable[str]) -> None:
    """Add secrets found in an input (or given by the user) to those ``scrub`` masks."""
    for value in values:
        if len(value) >= MIN_LENGTH and value not in _KNOWN:
            _KNOWN.add(value)
            _index(_INDEX, value)


def forget() -> None:
    """Drop every remembered secret (between independent runs in one process: tests)."""
    _KNOWN.clear()
    _INDEX.clear()


def known() -> frozenset[str]:
    return frozenset(_KNOWN)


def _index(index: dict[str, list[str]], value: str) -> None:
    for spelling in _spellings(value):
        if len(spelling) >= MIN_LENGTH:
            entries = index.setdefault(spelling[:MIN_LENGTH], [])
            if spelling not in entries:
                entries.append(spelling)
                entries.sort(key=len, reverse=True)


def _spellings(value: str) -> set[str]:
    """The ways each output format writes ``value``: as is, JSON (ASCII or not), XML/HTML,
    GitHub workflow commands."""
    if _PLAIN.match(value):
        return {value}
    import html  # only a secret with characters some format escapes gets here

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
    """``text`` with every secret (the remembered ones, or ``secrets``) masked as a token.

    Thousands of secrets (a large fabric's) are looked up by the first characters of each
    place a token can start, rather than searched for one by one; a text none of whose words
    holds such a start (``_may_hold``: most reports) is returned as it is without that walk.
    """
    index = _INDEX if secrets is None else _index_of(secrets)
    if not index or not text or not _may_hold(text, index):
        return text
    return _mask(text, index)


def _index_of(secrets: Iterable[str]) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for value in secrets:
        if len(value) >= MIN_LENGTH:
            _index(index, value)
    return index


def _mask(text: str, index: dict[str, list[str]]) -> str:
    """``text`` with every spelling in ``index`` masked where it stands as a token."""
    out: list[str] = []
    done = 0
    size = len(text)
    for match in _CANDIDATE.finditer(text):
        start = match.start()
        if start < done:
            continue
        entries = index.get(text[start:start + MIN_LENGTH])
        if entries is None:
            continue
        for spelling in entries:
            end = start + len(spelling)
            if text.startswith(spelling, start) and (end == size or not (
                    text[end].isalnum() or text[end] == "_" or (
                        text[end] in "-." and end + 1 < size and text[end + 1].isalnum()))):
                out.append(text[done:start])
                out.append(MASK)
                done = end
                break
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _may_hold(text: str, index: dict[str, list[str]]) -> bool:
    """Whether the first characters of a secret stand where a masked token may begin.

    Looked for in the distinct whitespace-separated words of ``text`` rather than at every place
    of it: a 6 MB report of 1,024 switches has 12,000 distinct words, and visiting its million
    token starts one by one took half a second. A word's token starts are the text's (what
    precedes a word is whitespace, which no lookbehind of ``_CANDIDATE`` accepts as part of a
    word). Only a secret whose first characters hold whitespace can span two words: then every
    place is visited, as before.
    """
    if any(key.split() != [key] for key in index):
        return True
    candidates = _CANDIDATE.finditer
    for word in set(text.split()):
        for match in candidates(word):
            start = match.start()
            if word[start:start + MIN_LENGTH] in index:
                return True
    return False


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
        _keep_raw(value) == credential for value in _cli_values(line))


def _keep_raw(value: str) -> str:
    value = value.strip()
    if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value
