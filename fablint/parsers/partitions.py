"""OpenSM ``partitions.conf``: InfiniBand partitions (P_Keys), their IPoIB groups and members.

Grammar (linux-rdma/opensm ``doc/partition-config.txt``, parser ``opensm/osm_prtn_config.c``)::

    [Name][=PKey][,flag[=value]]... : [member[=full|limited|both]], ... ;
    flags: ipoib, mtu=N, rate=N, sl=N, scope=N, defmember=full|limited|both, Q_Key=N,
           TClass=N, FlowLabel=N (and NVIDIA's indx0)
    members: ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF, NONE, a port GUID, or
             ``mgid=<IPv6 multicast GID>[,flag=value]...`` (a pre-created group; takes the rest
             of the line)

``#`` starts a comment. An entry ends at ``;`` and may span lines after its ``:``. Parsing follows
OpenSM: names and flags match by prefix as ``strncmp`` does, numbers are C ``strtoul`` (``0x`` hex,
leading ``0`` octal), and a line OpenSM rejects ("no partition definition found", "bad partition
definition", "bad PortGUID") is dropped from that point on, while an entry left open keeps
swallowing the next lines as ports. Those lines become ParseProblems with file:line, so that the
user sees what OpenSM would log and skip.
"""

from __future__ import annotations

import re
from typing import Any

from fablint.model import ParseProblem, SourceRef
from fablint.parsers.base import reject_nul
from fablint.parsers.directives import SuppressionTracker

Obj = dict[str, Any]

KEYWORDS = ("ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF")
"""Member keywords in the order OpenSM tries them (a prefix of one matches it)."""
GROUP_FLAGS = ("mtu", "rate", "scope", "Q_Key", "TClass", "sl", "FlowLabel")
"""Flags of the IPoIB broadcast group (and of ``mgid=`` groups), in OpenSM's order."""
PARTITION_FLAGS = ("ipoib", "defmember", "indx0")
MEMBERSHIPS = ("full", "limited", "both")

_C_NUMBER = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")


ULONG_MAX = (1 << 64) - 1


def c_strtoul(text: str) -> tuple[int, str]:
    """C ``strtoul(text, &end, 0)``: the number at the start of ``text`` and what follows.

    ``0x`` is hex, a leading ``0`` octal; no digits gives 0 and the whole text as the rest. A
    minus sign wraps as in C (``-1`` is the largest unsigned long, 2**64-1).
    """
    match = _C_NUMBER.match(text)
    if match is None:
        return 0, text
    sign, digits = match.groups()
    significant = (digits[2:] if digits[:2].lower() == "0x" else digits).lstrip("0")
    if len(significant) > 22:  # beyond any unsigned long: C saturates (ERANGE), as here
        return ULONG_MAX, text[match.end():]
    if digits[:2].lower() == "0x":
        value = int(digits, 16)
    elif len(digits) > 1 and digits[0] == "0":
        value = int(digits, 8)
    else:
        value = int(digits)
    if sign == "-":
        value = (-value) % (1 << 64)
    return min(value, ULONG_MAX), text[match.end():]


def _prefix_of(token: str, names: tuple[str, ...]) -> str | None:
    """The first of ``names`` that ``token`` is a prefix of (OpenSM's ``strncmp(t, n, len(t))``)."""
    for name in names:
        if name.startswith(token):
            return name
    return None


def _name_token(text: str) -> tuple[str, str | None]:
    """``name[=value]`` with blanks around both trimmed (OpenSM's ``parse_name_token``)."""
    name, eq, value = text.partition("=")
    return name.strip(" \t\n"), (value.strip(" \t\n") if eq else None)


# -- sniffing --------------------------------------------------------------------------------

_NAME = re.compile(r"^[\w.\-\s]*$")
_PKEY = re.compile(r"^\s*(?:0[xX][0-9a-fA-F]{1,4}|\d{1,5})\s*$")
_FLAG = re.compile(r"^\s*[A-Za-z_]\w*\s*(?:=\s*[\w.]+\s*)?$")
_MEMBER = re.compile(
    r"^\s*(?:(?:ALL|ALL_CAS|ALL_SWITCHES|ALL_ROUTERS|SELF|NONE|0[xX][0-9a-fA-F]+|\d+)"
    r"(?:\s*=\s*[A-Za-z]+)?)?\s*$"
)
_STRONG = re.compile(r"\b(?:ALL|SELF|ALL_CAS|ALL_SWITCHES)\b|\bipoib\b|=\s*full\b|=\s*limited\b")


