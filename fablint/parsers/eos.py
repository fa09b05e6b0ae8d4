"""Arista EOS running-config (plain and ``show running-config all``) into the fabric model.

A single pass over the lines with an indentation stack. Each block kind has a handler that
dispatches on the first word; a handler returns False for a line it does not model, which is
then counted as skipped together with every line indented under it. Vendor defaults (trust, MTU,
PFC watchdog, ``priority-flow-control all off``, QoS profiles applied with ``service-profile``)
are resolved at the end so that the model says what is in effect. The parser fills plain data
(``fablint.parsers.build``) and validates it into the model once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from fablint import units
from fablint.model import Device, ParseProblem, QosSettings, SourceRef
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.build import (
    Obj,
    new_device,
    new_interface,
    new_qos,
    new_queue,
    new_watchdog,
    overlay,
)
from fablint.parsers.cisco_acl import AclSyntaxError, parse_acl_entry
from fablint.parsers.directives import SuppressionTracker

EOS_DEFAULT_MTU = 1500
EOS_LOOPBACK_MTU = 65535

# Signals of an EOS configuration; see EosParser.sniff().
_STRONG = (
    "!RANCID-CONTENT-TYPE: arista",
    "management api http-commands",
    "service routing protocols model",
    "daemon TerminAttr",
    "transceiver qsfp default-mode",
    "flash:/EOS",
    "(DCS-",
    "interface Port-Channel",
    "interface Management1",
    "spanning-tree mode mstp",
    "vrf instance ",
    "queue-monitor length",
    "platform sand ",
    "platform trident ",
    "qos profile ",
    "service-profile ",
    "uc-tx-queue ",
    "priority-flow-control pause watchdog",
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
_NUMBER = re.compile(r"^\d+$")
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

Handler = Callable[[list[str], int, str], bool]


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


class _Context:
    __slots__ = ("handler", "indent", "obj")

    def __init__(self, indent: int, handler: Handler, obj: Any = None) -> None:
        self.indent = indent
        self.handler = handler
        self.obj = obj


class EosParser:
    name = "eos"
    label = "Arista EOS running-config"
    vendor = "eos"

    def sniff(self, head: str) -> int:
        score = 25 * sum(1 for signal in _STRONG if signal in head)
        # An interface block indented by three spaces is EOS style (NX-OS uses two, IOS one).
        if _EOS_BLOCK.search(head):
            score += 30
        if _HOSTNAME.search(head):
            score += 5
        score -= 40 * sum(1 for signal in _NEGATIVE if signal in head)
        return max(0, min(score, 100))

    def parse(self, text: str, path: str) -> ParseResult:
        return _EosBuilder(path).run(text)


class _EosBuilder:
    """State of one parse. One instance per file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.device: Obj = new_device(PurePath(path).stem, "eos", path)
        self.problems: list[ParseProblem] = []
        self.unknown = 0
        self.interface_defaults_mtu: tuple[int, SourceRef] | None = None
        self.lineno = 0
        self.stack: list[_Context] = []
        self.own_qos: set[str] = set()
        """Ports with QoS lines of their own (the others can share their profile's QoS)."""
        self.reset_to_default = False
        """The current line starts with ``default`` (reset) rather than ``no`` (disable)."""

    # -- helpers -------------------------------------------------------------------------

    def ref(self) -> SourceRef:
        return SourceRef(self.path, self.lineno)

    def problem(self, message: str) -> None:
        self.problems.append(
            ParseProblem(file=self.path, line=self.lineno, message=message, kind="invalid-value")
        )

    def int_in(self, word: str, lo: int, hi: int, what: str) -> int | None:
        if _NUMBER.match(word):
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

    def run(self, text: str) -> ParseResult:
        if "\x00" in text:
            line = text.count("\n", 0, text.index("\x00")) + 1
            raise ParseError(self.path, line, "binary data (NUL byte) in a text configuration")
        stack = self.stack = [_Context(-1, self.h_top)]
        skip_deeper_than = -1  # lines indented deeper than this belong to a skipped line
        tracker = SuppressionTracker(self.path)
        eof_block = False
        lineno = 0
        for lineno, raw in enumerate(text.split("\n"), 1):
            line = raw.rstrip()
            if not line:
                continue
            if eof_block:
                if line.strip() == "EOF":
                    eof_block = False
                continue
            body = line.lstrip()
            indent = len(line) - len(body)
            if body[0] == "!":
                if "fablint" in body:
                    self.lineno = lineno
                    error = tracker.comment(body.lstrip("!"), lineno)
                    if error:
                        self.problem(error)
                continue
            if tracker.busy:
                tracker.line(indent, lineno)
            if skip_deeper_than >= 0:
                if indent > skip_deeper_than:
                    self.unknown += 1
                    continue
                skip_deeper_than = -1
            while indent <= stack[-1].indent:
                stack.pop()
            if body == "comment" or body.startswith("banner "):
                eof_block = True
                continue
            if len(stack) == 1:  # top level: most lines are features fablint does not model
                first = body.split(None, 1)[0]
                if first not in _TOP_WORDS:
                    self.unknown += 1
                    skip_deeper_than = indent
                    continue
            self.lineno = lineno
            words = body.split()
            depth = len(stack)
            try:
                known = stack[-1].handler(words, indent, body)
            except (ValueError, IndexError):
                self.problem(f"cannot read {words[0]!r} line")
                known = True
            if not known:
                self.unknown += 1
            if len(stack) == depth:
                skip_deeper_than = indent
        suppressions = tracker.finish()
        stack.clear()  # the handlers are bound methods: break the cycle back to this builder
        self.finish()
        self.device["suppressions"] = suppressions
        try:
            device = Device.model_validate(self.device)
        except ValidationError as exc:  # a parser bug must still name the file
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ParseError(self.path, None, f"cannot build the model ({where}: "
                             f"{first['msg']})") from exc
        return ParseResult(
            devices=[device], problems=self.problems, lines=lineno, unknown_lines=self.unknown
        )


    # -- top level -----------------------------------------------------------------------

    def h_top(self, words: list[str], indent: int, body: str) -> bool:
        negated = words[0] in ("no", "default")
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        if w0 == "hostname" and len(words) > 1 and not negated:
            self.device["name"] = words[1]
            self.device["field_src"]["name"] = self.ref()
            return True
        if w0 == "interface" and len(words) > 1 and not negated:
            if words[1] == "defaults":
                self.open(indent, self.h_interface_defaults)
                return True
            return self.open_interface(words[1], indent)
        if w0 == "qos":
            return self.h_qos_global(words, indent, negated)
        if w0 == "priority-flow-control":
            return self.h_pfc_global(words, negated)
        if w0 in _ACL_FAMILY and len(words) > 2 and words[1] == "access-list":
            return True if negated else self.open_acl(w0, words[2:], indent)
        return w0 in ("end", "version")

    # -- interfaces ----------------------------------------------------------------------

    def open_interface(self, name: str, indent: int) -> bool:
        if "," in name or _RANGE_NAME.search(name):
            return False  # ranges are not written by running-config
        interfaces = self.device["interfaces"]
        iface = interfaces.get(name)
        if iface is None:
            kind = _interface_kind(name)
            iface = interfaces[name] = new_interface(name, kind, self.ref(), kind in _ROUTED_KINDS)
        self.open(indent, self.h_interface, iface)
        return True

    def h_interface_defaults(self, words: list[str], indent: int, body: str) -> bool:
        if words[0] == "mtu" and len(words) == 2:
            mtu = self.int_in(words[1], 68, 65535, "MTU")
            if mtu is not None:
                self.interface_defaults_mtu = (mtu, self.ref())
            return True
        return False

    def h_interface(self, words: list[str], indent: int, body: str) -> bool:
        iface: Obj = self.current()
        negated = words[0] in ("no", "default")
        self.reset_to_default = words[0] == "default"
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        n = len(words)
        fs = iface["field_src"]
        if w0 == "description":
            if negated:
                iface["description"] = None
            else:
                iface["description"] = body.split(None, 1)[1] if n > 1 else ""
                fs["description"] = self.ref()
            return True
        if w0 == "shutdown":
            iface["admin_up"] = negated
            fs["admin_up"] = self.ref()
            return True
        if w0 == "mtu":
            if negated:
                iface["mtu"] = None
                fs.pop("mtu", None)
            elif n == 2:
                mtu = self.int_in(words[1], 68, 65535, "MTU")
                if mtu is not None:
                    iface["mtu"] = mtu
                    fs["mtu"] = self.ref()
            return True
        if w0 == "l2" and n >= 2 and words[1] in ("mtu", "mru"):
            if words[1] == "mtu" and not negated and n == 3:
                value = self.int_in(words[2], 68, 65535, "L2 MTU")
                if value is not None:
                    iface["l2_mtu"] = value
                    fs["l2_mtu"] = self.ref()
            return True
        if w0 == "speed":
            return self.if_speed(iface, words[1:], negated)
        if w0 == "switchport":
            if n == 1:
                iface["routed"] = negated
                fs["routed"] = self.ref()
            return True
        if w0 == "ip" and n >= 2:
            if words[1] == "address":
                if negated:
                    iface["ip_addresses"] = []
                elif n >= 3:
                    # 'ip address virtual A/len' is an anycast gateway address: still an address
                    address = words[3] if words[2] == "virtual" and n >= 4 else words[2]
                    iface["ip_addresses"].append(address)
                    fs.setdefault("ip_addresses", self.ref())
                return True
            if words[1] == "access-group":
                return self.if_acl(iface, words, negated, "ipv4")
            return False
        if w0 in ("ipv6", "mac") and n >= 2 and words[1] == "access-group":
            return self.if_acl(iface, words, negated, _ACL_FAMILY[w0])
        if w0 == "vrf" and n >= 2:
            iface["vrf"] = None if negated else words[-1]
            fs["vrf"] = self.ref()
            return True
        if w0 == "channel-group":
            if negated:
                iface["port_channel"] = None
            elif n >= 2 and _NUMBER.match(words[1]):
                iface["port_channel"] = f"Port-Channel{words[1]}"
                fs["port_channel"] = self.ref()
            return True
        if w0 == "service-profile":
            if negated:
                iface["profile"] = None
            elif n == 2:
                iface["profile"] = words[1]
                fs["profile"] = self.ref()
            return True
        if self.qos_common(iface["qos"], words, negated, indent):
            self.own_qos.add(iface["name"])
            return True
        return False

    def if_speed(self, iface: Obj, args: list[str], negated: bool) -> bool:
        if args and args[0] == "forced":
            args = args[1:]
        if negated or not args or args[0] == "auto":
            iface["speed_mbps"] = None
            return True
        parsed = units.speed_mbps(args[0])
        if parsed is None:
            self.problem(f"speed {args[0]!r} not understood")
            return True
        iface["speed_mbps"], lanes = parsed
        if lanes:
            iface["lanes"] = lanes
        iface["field_src"]["speed_mbps"] = self.ref()
        return True

    def if_acl(self, iface: Obj, words: list[str], negated: bool, family: str) -> bool:
        # ip access-group NAME [in|out]; without a direction EOS applies it inbound.
        if len(words) < 3:
            return False
        direction = words[3] if len(words) > 3 else "in"
        if direction not in ("in", "out"):
            return False
        iface["acls"] = [
            a for a in iface["acls"] if not (a["direction"] == direction and a["family"] == family)
        ]
        if not negated:
            iface["acls"].append({"name": words[2], "direction": direction, "family": family,
                                  "src": self.ref(), "field_src": {}})
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
        if w0 == "priority-flow-control":
            return self.pfc_port(qos["pfc"], words, negated)
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
        out: Obj = {"src": self.ref(), "field_src": {}}
        i = 0
        try:
            while i < len(args):
                key = args[i]
                if key in ("minimum-threshold", "maximum-threshold"):
                    threshold = units.threshold(args[i + 1], args[i + 2])
                    out[_AQM_KEYS[key]] = {
                        "value": threshold.value, "unit": threshold.unit,
                        "bytes": threshold.bytes,
                    }
                    i += 3
                elif key in ("max-mark-probability", "drop-probability", "weight"):
                    out["weight" if key == "weight" else "probability"] = int(args[i + 1])
                    i += 2
                else:
                    i += 1
        except (ValueError, IndexError):
            self.problem("random-detect thresholds not understood")
            return None
        return out

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
            table = {
                ("dscp", "traffic-class"): ("dscp_to_tc", 63),
                ("cos", "traffic-class"): ("cos_to_tc", 7),
                ("traffic-class", "tx-queue"): ("tc_to_queue", 15),
            }.get((words[2], target[0]))
            if table is None:
                return True  # rewrite maps (to dscp / cos), exp maps: understood, not modelled
            return self.map_into(table[0], values, target[1], table[1])
        if w1 == "random-detect" and "non-ect" in words:
            qos["ecn_allow_non_ect"] = not negated
            qos["field_src"]["ecn_allow_non_ect"] = self.ref()
            return True
        return w1 in ("rewrite", "map", "trust")

    def map_into(self, field: str, keys: list[str], value: str, key_hi: int) -> bool:
        qos = self.device["qos"]
        target = self.int_in(value, 0, 15, field.rsplit("_", 1)[-1])
        if target is None:
            return True
        try:
            parsed = units.parse_int_list(" ".join(keys), 0, key_hi)
        except ValueError as exc:
            self.problem(f"{field.replace('_', ' ')}: {exc}")
            return True
        table = qos.setdefault(field, {})
        ref = self.ref()
        for key in parsed:
            table[key] = target
            qos["field_src"][f"{field}[{key}]"] = ref
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
        self.open(indent, self.h_acl, acl)
        return True

    def h_acl(self, words: list[str], indent: int, body: str) -> bool:
        acl: Obj = self.current()
        seq = None
        if _NUMBER.match(words[0]):
            seq = int(words[0])
            words = words[1:]
            if not words:
                return False
        action = words[0]
        if action in ("remark", "statistics", "counters", "fragment-rules"):
            return True
        if acl["family"] == "mac":
            return True  # MAC lists cannot match UDP; understood, not modelled
        if action not in ("permit", "deny"):
            return False
        try:
            entry = parse_acl_entry(action, words[1:], standard=acl["standard"])
        except AclSyntaxError as exc:
            self.problem(str(exc))
            return True
        entry["seq"] = seq
        entry["src"] = self.ref()
        entry["text"] = " ".join(([str(seq)] if seq is not None else []) + words)
        acl["entries"].append(entry)
        return True

    # -- resolve defaults and profiles ---------------------------------------------------

    def finish(self) -> None:
        device = self.device
        qos = device["qos"]
        qos["dscp_to_tc_default"] = "eos-default"
        profiles = device["qos_profiles"]
        interfaces = device["interfaces"]
        # Ports that take all their QoS from the same profile (or all defaults) share one
        # validated QosSettings: most ports of a fabric switch do, and building the nested
        # models once per switch instead of once per port is most of the parse time.
        shared: dict[tuple[str | None, bool], QosSettings] = {}
        for iface in interfaces.values():
            fs = iface["field_src"]
            parent = interfaces.get(iface.get("port_channel") or "")
            if parent is not None and "routed" not in fs:
                iface["routed"] = parent["routed"]
            if iface.get("mtu") is None and iface["routed"]:
                if iface["kind"] == "loopback":
                    iface["mtu"] = EOS_LOOPBACK_MTU
                elif self.interface_defaults_mtu is not None:
                    iface["mtu"], fs["mtu"] = self.interface_defaults_mtu
                else:
                    iface["mtu"] = EOS_DEFAULT_MTU
            profile_name = iface.get("profile")
            profile = profiles.get(profile_name or "")
            if profile_name:
                self.device["references"].append({
                    "kind": "qos profile", "name": profile_name,
                    "owner": f"interface {iface['name']}", "resolved": profile is not None,
                    "src": fs.get("profile"), "field_src": {},
                })
            if iface["name"] in self.own_qos:
                iface["qos"] = self.port_qos(iface, profile)
                continue
            key = (profile_name if profile is not None else None, iface["routed"])
            if key not in shared:
                shared[key] = QosSettings.model_validate(self.port_qos(iface, profile))
            iface["qos"] = shared[key]

    def port_qos(self, iface: Obj, profile: Obj | None) -> Obj:
        """The QoS in effect on a port: its profile, its own lines, then the EOS defaults."""
        qos = self.device["qos"]
        port_qos = overlay(profile, iface["qos"]) if profile is not None else iface["qos"]
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
