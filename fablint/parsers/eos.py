"""Arista EOS running-config (plain and ``show running-config all``) into the fabric model.

The parser is a single pass over the lines with an indentation stack. Each block kind has a
handler that dispatches on the first word; a handler returns False for a line it does not model,
which is then counted as skipped, together with every line indented under it. Vendor defaults
(trust, MTU, PFC watchdog, ``priority-flow-control all off``, QoS profiles applied with
``service-profile``) are resolved at the end so that the model says what is in effect.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from fablint import units
from fablint.model import (
    Acl,
    AclBinding,
    Aqm,
    Device,
    Interface,
    InterfaceKind,
    LinkPause,
    ParseProblem,
    Pfc,
    PolicyBinding,
    QosSettings,
    Queue,
    SourceRef,
    Suppression,
    Watchdog,
)
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.cisco_acl import AclSyntaxError, parse_acl_entry
from fablint.parsers.directives import Directive, parse_directive
from fablint.parsers.merge import overlay

EOS_DEFAULT_MTU = 1500
EOS_LOOPBACK_MTU = 65535

# Signals of an EOS configuration, with weights; see sniff().
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

_NUMBER = re.compile(r"^\d+$")
_EOS_BLOCK = re.compile(
    r"^interface (?:Ethernet|Port-Channel|Management|Loopback|Vlan)\d[\d/.]*\n {3}\S", re.M
)
_HOSTNAME = re.compile(r"^hostname \S+$", re.M)

Handler = Callable[[list[str], int, str], bool]


def _interface_kind(name: str) -> InterfaceKind:
    lower = name.lower()
    if "." in name and lower.startswith(("ethernet", "port-channel")):
        return "subinterface"
    if lower.startswith("ethernet"):
        return "physical"
    if lower.startswith("port-channel"):
        return "port-channel"
    if lower.startswith("vlan"):
        return "svi"
    if lower.startswith("loopback"):
        return "loopback"
    if lower.startswith("management"):
        return "mgmt"
    if lower.startswith(("vxlan", "tunnel")):
        return "tunnel"
    return "other"


class _Context:
    __slots__ = ("handler", "indent", "obj")

    def __init__(self, indent: int, handler: Handler, obj: object = None) -> None:
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
        self.device = Device(name=PurePath(path).stem, vendor="eos", files=[path])
        self.problems: list[ParseProblem] = []
        self.unknown = 0
        self.interface_defaults_mtu: tuple[int, SourceRef] | None = None
        self.lineno = 0
        self._refs: dict[int, SourceRef] = {}

    # -- helpers -------------------------------------------------------------------------

    def ref(self, line: int | None = None) -> SourceRef:
        n = self.lineno if line is None else line
        ref = self._refs.get(n)
        if ref is None:
            ref = SourceRef(file=self.path, line=n)
            self._refs[n] = ref
        return ref

    def problem(self, message: str) -> None:
        self.problems.append(
            ParseProblem(file=self.path, line=self.lineno, message=message, kind="invalid-value")
        )

    def int_in(self, token: str, lo: int, hi: int, what: str) -> int | None:
        if _NUMBER.match(token):
            value = int(token)
            if lo <= value <= hi:
                return value
        self.problem(f"{what} {token!r} is not a number in {lo}-{hi}")
        return None

    # -- main loop -----------------------------------------------------------------------

    def run(self, text: str) -> ParseResult:
        if "\x00" in text:
            line = text.count("\n", 0, text.index("\x00")) + 1
            raise ParseError(self.path, line, "binary data (NUL byte) in a text configuration")
        lines = text.split("\n")
        stack = self.stack = [_Context(-1, self.h_top)]
        skip_deeper_than = -1  # lines indented deeper than this belong to a skipped line
        pending: list[tuple[int, Directive]] = []
        open_supp: list[tuple[Suppression, int]] = []
        suppressions: list[Suppression] = []
        eof_block = False
        lineno = 0
        for lineno, raw in enumerate(lines, 1):
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
                    self.directive(body.lstrip("!"), lineno, pending, suppressions)
                continue
            if open_supp:
                for supp, base in list(open_supp):
                    if indent > base:
                        supp.end = lineno
                    else:
                        open_supp.remove((supp, base))
            if pending:
                for at, directive in pending:
                    supp = Suppression(
                        rules=directive.rules, file=self.path, line=at, start=lineno,
                        end=lineno, scope="next", reason=directive.reason,
                    )
                    suppressions.append(supp)
                    open_supp.append((supp, indent))
                pending.clear()
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
            self.lineno = lineno
            words = body.split()
            ctx = stack[-1]
            depth = len(stack)
            try:
                known = ctx.handler(words, indent, body)
            except (ValueError, IndexError):
                self.problem(f"cannot read {words[0]!r} line")
                known = True
            if not known:
                self.unknown += 1
            if len(stack) == depth:
                skip_deeper_than = indent
        for at, directive in pending:  # directives with nothing after them cover nothing
            suppressions.append(
                Suppression(rules=directive.rules, file=self.path, line=at, start=at, end=at,
                            scope=directive.scope, reason=directive.reason)
            )
        self.finish()
        self.device.suppressions = suppressions
        return ParseResult(
            devices=[self.device], problems=self.problems, lines=lineno, unknown_lines=self.unknown
        )

    def directive(
        self,
        comment: str,
        lineno: int,
        pending: list[tuple[int, Directive]],
        suppressions: list[Suppression],
    ) -> None:
        parsed = parse_directive(comment)
        if parsed is None:
            return
        if isinstance(parsed, str):
            self.problem(parsed)
            return
        if parsed.scope == "file":
            suppressions.append(
                Suppression(rules=parsed.rules, file=self.path, line=lineno, start=1, end=lineno,
                            scope="file", reason=parsed.reason)
            )
        else:
            pending.append((lineno, parsed))

    # -- top level -----------------------------------------------------------------------

    def h_top(self, words: list[str], indent: int, body: str) -> bool:
        negated = words[0] in ("no", "default")
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        if w0 == "hostname" and len(words) > 1 and not negated:
            self.device.name = words[1]
            self.device.field_src["name"] = self.ref()
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
        if w0 in ("ip", "ipv6", "mac") and len(words) > 2 and words[1] == "access-list":
            if negated:
                return True
            return self.open_acl(w0, words[2:], indent)
        return w0 in ("end", "version")

    def open(self, indent: int, handler: Handler, obj: object = None) -> None:
        """Enter a block: the following, deeper-indented lines go to ``handler``."""
        self.stack.append(_Context(indent, handler, obj))

    # -- interfaces ----------------------------------------------------------------------

    def open_interface(self, name: str, indent: int) -> bool:
        if "," in name or re.search(r"\d-\d", name):
            return False  # ranges are not written by running-config
        iface = self.device.interfaces.get(name)
        if iface is None:
            kind = _interface_kind(name)
            iface = Interface(
                name=name, kind=kind, src=self.ref(),
                routed=kind in ("svi", "loopback", "mgmt", "subinterface", "tunnel"),
            )
            self.device.interfaces[name] = iface
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
        iface: Interface = self.current()
        negated = words[0] in ("no", "default")
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        n = len(words)
        fs = iface.field_src
        if w0 == "description":
            if negated:
                iface.description = None
            else:
                iface.description = body.split(None, 1)[1] if n > 1 else ""
                fs["description"] = self.ref()
            return True
        if w0 == "shutdown":
            iface.admin_up = negated
            fs["admin_up"] = self.ref()
            return True
        if w0 == "mtu":
            if negated:
                iface.mtu = None
                fs.pop("mtu", None)
            elif n == 2:
                mtu = self.int_in(words[1], 68, 65535, "MTU")
                if mtu is not None:
                    iface.mtu = mtu
                    fs["mtu"] = self.ref()
            return True
        if w0 == "l2" and n >= 2 and words[1] in ("mtu", "mru"):
            if words[1] == "mtu" and not negated and n == 3:
                value = self.int_in(words[2], 68, 65535, "L2 MTU")
                if value is not None:
                    iface.l2_mtu = value
                    fs["l2_mtu"] = self.ref()
            return True
        if w0 == "speed":
            return self.if_speed(iface, words[1:], negated)
        if w0 == "switchport":
            if n == 1:
                iface.routed = negated
                fs["routed"] = self.ref()
            return True
        if w0 == "ip" and n >= 2:
            return self.if_ip(iface, words, negated)
        if w0 == "ipv6" and n >= 2 and words[1] == "access-group":
            return self.if_acl(iface, words, negated, "ipv6")
        if w0 == "mac" and n >= 2 and words[1] == "access-group":
            return self.if_acl(iface, words, negated, "mac")
        if w0 == "vrf" and n >= 2:
            iface.vrf = None if negated else words[-1]
            fs["vrf"] = self.ref()
            return True
        if w0 == "channel-group":
            if negated:
                iface.port_channel = None
            elif n >= 2 and _NUMBER.match(words[1]):
                iface.port_channel = f"Port-Channel{words[1]}"
                fs["port_channel"] = self.ref()
            return True
        if w0 == "flowcontrol" and n >= 2:
            return self.qos_flowcontrol(iface.qos.pause, words, negated)
        if w0 == "service-profile":
            if negated:
                iface.profile = None
            elif n == 2:
                iface.profile = words[1]
                fs["profile"] = self.ref()
                iface.qos.policies.append(
                    PolicyBinding(name=words[1], kind="profile", src=self.ref())
                )
            return True
        return self.qos_common(iface.qos, words, negated, indent)

    def current(self) -> Any:
        """The object of the innermost open block."""
        return self.stack[-1].obj

    def if_speed(self, iface: Interface, args: list[str], negated: bool) -> bool:
        if negated or not args:
            iface.speed_mbps = None
            return True
        if args[0] == "forced":
            args = args[1:]
        if not args or args[0] == "auto":
            iface.speed_mbps = None
            return True
        parsed = units.speed_mbps(args[0])
        if parsed is None:
            self.problem(f"speed {args[0]!r} not understood")
            return True
        iface.speed_mbps, lanes = parsed
        if lanes:
            iface.lanes = lanes
        iface.field_src["speed_mbps"] = self.ref()
        return True

    def if_ip(self, iface: Interface, words: list[str], negated: bool) -> bool:
        w1 = words[1]
        if w1 == "address":
            if negated:
                iface.ip_addresses.clear()
            elif len(words) >= 3:
                iface.ip_addresses.append(words[2])
                iface.field_src.setdefault("ip_addresses", self.ref())
            return True
        if w1 == "access-group":
            return self.if_acl(iface, words, negated, "ipv4")
        return False

    def if_acl(self, iface: Interface, words: list[str], negated: bool, family: str) -> bool:
        # ip access-group NAME in|out
        if len(words) < 4 or words[3] not in ("in", "out"):
            if len(words) == 3 and not negated:
                direction = "in"  # 'ip access-group NAME' defaults to ingress
            else:
                return negated
        else:
            direction = words[3]
        name = words[2]
        iface.acls = [
            a for a in iface.acls if not (a.direction == direction and a.family == family)
        ]
        if not negated:
            iface.acls.append(
                AclBinding(name=name, direction=direction, family=family, src=self.ref())
            )
        return True

    # -- QoS shared by interfaces and qos profiles --------------------------------------

    def qos_flowcontrol(self, pause: LinkPause, words: list[str], negated: bool) -> bool:
        direction = words[1]
        if direction not in ("send", "receive"):
            return False
        state = False if negated or len(words) < 3 else words[2] in ("on", "desired")
        if direction == "send":
            pause.tx = state
            pause.field_src["tx"] = self.ref()
        else:
            pause.rx = state
            pause.field_src["rx"] = self.ref()
        return True

    def qos_common(self, qos: QosSettings, words: list[str], negated: bool, indent: int) -> bool:
        w0 = words[0]
        n = len(words)
        if w0 == "qos" and n >= 2:
            w1 = words[1]
            if w1 == "trust":
                qos.trust = "none" if negated else (words[2] if n > 2 else None)
                if qos.trust not in ("dscp", "cos", "none"):
                    self.problem(f"unknown trust mode {words[2:]!r}")
                    qos.trust = None
                    return True
                qos.field_src["trust"] = self.ref()
                return True
            if w1 in ("cos", "dscp") and n == 3 and not negated:
                hi = 7 if w1 == "cos" else 63
                value = self.int_in(words[2], 0, hi, f"default {w1}")
                if value is not None:
                    setattr(qos, f"default_{w1}", value)
                    qos.field_src[f"default_{w1}"] = self.ref()
                return True
            return False
        if w0 == "priority-flow-control":
            return self.pfc_port(qos.pfc, words, negated)
        if w0 in ("tx-queue", "uc-tx-queue") and n == 2:
            qid = self.int_in(words[1], 0, 15, "tx-queue")
            if qid is None:
                return True
            queue = qos.queues.get(qid)
            if queue is None:
                queue = Queue(id=qid, src=self.ref(), defined_in=qos.name)
                qos.queues[qid] = queue
            self.open(indent, self.h_queue, queue)
            return True
        if w0 == "mc-tx-queue":
            self.open(indent, self.h_ignore_block)
            return True
        if w0 == "service-policy" and n >= 2:
            # service-policy [type qos] input NAME
            if negated:
                return True
            rest = words[1:]
            kind = "qos"
            if rest[0] == "type" and len(rest) >= 2:
                kind = rest[1]
                rest = rest[2:]
            if len(rest) == 2 and rest[0] in ("input", "output"):
                qos.policies.append(
                    PolicyBinding(
                        name=rest[1], kind=kind, direction="in" if rest[0] == "input" else "out",
                        src=self.ref(),
                    )
                )
                return True
            return False
        return w0 == "shape"

    def h_ignore_block(self, words: list[str], indent: int, body: str) -> bool:
        return True

    def pfc_port(self, pfc: Pfc, words: list[str], negated: bool) -> bool:
        n = len(words)
        fs = pfc.field_src
        if n == 1:
            if negated:
                pfc.mode = "off"
                fs["mode"] = self.ref()
                return True
            return False
        w1 = words[1]
        if w1 in ("on", "off") or (w1 == "mode" and n == 3):
            state = words[2] if w1 == "mode" else w1
            pfc.mode = "off" if negated else ("on" if state == "on" else "off")
            fs["mode"] = self.ref()
            return True
        if w1 == "priority" and n >= 3:
            prio = self.int_in(words[2], 0, 7, "PFC priority")
            if prio is None:
                return True
            if negated or n < 4:
                pfc.no_drop.discard(prio)
                pfc.drop.discard(prio)
            elif words[3] == "no-drop":
                pfc.no_drop.add(prio)
                pfc.drop.discard(prio)
            elif words[3] == "drop":
                pfc.drop.add(prio)
                pfc.no_drop.discard(prio)
            else:
                return False
            if not negated:
                fs["no_drop"] = fs.get("no_drop") or self.ref()
                fs[f"priority[{prio}]"] = self.ref()
            return True
        if w1 == "pause" and n >= 3 and words[2] == "watchdog":
            return self.watchdog_port(pfc.watchdog, words[3:], negated)
        return False

    def watchdog_port(self, wd: Watchdog, args: list[str], negated: bool) -> bool:
        fs = wd.field_src
        if not args:
            wd.enabled = not negated
            fs["enabled"] = self.ref()
            return True
        if args[0] != "port" or len(args) < 2:
            return args[0] == "hardware"
        if args[1] == "action":
            wd.action = None if negated or len(args) < 3 else args[2]
            fs["action"] = self.ref()
            return True
        if args[1] == "timer":
            if negated:
                wd.timeout_ms = wd.polling_ms = wd.recovery_ms = None
                return True
            self.watchdog_timers(wd, args[2:])
            return True
        return False

    def watchdog_timers(self, wd: Watchdog, args: list[str]) -> None:
        keys = {"timeout": "timeout_ms", "polling-interval": "polling_ms",
                "recovery-time": "recovery_ms"}
        i = 0
        while i < len(args) - 1:
            field = keys.get(args[i])
            if field is None:
                i += 1
                continue
            value = args[i + 1]
            if value != "auto":
                try:
                    setattr(wd, field, units.seconds_to_ms(value))
                    wd.field_src[field] = self.ref()
                except ValueError:
                    self.problem(f"watchdog {args[i]} {value!r} is not a time in seconds")
            i += 2

    def h_queue(self, words: list[str], indent: int, body: str) -> bool:
        queue: Queue = self.current()
        negated = words[0] in ("no", "default")
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        n = len(words)
        if w0 == "priority":
            queue.scheduling = "dwrr" if negated else ("strict" if n > 1 and words[1] == "strict"
                                                        else None)
            queue.field_src["scheduling"] = self.ref()
            return True
        if w0 == "bandwidth":
            if n >= 3 and words[1] == "percent" and not negated:
                queue.bandwidth_percent = self.int_in(words[2], 0, 100, "bandwidth percent")
                queue.field_src["bandwidth_percent"] = self.ref()
            return True
        if w0 == "random-detect" and n >= 2:
            kind = words[1]
            if kind not in ("ecn", "drop"):
                return kind == "non-ect"
            if negated:
                setattr(queue, "ecn" if kind == "ecn" else "wred", None)
                queue.field_src.pop(kind, None)
                return True
            if n == 3 and words[2] == "count":
                return True
            aqm = self.aqm(words[2:])
            if aqm is None:
                return True
            if kind == "ecn":
                queue.ecn = aqm
                queue.field_src["ecn"] = self.ref()
            elif queue.wred is None or "drop-precedence" not in words:
                queue.wred = aqm
                queue.field_src["wred"] = self.ref()
            return True
        return w0 in ("shape", "bandwidth")

    def aqm(self, args: list[str]) -> Aqm | None:
        values: dict[str, object] = {}
        i = 0
        try:
            while i < len(args):
                key = args[i]
                if key in ("minimum-threshold", "maximum-threshold"):
                    values[key] = units.threshold(args[i + 1], args[i + 2])
                    i += 3
                elif key in ("max-mark-probability", "drop-probability"):
                    values["probability"] = int(args[i + 1])
                    i += 2
                elif key == "weight":
                    values["weight"] = int(args[i + 1])
                    i += 2
                elif key == "drop-precedence":
                    i += 2
                else:
                    i += 1
        except (ValueError, IndexError):
            self.problem("random-detect thresholds not understood")
            return None
        return Aqm(
            min_threshold=values.get("minimum-threshold"),
            max_threshold=values.get("maximum-threshold"),
            probability=values.get("probability"),
            weight=values.get("weight"),
            src=self.ref(),
        )

    # -- global QoS and PFC --------------------------------------------------------------

    def h_qos_global(self, words: list[str], indent: int, negated: bool) -> bool:
        if len(words) < 2:
            return False
        w1 = words[1]
        qos = self.device.qos
        if w1 == "profile" and len(words) == 3 and not negated:
            name = words[2]
            profile = self.device.qos_profiles.get(name)
            if profile is None:
                profile = QosSettings(name=name, src=self.ref())
                self.device.qos_profiles[name] = profile
            self.open(indent, self.h_qos_profile, profile)
            return True
        if w1 == "map" and len(words) >= 6 and not negated:
            src_kind = words[2]
            try:
                to = words.index("to")
            except ValueError:
                return False
            values = words[3:to]
            target = words[to + 1:]
            if len(target) < 2:
                return False
            if src_kind == "dscp" and target[0] == "traffic-class":
                return self.map_into(qos.dscp_to_tc, "dscp_to_tc", values, target[1], 63, 15)
            if src_kind == "cos" and target[0] == "traffic-class":
                return self.map_into(qos.cos_to_tc, "cos_to_tc", values, target[1], 7, 15)
            if src_kind == "traffic-class" and target[0] == "tx-queue":
                return self.map_into(qos.tc_to_queue, "tc_to_queue", values, target[1], 15, 15)
            return True  # rewrite maps (to dscp / cos), exp maps: not modelled, understood
        if w1 == "random-detect" and "non-ect" in words:
            qos.ecn_allow_non_ect = not negated
            qos.field_src["ecn_allow_non_ect"] = self.ref()
            return True
        return w1 in ("rewrite", "map", "trust")

    def map_into(
        self, table: dict[int, int], field: str, keys: list[str], value: str, key_hi: int,
        value_hi: int,
    ) -> bool:
        target = self.int_in(value, 0, value_hi, field.split("_")[-1])
        if target is None:
            return True
        try:
            parsed = units.parse_int_list(" ".join(keys), 0, key_hi)
        except ValueError as exc:
            self.problem(f"{field.replace('_', ' ')}: {exc}")
            return True
        for key in parsed:
            table[key] = target
            self.device.qos.field_src[f"{field}[{key}]"] = self.ref()
        return True

    def h_qos_profile(self, words: list[str], indent: int, body: str) -> bool:
        profile: QosSettings = self.current()
        negated = words[0] in ("no", "default")
        if negated:
            words = words[1:]
            if not words:
                return False
        if words[0] == "flowcontrol" and len(words) >= 2:
            return self.qos_flowcontrol(profile.pause, words, negated)
        return self.qos_common(profile, words, negated, indent)

    def h_pfc_global(self, words: list[str], negated: bool) -> bool:
        qos = self.device.qos
        if len(words) == 3 and words[1] == "all" and words[2] == "off":
            qos.pfc_disabled_globally = not negated
            qos.field_src["pfc_disabled_globally"] = self.ref()
            return True
        if len(words) >= 3 and words[1] == "pause" and words[2] == "watchdog":
            wd = qos.watchdog_defaults
            if wd is None:
                wd = qos.watchdog_defaults = Watchdog(src=self.ref())
            args = words[3:]
            if args and args[0] == "default":
                if negated:
                    return True
                self.watchdog_timers(wd, args[1:])
                return True
            if len(args) >= 2 and args[0] == "action":
                wd.action = None if negated else args[1]
                wd.field_src["action"] = self.ref()
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
        family = {"ip": "ipv4", "ipv6": "ipv6", "mac": "mac"}[family_word]
        name = args[0]
        acl = Acl(name=name, family=family, standard=standard, src=self.ref())
        self.device.acls[name] = acl
        self.open(indent, self.h_acl, acl)
        return True

    def h_acl(self, words: list[str], indent: int, body: str) -> bool:
        acl: Acl = self.current()
        seq = None
        if _NUMBER.match(words[0]):
            seq = int(words[0])
            words = words[1:]
            if not words:
                return False
        action = words[0]
        if action in ("remark", "statistics", "counters", "fragment-rules"):
            return True
        if action not in ("permit", "deny") or acl.family == "mac":
            return acl.family == "mac"
        try:
            entry = parse_acl_entry(action, words[1:], standard=acl.standard)
        except AclSyntaxError as exc:
            self.problem(str(exc))
            return True
        entry.seq = seq
        entry.src = self.ref()
        entry.text = " ".join(([str(seq)] if seq is not None else []) + words)
        acl.entries.append(entry)
        return True

    # -- resolve defaults and profiles ---------------------------------------------------

    def finish(self) -> None:
        device = self.device
        qos = device.qos
        qos.dscp_to_tc_default = "eos-default"
        wd_defaults = qos.watchdog_defaults
        for iface in device.interfaces.values():
            if iface.port_channel:
                parent = device.interfaces.get(iface.port_channel)
                if parent is not None and not iface.configured("routed"):
                    iface.routed = parent.routed
            if iface.profile and iface.profile in device.qos_profiles:
                iface.qos = overlay(device.qos_profiles[iface.profile], iface.qos)
            if iface.mtu is None and iface.routed:
                if iface.kind == "loopback":
                    iface.mtu = EOS_LOOPBACK_MTU
                elif self.interface_defaults_mtu is not None:
                    iface.mtu, ref = self.interface_defaults_mtu
                    iface.field_src["mtu"] = ref
                else:
                    iface.mtu = EOS_DEFAULT_MTU
            if not iface.qos.configured("trust"):
                iface.qos.trust = "dscp" if iface.routed else "cos"
            pfc = iface.qos.pfc
            pfc.enabled = pfc.mode == "on"
            if pfc.enabled and qos.pfc_disabled_globally:
                pfc.enabled = False
                pfc.disabled_by = qos.field_src.get("pfc_disabled_globally")
            self.resolve_watchdog(pfc.watchdog, wd_defaults)

    @staticmethod
    def resolve_watchdog(wd: Watchdog, defaults: Watchdog | None) -> None:
        # The per-port watchdog is on unless 'no priority-flow-control pause watchdog'; it only
        # acts with a non-zero timeout, from the port timer or the global default.
        if not wd.configured("enabled"):
            wd.enabled = True
        if defaults is not None:
            for field in ("timeout_ms", "polling_ms", "recovery_ms", "action"):
                if getattr(wd, field) is None and getattr(defaults, field) is not None:
                    setattr(wd, field, getattr(defaults, field))
                    if field in defaults.field_src:
                        wd.field_src.setdefault(field, defaults.field_src[field])
        if not wd.timeout_ms:
            wd.enabled = False
