"""The rule contract and registry.

A rule is a class with stable metadata and a ``check`` generator. Its docstring is its
documentation, in three sections (``What it checks``, ``Why it matters``, ``How to fix``) that
``fablint explain`` and the generated ``docs/rules/<ID>.md`` show. Rules read the model and the
policy only; vendor syntax stays in parsers and fix renderers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Any, ClassVar, TypeVar

from fablint.findings import CATEGORIES, Consequence, Finding, FixIntent, Place, Severity
from fablint.model import ClassMaps, Device, Fabric, Interface, SourceRef
from fablint.policy import Policy

_ID = re.compile(r"^[A-Z]{2,4}\d{3}$")
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
DOC_SECTIONS = ("What it checks", "Why it matters", "How to fix")

T = TypeVar("T")

REGISTRY: dict[str, type[Rule]] = {}


def register(cls: type[Rule]) -> type[Rule]:
    """Class decorator: validate the rule's metadata and add it to the registry."""
    if not _ID.match(cls.id):
        raise ValueError(f"{cls.__name__}: bad rule id {cls.id!r}")
    if not _NAME.match(cls.name):
        raise ValueError(f"{cls.__name__}: rule name {cls.name!r} is not kebab-case")
    if cls.category not in CATEGORIES:
        raise ValueError(f"{cls.__name__}: unknown category {cls.category!r}")
    if cls.id in REGISTRY:
        raise ValueError(f"duplicate rule id {cls.id}")
    if any(r.name == cls.name for r in REGISTRY.values()):
        raise ValueError(f"duplicate rule name {cls.name}")
    REGISTRY[cls.id] = cls
    return cls


