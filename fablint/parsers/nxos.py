"""Cisco NX-OS running-config (plain and ``show running-config all``) into the fabric model.

The same single pass with an indentation stack as the EOS parser (NX-OS indents by two spaces,
but hand-written files use one: only "deeper than the block" matters). NX-OS QoS is modular:
class-maps and policy-maps of three kinds (``qos`` classification, ``network-qos`` no-drop and
MTU, ``queuing`` scheduling and ECN) do nothing until a ``service-policy`` binds them under
``system qos`` or on a port. The parser therefore records what was written (class-maps,
policy-maps, bindings) and resolves it at the end into what is in effect:

* the bound ``qos`` input policy gives DSCP/CoS -> qos-group (traffic class), device-wide from
  ``system qos`` or per port from the port's own policy (``iface.qos.maps``);
* the bound ``network-qos`` policy gives the no-drop (PFC) priorities and per-class MTU; the
  port's ``priority-flow-control mode`` (default ``auto``) decides whether PFC runs there;
* the bound ``queuing`` output policy gives each port's egress queues. It is also modelled as a
  QoS profile (``Device.qos_profiles``, named after the policy-map, ``iface.profile`` set) so
  that fixes land in the policy-map that supplies the queue, as EOS fixes land in a
  ``qos profile``.

Defaults, chosen to match what NX-OS does and documented here because rules rely on them:

* Ethernet ports and port-channels are layer 2 unless ``no switchport`` or
  ``no system default switchport``; SVIs, loopbacks, mgmt0 and subinterfaces are routed.
* Ports are admin up unless ``shutdown``; with ``system default switchport shutdown`` layer-2
  Ethernet ports are down unless ``no shutdown`` (that is why such configs print it). SVIs
  (``interface VlanN``) are down unless ``no shutdown``.
* IP MTU 1500 on routed ports without ``mtu``; on a switchport ``mtu`` is the layer-2 MTU.
* PFC mode ``auto`` (DCBX negotiated) counts as enabled but keeps ``mode="auto"``; PFC runs
  only for the priorities a bound network-qos class pauses (``pause pfc-cos N`` or, on 3000 and
  5000 series, ``pause no-drop`` on a class matching qos-group N). No-drop is per class: the
  classes the bound network-qos policy pauses are ``no_drop_classes`` (none when no policy is
  bound: the default network-qos policy drops), each paused with its ``pfc-cos``
  (``tc_to_pfc_priority`` where it differs from the qos-group). These device-wide facts are
  copied into a port's own classification chain, which only changes DSCP -> qos-group.
* A class of the bound network-qos policy without ``mtu`` has MTU 1500 (``class_mtu``, not in
  ``field_src``).
* NX-OS has no trust setting. ``trust`` is ``dscp`` when the classification policy in effect
  matches DSCP (a comparable fact next to EOS and SONiC), else left unset: what a CoS-only
  policy does to untagged traffic (qos-group 0) is in the DSCP map, which the rules follow.
* The PFC watchdog is on only where ``priority-flow-control watch-dog-interval on`` is
  configured (globally or on the port; the port wins), polling every 100 ms. Its default
  differs between releases, so fablint does not assume one.
* Unclassified traffic goes to qos-group 0 (``dscp_to_tc_default = "nxos-default"``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import PurePath
from typing import Any, TypeVar

from fablint import units
from fablint.model import (
    LinkPause,
    ParseProblem,
    PolicyBinding,
    QosSettings,
    Queue,
    Reference,
    SourceRef,
    Watchdog,
)
from fablint.parsers import build
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
    Compactor,
    Freezer,
    Obj,
    new_device,
    new_interface,
    new_qos,
    new_queue,
    thaw,
    validate_device,
)
from fablint.parsers.cisco_acl import NAMED_DSCP, AclSyntaxError, parse_acl_entry
from fablint.parsers.directives import SuppressionTracker
from fablint.parsers.ranges import expand_interface_range

NXOS_DEFAULT_MTU = 1500
NXOS_MTU_RANGE = (576, 9216)
NXOS_WATCHDOG_POLL_MS = 100.0
NXOS_CLASS_MTU_DEFAULT = 1500
"""MTU of a network-qos class without an ``mtu`` line (each system class has a default MTU;
NX-OS prints ``mtu 1500`` for the classes of its default network-qos policies)."""
POLICY_SLOTS = (
    {"kind": "qos", "direction": "in", "purpose": "classification"},
    {"kind": "network-qos", "direction": None, "purpose": "no-drop classes and MTU",
     "device_wide": True},
    {"kind": "queuing", "direction": "out", "purpose": "egress queues"},
)
"""The three policy kinds NX-OS QoS takes effect through (``DeviceQos.policy_slots``)."""

# Signals of an NX-OS configuration; see NxosParser.sniff().
_STRONG = (
    "!Command: show running-config",  # NX-OS writes no space after '!' (EOS does)
    "!RANCID-CONTENT-TYPE: cisco-nx",
    "\nswitchname ",
    "interface port-channel",
    "interface mgmt0",
    "interface loopback",
    "system qos",
    "policy-map type network-qos",
    "class-map type network-qos",
    "policy-map type queuing",
    "class type queuing",
    "vrf context ",
    "vrf member ",
    "priority-flow-control mode ",
    "priority-flow-control watch-dog-interval",
    "system default switchport",
    "system jumbomtu",
    "hardware access-list tcam",
    "bootflash:/n",
    "bootflash:nxos",
)
_WEAK = ("!Time:", "\nfeature ", "no feature ", "\nhostname ")
_FOREIGN = (
    "!RANCID-CONTENT-TYPE: arista",
    "! Command: show running-config",
    "interface Port-Channel",
    "interface Management1",
    "daemon TerminAttr",
    "management api http-commands",
    "service routing protocols model",
    "qos profile ",
    "interface TenGigabitEthernet ",
    "## Running database",
    "traffic.",
)
_VERSION = re.compile(r"^version \d+\.\d+\(\d+\)", re.M)
_NXOS_BLOCK = re.compile(
    r"^interface (?:Ethernet|port-channel|Vlan|loopback|mgmt)\d[\d/.]*\r?\n {2}\S", re.M
)
_EOS_BLOCK = re.compile(r"^interface \S+\r?\n {3}\S", re.M)

_NUMBER = re.compile(r"^\d+$")
_RANGE_NAME = re.compile(r"\d-\d")
_IF_NAME = re.compile(r"^([A-Za-z][A-Za-z-]*?)\s*(\d[\d/.:]*)$")
_IF_PREFIXES = {
    "ethernet": ("Ethernet", "physical"), "eth": ("Ethernet", "physical"),
    "port-channel": ("port-channel", "port-channel"), "po": ("port-channel", "port-channel"),
    "vlan": ("Vlan", "svi"), "loopback": ("loopback", "loopback"), "lo": ("loopback", "loopback"),
    "mgmt": ("mgmt", "mgmt"), "tunnel": ("Tunnel", "tunnel"), "nve": ("nve", "tunnel"),
}
"""A first word glued to ``=``, ``:`` or a bracket: ``vendid=0x2c9``, ``mtu: 9000``."""
_TOP_WORDS = frozenset({
    "hostname", "switchname", "version", "feature", "interface", "class-map", "policy-map",
    "system", "priority-flow-control", "ip", "ipv6", "mac", "hardware", "no", "boot",
})
_ROUTED_KINDS = ("svi", "loopback", "mgmt", "subinterface", "tunnel")
_ACL_FAMILY = {"ip": "ipv4", "ipv6": "ipv6", "mac": "mac"}
_QOS_KINDS = ("qos", "queuing", "network-qos")
_BOOT_IMAGES = frozenset({"nxos", "kickstart", "system"})
_NQ_CLASS = re.compile(r"^c-(?:\d+q-)?nq(\d)$")
_QUEUE_CLASS = re.compile(r"^c-(?:out|in)-(?:\d+q-)?q(\d)$")
_DEFAULT_CLASSES = frozenset({
    "class-default", "c-nq-default", "c-8q-nq-default", "c-4q-nq-default", "c-out-q-default",
    "c-out-8q-q-default", "c-out-4q-q-default", "c-in-q-default", "c-in-8q-q-default",
})
_AQM_KEYS = {"minimum-threshold": "min_threshold", "maximum-threshold": "max_threshold"}
_OTHER_SYSTEM_CLASS = re.compile(
    r"^(?:c-nq-\d+e(?:-\d+q\d+q)?(?:-drop|-ndrop(?:-fcoe)?)?"  # Nexus 7000 network-qos templates
    r"|class-(?:fcoe|all-flood|ip-multicast)"  # Nexus 5000/6000 system classes
    r"|\d+p?\d+q\d+t-(?:in|out)-(?:pq\d|q\d|q-default)"  # Nexus 7000 M-series queuing
    r"|\d+e-\d+q\d+q-(?:in|out)-(?:q\d|q-default))$"  # Nexus 7000 F-series queuing
)
"""System classes NX-OS defines itself that ``class_queue`` / ``class_qos_group`` do not number
(``c-nq-7e-drop``, ``c-nq-7e-ndrop-fcoe``, ``class-fcoe``, ``1p7q4t-out-pq1``,
``8e-4q8q-in-q1``): a policy names them without a class-map of its own."""
N7K_NQ_CLASSES: dict[str, tuple[tuple[int, ...], int]] = {
    "c-nq-8e": ((0, 1, 2, 3, 4, 5, 6, 7), 1500),
    "c-nq-8e-4q8q": ((0, 1, 2, 3, 4, 5, 6, 7), 1500),
    "c-nq-7e-drop": ((0, 1, 2, 4, 5, 6, 7), 1500),
    "c-nq-7e-4q8q-drop": ((0, 1, 2, 4, 5, 6, 7), 1500),
    "c-nq-7e-ndrop-fcoe": ((3,), 2112),
    "c-nq-7e-4q8q-ndrop-fcoe": ((3,), 2112),
}
"""Nexus 7000 network-qos template classes (``template 8e`` / ``7e``): the CoS values each
matches, taken as its traffic classes, and its MTU when the policy has no ``mtu`` line (the
FCoE no-drop class runs FC-sized frames, 2112 bytes)."""

Handler = Callable[[list[str], int, str], bool]

_NO_PAUSE: Obj = {"field_src": {}}
"""A port's pause (``new_qos``) and watchdog (``new_pfc``) without a line of the port's own."""
_NO_WATCHDOG: Obj = _NO_PAUSE
ModelT = TypeVar("ModelT", bound=Any)
_new_tuple = tuple.__new__


def normalise_interface(words: list[str]) -> tuple[str, str] | None:
    """``Ethernet1/1``, ``eth 1/1``, ``Po10``, ``mgmt0`` -> (canonical name, kind), else None.

    Running-config writes canonical names; hand-written snippets abbreviate. Ranges are not
    interfaces (running-config never writes them).
    """
    text = " ".join(words)
    named = _NAMES.get(text, _UNNAMED)
    if named is _UNNAMED:
        if len(_NAMES) >= _CACHE_LIMIT:
            _NAMES.clear()
        named = _NAMES[text] = _interface_name(text)
    return named  # type: ignore[return-value]


_UNNAMED = object()
_NAMES: dict[str, tuple[str, str] | None] = {}
"""Interface name as written -> ``normalise_interface``'s answer (the same in every switch)."""


