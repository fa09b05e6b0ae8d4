"""Arista EOS running-config (plain and ``show running-config all``) into the fabric model.

A single pass over the lines with an indentation stack. Each block kind has a handler that
dispatches on the first word; a handler returns False for a line it does not model, which is
then counted as skipped together with every line indented under it. Vendor defaults (trust, MTU,
PFC watchdog, ``priority-flow-control all off``, QoS profiles applied with ``service-profile``)
are resolved at the end so that the model says what is in effect. The parser fills plain data
(``fablint.parsers.build``) and validates it into the model once.

Speed matters here: a fabric is thousands of these files, each a thousand lines or more. The
line loop does the least it can per line, interface lines are dispatched through a table rather
than a chain of tests, and what is the same in every switch of a fabric (ACL entries, interface
names, speeds) is read once per process and remembered (bounded caches of pure functions of the
text). Most lines are the same in every switch: what one does in its kind of block is
remembered by the line as written (``Raw``), so that the loop applies it with one dict lookup,
before it strips or splits the line.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from fablint import units
from fablint.model import Device, ParseProblem, PortMatch, QosSettings, SourceRef
from fablint.parsers.base import (
    CONFIG_LINE_START,
    FOREIGN_WORD,
    ParseResult,
    capture_framing,
    refuse_oversized_config,
    reject_nul,
    split_lines,
)
from fablint.parsers.build import (
    COMPACT_PORTS,
    Freezer,
    Obj,
    new_device,
    new_qos,
    new_queue,
    new_watchdog,
    overlay,
    thaw,
    validate_device,
)
from fablint.parsers.cisco_acl import AclSyntaxError, parse_acl_entry
from fablint.parsers.directives import SuppressionTracker
from fablint.parsers.ranges import expand_interface_range
from fablint.plainbuild import made

EOS_DEFAULT_MTU = 1500
EOS_LOOPBACK_MTU = 65535

# Signals of an EOS configuration; see EosParser.sniff(). Strong ones that sit near the top of a
# running-config come first: the sniff stops testing once the score is certain.
_STRONG = (
    "! Command: show running-config",  # EOS's export header (NX-OS writes '!Command:')
    "flash:/EOS",
    "(DCS-",
    "!RANCID-CONTENT-TYPE: arista",
    "service routing protocols model",
    "daemon TerminAttr",
    "transceiver qsfp default-mode",
    "management api http-commands",
    "spanning-tree mode mstp",
    "vrf instance ",
    "queue-monitor length",
    "platform sand ",
    "platform trident ",
    "qos profile ",
    "service-profile ",
    "uc-tx-queue ",
    "priority-flow-control pause watchdog",
    "interface Port-Channel",
    "interface Management1",
)
_NEGATIVE = (
    "!Command: show running-config",  # NX-OS (no space after '!')
    "\nfeature ",
    "\nswitchname ",
    "interface port-channel",
    "interface mgmt0",
    "\nversion ",
    "system qos",
    "policy-map type network-qos",
    "TenGigabitEthernet ",
    "## Running database",
    "traffic.",
)
_EOS_BLOCK = re.compile(
    r"^interface (?:Ethernet|Port-Channel|Management|Loopback|Vlan)\d[\d/.]*\n {3}\S", re.M
)
_HOSTNAME = re.compile(r"^hostname \S+$", re.M)
_PLATFORM_HEADER = re.compile(
    r"^!\s*(?:device:\s*\S+\s+\((DCS-[^,\s)]+)|Chassis type:\s*(\S+))", re.IGNORECASE)
_RANGE_NAME = re.compile(r"\d-\d")
_TOP_WORDS = frozenset({
    "hostname", "interface", "qos", "priority-flow-control", "ip", "ipv6", "mac", "no",
    "default", "end", "version",
})
_ROUTED_KINDS = ("svi", "loopback", "mgmt", "subinterface", "tunnel")
_ACL_FAMILY = {"ip": "ipv4", "ipv6": "ipv6", "mac": "mac"}
_AQM_KEYS = {"minimum-threshold": "min_threshold", "maximum-threshold": "max_threshold"}
_WATCHDOG_TIMERS = {
    "timeout": "timeout_ms", "polling-interval": "polling_ms", "recovery-time": "recovery_ms",
}
_ACL_NOT_ENTRIES = frozenset({"remark", "statistics", "counters", "fragment-rules"})
_QOS_MAP_TABLES = {
    ("dscp", "traffic-class"): ("dscp_to_tc", 63),
    ("cos", "traffic-class"): ("cos_to_tc", 7),
    ("traffic-class", "tx-queue"): ("tc_to_queue", 15),
}

Handler = Callable[[list[str], int, str], bool]

_new_tuple = tuple.__new__
"""``SourceRef(file, line)`` without the Python-level ``__new__`` of a NamedTuple."""

# Bounded caches of pure functions of the text, shared by every file a process parses: the
# switches of one fabric repeat the same ACLs, interface names and speeds.
_CACHE_LIMIT = 8192
_NAME_INFO: dict[str, tuple[str, bool] | None] = {}
"""Interface name -> (kind, routed by default), or None for a range (not a single port)."""
_SPEEDS: dict[str, tuple[int, int | None] | None] = {}
_ACL_LINES: dict[tuple[bool, bool, str], tuple[int, Any]] = {}
"""(standard, MAC list, line) -> what ``_read_acl_line`` made of it."""
_ACL_KEEP, _ACL_PROBLEM, _ACL_ENTRY = 0, 1, 2
_ACL_DEFAULTS: dict[str, Any] = {
    "seq": None, "src_port": None, "dst_port": None, "dscp": None, "qualifiers": [],
    "field_src": {},
}
"""AclEntry fields and their defaults in the model (an empty ``dscp`` list is not None)."""


def _remember(cache: dict[Any, Any], key: Any, value: Any) -> Any:
    """``cache[key] = value``, emptying a full cache first: memory stays bounded, and what a
    fabric repeats is soon remembered again."""
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


def _interface_kind(name: str) -> str:
    lower = name.lower()
    if "." in name and lower.startswith(("ethernet", "port-channel")):
        return "subinterface"
    for prefix, kind in (
        ("ethernet", "physical"), ("port-channel", "port-channel"), ("vlan", "svi"),
        ("loopback", "loopback"), ("management", "mgmt"), ("vxlan", "tunnel"),
        ("tunnel", "tunnel"),
    ):
        if lower.startswith(prefix):
            return kind
    return "other"


def _name_info(name: str) -> tuple[str, bool] | None:
    if "," in name or _RANGE_NAME.search(name):
        return None  # ranges are not written by running-config
    kind = _interface_kind(name)
    return kind, kind in _ROUTED_KINDS


_SHORT_NAMES = {"et": "Ethernet", "eth": "Ethernet", "po": "Port-Channel"}
"""Abbreviations guides write in ranges, with the name running-config would show."""


def _range_port(name: str) -> tuple[str, str] | None:
    """One port of an ``interface`` range as EOS names it (``Et1`` -> ``Ethernet1``)."""
    match = re.match(r"([A-Za-z][A-Za-z-]*?)\s*(\d[\d/.]*)$", name)
    if match is None:
        return None
    prefix = _SHORT_NAMES.get(match[1].lower(), match[1])
    prefix = {"ethernet": "Ethernet", "port-channel": "Port-Channel"}.get(prefix.lower(), prefix)
    port = prefix + match[2]
    kind = _interface_kind(port)
    return (port, kind) if kind in ("physical", "port-channel", "subinterface") else None


def _speed(token: str) -> tuple[int, int | None] | None:
    try:
        return _SPEEDS[token]
    except KeyError:
        return _remember(_SPEEDS, token, units.speed_mbps(token))


def _read_acl_line(words: list[str], standard: bool, mac: bool) -> tuple[int, Any]:
    """What a line of an access list means, without its place in the file.

    ``(_ACL_KEEP, known)``, ``(_ACL_PROBLEM, message)`` or ``(_ACL_ENTRY, entry)``; the entry is
    a template that every line with the same text copies. Raises ValueError or IndexError where
    the parser reports the line as unreadable.
    """
    seq = None
    if words[0].isdecimal():  # the same test as ^\d+$ on a word
        seq = int(words[0])
        words = words[1:]
        if not words:
            return _ACL_KEEP, False
    action = words[0]
    if action in _ACL_NOT_ENTRIES:
        return _ACL_KEEP, True
    if mac:
        return _ACL_KEEP, True  # MAC lists cannot match UDP; understood, not modelled
    if action not in ("permit", "deny"):
        return _ACL_KEEP, False
    try:
        entry = parse_acl_entry(action, words[1:], standard=standard)
    except AclSyntaxError as exc:
        return _ACL_PROBLEM, str(exc)
    entry["seq"] = seq
    entry["text"] = " ".join(([str(seq)] if seq is not None else []) + words)
    for key in ("src_port", "dst_port"):
        match = entry.get(key)
        if match is not None:
            # Frozen, so one validated match serves every entry with this text. A match that
            # does not validate is left to the validation of the device, which names the file.
            with contextlib.suppress(ValidationError):
                entry[key] = made(PortMatch, match)
    # Fields left at the model's default validate faster when they are simply not given.
    return _ACL_ENTRY, {key: value for key, value in entry.items()
                        if not (key in _ACL_DEFAULTS and value == _ACL_DEFAULTS[key])}


Fixed = tuple[dict[str, Any], str | None, str | None] | str | bool
"""What an interface line does wherever it is: (field values it sets, the field whose source
becomes the line, the field whose source is cleared); a problem to report; or, when it changes
nothing, whether the line is understood."""
_FIXED_COMMANDS = ("shutdown", "mtu", "l2", "speed", "switchport", "vrf", "channel-group",
                   "service-profile")
_FIXED_LINES: dict[str, Fixed] = {}
"""Interface line (stripped) -> what it does, for lines of the _FIXED_COMMANDS and lines that
are not modelled (False)."""
_NOTHING: Fixed = ({}, None, None)
Raw = tuple[int, Any, Any, Any, Any]
"""What a raw line of a block (indentation and all) does, known from an earlier line with the
same text, so that the line loop can apply it before it strips or splits the line:

- ``(indent, field, value, sourced, unsourced)``: an interface line that sets one field (the
  ``Fixed`` tuple ``({field: value}, sourced, unsourced)``: a store is cheaper than update());
- ``(indent, _MANY, values, sourced, unsourced)``: one that sets other than one field;
- ``(indent, None, None, None, None)``: a line that is not modelled;
- ``(indent, _ENTRY, template, None, None)``: an access-list entry, a copy of ``template``;
- ``(indent, _MANY, {}, None, None)``: an access-list line understood that changes nothing;
- ``(indent, _BINDING, (name, direction, family), None, None)``: ``ip access-group`` and the
  like on an interface (name None: ``no ip access-group``);
- ``(indent, _QOS_MAP, (field, target, entries), None, None)``: a ``qos map`` line at the top
  level (see ``map_into``);
- ``(_COMMENT, None, None, None, None)``: ``!``, a comment in every state of the parser;
- ``(_HEADER, name, kind, routed, None)``: ``interface NAME`` at column 0, which closes every
  open block (at the top level, or from an interface).

Each is a pure function of the raw line and the kind of block it is in."""
_COMMENT = -1
_HEADER = -2
_ENTRY: Any = object()  # markers no field name can be
_MANY: Any = object()
_BINDING: Any = object()
_QOS_MAP: Any = object()
_BANG: Raw = (_COMMENT, None, None, None, None)
_LONG_LINE = 200
"""Lines this long or longer are not remembered by the raw line caches."""
_NO_SKIP = 1 << 62
"""A first word glued to ``=``, ``:`` or a bracket: ``vendid=0x2c9``, ``mtu: 9000``."""


"""``skip_deeper_than`` when no line is being skipped: deeper than any indentation."""


def _raw_cache() -> dict[str, Raw]:
    """A new raw line cache, with the comment lines of a running-config."""
    return {"!": _BANG, "   !": _BANG, "      !": _BANG}


_FIXED_RAW = _raw_cache()
"""Raw interface line -> what it does (``Raw``)."""
_TOP_RAW = _raw_cache()
"""Raw top-level line -> what it does (``Raw``): lines that are not modelled, ``qos map`` lines
and interface headers."""
_ACL_RAW = {(standard, mac): _raw_cache() for standard in (False, True) for mac in (False, True)}
"""(standard, MAC list) -> raw access-list line -> what it does (``Raw``)."""


def _remember_raw(cache: dict[str, Raw], raw: str, value: Raw) -> None:
    """``_remember`` for a raw line cache, which keeps its comment entries. Long lines (keys,
    hashes) are seldom repeated and not worth the memory."""
    if len(raw) >= _LONG_LINE:
        return
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
        cache.update(_raw_cache())
    cache[raw] = value


def clear_caches() -> None:
    """Forget every line this process has read: the parse of the next file then takes the
    slow path for each first occurrence. For tests, which check that what the caches remember
    never changes what a parse gives."""
    for cache in (_NAME_INFO, _SPEEDS, _ACL_LINES, _FIXED_LINES, _QOS_MAPS, _AQMS):
        cache.clear()
    for raw in (_FIXED_RAW, _TOP_RAW, *_ACL_RAW.values()):
        raw.clear()
        raw.update(_raw_cache())


def _raw_fixed(indent: int, effect: tuple[dict[str, Any], str | None, str | None]) -> Raw:
    values, sourced, unsourced = effect
    if len(values) == 1:
        ((key, value),) = values.items()
        return indent, key, value, sourced, unsourced
    return indent, _MANY, values, sourced, unsourced


def _number_in(word: str, lo: int, hi: int, what: str) -> int | str:
    """``word`` as an int in [lo, hi], else the problem to report (as ``int_in``)."""
    if word.isdecimal():  # the same test as ^\d+$ on a word (no white space in it)
        value = int(word)
        if lo <= value <= hi:
            return value
    return f"{what} {word!r} is not a number in {lo}-{hi}"


def _fixed_line(words: list[str], negated: bool) -> Fixed:
    """What an interface line of one of the _FIXED_COMMANDS does, from its words after any
    ``no``/``default`` (``negated``): a pure function of the line.

    May raise ValueError (a number too long for int()), as the line loop expects of a handler.
    """
    w0 = words[0]
    n = len(words)
    if w0 == "shutdown":
        return {"admin_up": negated}, "admin_up", None
    if w0 == "mtu":
        if negated:
            return {"mtu": None}, None, "mtu"
        if n != 2:
            return _NOTHING
        mtu = _number_in(words[1], 68, 65535, "MTU")
        return mtu if isinstance(mtu, str) else ({"mtu": mtu}, "mtu", None)
    if w0 == "l2":
        if n < 2 or words[1] not in ("mtu", "mru"):
            return False
        if words[1] != "mtu" or negated or n != 3:
            return _NOTHING
        value = _number_in(words[2], 68, 65535, "L2 MTU")
        return value if isinstance(value, str) else ({"l2_mtu": value}, "l2_mtu", None)
    if w0 == "speed":
        args = words[1:]
        if args and args[0] == "forced":
            args = args[1:]
        if negated or not args or args[0] == "auto":
            return {"speed_mbps": None}, None, None
        parsed = _speed(args[0])
        if parsed is None:
            return f"speed {args[0]!r} not understood"
        speed, lanes = parsed
        values = {"speed_mbps": speed, "lanes": lanes} if lanes else {"speed_mbps": speed}
        return values, "speed_mbps", None
    if w0 == "switchport":
        return ({"routed": negated}, "routed", None) if n == 1 else _NOTHING
    if w0 == "vrf":
        if n < 2:
            return False
        return {"vrf": None if negated else words[-1]}, "vrf", None
    if w0 == "channel-group":
        if negated:
            return {"port_channel": None}, None, None
        if n >= 2 and words[1].isdecimal():
            return {"port_channel": f"Port-Channel{words[1]}"}, "port_channel", None
        return _NOTHING
    if w0 == "service-profile":
        if negated:
            return {"profile": None}, None, None
        if n == 2:
            return {"profile": words[1]}, "profile", None
        return _NOTHING
    raise AssertionError(f"not a fixed interface command: {w0}")


_QOS_MAPS: dict[tuple[str, str, str], tuple[int, tuple[tuple[int, str], ...]] | str] = {}
"""(map field, target, keys) of a ``qos map`` line -> what ``_qos_map`` made of it."""


def _qos_map(field: str, keys: str, value: str, key_hi: int
             ) -> tuple[int, tuple[tuple[int, str], ...]] | str:
    """The target and the (key, ``field_src`` key) entries of a ``qos map`` line, or the
    problem to report. May raise ValueError (a number too long for int())."""
    target = _number_in(value, 0, 15, field.rsplit("_", 1)[-1])
    if isinstance(target, str):
        return target
    try:
        parsed = units.parse_int_list(keys, 0, key_hi)
    except ValueError as exc:
        return f"{field.replace('_', ' ')}: {exc}"
    return target, tuple((key, f"{field}[{key}]") for key in parsed)


_AQMS: dict[tuple[str, ...], Obj | None] = {}
"""The arguments of a ``random-detect`` line -> what ``_read_aqm`` made of them."""


def _read_aqm(args: list[str]) -> Obj | None:
    """The fields of an Aqm, or None where the arguments are not understood. The thresholds
    are dicts (shared by every line with the same arguments, never changed)."""
    out: Obj = {}
    i = 0
    try:
        while i < len(args):
            key = args[i]
            if key in ("minimum-threshold", "maximum-threshold"):
                threshold = units.threshold(args[i + 1], args[i + 2])
                out[_AQM_KEYS[key]] = {
                    "value": threshold.value, "unit": threshold.unit, "bytes": threshold.bytes,
                }
                i += 3
            elif key in ("max-mark-probability", "drop-probability", "weight"):
                out["weight" if key == "weight" else "probability"] = int(args[i + 1])
                i += 2
            else:
                i += 1
    except (ValueError, IndexError):
        return None
    return out


def _at_line_start(pattern: re.Pattern[str], prefix: str, text: str) -> bool:
    """``pattern.search(text)`` for a ``^``-anchored multi-line pattern that begins with
    ``prefix``, found by looking only where ``prefix`` occurs (str.find is far faster than a
    regex scan of every position)."""
    at = text.find(prefix)
    while at >= 0:
        if pattern.match(text, at):  # '^' with re.M holds only at a line start
            return True
        at = text.find(prefix, at + 1)
    return False


def _add_address(iface: Obj, words: list[str], ref: Callable[[], SourceRef]) -> None:
    """``ip address [virtual] A/len`` (``words`` from ``ip``): 'virtual' is an anycast gateway
    address, still an address. The line of the first address is kept."""
    address = words[3] if words[2] == "virtual" and len(words) >= 4 else words[2]
    addresses = iface.get("ip_addresses")
    if addresses is None:
        iface["ip_addresses"] = [address]
    else:
        addresses.append(address)
    fs = iface["field_src"]
    if "ip_addresses" not in fs:
        fs["ip_addresses"] = ref()


def _bind_acl(iface: Obj, name: str | None, direction: str, family: str,
              ref: Callable[[], SourceRef]) -> None:
    """An ACL of ``family`` applied to the port in ``direction`` (name None: removed)."""
    acls = [a for a in iface.get("acls", ())
            if not (a["direction"] == direction and a["family"] == family)]
    if name is not None:
        acls.append({"name": name, "direction": direction, "family": family, "src": ref(),
                     "field_src": {}})
    iface["acls"] = acls


def _set_map(qos: Obj, field: str, target: int, entries: tuple[tuple[int, str], ...],
             ref: SourceRef) -> None:
    """Entries of one ``qos map`` line into the device's map ``field``."""
    table = qos.setdefault(field, {})
    fs = qos["field_src"]
    for entry, source_key in entries:
        table[entry] = target
        fs[source_key] = ref