@dataclass
class Context:
    """What a rule sees: the fabric and the policy, plus derived views that several rules use."""

    fabric: Fabric
    policy: Policy
    _include: list[re.Pattern[str]] = field(default_factory=list, init=False)
    _exclude: list[re.Pattern[str]] = field(default_factory=list, init=False)
    _ports: dict[tuple[str, tuple[str, ...]], list[Interface]] = field(
        default_factory=dict, init=False
    )
    _memo: dict[tuple[object, ...], object] = field(default_factory=dict, init=False)
    _per_qos: dict[tuple[str, int], dict[int, Any]] = field(default_factory=dict, init=False)
    """(what, id(device)) -> id(QoS settings) -> value (``per_qos``)."""
    _alone: set[int] = field(default_factory=set, init=False)
    """ids of the devices whose ports each have QoS settings of their own (``PortsAlone``)."""

    def shared(self, key: Hashable, value: T) -> T:
        """One object for a derived value that many ports have alike: the first ``value``
        given for ``key`` (a chassis of 100,000 ports, each with its own QoS settings, would
        otherwise keep a copy per port). Callers must not change it."""
        return self._memo.setdefault(("shared", key), value)  # type: ignore[return-value]

    def per_qos(self, what: str, device: Device, iface: Interface,
                compute: Callable[[], T]) -> T:
        """``compute()``, once per device and QoS settings object for ``what``.

        Ports that share a QoS profile or policy share one settings object, and most derived
        facts (queues of the lossless priorities, the classification chain) depend on nothing
        else: a 64-port leaf computes them once instead of 64 times. The models stay alive
        while the context is, so their ids cannot be reused.
        """
        if id(device) in self._alone:
            # each port its own settings: a value a port kept for the whole lint (100,000
            # entries on a large chassis) would save only the second rule's computation
            return compute()
        memo = self._per_qos.get((what, id(device)))
        if memo is None:
            memo = self._per_qos[(what, id(device))] = {}
        key = id(iface.qos)
        if key in memo:
            return memo[key]  # type: ignore[no-any-return]
        value = memo[key] = compute()
        return value

    def once(self, what: str, of: object, compute: Callable[[], T]) -> T:
        """``compute()`` once per run for ``what`` of the object ``of``: a view of the
        topology several rules read (its separate fabrics, every node's capacities)."""
        key = (what, id(of))
        if key in self._memo:
            return self._memo[key]  # type: ignore[return-value]
        value = self._memo[key] = compute()
        return value

    def by_value(self, what: str, device: Device, key: Callable[[], Hashable],
                 compute: Callable[[], T]) -> T:
        """``compute()`` once per run for each ``key()``: for a value derived from the values
        in the key alone, which ports with settings objects of their own share (each NX-OS
        port holds its own copy of one classification chain). Callers must not change it.
        On a device whose every port has settings of its own (``PortsAlone``) it is computed
        each time: an entry a port would be kept for the whole lint."""
        if self.alone(device):
            return compute()
        full = ("by_value", what, key())
        if full in self._memo:
            return self._memo[full]  # type: ignore[return-value]
        value = self._memo[full] = compute()
        return value

    def alone(self, device: Device) -> bool:
        """Has every port of ``device`` QoS settings of its own (``PortsAlone``)? Then nothing
        is kept a port for the lint."""
        return id(device) in self._alone

    def maps_key(self, maps: ClassMaps) -> int:
        """A number for the values of a classification chain, not where they are written:
        the same for two copies of one chain (for ``by_value`` keys; worked out once per
        chain object)."""
        key = ("maps_key", id(maps))
        cached = self._memo.get(key)
        if cached is None:
            numbers: dict[tuple[object, ...], int] = self._memo.setdefault(  # type: ignore[assignment]
                ("maps_key",), {})
            cached = self._memo[key] = numbers.setdefault(maps_values(maps), len(numbers))
        return cached  # type: ignore[return-value]

    def __post_init__(self) -> None:
        self._include = [re.compile(p) for p in self.policy.ports.include]
        self._exclude = [re.compile(p) for p in self.policy.ports.exclude]

    def _matches(self, patterns: list[re.Pattern[str]], iface: Interface) -> bool:
        return any(
            p.search(iface.name) or (iface.description and p.search(iface.description))
            for p in patterns
        )

    def is_fabric_port(self, device: Device, iface: Interface) -> bool:
        """Does this port carry RoCE, by the policy's port scope?

        Physical ports and port-channels only; a member of a port-channel is judged by its
        port-channel. Ports that are shut down carry nothing and are left out, and so are
        ports the vendor's template keeps lossy by design (``Interface.non_fabric``) unless
        the policy's ``ports.include`` names them.
        """
        port = iface.__dict__  # (each model attribute read is slow: pydantic's __getattr__)
        if port["kind"] not in ("physical", "port-channel") or not port["admin_up"]:
            return False
        if self._exclude and self._matches(self._exclude, iface):
            return False
        if self._include and self._matches(self._include, iface):
            return True
        if port["non_fabric"] is not None:
            return False  # lossy by the vendor template's design (a DPU or service port)
        scope = self.policy.ports
        routed = port["routed"]
        return (scope.routed and routed) or (scope.switched and not routed)

    def fabric_ports(
        self, device: Device, kinds: tuple[str, ...] = ("physical",)
    ) -> list[Interface]:
        """Fabric ports of ``device`` of the given kinds.

        ``physical`` yields every physical fabric port, including port-channel members (PFC,
        pause and queues live on the physical port). ``port-channel`` yields bundles. Ask for
        ``layer3`` to get the ports that own layer-3 settings (MTU, ACLs): physical ports that
        are not members, and port-channels.
        """
        key = (device.name, kinds)
        cached = self._ports.get(key)
        if cached is not None:
            return cached
        every = self._fabric_all(device)
        if "layer3" in kinds:
            ports = [i for i in every if not (i.port_channel and i.kind == "physical")]
        else:
            ports = [i for i in every if i.kind in kinds]
        if len(ports) == len(every):
            ports = every  # one list, not a copy a view (a chassis of physical ports only)
        self._ports[key] = ports
        return ports

    def _fabric_all(self, device: Device) -> list[Interface]:
        """Every fabric port of ``device``, physical or port-channel: the port scope is judged
        once per port, and each ``fabric_ports`` view is a filter of this list."""
        key = (device.name, ("*",))
        cached = self._ports.get(key)
        if cached is None:
            cached = self._ports[key] = [i for i in device.interfaces.values()
                                         if self.is_fabric_port(device, i)]
        return cached

    def roce_required(self, device: Device) -> bool:
        """Does the profile say ``device`` must carry RoCE (``roce_devices``)?"""
        return self.policy.roce_devices.requires(device.name, device.role)

    def roce_device(self, device: Device) -> bool:
        """Do the rules about the lossless design (``Rule.lossless_design``) apply to
        ``device``? Every input but a switch's configuration; a switch when the profile says it
        must carry RoCE, or when some line of it asks for lossless traffic
        (``lossless_intent``). A switch with none at all is QOS011's, once."""
        key = ("roce_device", device.name)
        cached = self._memo.get(key)
        if cached is None:
            cached = self._memo[key] = (device.vendor not in SWITCH_VENDORS
                                        or self.roce_required(device)
                                        or lossless_intent(device))
        return cached  # type: ignore[return-value]

    def qos_groups(
        self, device: Device, kinds: tuple[str, ...] = ("physical",)
    ) -> Sequence[list[Interface]]:
        """``fabric_ports(device, kinds)`` grouped by QoS settings object (and routed or not,
        ``_qos_key``), each group in port order and the groups in the order of their first
        port.

        Ports that share a QoS profile or policy share one settings object, so whatever a rule
        derives from the QoS settings alone is the same for the whole group: a rule can judge
        each group once, from its first port, instead of every port (a 64-port leaf has two or
        three groups).
        """
        key = ("qos_groups", device.name, kinds)
        cached = self._memo.get(key)
        if cached is None:
            cached = self._memo[key] = self._note_alone(
                device, _by_qos(self.fabric_ports(device, kinds)))
        return cached  # type: ignore[return-value]

    def alike_groups(
        self, device: Device, kinds: tuple[str, ...] = ("physical",)
    ) -> Sequence[list[Interface]]:
        """``qos_groups``, with groups whose QoS settings are copies of one another (every
        NX-OS port with a service-policy or PFC line of its own holds its own copy) merged
        (``_alike_key``, of each group's first port): for a judge or summary that reads only
        values of the port's QoS and whether it is routed, never a source, an object's
        identity or another field of the port. Each group in port order, the groups in the
        order of their first port; ``qos_groups`` itself when no two groups are alike, or on
        a device of ``ALONE_PORTS`` or more (nothing is kept a port there)."""
        groups = self.qos_groups(device, kinds)
        if self.alone(device):
            return groups
        key = ("alike_groups", device.name, kinds)
        cached = self._memo.get(key)
        if cached is None:
            alike: dict[tuple[object, ...], list[list[Interface]]] = {}
            for ports in groups:
                alike.setdefault(_alike_key(ports[0]), []).append(ports)
            if len(alike) == len(groups):
                cached = groups
            else:
                order = self.port_order(device)
                cached = [parts[0] if len(parts) == 1 else
                          sorted(chain.from_iterable(parts), key=lambda i: order[id(i)])
                          for parts in alike.values()]
            self._memo[key] = cached
        return cached  # type: ignore[no-any-return]

    def all_qos_groups(self, device: Device) -> Sequence[list[Interface]]:
        """Every interface of ``device``, fabric port or not, grouped by QoS settings object
        like ``qos_groups``: for rules that judge each settings object once."""
        key = ("all_qos_groups", device.name)
        cached = self._memo.get(key)
        if cached is None:
            cached = self._memo[key] = self._note_alone(
                device, _by_qos(device.interfaces.values()))
        return cached  # type: ignore[return-value]

    def _note_alone(self, device: Device, groups: Sequence[list[Interface]]
                    ) -> Sequence[list[Interface]]:
        if isinstance(groups, PortsAlone) and len(groups) >= ALONE_PORTS:
            self._alone.add(id(device))
        return groups

    def port_order(self, device: Device) -> dict[int, int]:
        """id(port) -> its place among the ports of ``device``: to put ports met group by
        group (``qos_groups``) back in port order."""
        key = ("port_order", device.name)
        cached = self._memo.get(key)
        if cached is None:
            cached = self._memo[key] = {id(iface): n for n, iface
                                        in enumerate(device.interfaces.values())}
        return cached  # type: ignore[return-value]

    def ports_with(
        self, device: Device, judge: Callable[[Interface], T],
        kinds: tuple[str, ...] = ("physical",), alike: bool = False,
    ) -> Iterable[tuple[Interface, T]]:
        """The fabric ports (``fabric_ports(device, kinds)``, in order) for which ``judge``
        finds something (a truthy value), each with what it found; read once. Where every
        port is its own group (``PortsAlone``) each is judged as it is read: a list of the
        ports found would be 70 bytes a port of a chassis whose every port has a finding.

        ``judge`` must look only at the port's QoS settings and whether it is routed: it runs
        once per group of ``qos_groups``, on the group's first port. Most devices have nothing
        for a given rule, and then no port is visited at all. ``alike``: ``judge`` reads
        values only (``alike_groups``: no source, no identity of an object of the port), so
        that ports holding copies of one QoS are judged once.
        """
        groups = self.qos_groups(device, kinds)
        if alike and self.alike_groups(device, kinds) is not groups:
            return self._alike_ports_with(device, judge, kinds)
        if isinstance(groups, PortsAlone):  # every port its own group, in port order
            return ((iface, value) for iface in groups.ports if (value := judge(iface)))
        found: dict[tuple[int, bool], T] = {}
        for ports in groups:
            first = ports[0]
            value = judge(first)
            if value:
                found[_qos_key(first)] = value
        if not found:
            return []
        return [(iface, found[key]) for iface in self.fabric_ports(device, kinds)
                if (key := _qos_key(iface)) in found]

    def _alike_ports_with(self, device: Device, judge: Callable[[Interface], T],
                          kinds: tuple[str, ...]) -> list[tuple[Interface, T]]:
        """``ports_with`` judging each group of ``alike_groups`` once."""
        found: dict[int, T] = {}
        for ports in self.alike_groups(device, kinds):
            value = judge(ports[0])
            if value:
                found.update(zip(map(id, ports), repeat(value)))
        if not found:
            return []
        return [(iface, found[key]) for iface in self.fabric_ports(device, kinds)
                if (key := id(iface)) in found]