def _interface_name(text: str) -> tuple[str, str] | None:
    if "," in text or _RANGE_NAME.search(text):
        return None
    match = _IF_NAME.match(text)
    if not match:
        return None
    known = _IF_PREFIXES.get(match[1].lower())
    if known is None:
        return None
    prefix, kind = known
    number = match[2]
    if "." in number and kind in ("physical", "port-channel"):
        kind = "subinterface"
    return f"{prefix}{number}", kind


def class_queue(name: str) -> int | None:
    """Queue of an NX-OS system queuing class (``c-out-8q-q3`` -> 3, defaults -> 0)."""
    if name in _DEFAULT_CLASSES:
        return 0
    match = _QUEUE_CLASS.match(name)
    return int(match[1]) if match else None


def class_qos_group(name: str) -> int | None:
    """qos-group of an NX-OS system network-qos class (``c-8q-nq3`` -> 3, defaults -> 0)."""
    if name in _DEFAULT_CLASSES:
        return 0
    match = _NQ_CLASS.match(name)
    return int(match[1]) if match else None


def is_system_class(name: str) -> bool:
    """Classes NX-OS defines itself: a policy may name them without a class-map."""
    return (class_queue(name) is not None or class_qos_group(name) is not None
            or _OTHER_SYSTEM_CLASS.match(name) is not None)


def is_builtin_policy(name: str) -> bool:
    """Policy-maps NX-OS ships (``default-8q-out-policy``, ``fcoe-default-in-policy`` …)."""
    return name.startswith(("default-", "fcoe-default-"))


class _Context:
    __slots__ = ("fast", "handler", "indent", "obj")

    def __init__(self, indent: int, handler: Handler, obj: Any = None,
                 fast: bool = False) -> None:
        self.indent = indent
        self.handler = handler
        self.obj = obj
        self.fast = fast
        """The block of one port: its lines may be applied from ``_IF_RAW``."""


def _at_line_start(word: str, text: str) -> bool:
    """Does a line of ``text`` begin with ``word`` (where a ``^`` pattern with re.M can)?"""
    return text.startswith(word) or "\n" + word in text


class NxosParser:
    name = "nxos"
    label = "Cisco NX-OS running-config"
    vendor = "nxos"

    def sniff(self, head: str) -> int:
        score = 25 * sum(1 for signal in _STRONG if signal in head)
        score += 10 * sum(1 for signal in _WEAK if signal in head)
        # The '^' patterns are tried only where their first word starts a line: a regex scan
        # of every position of a JSON head took most of the time of sniffing it.
        if _at_line_start("version ", head) and _VERSION.search(head):
            score += 25
        # Interface blocks indented by two spaces are NX-OS style (EOS uses three, IOS one).
        if _at_line_start("interface ", head):
            if _NXOS_BLOCK.search(head):
                score += 25
            if _EOS_BLOCK.search(head):
                score -= 40
        if score <= 0:
            return 0  # no sign of NX-OS (a JSON head): the foreign signals cannot change a 0
        score -= 40 * sum(1 for signal in _FOREIGN if signal in head)
        return max(0, min(score, 100))

    def parse(self, text: str, path: str) -> ParseResult:
        refuse_oversized_config(text, path, "nxos")
        builder = _NxosBuilder(path)
        lines = builder.read(text)
        del text  # freed here when the caller let go of it: the model is built without it
        return builder.build(lines)