def _header_ok(header: str) -> bool:
    """A partition definition by the grammar (checked token by token: no regex backtracking)."""
    first, *flags = header.split(",")
    name, eq, pkey = first.partition("=")
    if not name.strip() and not eq:
        return False
    if not _NAME.match(name) or (eq and not _PKEY.match(pkey)):
        return False
    return all(_FLAG.match(flag) for flag in flags)


def sniff_partitions(head: str) -> int:
    """Confidence that ``head`` is a partitions.conf: entries whose definition and every member
    follow the grammar, and that end with ``;``."""
    text = "\n".join(line.split("#", 1)[0] for line in head.splitlines())
    chunks = text.split(";")
    if len(chunks) < 2:
        return 0
    good = bad = 0
    for chunk in chunks[:-1]:  # the last one is unterminated (or the rest of a cut head)
        if not chunk.strip():
            continue
        header, colon, members = chunk.partition(":")
        ok = bool(colon) and _header_ok(header)
        if ok and "mgid" not in members:
            ok = all(_MEMBER.match(m) for m in members.split(","))
        if ok and _STRONG.search(chunk):
            good += 1
        else:
            bad += 1
    if good and good >= bad:
        return 100
    return 40 if good else 0


# -- parsing ---------------------------------------------------------------------------------


class _Entry:
    """A partition being read: created at its definition, closed by ``;``."""

    __slots__ = ("obj", "start")

    def __init__(self, obj: Obj | None, start: int) -> None:
        self.obj = obj
        self.start = start