def _alike_key(iface: Interface) -> tuple[object, ...]:
    """Every value of a port's QoS settings (not their sources), whether it is routed, its
    kind and its profile: equal for ports that hold copies of one QoS. The queues a port
    holds are compared as the objects they are (a queuing policy's queues are one set of
    objects that its ports share)."""
    port = iface.__dict__  # (each model attribute read is slow: pydantic's __getattr__)
    qos = port["qos"].__dict__
    pfc = qos["pfc"].__dict__
    watchdog = pfc["watchdog"].__dict__
    pause = qos["pause"].__dict__
    maps = qos["maps"]
    priorities = watchdog["priorities"]
    return (port["routed"], port["kind"], port["profile"], qos["name"], qos["trust"],
            qos["default_cos"], qos["default_dscp"], pfc["enabled"], pfc["mode"],
            frozenset(pfc["no_drop"]), frozenset(pfc["drop"]), pfc["disabled_by"],
            frozenset(pfc["tunnel_priorities"]), watchdog["enabled"], watchdog["action"],
            None if priorities is None else frozenset(priorities), watchdog["timeout_ms"],
            watchdog["polling_ms"], watchdog["recovery_ms"], pause["rx"], pause["tx"],
            tuple(zip(qos["queues"], map(id, qos["queues"].values()), strict=True)),
            tuple((b.name, b.kind, b.direction) for b in qos["policies"]),
            None if maps is None else maps_values(maps))