class _Context:
    __slots__ = ("fast", "fixed", "handler", "indent", "obj")

    def __init__(self, indent: int, handler: Handler, obj: Any = None,
                 fixed: dict[str, Fixed] | None = None,
                 fast: dict[str, Raw] | None = None) -> None:
        self.indent = indent
        self.handler = handler
        self.obj = obj
        self.fixed = fixed
        """Lines of this block already read (an interface: ``_FIXED_LINES``), or None."""
        self.fast = fast
        """What the raw lines read before do in this kind of block (``Raw``), or None."""


class EosParser:
    name = "eos"
    label = "Arista EOS running-config"
    vendor = "eos"

    def sniff(self, head: str) -> int:
        # Every file of a fabric is sniffed: each signal test is a scan of up to 16 KB, so the
        # positive signals are tested only until the (clamped) score cannot change any more.
        # An interface block indented by three spaces is EOS style (NX-OS uses two, IOS one).
        block = _at_line_start(_EOS_BLOCK, "interface ", head)
        host = _at_line_start(_HOSTNAME, "hostname ", head)
        if not block and not host and not any(map(head.__contains__, _STRONG)):
            return 0  # no sign of EOS (a JSON head): the negative signals cannot change a 0
        score = -40 * sum(map(head.__contains__, _NEGATIVE))
        if block:
            score += 30
        if host:
            score += 5
        for signal in _STRONG:
            if score >= 100:
                break
            if signal in head:
                score += 25
        return max(0, min(score, 100))

    def parse(self, text: str, path: str) -> ParseResult:
        refuse_oversized_config(text, path, "eos")
        return _EosBuilder(path).run(text)