class PartitionsReader:
    """One partitions.conf: partitions as model dicts, problems, suppressions."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.partitions: list[Obj] = []
        self.problems: list[ParseProblem] = []
        self.unknown = 0
        self.first_unknown: int | None = None
        self.lines = 0
        self.tracker = SuppressionTracker(path)

    def problem(self, lineno: int, message: str) -> None:
        self.problems.append(ParseProblem(file=self.path, line=lineno, message=message,
                                          kind="invalid-value"))

    def run(self, text: str) -> PartitionsReader:
        reject_nul(text, self.path, "NUL byte in a partitions file: not a text configuration")
        entry: _Entry | None = None
        raw_lines = text.split("\n")
        self.lines = len(raw_lines) or 1
        for lineno, raw in enumerate(raw_lines, 1):
            body, hash_, comment = raw.partition("#")
            if hash_:
                error = self.tracker.comment(comment, lineno)
                if error:
                    self.problem(lineno, error)
            if not body.strip():
                continue
            self.tracker.line(1 if entry is not None and entry.obj is not None else 0, lineno)
            entry = self._line(body, lineno, entry)
        return self

    def _line(self, body: str, lineno: int, entry: _Entry | None) -> _Entry | None:
        pos = 0
        rejected = False
        while True:
            while pos < len(body) and body[pos] in " \t\n\r":
                pos += 1
            if pos >= len(body):
                break
            end = body.find(";", pos)
            fragment = body[pos:] if end < 0 else body[pos:end]
            if entry is None:
                entry = _Entry(None, lineno)
            if not self._fragment(fragment, lineno, entry):
                rejected = True
                break
            if end < 0:
                break
            entry = None
            pos = end + 1
        if rejected:
            self.unknown += 1
            self.first_unknown = self.first_unknown or lineno
        return entry

    # A fragment is the text of one line up to a ';' (or the end of the line).
    def _fragment(self, fragment: str, lineno: int, entry: _Entry) -> bool:
        members = fragment
        if entry.obj is None:
            header, colon, members = fragment.partition(":")
            if not colon:
                self.problem(lineno, "no partition definition found: a partition entry is "
                             "'Name=PKey[,flags] : members ;' and this line has no ':' "
                             "(OpenSM rejects the line)")
                return False
            obj = self._definition(header, lineno)
            if obj is None:
                return False
            entry.obj = obj
            entry.start = lineno
            self.partitions.append(obj)
        for index, token in enumerate(members.split(",")):
            name, flag = _name_token(token)
            if name == "mgid":
                self._group(entry.obj, flag, members.split(",")[index + 1:], lineno)
                return True
            if not self._member(entry, name, flag, lineno, token):
                return False
        return True

    def _definition(self, header: str, lineno: int) -> Obj | None:
        ref = SourceRef(self.path, lineno)
        first, *flag_tokens = header.split(",")
        name, pkey_text = _name_token(first)
        if pkey_text is None and name[:1].isdigit():
            name, pkey_text = "", name
        pkey = None
        if pkey_text is not None:
            value, rest = c_strtoul(pkey_text)
            if rest or not pkey_text or rest == pkey_text:
                self.problem(lineno, f"bad partition definition: P_Key {pkey_text!r} is not a "
                             "number (OpenSM rejects the line)")
                return None
            pkey = value & 0xFFFF
        obj: Obj = {"name": name or None, "pkey": pkey, "src": ref, "field_src": {},
                    "flags": [], "members": [], "groups": [], "ipoib": False}
        if pkey is not None:
            obj["field_src"]["pkey"] = ref
        for token in flag_tokens:
            flag, value = _name_token(token)
            obj["flags"].append((flag, value))
            self._flag(obj, flag, value, ref)
        return obj

    def _flag(self, obj: Obj, flag: str, value: str | None, ref: SourceRef) -> None:
        lineno = ref.line or 0
        known = _prefix_of(flag, GROUP_FLAGS) if flag else None
        if known in ("mtu", "rate", "scope", "sl"):
            if value is None:
                self.problem(lineno, f"partition flag '{flag}' has no value (OpenSM skips it)")
                return
            # As written; OpenSM keeps strtoul's result for mtu and rate (0 for text) and
            # ignores an sl or scope out of range: the rules say which.
            obj[known] = c_strtoul(value)[0]
            obj["field_src"][known] = ref
            return
        if known is not None:  # Q_Key, TClass, FlowLabel: kept as written in ``flags``
            return
        partition_flag = _prefix_of(flag, PARTITION_FLAGS) if flag else None
        if partition_flag == "ipoib":
            obj["ipoib"] = True
            obj["field_src"]["ipoib"] = ref
        elif partition_flag == "defmember":
            membership = _prefix_of(value or "", MEMBERSHIPS) if value else None
            if membership is None:
                self.problem(lineno, f"defmember={value or ''} is not full, limited or both "
                             "(OpenSM ignores it: members default to limited)")
                return
            obj["defmember"] = membership
            obj["field_src"]["defmember"] = ref
        elif partition_flag is None:
            self.problem(lineno, f"unrecognized partition flag '{flag}' (OpenSM ignores it)")

    def _member(self, entry: _Entry, name: str, flag: str | None, lineno: int,
                token: str) -> bool:
        obj = entry.obj
        assert obj is not None
        if not name or "NONE".startswith(name):
            return True
        membership = obj.get("defmember") or "limited"
        explicit = flag is not None
        if flag is not None:  # any flag resets to limited unless it is (a prefix of) full/both
            membership = _prefix_of(flag, ("full", "both")) or "limited"
        keyword = _prefix_of(name, KEYWORDS)
        guid = None
        if keyword is None:
            value, rest = c_strtoul(name)
            if not value or rest:
                label = obj.get("name") or f"0x{obj.get('pkey') or 0:04x}"
                hint = ""
                if entry.start != lineno:
                    hint = (f"; the entry of partition {label} (line {entry.start}) is not "
                            "closed with ';', so this line is read as more of its ports")
                self.problem(lineno, f"bad PortGUID {name!r} in partition {label}: a member is "
                             "ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF or a port GUID "
                             f"(OpenSM rejects the rest of the line){hint}")
                return False
            guid = value
        obj["members"].append({
            "name": keyword or name, "guid": guid, "membership": membership,
            "explicit": explicit, "src": SourceRef(self.path, lineno), "field_src": {},
        })
        return True

    def _group(self, obj: Obj | None, mgid: str | None, tokens: list[str], lineno: int) -> None:
        assert obj is not None
        flags = [_name_token(t) for t in tokens if t.strip()]
        if not mgid or ":" not in mgid or not mgid.lower().startswith("ff"):
            self.problem(lineno, f"mgid \"{mgid or ''}\": gid is not multicast (OpenSM skips "
                         "the group)")
            return
        obj["groups"].append({"mgid": mgid, "flags": flags, "src": SourceRef(self.path, lineno),
                              "field_src": {}})


def parse_partitions(text: str, path: str) -> PartitionsReader:
    """Read one partitions.conf. Raises ParseError only for binary content."""
    return PartitionsReader(path).run(text)