def maps_values(maps: ClassMaps) -> tuple[object, ...]:
    """The values of a classification chain, not where they are written: equal for two
    copies of one chain."""
    no_drop = maps.no_drop_classes
    return (maps.name, tuple(maps.dscp_to_tc.items()), maps.dscp_to_tc_default,
            tuple(maps.cos_to_tc.items()), tuple(maps.tc_to_queue.items()),
            tuple(maps.tc_to_pg.items()), tuple(maps.pfc_priority_to_queue.items()),
            tuple(maps.pfc_priority_to_pg.items()), tuple(maps.tc_to_pfc_priority.items()),
            None if no_drop is None else frozenset(no_drop))


SWITCH_VENDORS = frozenset({"eos", "nxos", "sonic"})
"""Inputs whose devices may or may not be set up for RoCE (``Context.roce_device``)."""
LOSSLESS_CATEGORIES = frozenset({"pfc", "ecn", "watchdog", "buffer", "qos"})
"""Rule categories about the lossless design (``Rule.lossless_design``)."""


def lossless_intent(device: Device) -> bool:
    """Does any line of ``device`` ask for lossless traffic? A no-drop priority or class, PFC
    switched on explicitly, a PFC watchdog, ECN marking on a queue, a lossless buffer profile
    or a priority group whose lossless headroom the switch computes, on a port or in a QoS
    profile. Defaults are not intent: NX-OS's `priority-flow-control mode auto` (the default of
    every port) with no no-drop class pauses nothing. WRED dropping alone is not either: it is
    a lossy design."""
    if device.qos.no_drop_classes or any(p.lossless for p in device.buffer_profiles.values()):
        return True
    if any(a.dynamic for i in device.interfaces.values() for a in i.buffer_pgs.values()):
        return True
    for qos in (*(i.qos for i in device.interfaces.values()), *device.qos_profiles.values()):
        pfc = qos.pfc
        if pfc.no_drop or (pfc.mode == "on" and pfc.configured("mode")) or pfc.watchdog.enabled:
            return True
        if any(q.ecn is not None for q in qos.queues.values()):
            return True
    return False