class _EosBuilder:
    """State of one parse. One instance per file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.device: Obj = new_device(PurePath(path).stem, "eos", path)
        self.interfaces: dict[str, Obj] = self.device["interfaces"]
        self.problems: list[ParseProblem] = []
        self.unknown = 0
        self.interface_defaults_mtu: tuple[int, SourceRef] | None = None
        self.lineno = 0
        self.stack: list[_Context] = []
        self.own_qos: set[str] = set()
        """Ports with QoS lines of their own (the others can share their profile's QoS)."""
        self.reset_to_default = False
        """The current line starts with ``default`` (reset) rather than ``no`` (disable)."""
        self.raw = ""
        """The current line as written (for the raw line caches)."""
        self.freezer: Freezer | None = None
        """Keeps the ports read so far serialised, in a very large file."""
        self.shared_qos: dict[tuple[str | None, bool], QosSettings] = {}

    # -- helpers -------------------------------------------------------------------------

    def ref(self) -> SourceRef:
        return _new_tuple(SourceRef, (self.path, self.lineno))

    def problem(self, message: str) -> None:
        self.problems.append(
            ParseProblem(file=self.path, line=self.lineno, message=message, kind="invalid-value")
        )

    def int_in(self, word: str, lo: int, hi: int, what: str) -> int | None:
        if word.isdecimal():  # the same test as ^\d+$ on a word (no white space in it)
            value = int(word)
            if lo <= value <= hi:
                return value
        self.problem(f"{what} {word!r} is not a number in {lo}-{hi}")
        return None

    def open(self, indent: int, handler: Handler, obj: Any = None) -> None:
        """Enter a block: the following, deeper-indented lines go to ``handler``."""
        self.stack.append(_Context(indent, handler, obj))

    def current(self) -> Any:
        """The object of the innermost open block."""
        return self.stack[-1].obj

    # -- main loop -----------------------------------------------------------------------

    def header_platform(self, body: str, lineno: int) -> None:
        """The model in the running-config header (``! device: leaf1 (DCS-7280CR3-32P4,
        EOS-4.30.1F)``) or RANCID's (``!Chassis type: DCS-7260CX-64``): the platform, which
        tells the ASIC family (``fablint.platforms``)."""
        match = _PLATFORM_HEADER.match(body)
        if match and "platform" not in self.device["field_src"]:
            self.device["platform"] = match[1] or match[2]
            self.device["field_src"]["platform"] = SourceRef(self.path, lineno)

    def run(self, text: str) -> ParseResult:
        reject_nul(text, self.path, "binary data (NUL byte) in a text configuration")
        context = _Context(-1, self.h_top, self.device["qos"], None, _TOP_RAW)
        stack = self.stack = [context]  # 'context' is stack[-1], kept in step with it
        path = self.path
        interfaces = self.interfaces
        h_interface = self.h_interface
        freezer = self.freezer = Freezer.for_text(text, interfaces)
        # Lines indented deeper than this belong to a skipped line (_NO_SKIP: none are), so
        # that one comparison tells both whether a skip is on and whether the line is in it.
        skip_deeper_than = _NO_SKIP
        tracker = SuppressionTracker(self.path)
        busy = False  # tracker.busy, read again after each call that can change it
        eof_block = False
        # context.fast while neither a suppression (busy) nor an EOF block needs to see each
        # line, else None: updated wherever one of the three changes.
        fast: dict[str, Raw] | None = _TOP_RAW
        unknown = 0
        first_unknown = 0
        foreign = 0
        first_foreign = 0
        lineno = 0
        for raw in split_lines(text):
            lineno += 1
            if fast is not None:
                # Most lines of interfaces and access lists were read before, in this file or
                # another: what the steps below would do with them is known from the raw line.
                hit = fast.get(raw)
                if hit is not None:
                    indent, key, value, sourced, unsourced = hit
                    if indent > skip_deeper_than:  # under a skipped line, whatever it says
                        unknown += 1
                        first_unknown = first_unknown or lineno
                        continue
                    if context.indent < indent:  # deeper than the block: nothing to close
                        skip_deeper_than = indent
                        if key is None:  # not modelled
                            unknown += 1
                            first_unknown = first_unknown or lineno
                            continue
                        obj = context.obj
                        if key.__class__ is str:  # apply_fixed(): one field
                            obj[key] = value
                        elif key is _MANY:  # apply_fixed(): other than one
                            obj.update(value)
                        elif key is _ENTRY:  # h_acl()
                            entry = value.copy()  # the model validation copies its lists
                            entry["src"] = _new_tuple(SourceRef, (path, lineno))
                            obj["entries"].append(entry)
                            continue
                        elif key is _QOS_MAP:  # map_into(): obj is the device's QoS
                            _set_map(obj, *value, _new_tuple(SourceRef, (path, lineno)))
                            continue
                        else:  # _BINDING: if_acl()
                            self.lineno = lineno
                            _bind_acl(obj, *value, self.ref)
                            continue
                        if sourced is not None:
                            obj["field_src"][sourced] = _new_tuple(SourceRef, (path, lineno))
                        elif unsourced is not None:
                            obj["field_src"].pop(unsourced, None)
                        continue
                    if indent == _COMMENT:
                        continue
                    if indent == _HEADER:
                        # Column 0 closes every block; then open_interface(), inline.
                        iface = interfaces.get(key)
                        if iface is None:
                            iface = interfaces[key] = {
                                "name": key, "kind": value,
                                "src": _new_tuple(SourceRef, (path, lineno)), "field_src": {},
                                "routed": sourced,
                            }
                        if freezer is not None:
                            iface = freezer.opened(key, iface)
                        if fast is _FIXED_RAW and context.indent == 0 and len(stack) == 2:
                            context.obj = iface  # the block it closes was the same kind
                        else:
                            context = _Context(0, h_interface, iface, _FIXED_LINES, _FIXED_RAW)
                            del stack[1:]
                            stack.append(context)
                            fast = _FIXED_RAW
                        skip_deeper_than = _NO_SKIP
                        continue
                elif skip_deeper_than == 0:
                    # Under a skipped top-level line (a third of a running-config): an indented
                    # line that is not a comment is skipped, as the steps below would find.
                    if raw[:1] == " ":
                        body = raw.lstrip()
                        if body and body[0] != "!":
                            unknown += 1
                            first_unknown = first_unknown or lineno
                            if body[0] not in CONFIG_LINE_START:
                                foreign += 1
                                first_foreign = first_foreign or lineno
                            continue
                elif fast is _FIXED_RAW and context.indent < 3 <= skip_deeper_than:
                    # The two lines of most ports that differ on each, at EOS's indentation of
                    # three spaces, read as if_description() and if_ip() would (_FIXED_LINES
                    # holds no such line): the steps below would only come to them.
                    if raw.startswith("   description "):
                        iface = context.obj
                        iface["description"] = raw[15:].strip()  # as if_description()
                        iface["field_src"]["description"] = _new_tuple(SourceRef, (path, lineno))
                        skip_deeper_than = 3
                        continue
                    if raw.startswith("   ip address "):
                        words = raw.split()
                        if len(words) >= 3:
                            self.lineno = lineno
                            _add_address(context.obj, words, self.ref)
                        skip_deeper_than = 3
                        continue
            body = raw.strip()
            if not body:
                continue
            if eof_block:
                if body == "EOF":
                    eof_block = False
                    if not busy:
                        fast = context.fast
                continue
            first = body[0]
            if first not in CONFIG_LINE_START or (first > "9" and FOREIGN_WORD.match(body)):
                if capture_framing(body):
                    continue  # 'leaf1#show running-config' of a terminal capture
                # not configuration (a pasted table, JSON, YAML): counted and passed over,
                # never cached, so that the block around it is still read
                foreign += 1
                unknown += 1
                first_unknown = first_unknown or lineno
                first_foreign = first_foreign or lineno
                first_unknown = first_unknown or lineno
                continue
            if first == "!":
                if "e:" in body and lineno < 40:
                    self.header_platform(body, lineno)
                if "fablint" in body:
                    self.lineno = lineno
                    error = tracker.comment(body.lstrip("!"), lineno)
                    if error:
                        self.problem(error)
                    busy = tracker.busy
                    if busy:
                        fast = None
                continue
            indent = raw.find(first)  # only white space comes before the first character
            if busy:
                tracker.line(indent, lineno)
                busy = tracker.busy
                if not busy:
                    fast = context.fast
            if indent > skip_deeper_than:
                unknown += 1
                first_unknown = first_unknown or lineno
                continue
            skip_deeper_than = _NO_SKIP
            if indent <= context.indent:
                while indent <= context.indent:
                    stack.pop()
                    context = stack[-1]
                if not busy:
                    fast = context.fast
            if (first == "c" and body == "comment") or (first == "b"
                                                         and body.startswith("banner ")):
                eof_block = True
                fast = None
                continue
            fixed = context.fixed
            if fixed is not None:
                effect = fixed.get(body)
                if effect is not None:  # a line read before, in this file or another
                    skip_deeper_than = indent
                    if effect.__class__ is tuple:  # apply_fixed(), inline: most lines
                        values, sourced, unsourced = effect  # type: ignore[misc]
                        _remember_raw(_FIXED_RAW, raw, _raw_fixed(indent, effect))
                        iface = context.obj
                        iface.update(values)
                        if sourced is not None:
                            iface["field_src"][sourced] = _new_tuple(SourceRef, (path, lineno))
                        elif unsourced is not None:
                            iface["field_src"].pop(unsourced, None)
                        continue
                    if effect is False:  # not modelled
                        _remember_raw(_FIXED_RAW, raw, (indent, None, None, None, None))
                        unknown += 1
                        first_unknown = first_unknown or lineno
                        continue
                    self.lineno = lineno
                    if not self.apply_fixed(context.obj, effect):
                        unknown += 1
                        first_unknown = first_unknown or lineno
                    continue
            depth = len(stack)
            if depth == 1 and body.split(None, 1)[0] not in _TOP_WORDS:
                # Top level: most lines are features fablint does not model (the first word
                # is enough: some of these lines are long, with keys and hashes).
                _remember_raw(_TOP_RAW, raw, (indent, None, None, None, None))
                unknown += 1
                first_unknown = first_unknown or lineno
                skip_deeper_than = indent
                continue
            words = body.split()
            self.lineno = lineno
            self.raw = raw
            try:
                known = context.handler(words, indent, body)
            except (ValueError, IndexError):
                self.problem(f"cannot read {words[0]!r} line")
                known = True
            if not known:
                unknown += 1
                first_unknown = first_unknown or lineno
            if len(stack) == depth:
                skip_deeper_than = indent
            else:
                context = stack[-1]  # the handler opened a block
                if context.fast is _FIXED_RAW and depth == 1 and indent == 0:
                    # open_interface(): the next interface with this line opens fast, after
                    # another interface or at the top level
                    iface = context.obj
                    kind = iface["kind"]
                    header = (_HEADER, iface["name"], kind, kind in _ROUTED_KINDS, None)
                    _remember_raw(_FIXED_RAW, raw, header)
                    _remember_raw(_TOP_RAW, raw, header)
                if not busy:
                    fast = context.fast
        suppressions = tracker.finish()
        stack.clear()  # the handlers are bound methods: break the cycle back to this builder
        self.unknown = unknown
        self.finish()
        self.device["suppressions"] = suppressions
        if freezer is None and len(self.interfaces) < COMPACT_PORTS:
            # a switch of a fabric: without building the validators, when it can be (plainbuild)
            device = made(Device, self.device, lambda data: validate_device(data, self.path))
        else:
            device = validate_device(self.device, self.path,
                                     None if freezer is None else self.prepare_port)
        return ParseResult(
            devices=[device], problems=self.problems, lines=lineno, unknown_lines=unknown,
            first_unknown=first_unknown or None, foreign_lines=foreign,
            first_foreign=first_foreign or None,
        )

    # -- top level -----------------------------------------------------------------------

    def h_top(self, words: list[str], indent: int, body: str) -> bool:
        if words[0] == "interface" and len(words) > 1:  # most known top-level lines
            if words[1] == "defaults":
                self.open(indent, self.h_interface_defaults)
                return True
            return self.open_interface(
                words[1] if len(words) == 2 else " ".join(words[1:]), indent)
        negated = words[0] in ("no", "default")
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        if w0 == "interface" and len(words) > 1 and not negated:
            if words[1] == "defaults":
                self.open(indent, self.h_interface_defaults)
                return True
            return self.open_interface(
                words[1] if len(words) == 2 else " ".join(words[1:]), indent)
        if w0 == "hostname" and len(words) > 1 and not negated:
            self.device["name"] = words[1]
            self.device["field_src"]["name"] = self.ref()
            return True
        if w0 == "qos":
            return self.h_qos_global(words, indent, negated)
        if w0 == "priority-flow-control":
            return self.h_pfc_global(words, negated)
        if w0 in _ACL_FAMILY and len(words) > 2 and words[1] == "access-list":
            return True if negated else self.open_acl(w0, words[2:], indent)
        if w0 in ("end", "version"):
            return True
        # Not modelled (ip routing, ip prefix-list …), whatever the state: remembered.
        _remember_raw(_TOP_RAW, self.raw, (indent, None, None, None, None))
        return False

    # -- interfaces ----------------------------------------------------------------------

    def open_interface(self, name: str, indent: int) -> bool:
        try:
            info = _NAME_INFO[name]
        except KeyError:
            info = _remember(_NAME_INFO, name, _name_info(name))
        if info is None:  # a range (never in a running-config, but guides write them)
            ports = expand_interface_range(name, _range_port)
            if ports is None:
                return False
            # Each line of the block goes to every port: read the slow way (no line caches).
            self.open(indent, self.h_interface_range,
                      [self.port(port, (kind, kind in _ROUTED_KINDS), False)
                       for port, kind in ports])
            return True
        self.stack.append(
            _Context(indent, self.h_interface, self.port(name, info), _FIXED_LINES, _FIXED_RAW))
        return True

    def port(self, name: str, info: tuple[str, bool], alone: bool = True) -> Obj:
        """The interface ``name``, created at this line the first time it is named.
        ``alone``: not one of the ports of a range (which must not be frozen meanwhile)."""
        iface = self.interfaces.get(name)
        if iface is None:
            # 'ip_addresses', 'acls' and 'qos' are added when a line sets them (the model's
            # defaults are the same empty values): most ports never need all three.
            iface = self.interfaces[name] = {
                "name": name, "kind": info[0], "src": self.ref(), "field_src": {},
                "routed": info[1],
            }
        if self.freezer is not None:
            iface = self.freezer.opened(name, iface, alone)
        return iface

    def h_interface_range(self, words: list[str], indent: int, body: str) -> bool:
        """A line of an ``interface`` range block, on each of its ports. A line that opens a
        block on each port (``tx-queue 3``) opens one block that feeds all of them."""
        context = self.stack[-1]
        ports: list[Obj] = context.obj
        depth = len(self.stack)
        opened: list[_Context] = []
        known = False
        try:
            for iface in ports:
                context.obj = iface
                known = self.h_interface(list(words), indent, body) or known
                while len(self.stack) > depth:
                    opened.append(self.stack.pop())
        finally:
            context.obj = ports
        if opened:
            self.open(opened[0].indent, self.h_each, opened)
        return known

    def h_each(self, words: list[str], indent: int, body: str) -> bool:
        """A line of a block opened on every port of a range: given to each port's block."""
        context = self.stack[-1]
        blocks: list[_Context] = context.obj
        known = False
        try:
            for block in blocks:
                context.obj = block.obj  # the handlers read their object from the stack top
                known = block.handler(list(words), indent, body) or known
        finally:
            context.obj = blocks
        return known

    def h_interface_defaults(self, words: list[str], indent: int, body: str) -> bool:
        if words[0] == "mtu" and len(words) == 2:
            mtu = self.int_in(words[1], 68, 65535, "MTU")
            if mtu is not None:
                self.interface_defaults_mtu = (mtu, self.ref())
            return True
        return False

    def h_interface(self, words: list[str], indent: int, body: str) -> bool:
        w0 = words[0]
        if w0 == "no" or w0 == "default":
            self.reset_to_default = w0 == "default"
            words = words[1:]
            if not words:
                return False
            w0 = words[0]
            negated = True
        else:
            self.reset_to_default = False
            negated = False
        command = _INTERFACE_COMMANDS.get(w0)
        if command is None:  # bfd, ipv6 enable, load-interval, …: the same on every port
            _remember(_FIXED_LINES, body, False)
            return False
        return command(self, self.stack[-1].obj, words, negated, indent, body)

    # One method per first word of an interface line (see _INTERFACE_COMMANDS).

    def if_description(self, iface: Obj, words: list[str], negated: bool, indent: int,
                       body: str) -> bool:
        if negated:
            iface["description"] = None
        else:
            iface["description"] = body.split(None, 1)[1] if len(words) > 1 else ""
            iface["field_src"]["description"] = self.ref()
        return True

    def if_fixed(self, iface: Obj, words: list[str], negated: bool, indent: int,
                 body: str) -> bool:
        """Lines whose effect is the same wherever they are (see ``_fixed_line``): remembered,
        so that the next port with the same line costs the line loop one lookup."""
        effect = _remember(_FIXED_LINES, body, _fixed_line(words, negated))
        return self.apply_fixed(iface, effect)

    def apply_fixed(self, iface: Obj, effect: Fixed) -> bool:
        if effect.__class__ is tuple:
            values, sourced, unsourced = effect  # type: ignore[misc]
            iface.update(values)
            if sourced is not None:
                iface["field_src"][sourced] = self.ref()
            elif unsourced is not None:
                iface["field_src"].pop(unsourced, None)
            return True
        if effect.__class__ is str:
            self.problem(effect)  # type: ignore[arg-type]
            return True
        return effect  # type: ignore[return-value]

    def if_ip(self, iface: Obj, words: list[str], negated: bool, indent: int,
              body: str) -> bool:
        n = len(words)
        if n < 2:
            return False
        if words[1] == "address":
            if negated:
                iface["ip_addresses"] = []
            elif n >= 3:
                _add_address(iface, words, self.ref)
            return True
        if words[1] == "access-group":
            return self.if_acl(iface, words, negated, "ipv4", indent)
        _remember(_FIXED_LINES, body, False)  # ip helper-address, ip ospf …: not modelled
        return False

    def if_other_acl(self, iface: Obj, words: list[str], negated: bool, indent: int,
                     body: str) -> bool:
        """``ipv6|mac access-group NAME [in|out]``."""
        if len(words) >= 2 and words[1] == "access-group":
            return self.if_acl(iface, words, negated, _ACL_FAMILY[words[0]], indent)
        _remember(_FIXED_LINES, body, False)  # ipv6 enable, ipv6 address …: not modelled
        return False

    def if_qos(self, iface: Obj, words: list[str], negated: bool, indent: int,
               body: str) -> bool:
        """QoS lines, the same as in a ``qos profile``."""
        qos = iface.get("qos")
        if qos is None:
            qos = iface["qos"] = new_qos()
        if self.qos_common(qos, words, negated, indent):
            self.own_qos.add(iface["name"])
            return True
        return False

    def if_acl(self, iface: Obj, words: list[str], negated: bool, family: str,
               indent: int) -> bool:
        # ip access-group NAME [in|out]; without a direction EOS applies it inbound.
        if len(words) < 3:
            return False
        direction = words[3] if len(words) > 3 else "in"
        if direction not in ("in", "out"):
            return False
        binding = (None if negated else words[2], direction, family)
        _bind_acl(iface, *binding, self.ref)
        _remember_raw(_FIXED_RAW, self.raw, (indent, _BINDING, binding, None, None))
        return True

    # -- QoS shared by interfaces and qos profiles --------------------------------------

    def qos_flowcontrol(self, pause: Obj, words: list[str], negated: bool) -> bool:
        direction = words[1]
        if direction not in ("send", "receive"):
            return False
        state = False if negated or len(words) < 3 else words[2] in ("on", "desired")
        key = "tx" if direction == "send" else "rx"
        pause[key] = state
        pause["field_src"][key] = self.ref()
        return True

    def qos_common(self, qos: Obj, words: list[str], negated: bool, indent: int) -> bool:
        w0 = words[0]
        n = len(words)
        if w0 == "priority-flow-control":
            return self.pfc_port(qos["pfc"], words, negated)
        if w0 == "flowcontrol" and n >= 2:
            return self.qos_flowcontrol(qos["pause"], words, negated)
        if w0 == "qos" and n >= 2:
            w1 = words[1]
            if w1 == "trust":
                if negated and self.reset_to_default:  # 'default qos trust': the port default
                    qos.pop("trust", None)
                    qos["field_src"].pop("trust", None)
                    return True
                trust = "none" if negated else (words[2] if n > 2 else "")
                if trust not in ("dscp", "cos", "none"):
                    self.problem(f"unknown trust mode {trust!r}")
                    return True
                qos["trust"] = trust
                qos["field_src"]["trust"] = self.ref()
                return True
            if w1 in ("cos", "dscp") and n == 3 and not negated:
                value = self.int_in(words[2], 0, 7 if w1 == "cos" else 63, f"default {w1}")
                if value is not None:
                    qos[f"default_{w1}"] = value
                    qos["field_src"][f"default_{w1}"] = self.ref()
                return True
            return False
        if w0 in ("tx-queue", "uc-tx-queue") and n == 2:
            qid = self.int_in(words[1], 0, 15, "tx-queue")
            if qid is not None:
                queue = qos["queues"].get(qid)
                if queue is None:
                    queue = qos["queues"][qid] = new_queue(qid, self.ref())
                self.open(indent, self.h_queue, queue)
            return True
        if w0 == "mc-tx-queue":  # multicast queues carry no RoCE
            self.open(indent, self.h_ignore_block)
            return True
        if w0 == "service-policy" and n >= 2:
            return negated or self.service_policy(qos, words[1:])
        return w0 == "shape"

    def service_policy(self, qos: Obj, rest: list[str]) -> bool:
        # service-policy [type qos] input|output NAME
        kind = "qos"
        if rest[0] == "type" and len(rest) >= 2:
            kind = rest[1]
            rest = rest[2:]
        if len(rest) != 2 or rest[0] not in ("input", "output"):
            return False
        qos["policies"].append({
            "name": rest[1], "kind": kind, "direction": "in" if rest[0] == "input" else "out",
            "src": self.ref(), "field_src": {},
        })
        return True

    def h_ignore_block(self, words: list[str], indent: int, body: str) -> bool:
        return True

    def pfc_port(self, pfc: Obj, words: list[str], negated: bool) -> bool:
        n = len(words)
        fs = pfc["field_src"]
        if n == 1:
            if negated:
                pfc["mode"] = "off"
                fs["mode"] = self.ref()
            return negated
        w1 = words[1]
        if w1 in ("on", "off") or (w1 == "mode" and n == 3):
            state = words[2] if w1 == "mode" else w1
            pfc["mode"] = "on" if state == "on" and not negated else "off"
            fs["mode"] = self.ref()
            return True
        if w1 == "priority" and n >= 3:
            prio = self.int_in(words[2], 0, 7, "PFC priority")
            if prio is None:
                return True
            no_drop, drop = pfc["no_drop"], pfc["drop"]
            if negated or n < 4:
                no_drop.discard(prio)
                drop.discard(prio)
            elif words[3] == "no-drop":
                no_drop.add(prio)
                drop.discard(prio)
            elif words[3] == "drop":
                drop.add(prio)
                no_drop.discard(prio)
            else:
                return False
            if not negated:
                fs.setdefault("no_drop", self.ref())
                fs[f"priority[{prio}]"] = self.ref()
            return True
        if w1 == "pause" and n >= 3 and words[2] == "watchdog":
            return self.watchdog_port(pfc["watchdog"], words[3:], negated)
        return False

    def watchdog_port(self, wd: Obj, args: list[str], negated: bool) -> bool:
        fs = wd["field_src"]
        if not args:
            wd["enabled"] = not negated
            fs["enabled"] = self.ref()
            return True
        if args[0] != "port" or len(args) < 2:
            return args[0] == "hardware"
        if args[1] == "action":
            wd["action"] = None if negated or len(args) < 3 else args[2]
            fs["action"] = self.ref()
            return True
        if args[1] == "timer":
            if negated:
                for key in _WATCHDOG_TIMERS.values():
                    wd[key] = None
                    fs.pop(key, None)
            else:
                self.watchdog_timers(wd, args[2:])
            return True
        return False

    def watchdog_timers(self, wd: Obj, args: list[str]) -> None:
        for i in range(len(args) - 1):
            key = _WATCHDOG_TIMERS.get(args[i])
            if key is None or args[i + 1] == "auto":
                continue
            try:
                wd[key] = units.seconds_to_ms(args[i + 1])
                wd["field_src"][key] = self.ref()
            except ValueError:
                self.problem(f"watchdog {args[i]} {args[i + 1]!r} is not a time in seconds")

    def h_queue(self, words: list[str], indent: int, body: str) -> bool:
        queue: Obj = self.current()
        negated = words[0] in ("no", "default")
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        n = len(words)
        fs = queue["field_src"]
        if w0 == "priority":
            strict = not negated and n > 1 and words[1] == "strict"
            queue["scheduling"] = "strict" if strict else "dwrr"
            fs["scheduling"] = self.ref()
            return True
        if w0 == "bandwidth":
            if n >= 3 and words[1] == "percent" and not negated:
                queue["bandwidth_percent"] = self.int_in(words[2], 0, 100, "bandwidth percent")
                fs["bandwidth_percent"] = self.ref()
            return True
        if w0 == "random-detect" and n >= 2:
            kind = words[1]
            if kind not in ("ecn", "drop"):
                return kind == "non-ect"
            key = "ecn" if kind == "ecn" else "wred"
            if negated:
                queue[key] = None
                fs.pop(key, None)
                return True
            if n == 3 and words[2] == "count":
                return True
            aqm = self.aqm(words[2:])
            # The drop-precedence-less profile is the one that governs RoCE (green) traffic.
            if aqm is not None and (key == "ecn" or "drop-precedence" not in words
                                    or queue.get("wred") is None):
                queue[key] = aqm
                fs[key] = self.ref()
            return True
        return w0 == "shape"

    def aqm(self, args: list[str]) -> Obj | None:
        """``minimum-threshold V U maximum-threshold V U [probability P] [weight W]``."""
        key = tuple(args)
        try:
            values = _AQMS[key]
        except KeyError:
            values = _remember(_AQMS, key, _read_aqm(args))
        if values is None:
            self.problem("random-detect thresholds not understood")
            return None
        return {"src": self.ref(), "field_src": {}, **values}

    # -- global QoS and PFC --------------------------------------------------------------

    def h_qos_global(self, words: list[str], indent: int, negated: bool) -> bool:
        if len(words) < 2:
            return False
        w1 = words[1]
        qos = self.device["qos"]
        if w1 == "profile" and len(words) == 3 and not negated:
            profiles = self.device["qos_profiles"]
            name = words[2]
            profile = profiles.get(name)
            if profile is None:
                profile = profiles[name] = new_qos(name, self.ref())
            self.open(indent, self.h_qos_profile, profile)
            return True
        if w1 == "map" and len(words) >= 6 and not negated and "to" in words:
            to = words.index("to")
            values, target = words[3:to], words[to + 1:]
            if len(target) < 2:
                return False
            table = _QOS_MAP_TABLES.get((words[2], target[0]))
            if table is None:
                return True  # rewrite maps (to dscp / cos), exp maps: understood, not modelled
            return self.map_into(table[0], values, target[1], table[1], indent)
        if w1 == "random-detect" and "non-ect" in words:
            qos["ecn_allow_non_ect"] = not negated
            qos["field_src"]["ecn_allow_non_ect"] = self.ref()
            return True
        return w1 in ("rewrite", "map", "trust")

    def map_into(self, field: str, keys: list[str], value: str, key_hi: int,
                 indent: int) -> bool:
        key = (field, value, " ".join(keys))
        try:
            plan = _QOS_MAPS[key]
        except KeyError:
            plan = _remember(_QOS_MAPS, key, _qos_map(field, key[2], value, key_hi))
        if isinstance(plan, str):
            self.problem(plan)
            return True
        target, entries = plan
        _set_map(self.device["qos"], field, target, entries, self.ref())
        _remember_raw(_TOP_RAW, self.raw,
                      (indent, _QOS_MAP, (field, target, entries), None, None))
        return True

    def h_qos_profile(self, words: list[str], indent: int, body: str) -> bool:
        negated = words[0] in ("no", "default")
        self.reset_to_default = words[0] == "default"
        if negated:
            words = words[1:]
            if not words:
                return False
        return self.qos_common(self.current(), words, negated, indent)

    def h_pfc_global(self, words: list[str], negated: bool) -> bool:
        qos = self.device["qos"]
        if len(words) == 3 and words[1] == "all" and words[2] == "off":
            qos["pfc_disabled_globally"] = not negated
            qos["field_src"]["pfc_disabled_globally"] = self.ref()
            return True
        if len(words) >= 3 and words[1] == "pause" and words[2] == "watchdog":
            wd = qos.get("watchdog_defaults")
            if wd is None:
                wd = qos["watchdog_defaults"] = {**new_watchdog(), "src": self.ref()}
            args = words[3:]
            if args and args[0] == "default":
                if not negated:
                    self.watchdog_timers(wd, args[1:])
                return True
            if len(args) >= 2 and args[0] == "action":
                wd["action"] = None if negated else args[1]
                wd["field_src"]["action"] = self.ref()
                return True
            return bool(args) and args[0] in ("override", "hardware")
        return False

    # -- access lists --------------------------------------------------------------------

    def open_acl(self, family_word: str, args: list[str], indent: int) -> bool:
        standard = args[0] == "standard"
        if standard:
            args = args[1:]
        if len(args) != 1:
            return False
        acl = {"name": args[0], "family": _ACL_FAMILY[family_word], "standard": standard,
               "src": self.ref(), "field_src": {}, "entries": []}
        self.device["acls"][args[0]] = acl
        self.stack.append(_Context(indent, self.h_acl, acl, None,
                                   _ACL_RAW[(standard, acl["family"] == "mac")]))
        return True

    def h_acl(self, words: list[str], indent: int, body: str) -> bool:
        acl: Obj = self.stack[-1].obj
        key = (acl["standard"], acl["family"] == "mac", body)
        try:
            kind, value = _ACL_LINES[key]
        except KeyError:
            kind, value = _remember(_ACL_LINES, key, _read_acl_line(words, *key[:2]))
        if kind == _ACL_ENTRY:
            entry = value.copy()  # the template's lists are copied by the model validation
            entry["src"] = self.ref()
            acl["entries"].append(entry)
            _remember_raw(self.stack[-1].fast, self.raw, (indent, _ENTRY, value, None, None))
            return True
        if kind == _ACL_PROBLEM:
            self.problem(value)
            return True
        if value:  # understood, changes nothing
            _remember_raw(self.stack[-1].fast, self.raw, (indent, _MANY, {}, None, None))
        else:
            _remember_raw(self.stack[-1].fast, self.raw, (indent, None, None, None, None))
        return value  # type: ignore[no-any-return]

    # -- resolve defaults and profiles ---------------------------------------------------

    def finish(self) -> None:
        self.device["qos"]["dscp_to_tc_default"] = "eos-default"
        if self.freezer is None:  # else port by port as the device is validated
            for iface in self.interfaces.values():
                self.finish_port(iface)

    def prepare_port(self, entry: Any) -> Obj:
        """A frozen port, thawed and resolved (``validate_device``)."""
        return self.finish_port(thaw(entry))

    def finish_port(self, iface: Obj) -> Obj:
        """Resolve a port's defaults and profile (its plain data, changed in place)."""
        device = self.device
        profiles = device["qos_profiles"]
        fs = iface["field_src"]
        member_of = iface.get("port_channel")
        if member_of and "routed" not in fs:
            parent = self.interfaces.get(member_of)
            if parent is not None:
                parent = thaw(parent)
                iface["routed"] = parent["routed"] if parent.__class__ is dict else parent.routed
        routed = iface["routed"]
        if routed and iface.get("mtu") is None:
            defaults_mtu = self.interface_defaults_mtu
            if iface["kind"] == "loopback":
                iface["mtu"] = EOS_LOOPBACK_MTU
            elif defaults_mtu is not None:
                iface["mtu"], fs["mtu"] = defaults_mtu
            else:
                iface["mtu"] = EOS_DEFAULT_MTU
        profile_name = iface.get("profile")
        if profile_name:
            profile = profiles.get(profile_name)
            # 'resolved' and 'field_src' are left to their defaults (True, {}) where they
            # have them: what is not given costs the validation nothing.
            reference = {"kind": "qos profile", "name": profile_name,
                         "owner": "interface " + iface["name"], "src": fs.get("profile")}
            if profile is None:
                reference["resolved"] = False
            device["references"].append(reference)
        else:
            profile = None
        own_qos = self.own_qos
        if own_qos and iface["name"] in own_qos:
            iface["qos"] = self.port_qos(iface, profile)
            return iface
        # Ports that take all their QoS from the same profile (or all defaults) share one
        # validated QosSettings: most ports of a fabric switch do, and building the nested
        # models once per switch instead of once per port is most of the parse time.
        key = (profile_name if profile is not None else None, routed)
        settings = self.shared_qos.get(key)
        if settings is None:
            settings = self.shared_qos[key] = made(QosSettings, self.port_qos(iface, profile))
        iface["qos"] = settings
        return iface

    def port_qos(self, iface: Obj, profile: Obj | None) -> Obj:
        """The QoS in effect on a port: its profile, its own lines, then the EOS defaults."""
        qos = self.device["qos"]
        own = iface.get("qos")
        if own is None:
            own = new_qos()
        port_qos = overlay(profile, own) if profile is not None else own
        if "trust" not in port_qos["field_src"]:
            port_qos["trust"] = "dscp" if iface["routed"] else "cos"
        pfc = port_qos["pfc"] = dict(port_qos["pfc"])
        pfc["enabled"] = pfc.get("mode") == "on"
        if pfc["enabled"] and qos.get("pfc_disabled_globally"):
            pfc["enabled"] = False
            pfc["disabled_by"] = qos["field_src"].get("pfc_disabled_globally")
        pfc["watchdog"] = self.resolve_watchdog(pfc["watchdog"], qos.get("watchdog_defaults"))
        return port_qos

    @staticmethod
    def resolve_watchdog(wd: Obj, defaults: Obj | None) -> Obj:
        # The per-port watchdog is on unless 'no priority-flow-control pause watchdog'; it only
        # acts with a non-zero timeout, from the port timer or the global default.
        out = {**wd, "field_src": dict(wd["field_src"])}
        out.setdefault("enabled", True)
        if defaults is not None:
            for key in ("timeout_ms", "polling_ms", "recovery_ms", "action"):
                if out.get(key) is None and defaults.get(key) is not None:
                    out[key] = defaults[key]
                    if key in defaults["field_src"]:
                        out["field_src"].setdefault(key, defaults["field_src"][key])
        if not out.get("timeout_ms"):
            out["enabled"] = False
        return out


_INTERFACE_COMMANDS: dict[str, Callable[..., bool]] = {
    "description": _EosBuilder.if_description,
    "ip": _EosBuilder.if_ip,
    "ipv6": _EosBuilder.if_other_acl,
    "mac": _EosBuilder.if_other_acl,
    **dict.fromkeys(_FIXED_COMMANDS, _EosBuilder.if_fixed),
    **dict.fromkeys(
        ("flowcontrol", "qos", "priority-flow-control", "tx-queue", "uc-tx-queue",
         "mc-tx-queue", "service-policy", "shape"),
        _EosBuilder.if_qos,
    ),
}
"""First word of an interface line (after ``no``/``default``) -> what reads it."""