class _NxosBuilder:
    """State of one parse. One instance per file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.device: Obj = new_device(PurePath(path).stem, "nxos", path)
        self.device["policies"] = {}
        self.device["references"] = []
        self.device["qos"]["policy_slots"] = [dict(slot) for slot in POLICY_SLOTS]
        self.problems: list[ParseProblem] = []
        self.unknown = 0
        self.first_unknown = 0
        self.foreign = 0
        self.first_foreign = 0
        self.lineno = 0
        self.stack: list[_Context] = []
        self.raw: str | None = None
        """The line being read as written (``_IF_RAW``'s key), while its handler runs."""
        self.class_maps: dict[tuple[str, str], Obj] = {}
        self.policy_maps: dict[tuple[str, str], Obj] = {}
        self.system_bindings: list[Obj] = []
        self.own_qos: set[str] = set()
        """Ports with QoS lines of their own (the others share one QoS object)."""
        self.raw_mtu: dict[str, tuple[int, SourceRef]] = {}
        self.default_routed = False
        self.switchport_shutdown = False
        self.watchdog_global: tuple[bool, SourceRef] | None = None
        self.freezer: Freezer | None = None
        self.compactor: Compactor | None = None
        """Set for a device validated port by port (``build.validate_device``): references
        and the system's bindings are made models as they are made, shared by every port."""
        self.system: dict[tuple[str, str | None], Obj] = {}
        self.system_models: dict[tuple[str, str | None], Any] = {}
        """``system`` as the models that a large device's ports share (``compactor``)."""
        self.no_drop: dict[int, SourceRef] = {}
        self.bound: set[tuple[str, str]] = set()
        self.maps_of: dict[str, Obj | None] = {}
        """qos policy name -> ``port_maps``."""
        """(kind, name) of every policy a service-policy binds."""
        self.shared_qos: dict[tuple[str | None, bool], QosSettings] = {}
        self.parts: dict[type, Any] = {}
        self.by_dscp: dict[str, bool] = {}
        """qos policy name -> does a class of it match DSCP (``port_trust``)."""
        self.no_drop_refs: tuple[dict[int, SourceRef], dict[str, SourceRef]] | None = None
        """The sources ``port_pfc`` gives every port's no-drop priorities, and of what."""
        """Class -> the one model of it that ports share (``shared_part``)."""

    # -- helpers -------------------------------------------------------------------------

    def ref(self) -> SourceRef:
        return _new_tuple(SourceRef, (self.path, self.lineno))  # type: ignore[no-any-return]

    def problem(self, message: str) -> None:
        self.problems.append(
            ParseProblem(file=self.path, line=self.lineno, message=message, kind="invalid-value")
        )

    def int_in(self, word: str, lo: int, hi: int, what: str) -> int | None:
        if _NUMBER.match(word) and len(word) < 12:
            value = int(word)
            if lo <= value <= hi:
                return value
        self.problem(f"{what} {word!r} is not a number in {lo}-{hi}")
        return None

    def int_list(self, words: Iterable[str], hi: int, what: str,
                 names: dict[str, int] | None = None) -> list[int]:
        """``24-31``, ``24,26``, ``af31 cs3``, mixtures; a problem (and nothing) when invalid."""
        out: set[int] = set()
        for token in ",".join(words).split(","):
            token = token.strip().lower()
            if not token:
                continue
            if names is not None and token in names:
                out.add(names[token])
                continue
            try:
                out.update(units.parse_int_list(token, 0, hi))
            except ValueError as exc:
                self.problem(f"{what} {token!r} not understood ({exc}); expected 0-{hi}")
                return []
        return sorted(out)

    def open(self, indent: int, handler: Handler, obj: Any = None, fast: bool = False) -> None:
        """Enter a block: the following, deeper-indented lines go to ``handler``."""
        self.stack.append(_Context(indent, handler, obj, fast))

    def current(self) -> Any:
        return self.stack[-1].obj

    def shared_part(self, cls: type[ModelT], values: Obj) -> ModelT:
        """The model of ``values``, one per device and class: a part of port QoS that is the
        same on every port that has no line of its own for it (models are never changed, so
        ports may share one)."""
        model = self.parts.get(cls)
        if model is None:
            model = self.parts[cls] = cls.model_validate(values)
        return model  # type: ignore[return-value]

    # -- main loop -----------------------------------------------------------------------

    def read(self, text: str) -> int:
        """Read every line of ``text``; returns the number of lines (``build`` makes the
        model, without the text)."""
        reject_nul(text, self.path, "binary data (NUL byte) in a text configuration")
        self.freezer = Freezer.for_text(text, self.device["interfaces"])
        return self.scan(text)

    def build(self, lines: int) -> ParseResult:
        """The model of what ``read`` read."""
        self.finish()
        frozen = self.freezer is not None
        device = validate_device(self.device, self.path, self.prepare_port if frozen else None,
                                 self.compactor, self.record_policies if frozen else None)
        return ParseResult(
            devices=[device], problems=self.problems, lines=lines, unknown_lines=self.unknown,
            first_unknown=self.first_unknown or None, foreign_lines=self.foreign,
            first_foreign=self.first_foreign or None,
        )

    def scan(self, text: str) -> int:
        """Feed every line to the handler of its block; returns the number of lines."""
        stack = self.stack = [_Context(-1, self.h_top)]
        skip_deeper_than = -1  # lines indented deeper than this belong to a skipped line
        tracker = SuppressionTracker(self.path)
        banner_end: str | None = None
        lineno = 0
        fast_lines = _IF_RAW
        for lineno, raw in enumerate(split_lines(text), 1):
            top = stack[-1]
            if top.fast and banner_end is None and not tracker.busy:
                # A line of a port's block read before, in this file or another: what the
                # steps below would do with it is known from the line as written.
                hit = fast_lines.get(raw)
                if hit is not None:
                    indent = hit[0]
                    if indent > skip_deeper_than >= 0:  # under a skipped line
                        self.unknown += 1
                        self.first_unknown = self.first_unknown or lineno
                        continue
                    if indent > top.indent:  # in the port's block: nothing to close
                        self.lineno = lineno
                        try:
                            known = hit[1](self, top.obj, hit[2])
                        except (ValueError, IndexError):
                            self.problem(f"cannot read {raw.split()[0]!r} line")
                            known = True
                        if not known:
                            self.unknown += 1
                            self.first_unknown = self.first_unknown or lineno
                        skip_deeper_than = indent
                        continue
            line = raw.rstrip()
            if not line:
                continue
            if banner_end is not None:
                if banner_end in line:
                    banner_end = None
                continue
            body = line.lstrip()
            indent = len(line) - len(body)
            first = body[0]
            if first not in CONFIG_LINE_START or (first > "9" and FOREIGN_WORD.match(body)):
                if capture_framing(body):
                    continue  # 'nx1# show running-config' of a terminal capture
                # not configuration (a pasted table, JSON, YAML): counted and passed over
                self.foreign += 1
                self.unknown += 1
                self.first_foreign = self.first_foreign or lineno
                self.first_unknown = self.first_unknown or lineno
                continue
            if first == "!":
                if body.startswith("!Chassis type:") and "platform" not in self.device[
                        "field_src"]:
                    self.lineno = lineno
                    self.set_platform(body.split(":", 1)[1].strip())
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
                    self.first_unknown = self.first_unknown or lineno
                    continue
                skip_deeper_than = -1
            while indent <= stack[-1].indent:
                stack.pop()
            words = body.split()
            if words[0] == "banner":
                banner_end = self.banner_delimiter(words)
                continue
            if len(stack) == 1 and words[0] not in _TOP_WORDS:
                self.unknown += 1  # top level: most lines are features fablint does not model
                self.first_unknown = self.first_unknown or lineno
                skip_deeper_than = indent
                continue
            self.lineno = lineno
            depth = len(stack)
            self.raw = raw
            try:
                known = stack[-1].handler(words, indent, body)
            except (ValueError, IndexError):
                self.problem(f"cannot read {words[0]!r} line")
                known = True
            self.raw = None
            if not known:
                self.unknown += 1
                self.first_unknown = self.first_unknown or lineno
            if len(stack) == depth:
                skip_deeper_than = indent
        suppressions = tracker.finish()
        stack.clear()  # the handlers are bound methods: break the cycle back to this builder
        self.device["suppressions"] = suppressions
        return lineno

    @staticmethod
    def banner_delimiter(words: list[str]) -> str | None:
        """``banner motd #…#``: the delimiter that ends a multi-line banner, or None."""
        if len(words) < 3:
            return None
        rest = " ".join(words[2:])
        delimiter = rest[0]
        return None if delimiter in rest[1:] else delimiter


    def h_ignore(self, words: list[str], indent: int, body: str) -> bool:
        """A block that is understood but not modelled (control-plane policies …)."""
        return True

    # -- top level -----------------------------------------------------------------------

    def set_platform(self, name: str) -> None:
        """``Device.platform``: what tells the ASIC family (``fablint.platforms``)."""
        if name:
            self.device["platform"] = name
            self.device["field_src"]["platform"] = self.ref()

    def h_top(self, words: list[str], indent: int, body: str) -> bool:
        negated = words[0] == "no"
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        n = len(words)
        if w0 in ("hostname", "switchname") and n == 2 and not negated:
            self.device["name"] = words[1]
            self.device["field_src"]["name"] = self.ref()
            return True
        if w0 == "boot" and n >= 3 and not negated and words[1] in _BOOT_IMAGES:
            # The image names the hardware line (n3000-…, nxos64-cs…: Cloud Scale), which is
            # all the configuration says of the ASIC; a model from RANCID's header wins.
            if "platform" not in self.device["field_src"]:
                self.set_platform(words[-1].rsplit("/", 1)[-1].rsplit(":", 1)[-1])
            return True
        if w0 == "version" and n >= 2 and not negated:
            self.device["os_version"] = words[1]
            self.device["field_src"]["os_version"] = self.ref()
            return True
        if w0 == "interface" and n >= 2:
            return True if negated else self.open_interface(words[1:], indent)
        if w0 in ("class-map", "policy-map") and n >= 2:
            if negated:
                return True
            if w0 == "class-map":
                return self.open_class_map(words[1:], indent)
            return self.open_policy_map(words[1:], indent)
        if w0 == "system" and n >= 2:
            return self.h_system(words[1:], indent, negated)
        if w0 == "priority-flow-control" and n >= 2:
            return self.h_pfc_global(words[1:], negated)
        if w0 in _ACL_FAMILY and n >= 3 and words[1] == "access-list":
            if negated:
                self.device["acls"].pop(words[2], None)
                return True
            return self.open_acl(w0, words[2:], indent)
        if w0 == "hardware":
            # TCAM carving (access-list tcam region …) and buffer profiles: known, not modelled.
            return n >= 2 and words[1] in ("access-list", "profile", "qos")
        return w0 == "feature"

    def h_system(self, args: list[str], indent: int, negated: bool) -> bool:
        if args == ["qos"]:
            if not negated:
                self.open(indent, self.h_system_qos)
            return True
        if args[0] == "jumbomtu" and len(args) == 2:
            if not negated:
                value = self.int_in(args[1], 1500, 9216, "jumbo MTU")
                if value is not None:
                    self.device["qos"]["jumbo_mtu"] = value
                    self.device["qos"]["field_src"]["jumbo_mtu"] = self.ref()
            return True
        if args[:2] == ["default", "switchport"]:
            if args[2:] == ["shutdown"]:
                self.switchport_shutdown = not negated
                return True
            if len(args) == 2:
                self.default_routed = negated
                return True
        return False

    def h_system_qos(self, words: list[str], indent: int, body: str) -> bool:
        if words[0] == "no":
            return len(words) > 1 and words[1] == "service-policy"
        if words[0] == "service-policy":
            binding = self.binding(words[1:])
            if binding is None:
                return False
            self.system_bindings = [b for b in self.system_bindings if not _same_slot(b, binding)]
            self.system_bindings.append(binding)
            return True
        return words[0] == "fex"

    def binding(self, args: list[str]) -> Obj | None:
        """``[type KIND] [input|output] NAME`` (network-qos has no direction) as a binding."""
        named = _binding_of(args)
        if named is None:
            return None
        name, kind, direction = named
        return {"name": name, "kind": kind, "direction": direction, "src": self.ref(),
                "field_src": {}}

    def h_pfc_global(self, args: list[str], negated: bool) -> bool:
        if args[0] == "watch-dog-interval" and len(args) == 2 and args[1] in ("on", "off"):
            self.watchdog_global = (args[1] == "on" and not negated, self.ref())
            return True
        # Watchdog multipliers and recovery modes: known, not modelled.
        return args[0] in ("auto-restore", "fixed-restore", "watch-dog", "recover-mode")

    # -- interfaces ----------------------------------------------------------------------

    def open_interface(self, words: list[str], indent: int) -> bool:
        named = normalise_interface(words)
        if named is not None:
            self.open(indent, self.h_interface, self.interface(*named), fast=True)
            return True
        ports = expand_interface_range(" ".join(words),
                                       lambda name: normalise_interface([name]))
        if ports is None:
            return False
        self.open(indent, self.h_interface_range,
                  [self.interface(*port, alone=False) for port in ports])
        return True

    def interface(self, name: str, kind: str, alone: bool = True) -> Obj:
        """The port of that name, created at this line the first time it is named.
        ``alone``: not one of the ports of a range (which must not be frozen meanwhile)."""
        interfaces = self.device["interfaces"]
        iface = interfaces.get(name)
        if iface is None:
            iface = interfaces[name] = new_interface(name, kind, self.ref(), kind in _ROUTED_KINDS)
        if self.freezer is not None:
            # every block is closed (interfaces open at the top level): the ports read
            # before may be frozen
            iface = self.freezer.opened(name, iface, alone)
        return iface

    def h_interface_range(self, words: list[str], indent: int, body: str) -> bool:
        """A line of an ``interface`` range block: the same line on each of its ports."""
        context = self.stack[-1]
        ports: list[Obj] = context.obj
        known = False
        try:
            for iface in ports:
                context.obj = iface
                known = self.h_interface(list(words), indent, body) or known
        finally:
            context.obj = ports
        return known

    def h_interface(self, words: list[str], indent: int, body: str) -> bool:
        op, arg, remember = _interface_op(words, body)
        if remember and self.raw is not None:
            _remember_raw(self.raw, (indent, op, arg))
        return op(self, self.current(), arg)

    def if_line(self, iface: Obj, words: list[str], body: str) -> bool:
        """What a line of a port's block does to the port (``h_interface``)."""
        negated = words[0] == "no"
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
                fs.pop("description", None)
            else:
                iface["description"] = body.split(None, 1)[1] if n > 1 else ""
                fs["description"] = self.ref()
            return True
        if w0 == "shutdown":
            if n == 1:  # not 'shutdown lan' and the like
                iface["admin_up"] = negated
                fs["admin_up"] = self.ref()
            return True
        if w0 == "mtu":
            return self.if_mtu(iface, words, negated)
        if w0 == "speed":
            return self.if_speed(iface, words[1:], negated)
        if w0 == "switchport":
            if n == 1:
                iface["routed"] = negated
                fs["routed"] = self.ref()
            return True
        if w0 == "vrf" and n >= 3 and words[1] == "member":
            iface["vrf"] = None if negated else words[2]
            fs["vrf"] = self.ref()
            return True
        if w0 == "channel-group":
            if negated:
                iface["port_channel"] = None
            elif n >= 2 and _NUMBER.match(words[1]):
                iface["port_channel"] = f"port-channel{words[1]}"
                fs["port_channel"] = self.ref()
            return True
        if w0 in ("ip", "ipv6", "mac") and n >= 2:
            return self.if_ip(iface, words, negated)
        if w0 in ("priority-flow-control", "flowcontrol", "service-policy"):
            known = self.if_qos(iface, words, negated)
            if known:
                self.own_qos.add(iface["name"])
            return known
        return False

    def if_mtu(self, iface: Obj, words: list[str], negated: bool) -> bool:
        if negated:
            self.raw_mtu.pop(iface["name"], None)
        elif len(words) == 2:
            mtu = self.int_in(words[1], *NXOS_MTU_RANGE, "MTU")
            if mtu is not None:
                self.raw_mtu[iface["name"]] = (mtu, self.ref())
        return True

    def if_speed(self, iface: Obj, args: list[str], negated: bool) -> bool:
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

    def if_ip(self, iface: Obj, words: list[str], negated: bool) -> bool:
        family = _ACL_FAMILY[words[0]]
        w1 = words[1]
        if w1 == "address" and family != "mac":
            if negated:
                iface["ip_addresses"] = []
            elif len(words) >= 3:
                iface["ip_addresses"].append(_address(words[2:]))
                iface["field_src"].setdefault("ip_addresses", self.ref())
            return True
        # ip access-group NAME in|out; ip port access-group NAME in; ipv6 traffic-filter …;
        # ipv6 port traffic-filter …; mac port access-group NAME
        args = words[2:] if w1 == "port" else words[1:]
        if not args or args[0] not in ("access-group", "traffic-filter") or len(args) < 2:
            return False
        direction = args[2] if len(args) > 2 else "in"
        if direction not in ("in", "out"):
            return False
        iface["acls"] = [
            a for a in iface["acls"] if not (a["direction"] == direction and a["family"] == family)
        ]
        if not negated:
            iface["acls"].append({"name": args[1], "direction": direction, "family": family,
                                  "src": self.ref(), "field_src": {}})
        return True

    def if_qos(self, iface: Obj, words: list[str], negated: bool) -> bool:
        qos = iface["qos"]
        w0 = words[0]
        n = len(words)
        if w0 == "flowcontrol" and n >= 2 and words[1] in ("send", "receive"):
            key = "tx" if words[1] == "send" else "rx"
            qos["pause"][key] = not negated and n >= 3 and words[2] in ("on", "desired")
            qos["pause"]["field_src"][key] = self.ref()
            return True
        if w0 == "service-policy":
            binding = self.binding(words[1:])
            if binding is None:
                return False
            qos["policies"] = [b for b in qos["policies"] if not _same_slot(b, binding)]
            if not negated:
                qos["policies"].append(binding)
            return True
        if w0 == "priority-flow-control" and n >= 2:
            return self.if_pfc(qos["pfc"], words[1:], negated)
        return False

    def if_pfc(self, pfc: Obj, args: list[str], negated: bool) -> bool:
        if args[0] == "mode":
            if negated or len(args) < 2:
                pfc.pop("mode", None)
                pfc["field_src"].pop("mode", None)
                return True
            if args[1] not in ("on", "off", "auto"):
                self.problem(f"unknown priority-flow-control mode {args[1]!r}")
                return True
            pfc["mode"] = args[1]  # 'on send-tlv' (Azure Local) is still on
            pfc["field_src"]["mode"] = self.ref()
            return True
        if args[0] == "watch-dog-interval" and len(args) == 2 and args[1] in ("on", "off"):
            watchdog = pfc["watchdog"]
            watchdog["enabled"] = args[1] == "on" and not negated
            watchdog["field_src"]["enabled"] = self.ref()
            return True
        return False

    # -- class-maps and policy-maps ------------------------------------------------------

    def open_class_map(self, args: list[str], indent: int) -> bool:
        kind = "qos"
        if args[0] == "type" and len(args) >= 2:
            kind, args = args[1], args[2:]
        match_all = True  # NX-OS default
        if args and args[0] in ("match-any", "match-all"):
            match_all = args[0] == "match-all"
            args = args[1:]
        if len(args) != 1:
            return False
        if kind not in _QOS_KINDS:  # control-plane, psp …
            self.open(indent, self.h_ignore)
            return True
        key = (kind, args[0])
        cmap = self.class_maps.get(key)
        if cmap is None:
            cmap = self.class_maps[key] = {
                "name": args[0], "kind": kind, "src": self.ref(), "match_all": match_all,
                "dscp": {}, "cos": {}, "qos_group": {}, "opaque": False,
            }
        self.open(indent, self.h_class_map, cmap)
        return True

    def h_class_map(self, words: list[str], indent: int, body: str) -> bool:
        cmap: Obj = self.current()
        if words[0] == "description":
            return True
        if words[0] != "match" or len(words) < 3:
            return words[0] == "no"
        if words[1] == "not":
            cmap["opaque"] = True  # a negated match cannot be turned into a map
            return True
        what, values = words[1], words[2:]
        ref = self.ref()
        if what == "dscp":
            for value in self.int_list(values, 63, "DSCP", NAMED_DSCP):
                cmap["dscp"].setdefault(value, ref)
        elif what == "precedence":
            for value in self.int_list(values, 7, "IP precedence"):
                for dscp in range(value * 8, value * 8 + 8):
                    cmap["dscp"].setdefault(dscp, ref)
        elif what == "cos":
            for value in self.int_list(values, 7, "CoS"):
                cmap["cos"].setdefault(value, ref)
        elif what == "qos-group":
            for value in self.int_list(values, 7, "qos-group"):
                cmap["qos_group"].setdefault(value, ref)
        else:
            cmap["opaque"] = True  # access-group, protocol …: classification fablint can't map
        return True

    def open_policy_map(self, args: list[str], indent: int) -> bool:
        kind = "qos"
        if args[0] == "type" and len(args) >= 2:
            kind, args = args[1], args[2:]
        if args and args[0] in ("match-first", "match-any", "match-all"):
            args = args[1:]
        if kind == "network-qos" and len(args) == 3 and args[1] == "template":
            args = args[:1]  # Nexus 7000: ``policy-map type network-qos NAME template 7e``
        if len(args) != 1:
            return False
        if kind not in _QOS_KINDS:
            self.open(indent, self.h_ignore)
            return True
        key = (kind, args[0])
        pmap = self.policy_maps.get(key)  # a second block of the same name adds to the first
        if pmap is None:
            pmap = self.policy_maps[key] = {
                "name": args[0], "kind": kind, "src": self.ref(), "classes": {},
            }
        self.open(indent, self.h_policy_map, pmap)
        return True

    def h_policy_map(self, words: list[str], indent: int, body: str) -> bool:
        pmap: Obj = self.current()
        if words[0] == "description":
            return True
        if words[0] != "class" or len(words) < 2:
            return False
        args = words[1:]
        if args[0] == "type" and len(args) >= 3:
            args = args[2:]
        name = args[0]
        cls = pmap["classes"].get(name)
        if cls is None:
            cls = pmap["classes"][name] = {"name": name, "src": self.ref()}
        handler = {"qos": self.h_qos_class, "network-qos": self.h_nq_class,
                   "queuing": self.h_queuing_class}[pmap["kind"]]
        self.open(indent, handler, cls)
        return True

    def h_qos_class(self, words: list[str], indent: int, body: str) -> bool:
        cls: Obj = self.current()
        if words[0] == "set" and len(words) == 3 and words[1] == "qos-group":
            value = self.int_in(words[2], 0, 7, "qos-group")
            if value is not None:
                cls["qos_group"] = (value, self.ref())
            return True
        if words[:2] == ["no", "set"]:
            cls.pop("qos_group", None)
            return True
        return words[0] in ("set", "police")

    def h_nq_class(self, words: list[str], indent: int, body: str) -> bool:
        cls: Obj = self.current()
        negated = words[0] == "no"
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        if w0 == "mtu" and len(words) == 2:
            if negated:
                cls.pop("mtu", None)
            else:
                mtu = self.int_in(words[1], *NXOS_MTU_RANGE, "class MTU")
                if mtu is not None:
                    cls["mtu"] = (mtu, self.ref())
            return True
        if w0 == "pause":
            return self.nq_pause(cls, words[1:], negated)
        return w0 in ("congestion-control", "set", "queue-limit", "multicast-optimize")

    def nq_pause(self, cls: Obj, args: list[str], negated: bool) -> bool:
        """``pause pfc-cos 3[,4]``, ``pause no-drop [pfc-cos 3]``, ``no pause``, and the
        Nexus 7000's bare ``pause`` (the class is no-drop)."""
        if args and args[0] == "buffer-size":
            return True  # N5K/N3K buffer tuning: known, not modelled
        if negated:
            cls.pop("no_drop", None)
            cls.pop("pfc_cos", None)
            return True
        if not args:
            cls["no_drop"] = self.ref()
            return True
        if args and args[0] == "no-drop":
            cls["no_drop"] = self.ref()
            args = args[1:]
        if args and args[0] == "pfc-cos":
            cls["pfc_cos"] = (self.int_list(args[1:], 7, "PFC CoS"), self.ref())
            return True
        return "no_drop" in cls and not args

    def h_queuing_class(self, words: list[str], indent: int, body: str) -> bool:
        cls: Obj = self.current()
        negated = words[0] == "no"
        if negated:
            words = words[1:]
            if not words:
                return False
        w0 = words[0]
        n = len(words)
        if w0 == "priority":
            if negated:
                cls.pop("priority", None)
            else:
                cls["priority"] = self.ref()
            return True
        if w0 == "bandwidth":
            if negated:
                cls.pop("bandwidth", None)
            elif n >= 3 and words[-2] == "percent":
                value = self.int_in(words[-1], 0, 100, "bandwidth percent")
                if value is not None:
                    cls["bandwidth"] = (value, self.ref())
            return True
        if w0 == "random-detect":
            if negated:
                cls.pop("aqm", None)
            elif n >= 2 and words[1] != "non-ecn":
                aqm = self.aqm(words[1:], cls["name"])
                if aqm is not None:
                    cls["aqm"] = ("ecn" if words[-1] == "ecn" else "wred", aqm)
            return True
        return w0 in ("shape", "queue-limit", "pause", "set", "congestion-control")

    def aqm(self, args: list[str], class_name: str) -> Obj | None:
        """``minimum-threshold V U maximum-threshold V U drop-probability P weight W [ecn]``,
        or a platform preset (``threshold burst-optimized ecn``) without thresholds."""
        out: Obj = {"src": self.ref(), "field_src": {}, "profile": class_name}
        i = 0
        try:
            while i < len(args):
                key = args[i]
                if key in _AQM_KEYS:
                    threshold = units.threshold(args[i + 1], args[i + 2])
                    out[_AQM_KEYS[key]] = {
                        "value": threshold.value, "unit": threshold.unit,
                        "bytes": threshold.bytes,
                    }
                    i += 3
                elif key in ("drop-probability", "weight"):
                    hi = 100 if key == "drop-probability" else 15
                    value = self.int_in(args[i + 1], 0, hi, key)
                    out["weight" if key == "weight" else "probability"] = value
                    i += 2
                else:
                    i += 1
        except (ValueError, IndexError):
            self.problem("random-detect thresholds not understood")
            return None
        return out

    # -- access lists --------------------------------------------------------------------

    def open_acl(self, family_word: str, args: list[str], indent: int) -> bool:
        if len(args) != 1:
            return False
        acl = {"name": args[0], "family": _ACL_FAMILY[family_word], "src": self.ref(),
               "field_src": {}, "entries": []}
        self.device["acls"][args[0]] = acl
        self.open(indent, self.h_acl, acl)
        return True

    def h_acl(self, words: list[str], indent: int, body: str) -> bool:
        acl: Obj = self.current()
        seq = None
        if _NUMBER.match(words[0]) and len(words[0]) < 12:
            seq = int(words[0])
            words = words[1:]
            if not words:
                return False
        action = words[0]
        if action in ("remark", "statistics", "fragments", "ignore"):
            return True
        if acl["family"] == "mac":
            return True  # MAC lists cannot match UDP; understood, not modelled
        if action not in ("permit", "deny"):
            return False
        try:
            entry = parse_acl_entry(action, words[1:])
        except AclSyntaxError as exc:
            if "addrgroup" not in words and "portgroup" not in words:
                self.problem(str(exc))
                return True
            # Object groups: fablint cannot see what they hold, so the entry matches "some".
            entry = {"action": action, "protocol": words[1].lower() if len(words) > 1 else "ip",
                     "qualifiers": ["object-group"], "field_src": {}}
        entry["seq"] = seq
        entry["src"] = self.ref()
        entry["text"] = " ".join(([str(seq)] if seq is not None else []) + words)
        acl["entries"].append(entry)
        return True

    # -- resolve: what is in effect ------------------------------------------------------

    def finish(self) -> None:
        if self.freezer is not None or len(self.device["interfaces"]) >= build.COMPACT_PORTS:
            self.compactor = Compactor()
        qos = self.device["qos"]
        qos["dscp_to_tc_default"] = "nxos-default"
        system = {_slot(b): b for b in self.system_bindings}
        classify = system.get(("qos", "in"))
        if classify is not None:
            pmap = self.policy_maps.get(("qos", classify["name"]))
            if pmap is not None:
                qos.update(self.class_maps_of(pmap))
                qos["field_src"] = {**qos["field_src"], **qos.pop("maps_src")}
                qos["src"] = classify["src"]  # the chain is the policy bound there
        self.system = system
        self.no_drop = self.network_qos(system.get(("network-qos", None)))
        compactor = self.compactor
        # One model of each system binding, of the watchdog the global line gives and of a
        # port's pause without flowcontrol lines, which every port shares: a port of its own
        # QoS is otherwise nine objects to validate, and these four are alike on every port.
        self.system_models = {slot: PolicyBinding.model_validate(b) if compactor is None
                              else compactor.model(PolicyBinding, b)
                              for slot, b in system.items()}
        for b in self.system_bindings:
            self.bind("system qos", b)
        if self.freezer is not None:
            return  # port by port as the device is validated (prepare_port, record_policies)
        interfaces = self.device["interfaces"]
        for iface in interfaces.values():
            self.bind_port(iface)
        self.record_policies()
        for iface in interfaces.values():
            self.resolve(iface)

    def bind_port(self, iface: Obj) -> None:
        """``bind`` each service-policy of a port (only ports with QoS lines have any)."""
        if iface["name"] in self.own_qos:
            owner = f"interface {iface['name']}"
            for b in iface["qos"]["policies"]:
                self.bind(owner, b)

    def bind(self, owner: str, b: Obj) -> None:
        """What a service-policy binding makes, in the order of the bindings (``system qos``'s,
        then each port's): its reference, the policy bound (``Device.policies``), and a bound
        queuing output policy's QoS profile (``Device.qos_profiles``)."""
        key = (b["kind"], b["name"])
        self.bound.add(key)
        if _slot(b) == ("queuing", "out"):
            profiles = self.device["qos_profiles"]
            pmap = self.policy_maps.get(("queuing", b["name"]))
            if b["name"] not in profiles and pmap is not None:
                profile = new_qos(b["name"], pmap["src"])
                profile["queues"] = self.queues_of(pmap)
                profiles[b["name"]] = profile
        reference = {
            "kind": f"policy-map type {b['kind']}", "name": b["name"], "owner": owner,
            "resolved": key in self.policy_maps or is_builtin_policy(b["name"]),
            "src": b["src"], "field_src": {},
        }
        compactor = self.compactor
        # a large device's references are models at once: one a port, as many as ports
        self.device["references"].append(
            reference if compactor is None
            else compactor.compact(Reference.model_validate(reference)))

    def record_policies(self) -> None:
        """Device.policies (as written, bound or not) and the references of class-maps, once
        every binding is ``bind``-ed."""
        references = self.device["references"]
        bound = self.bound
        policies = self.device["policies"]
        for (kind, name), pmap in self.policy_maps.items():
            owner = f"policy-map type {kind} {name}"
            for cls in pmap["classes"].values():
                references.append({
                    "kind": f"class-map type {kind}", "name": cls["name"], "owner": owner,
                    "resolved": (kind, cls["name"]) in self.class_maps
                    or is_system_class(cls["name"]),
                    "src": cls["src"], "field_src": {},
                })
            policies[f"{kind}:{name}"] = {
                "name": name, "kind": kind, "classes": list(pmap["classes"]),
                "bound": (kind, name) in bound, "src": pmap["src"], "field_src": {},
            }

    def class_maps_of(self, pmap: Obj) -> Obj:
        """DSCP/CoS -> qos-group of a qos policy: the first class that matches a value wins."""
        dscp: dict[int, int] = {}
        cos: dict[int, int] = {}
        refs: dict[str, SourceRef] = {}
        default: tuple[int, SourceRef] | None = None
        for cls in pmap["classes"].values():
            group = cls.get("qos_group")
            if group is None:
                continue
            if cls["name"] == "class-default":
                default = group
                continue
            cmap = self.class_maps.get(("qos", cls["name"]))
            if cmap is None or cmap["opaque"]:
                continue
            if cmap["match_all"] and (bool(cmap["dscp"]) + bool(cmap["cos"])
                                      + bool(cmap["qos_group"])) > 1:
                continue  # 'match-all' of DSCP and CoS: narrower than either map can say
            for table, field, values in ((dscp, "dscp_to_tc", cmap["dscp"]),
                                         (cos, "cos_to_tc", cmap["cos"])):
                for value in values:
                    if value not in table:
                        table[value] = group[0]
                        refs[f"{field}[{value}]"] = group[1]
        if default is not None and default[0] != 0:
            for value in range(64):
                if value not in dscp:
                    dscp[value] = default[0]
                    refs[f"dscp_to_tc[{value}]"] = default[1]
        return {"name": pmap["name"], "dscp_to_tc": dscp, "cos_to_tc": cos, "maps_src": refs}

    def nq_groups(self, class_name: str) -> list[int]:
        group = class_qos_group(class_name)
        if group is not None:
            return [group]
        template = N7K_NQ_CLASSES.get(class_name)
        if template is not None:
            return list(template[0])
        cmap = self.class_maps.get(("network-qos", class_name))
        return sorted(cmap["qos_group"]) if cmap is not None else []

    def network_qos(self, binding: Obj | None) -> dict[int, SourceRef]:
        """No-drop priorities and class MTUs of the bound network-qos policy."""
        no_drop: dict[int, SourceRef] = {}
        qos = self.device["qos"]
        no_drop_classes = qos["no_drop_classes"] = set()  # the default policy drops everywhere
        pmap = self.policy_maps.get(("network-qos", binding["name"])) if binding else None
        if pmap is None:
            return no_drop
        qos["class_mtu"] = class_mtu = {}
        class_names = qos["class_names"] = {}
        tc_to_pfc = qos["tc_to_pfc_priority"] = {}
        pfc_to_queue = qos["pfc_priority_to_queue"] = {}
        fs = qos["field_src"]
        for cls in pmap["classes"].values():
            groups = self.nq_groups(cls["name"])
            for group in groups:
                class_names.setdefault(group, cls["name"])
                if "mtu" in cls:
                    class_mtu[group], fs[f"class_mtu[{group}]"] = cls["mtu"]
                else:
                    class_mtu.setdefault(group, N7K_NQ_CLASSES.get(
                        cls["name"], ((), NXOS_CLASS_MTU_DEFAULT))[1])
            if "pfc_cos" in cls:
                priorities, ref = cls["pfc_cos"]
            elif "no_drop" in cls:
                priorities, ref = groups, cls["no_drop"]  # the class's qos-group is its CoS
            else:
                continue
            for group in groups:
                no_drop_classes.add(group)
                fs.setdefault(f"no_drop_classes[{group}]", ref)
            for prio in priorities:
                no_drop.setdefault(prio, ref)
            if len(groups) == 1 and len(priorities) == 1 and priorities[0] != groups[0]:
                tc_to_pfc[groups[0]] = priorities[0]
                pfc_to_queue[priorities[0]] = groups[0]
        return no_drop

    def queue_of(self, class_name: str) -> int | None:
        queue = class_queue(class_name)
        if queue is not None:
            return queue
        cmap = self.class_maps.get(("queuing", class_name))
        if cmap is None or len(cmap["qos_group"]) != 1:
            return None
        return next(iter(cmap["qos_group"]))

    def queues_of(self, pmap: Obj) -> dict[int, Queue]:
        """Egress queues a queuing output policy configures."""
        queues: dict[int, Obj] = {}
        for cls in pmap["classes"].values():
            qid = self.queue_of(cls["name"])
            if qid is None or qid in queues:
                continue
            queue = queues[qid] = new_queue(qid, cls["src"])
            queue["name"] = cls["name"]
            fs = queue["field_src"]
            if "priority" in cls:
                queue["scheduling"] = "strict"
                fs["scheduling"] = cls["priority"]
            elif "bandwidth" in cls:
                queue["scheduling"] = "dwrr"
                queue["bandwidth_percent"], fs["bandwidth_percent"] = cls["bandwidth"]
            if "aqm" in cls:
                key, aqm = cls["aqm"]
                queue[key] = aqm
                fs[key] = aqm["src"]
        return {qid: Queue.model_validate(q) for qid, q in queues.items()}

    def prepare_port(self, entry: Any) -> Obj:
        """A frozen port, thawed, bound and resolved (``validate_device``)."""
        iface = thaw(entry)
        self.bind_port(iface)
        return self.resolve(iface)

    def resolve(self, iface: Obj) -> Obj:
        """What is in effect on a port (its plain data, changed in place): defaults, and its
        own QoS lines over the system's policies."""
        system = self.system
        profiles = self.device["qos_profiles"]
        self.resolve_port(iface, self.device["interfaces"])
        own = {_slot(b): b for b in iface["qos"]["policies"]}
        # Queuing and PFC act on ports that carry traffic, not on SVIs or loopbacks.
        lossless = iface["kind"] in ("physical", "port-channel")
        out = own.get(("queuing", "out")) or system.get(("queuing", "out"))
        profile = profiles.get(out["name"]) if out and lossless else None
        if profile is not None:
            iface["profile"] = profile["name"]
        classify = own.get(("qos", "in"))
        if iface["name"] in self.own_qos:
            iface["qos"] = self.port_qos(iface["qos"], profile, self.no_drop, lossless, system,
                                         classify)
            return iface
        key = (profile["name"] if profile else None, lossless)
        shared = self.shared_qos.get(key)
        if shared is None:
            shared = self.shared_qos[key] = QosSettings.model_validate(
                self.port_qos(new_qos(), profile, self.no_drop, lossless, system, None))
        iface["qos"] = shared
        return iface

    def resolve_port(self, iface: Obj, interfaces: dict[str, Any]) -> None:
        """Switchport, admin state and MTU defaults of one port."""
        fs = iface["field_src"]
        kind = iface["kind"]
        if "routed" not in fs and kind in ("physical", "port-channel"):
            parent = interfaces.get(iface.get("port_channel") or "")
            if parent is None:
                iface["routed"] = self.default_routed
            else:  # frozen, or a model already when the device is validated port by port
                parent = thaw(parent)
                iface["routed"] = parent["routed"] if parent.__class__ is dict else parent.routed
        if "admin_up" not in fs and (kind == "svi" or (
                kind == "physical" and not iface["routed"] and self.switchport_shutdown)):
            iface["admin_up"] = False
        mtu = self.raw_mtu.pop(iface["name"], None)  # read once a port: freed as it is read
        if iface["routed"]:
            iface["mtu"], ref = mtu if mtu is not None else (NXOS_DEFAULT_MTU, None)
            if ref is not None:
                fs["mtu"] = ref
        elif mtu is not None:
            iface["l2_mtu"], fs["l2_mtu"] = mtu

    def port_qos(
        self, own: Obj, profile: Obj | None, no_drop: dict[int, SourceRef], lossless: bool,
        system: dict[tuple[str, str | None], Obj], classify: Obj | None,
    ) -> Obj:
        """The QoS in effect on a port: its own lines over the system policies and defaults."""
        qos = dict(own)
        qos["field_src"] = dict(own["field_src"])
        qos["policies"] = self.effective_bindings(own["policies"], self.system_models or system)
        if self.compactor is None and own["pause"] == _NO_PAUSE:
            qos["pause"] = self.shared_part(LinkPause, _NO_PAUSE)
        if profile is not None:
            qos["queues"] = profile["queues"]
        if classify is not None:
            maps = self.port_maps(classify["name"])
            if maps is not None:
                qos["maps"] = {**maps, "src": classify["src"]}
        self.port_trust(qos, classify or system.get(("qos", "in")))
        if lossless:
            qos["pfc"] = self.port_pfc(own["pfc"], no_drop)
        return qos

    def port_maps(self, name: str) -> Obj | None:
        """The classification chain of the qos policy ``name`` on a port that binds it (all
        but its ``src``, the port's line), made once a policy; None when no such policy."""
        maps = self.maps_of.get(name)
        if maps is None and name not in self.maps_of:
            pmap = self.policy_maps.get(("qos", name))
            if pmap is not None:
                maps = self.class_maps_of(pmap)
                maps["field_src"] = maps.pop("maps_src")
                maps["dscp_to_tc_default"] = "nxos-default"
                self.copy_device_pfc(maps)
                if self.compactor is not None:  # one object that the ports' chains share
                    self.compactor.share_sources(maps["field_src"])
            self.maps_of[name] = maps
        return maps

    def copy_device_pfc(self, maps: Obj) -> None:
        """A port's own qos policy changes DSCP -> qos-group only; which qos-groups are no-drop
        and with which PFC priority is device-wide (network-qos under ``system qos``)."""
        device = self.device["qos"]
        for key in ("tc_to_pfc_priority", "pfc_priority_to_queue", "no_drop_classes"):
            if key in device:
                maps[key] = device[key]
        maps["field_src"].update({k: v for k, v in device["field_src"].items()
                                  if k.startswith(("no_drop_classes[", "tc_to_pfc_priority["))})

    def port_trust(self, qos: Obj, binding: Obj | None) -> None:
        """``dscp`` when the classification policy in effect matches DSCP.

        NX-OS has no trust setting. A policy that matches only CoS is left without a trust
        value: it leaves untagged (routed) traffic in qos-group 0, which the DSCP map in the
        model already says, and rules follow the map rather than a setting NX-OS does not have.
        """
        if binding is None:
            return
        name = binding["name"]
        by_dscp = self.by_dscp.get(name)
        if by_dscp is None:  # once a policy (the maps are all read by now)
            pmap = self.policy_maps.get(("qos", name))
            by_dscp = self.by_dscp[name] = pmap is not None and any(
                c is not None and c["dscp"]
                for c in (self.class_maps.get(("qos", cls)) for cls in pmap["classes"]))
        if by_dscp:
            qos["trust"] = "dscp"
            qos["field_src"]["trust"] = binding["src"]

    @staticmethod
    def effective_bindings(own: list[Obj], system: dict[tuple[str, str | None], Any]) -> list[Any]:
        mine = {_slot(b) for b in own}
        return [*own, *(b for slot, b in system.items() if slot not in mine)]

    def port_pfc(self, own: Obj, no_drop: dict[int, SourceRef]) -> Obj:
        pfc = {**own, "field_src": dict(own["field_src"])}
        pfc.setdefault("mode", "auto")
        pfc["enabled"] = pfc["mode"] != "off"
        pfc["no_drop"] = set(no_drop)
        if no_drop:
            refs = self.no_drop_refs
            if refs is None or refs[0] is not no_drop:  # once a device
                refs = self.no_drop_refs = (no_drop, {
                    "no_drop": min(no_drop.values(), key=lambda r: r.line or 0),
                    **{f"priority[{prio}]": ref for prio, ref in no_drop.items()}})
            pfc["field_src"].update(refs[1])
        pfc["watchdog"] = self.port_watchdog(own["watchdog"])
        return pfc

    def port_watchdog(self, own: Obj) -> Obj | Watchdog:
        if self.compactor is None and own == _NO_WATCHDOG:
            # no watchdog line on the port: what the global line says, one model
            return self.shared_part(Watchdog, self.global_watchdog())
        return self.global_watchdog(own)

    def global_watchdog(self, own: Obj | None = None) -> Obj:
        if own is None:
            own = _NO_WATCHDOG
        watchdog = {**own, "field_src": dict(own["field_src"])}
        if "enabled" not in watchdog["field_src"] and self.watchdog_global is not None:
            watchdog["enabled"], watchdog["field_src"]["enabled"] = self.watchdog_global
        if watchdog.get("enabled"):
            watchdog["polling_ms"] = NXOS_WATCHDOG_POLL_MS
        return watchdog


def _slot(binding: Obj) -> tuple[str, str | None]:
    return binding["kind"], binding["direction"]


def _same_slot(a: Obj, b: Obj) -> bool:
    """A second binding of the same kind and direction replaces the first."""
    return _slot(a) == _slot(b)


def _address(args: list[str]) -> str:
    """``A/len`` as written, or ``A MASK`` as ``A/len``."""
    if len(args) >= 2 and "/" not in args[0] and args[1].count(".") == 3:
        try:
            bits = sum(bin(int(part)).count("1") for part in args[1].split("."))
        except ValueError:
            return args[0]
        return f"{args[0]}/{bits}"
    return args[0]


def _binding_of(args: list[str]) -> tuple[str, str, str | None] | None:
    """(name, kind, direction) of ``[type KIND] [input|output] NAME``, or None."""
    kind = "qos"
    if args and args[0] == "type" and len(args) >= 2:
        kind, args = args[1], args[2:]
    direction = None
    if args and args[0] in ("input", "output"):
        direction = "in" if args[0] == "input" else "out"
        args = args[1:]
    if len(args) != 1 or kind not in _QOS_KINDS:
        return None
    if direction is None and kind != "network-qos":
        direction = "in"
    return args[0], kind, direction


# -- lines of a port's block, remembered by the line as written -------------------------------
#
# Most lines of a switch's ports are the same on every port and every switch of a fabric
# (``no switchport``, ``mtu 9216``, ``priority-flow-control mode on``, ``service-policy type
# qos input ROCE``). What a line does to the port it is in is a pure function of the line:
# ``_interface_op`` works it out once, and ``scan`` applies it to the next port with the same
# line (as written: indentation, CRLF and all) with one look-up, before it strips or splits
# the line. An op is ``op(builder, port, arg) -> understood``; ``_op_line`` is the general one
# (``if_line``, as the line's words say), the others do what ``if_line`` would for the most
# common lines without reading the words again. Descriptions and addresses, which differ on
# each port, are not remembered.

Op = Callable[["_NxosBuilder", Obj, Any], bool]
_IF_RAW: dict[str, tuple[int, Op, Any]] = {}
"""Raw line of a port's block -> (indentation, op, its argument)."""
_CACHE_LIMIT = 8192
_LONG_LINE = 200
"""Lines this long or longer are not remembered (keys and hashes are seldom repeated)."""


def _remember_raw(raw: str, value: tuple[int, Op, Any]) -> None:
    if len(raw) >= _LONG_LINE:
        return
    if len(_IF_RAW) >= _CACHE_LIMIT:
        _IF_RAW.clear()
    _IF_RAW[raw] = value


def clear_caches() -> None:
    """Forget every line this process has read (for tests: what the cache remembers must
    never change what a parse gives)."""
    _IF_RAW.clear()
    _NAMES.clear()


def _op_line(builder: _NxosBuilder, iface: Obj, arg: tuple[tuple[str, ...], str]) -> bool:
    words, body = arg
    return builder.if_line(iface, list(words), body)


def _op_set(builder: _NxosBuilder, iface: Obj, arg: tuple[str, Any]) -> bool:
    """A field set by the line, which is its source (``shutdown``, ``switchport``, ``vrf``)."""
    key, value = arg
    iface[key] = value
    iface["field_src"][key] = builder.ref()
    return True


def _op_mtu(builder: _NxosBuilder, iface: Obj, mtu: int) -> bool:
    builder.raw_mtu[iface["name"]] = (mtu, builder.ref())
    return True


def _op_pfc_mode(builder: _NxosBuilder, iface: Obj, mode: str) -> bool:
    pfc = iface["qos"]["pfc"]
    pfc["mode"] = mode
    pfc["field_src"]["mode"] = builder.ref()
    builder.own_qos.add(iface["name"])
    return True


def _op_binding(builder: _NxosBuilder, iface: Obj,
                arg: tuple[tuple[str, str, str | None], bool]) -> bool:
    (name, kind, direction), negated = arg
    binding = {"name": name, "kind": kind, "direction": direction, "src": builder.ref(),
               "field_src": {}}
    qos = iface["qos"]
    qos["policies"] = [b for b in qos["policies"] if not _same_slot(b, binding)]
    if not negated:
        qos["policies"].append(binding)
    builder.own_qos.add(iface["name"])
    return True


def _op_unknown(builder: _NxosBuilder, iface: Obj, arg: None) -> bool:
    return False


def _interface_op(words: list[str], body: str) -> tuple[Op, Any, bool]:
    """What a line of a port's block does, as (op, arg, remember): see ``if_line``, which
    ``_op_line`` runs for every line without an op of its own."""
    negated = words[0] == "no"
    rest = words[1:] if negated else words
    if not rest:
        return _op_unknown, None, True
    w0 = rest[0]
    n = len(rest)
    if w0 == "description" or (w0 in ("ip", "ipv6") and n >= 2 and rest[1] == "address"):
        return _op_line, (tuple(words), body), False  # each port's own
    if n == 1 and (w0 == "shutdown" or w0 == "switchport"):
        return _op_set, ("admin_up" if w0 == "shutdown" else "routed", negated), True
    if w0 == "vrf" and n >= 3 and rest[1] == "member":
        return _op_set, ("vrf", None if negated else rest[2]), True
    if w0 == "mtu" and n == 2 and not negated and _NUMBER.match(rest[1]) and len(rest[1]) < 12:
        mtu = int(rest[1])
        if NXOS_MTU_RANGE[0] <= mtu <= NXOS_MTU_RANGE[1]:
            return _op_mtu, mtu, True
    if (w0 == "priority-flow-control" and n >= 3 and not negated and rest[1] == "mode"
            and rest[2] in ("on", "off", "auto")):
        return _op_pfc_mode, rest[2], True
    if w0 == "service-policy":
        named = _binding_of(rest[1:])
        if named is None:
            return _op_unknown, None, True
        return _op_binding, (named, negated), True
    return _op_line, (tuple(words), body), True