ALONE_PORTS = 1024
"""A device with at least this many ports, each with QoS settings of its own, computes
``Context.per_qos`` values again for each rule instead of keeping one a port."""


def _qos_key(iface: Interface) -> tuple[int, bool]:
    """What a group of ``qos_groups`` shares: the QoS settings object, and whether the port is
    routed (where a vendor has no trust setting, a routed port classifies by DSCP whatever its
    maps, so the two kinds of port can share settings and still behave differently)."""
    port = iface.__dict__  # (one model attribute read, not two: pydantic's __getattr__)
    return id(port["qos"]), port["routed"]


class PortsAlone(Sequence[list[Interface]]):
    """Groups of one port each, in port order: ``_by_qos`` of ports that each have QoS
    settings of their own (the ports of a large NX-OS chassis, each with its own service-policy
    and PFC lines). Kept as the list of ports: each group is made when it is read, instead of a
    list a port held for the whole lint."""

    __slots__ = ("ports",)

    def __init__(self, ports: list[Interface]) -> None:
        self.ports = ports

    def __len__(self) -> int:
        return len(self.ports)

    def __getitem__(self, index: int) -> list[Interface]:  # type: ignore[override]
        if isinstance(index, slice):
            return [[iface] for iface in self.ports[index]]  # type: ignore[return-value]
        return [self.ports[index]]

    def __iter__(self) -> Iterator[list[Interface]]:
        for iface in self.ports:
            yield [iface]


ID_SLICE = 32768
"""Ports whose QoS settings objects' ids ``_own_settings`` holds at once, at most about."""


def _own_settings(ports: list[Interface]) -> bool:
    """Has every port of ``ports`` a QoS settings object of its own (no two the same)?

    The ids are compared a slice of them at a time (by their value: two equal ids are in
    the same slice), about ``ID_SLICE`` at once: every id of a chassis of 250,000 ports in one
    set was some 20 MB at the lint's peak."""
    slices = 1 + len(ports) // ID_SLICE
    if slices == 1:
        return len({id(iface.qos) for iface in ports}) == len(ports)
    for part in range(slices):
        ids = [key for iface in ports if ((key := id(iface.qos)) >> 4) % slices == part]
        if len(set(ids)) != len(ids):
            return False
    return True


def _by_qos(ports: Iterable[Interface]) -> Sequence[list[Interface]]:
    """``ports`` grouped by ``_qos_key``, in the order of each group's first port."""
    ports = ports if isinstance(ports, list) else list(ports)
    if _own_settings(ports):
        return PortsAlone(ports)
    groups: dict[tuple[int, bool], list[Interface]] = {}
    for iface in ports:
        key = _qos_key(iface)
        members = groups.get(key)
        if members is None:
            groups[key] = [iface]
        else:
            members.append(iface)
    return list(groups.values())


class Rule:
    """Base class of every rule."""

    id: ClassVar[str]
    name: ClassVar[str]
    title: ClassVar[str]
    severity: ClassVar[Severity]
    category: ClassVar[str]
    vendors: ClassVar[tuple[str, ...]] = ("eos",)
    """Input formats the rule has been proven on (shown in its docs page)."""
    scope: ClassVar[str] = "device"
    """``device``: looks at one device at a time (runs next to the parser, in parallel);
    ``fabric``: needs every device at once (runs after all files are parsed)."""
    settings: ClassVar[tuple[str, ...]] = ()
    """Profile settings the rule reads (``section.key``), listed in its docs page."""

    foldable: ClassVar[bool] = True
    """Can a finding of this rule be another's consequence (``fold_consequences``)? Not for a
    finding about the whole device, such as QOS011's."""
    roce_only: ClassVar[bool | None] = None
    """Does the rule judge a switch's lossless design, so that it has nothing to say about a
    switch never set up for RoCE (``Context.roce_device``)? None: by its category (PFC, ECN,
    watchdog, buffer and QoS rules do)."""

    @classmethod
    def lossless_design(cls) -> bool:
        """``roce_only``, or by default whether the rule's category is about the lossless
        design."""
        return cls.category in LOSSLESS_CATEGORIES if cls.roce_only is None else cls.roce_only

    def check(self, ctx: Context) -> Iterable[Finding]:
        """Fabric-wide check; by default runs ``check_device`` on every device, except that a
        rule about the lossless design skips switches that have none at all (QOS011 reports
        each of them once)."""
        skip = self.lossless_design()
        for device in ctx.fabric.devices.values():
            if skip and not ctx.roce_device(device):
                continue
            yield from self.check_device(device, ctx)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        return ()

    def finding(
        self,
        device: Device | DeviceSummary | None,
        obj: str | None,
        where: SourceRef | None,
        message: str,
        *,
        severity: Severity | None = None,
        fix: FixIntent | None = None,
        related: Iterable[SourceRef | None] = (),
        places: Iterable[tuple[str, SourceRef | None]] = (),
        consequences: Iterable[Consequence] = (),
        explains: Iterable[tuple[str, str]] = (),
    ) -> Finding:
        """A finding of this rule. ``places``: every object it names with where each is
        configured, for a finding that groups several (one is not listed: it is ``obj``).
        ``consequences``: other findings it explains, folded into it; ``explains``: what it
        is the cause of ((rule id or category, object) pairs), for ``fold_consequences`` to
        fold into it after every rule has run."""
        default_file = device.files[0] if device and device.files else None
        listed = [Place(name, ref.file if ref else default_file, ref.line if ref else None)
                  for name, ref in places]
        return Finding(
            rule=self.id,
            name=self.name,
            severity=severity or self.severity,
            category=self.category,
            message=message,
            device=device.name if device else None,
            vendor=device.vendor if device else None,
            object=obj,
            file=where.file if where else (device.files[0] if device and device.files else None),
            line=where.line if where else None,
            intent=fix,
            related=[r for r in related if r is not None],
            places=listed if len(listed) > 1 else [],
            consequences=list(consequences),
            explains=list(explains),
        )

    @classmethod
    def doc(cls) -> str:
        return (cls.__doc__ or "").strip()


def fold_consequences(findings: list[Finding],
                      causes: list[Finding] | None = None) -> list[Finding]:
    """``findings`` with every finding that another one explains (``Finding.explains``)
    folded into its cause: listed in the cause's ``consequences`` and message, not reported
    on its own. A cause may itself be another's consequence (an NX-OS network-qos policy
    bound nowhere explains PFC001, which explains the cable's PFC008): each finding folds into
    the first cause of its chain that nothing explains. Causes that explain each other (a
    cycle) are all kept.
    ``causes``: the findings to fold into (default: every finding that explains something),
    for a second pass with the fabric rules' findings."""
    if causes is None:
        causes = [f for f in findings if f.explains]
    causes = list({id(c): c for c in causes if c.explains}.values())  # each once
    if not causes:
        return findings
    before = {id(c): len(c.consequences) for c in causes}
    by_device: dict[str | None, list[Finding]] = {}  # (7,000 findings, hundreds of causes)
    for c in causes:
        by_device.setdefault(c.device, []).append(c)
    parent: dict[int, Finding] = {}
    for finding in findings:
        rule = REGISTRY.get(finding.rule)
        if rule and not rule.foldable:
            continue
        cause = next((c for c in by_device.get(finding.device, ())
                      if c is not finding and _explained(c, finding)), None)
        if cause is not None:
            parent[id(finding)] = cause
    if not parent:
        return findings
    kept: list[Finding] = []
    for finding in findings:
        cause = _root_cause(finding, parent)
        if cause is None:
            kept.append(finding)
            continue
        cause.consequences.append(
            Consequence(finding.rule, finding.object or "", finding.message))
        if (cause.fix is None and cause.intent is None and finding.intent is not None
                and (f"device:{finding.object}") in (obj for _, obj in cause.explains)):
            # a fabric comparison explaining a device's whole finding has no fix of its own:
            # it takes that finding's (one cause, one fix)
            cause.fix, cause.edit, cause.intent = finding.fix, finding.edit, finding.intent
    for cause in causes:
        if len(cause.consequences) != before[id(cause)]:
            relist_consequences(cause, bool(before[id(cause)]))
    return kept


def relist_consequences(cause: Finding, listed: bool) -> None:
    """End ``cause``'s message with one clause naming every consequence, replacing the clause
    an earlier pass (in the worker) or the rule itself wrote when ``listed``."""
    base = cause.message.split(_EXPLAINS, 1)[0] if listed else cause.message
    cause.message = base + "; " + fmt_consequences(cause.consequences)


_EXPLAINS = "; this explains"
"""How a cause's message starts the list of its consequences (``fmt_consequences``)."""


def _root_cause(finding: Finding, parent: dict[int, Finding]) -> Finding | None:
    """The cause ``finding`` folds into: the end of its chain of causes, or None when nothing
    explains it or the chain comes back to it (causes that explain each other stay apart)."""
    seen = {id(finding)}
    cause = None
    current = finding
    while id(current) in parent:
        current = parent[id(current)]
        if id(current) in seen:
            return None
        seen.add(id(current))
        cause = current
    return cause


def _explained(cause: Finding, finding: Finding) -> bool:
    """Does ``cause`` explain every object of ``finding``?"""
    keys = (finding.rule, finding.category)
    scope = [obj for what, obj in cause.explains if what in keys]
    if not scope:
        return False
    if f"device:{finding.object}" in scope:
        return True  # a finding about the device as a whole (its object is the device)
    objects = [p.object for p in finding.places] or [finding.object or ""]
    return all(any(o == x or o.startswith(x + " ") for x in scope) for o in objects)


def fmt_consequences(items: list[Consequence]) -> str:
    """``this explains ECN001 on Ethernet0 queue 3, Ethernet4 queue 3 and QOS001 on Ethernet0``:
    the findings folded into a cause, by rule."""
    by_rule: dict[str, list[str]] = {}
    for c in items:
        by_rule.setdefault(c.rule, []).append(c.object)
    parts = [f"{rule} on {fmt_ports(objs, 4)}" for rule, objs in by_rule.items()]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"this explains {text} (not reported apart)"


def port_of_owner(device: Device, owner: str) -> list[str]:
    """The objects whose settings a configuration object ``owner`` holds, as findings name
    them: ``interface Port-Channel3`` -> the port-channel and its members, ``PORT_QOS_MAP|
    Ethernet0`` -> ``Ethernet0``, ``QUEUE|Ethernet0|3`` -> ``Ethernet0 queue 3``; [] for a
    device-wide or unknown owner."""
    if owner.startswith("interface "):
        name = owner[len("interface "):].strip()
    else:
        parts = owner.split("|")
        if len(parts) < 2 or parts[1] not in device.interfaces:
            return []
        if parts[0] == "QUEUE" and len(parts) == 3:
            return [f"{parts[1]} queue {q}" for q in _id_range(parts[2])]
        name = parts[1]
    if name not in device.interfaces:
        return []
    return [name, *(m.name for m in device.members(name))]


def _id_range(text: str) -> list[str]:
    """``3`` -> [3], ``3-4`` -> [3, 4] (SONiC QUEUE and BUFFER keys)."""
    low, _, high = text.partition("-")
    if low.isdigit() and (not high or high.isdigit()):
        return [str(i) for i in range(int(low), int(high or low) + 1)]
    return [text]


def fmt_priorities(values: Iterable[int]) -> str:
    items = sorted(values)
    return ", ".join(str(v) for v in items) if items else "none"


def fmt_where(names: Iterable[str], limit: int = 4) -> str:
    """``Ethernet1``, or ``3 ports (Ethernet1, Ethernet2, Ethernet3)``: where a finding that
    groups the ports sharing one fault applies."""
    items = list(names)
    return items[0] if len(items) == 1 else f"{len(items)} ports ({fmt_ports(items, limit)})"


def merge_alike(findings: Iterable[Finding], device: Device) -> list[Finding]:
    """``findings`` (of one rule, on ``device``) with those that say the same thing of several
    ports, each from a row of its own, merged into one that names the ports, each at its line,
    with one fix for all (``interfaces``). SONiC's templates write PFC_WD, BUFFER_PG and
    BUFFER_QUEUE one row per port: one wrong value in the template is one cause, not a finding
    per port. Findings already grouped, or not about one port, are left as they are."""
    out: list[Finding] = []
    groups: dict[tuple[object, ...], list[Finding]] = {}
    for finding in findings:
        port, intent = finding.object, finding.intent
        if (port and not finding.places and port in device.interfaces and intent is not None
                and intent.params.get("interface") == port):
            pattern = re.compile(rf"(?<![\w/.-]){re.escape(port)}(?![\w/-]|\.\d)")
            params = tuple(sorted((k, repr(v)) for k, v in intent.params.items()
                                  if k != "interface"))
            key = (finding.rule, finding.severity, pattern.sub("\0", finding.message),
                   intent.action, params)
            members = groups.get(key)
            if members is not None:
                members.append(finding)
                continue
            groups[key] = [finding]
        out.append(finding)
    for (_, _, template, _, _), members in groups.items():
        if len(members) < 2:
            continue
        first = members[0]
        names = [m.object or "" for m in members]
        first.message = template.replace("\0", fmt_where(names))
        first.places = [Place(m.object or "", m.file, m.line) for m in members]
        assert first.intent is not None
        first.intent.params["interfaces"] = names
    return out


def port_places(ports: Iterable[Interface], field: str | None = None
                ) -> list[tuple[str, SourceRef | None]]:
    """(name, where) of each port a grouped finding names: the line of ``field`` on the port
    when it has one, else the port's own line."""
    return [(p.name, p.where(field) if field else p.src) for p in ports]


def group_ports(items: Iterable[tuple[Interface, T]],
                key: Callable[[Interface, T], object]) -> list[tuple[object, list[Interface], T]]:
    """``items`` (ports with what a rule found on each) grouped by cause, ``key(port, found)``:
    (key, the ports in order, what was found on the first). Ports whose fault has one cause
    (one profile, policy, configuration line or device-wide default) make one finding that
    names them all, with one fix; the grouping of WD001, ECN001 and PFC002."""
    groups: dict[object, tuple[list[Interface], T]] = {}
    for iface, found in items:
        k = key(iface, found)
        entry = groups.get(k)
        if entry is None:
            groups[k] = ([iface], found)
        else:
            entry[0].append(iface)
    return [(k, ports, found) for k, (ports, found) in groups.items()]


def fmt_ports(names: Iterable[str], limit: int = 8) -> str:
    """``Ethernet1, Ethernet2, … 3 more``: the ports a shared setting affects, for messages."""
    items = list(names)
    shown = ", ".join(items[:limit])
    return shown + (f", … {len(items) - limit} more" if len(items) > limit else "")


@dataclass(frozen=True)
class DeviceSummary:
    """What a fabric rule keeps of one device: who it is and the rule's own facts about it.

    Computed by ``FabricRule.summarize`` in the worker process that parsed the device, so that
    a few values cross back to the parent instead of the whole device model. Quacks like a
    ``Device`` for ``Rule.finding`` (name, vendor, files).
    """

    name: str
    vendor: str | None
    role: str | None
    files: tuple[str, ...]
    facts: Any
    """Whatever the rule's ``summarize`` returned: small, plain and picklable."""

    @classmethod
    def of(cls, device: Device, facts: Any) -> DeviceSummary:
        return cls(device.name, device.vendor, device.role, tuple(device.files), facts)


class FabricRule(Rule):
    """A rule that compares devices with each other (``scope = "fabric"``).

    It works in two steps so that device models never have to leave the worker processes that
    parsed them: ``summarize`` keeps what the rule needs of one device (next to the parser, in
    parallel), ``compare`` looks at every device's summary at once (in the parent).
    """

    scope: ClassVar[str] = "fabric"
    requires: ClassVar[frozenset[str]] = frozenset()
    """What the inputs must bring for ``compare`` to have anything to compare: ``links``
    (cables, from LLDP tables, SONiC neighbours, InfiniBand dumps or an intended topology) or
    ``hosts`` (GPU host NIC facts). Without it, the engine skips ``summarize``."""

    def summarize(self, device: Device, ctx: Context) -> Any:
        """The compact facts of ``device`` that ``compare`` needs (None: nothing to compare)."""
        raise NotImplementedError

    def compare(self, summaries: list[DeviceSummary], ctx: Context) -> Iterable[Finding]:
        """Findings from every device's summary (in input order)."""
        raise NotImplementedError

    def check(self, ctx: Context) -> Iterable[Finding]:
        """Both steps in one process, for callers that hold the whole fabric."""
        summaries = [DeviceSummary.of(d, self.summarize(d, ctx))
                     for d in ctx.fabric.devices.values()]
        yield from self.compare(summaries, ctx)


def fmt_ranges(values: Iterable[int]) -> str:
    """``0, 1, 2, 5, 7, 8`` as ``0-2, 5, 7, 8``: long DSCP lists in messages."""
    items = sorted(set(values))
    parts: list[str] = []
    start = prev = None
    for value in [*items, None]:
        if value is not None and prev is not None and value == prev + 1:
            prev = value
            continue
        if start is not None and prev is not None:
            parts.append(str(start) if start == prev else
                         f"{start}, {prev}" if prev == start + 1 else f"{start}-{prev}")
        start = prev = value
    return ", ".join(parts) if parts else "none"


def policy_bindings(iface: Interface) -> list[tuple[str, str | None, str]]:
    """(kind, direction, name) of the QoS policies in effect on the port, for fixes that must
    edit the policy that supplies a setting rather than the port (NX-OS network-qos)."""
    return [(b.kind, b.direction, b.name) for b in iface.qos.policies]
