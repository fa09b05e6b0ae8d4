"""The normalised, vendor-neutral fabric model.

Parsers build it, rules read it, nothing else crosses that line. Values are in effect values
(what the device does), not merely what was written: a parser fills in vendor defaults and marks
them as defaulted, so that rules never need to know a vendor's defaults.

Units: sizes in bytes, speeds in Mb/s, times in milliseconds. Where a vendor unit cannot be
converted (EOS ``segments``, time-based thresholds) the value keeps its unit and ``bytes`` is None.

Every object a finding can point at is ``Located``: ``src`` is where the object is defined and
``field_src`` records the line that set each field, which doubles as "this was configured
explicitly".
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

Vendor = Literal["eos", "nxos", "sonic", "ib", "host", "unknown"]
InterfaceKind = Literal[
    "physical", "port-channel", "svi", "loopback", "mgmt", "subinterface", "tunnel", "other"
]
TrustMode = Literal["dscp", "cos", "none"]
Scheduling = Literal["strict", "dwrr", "wrr"]
Direction = Literal["in", "out"]
AclAction = Literal["permit", "deny"]

ROCE_UDP_PORT = 4791
"""RoCEv2 destination UDP port (IANA; ``ROCE_V2_UDP_DPORT`` in the Linux RDMA drivers)."""


class SourceRef(NamedTuple):
    """A place in an input file.

    A tuple, not a model: parsers create one per configuration line and models hold many, so
    it is validated with an isinstance check and shared between the objects that cite it. In
    JSON it is ``{"file": …, "line": …}``.
    """

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.union_schema(
            [
                core_schema.is_instance_schema(cls),
                core_schema.no_info_plain_validator_function(cls._coerce),
            ],
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda ref: {"file": ref.file, "line": ref.line}
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"file": {"type": "string"},
                           "line": {"type": ["integer", "null"]}},
            "required": ["file"],
        }

    @classmethod
    def _coerce(cls, value: Any) -> SourceRef:
        if isinstance(value, dict) and isinstance(value.get("file"), str):
            return cls(value["file"], value.get("line"))
        if isinstance(value, (list, tuple)) and value and isinstance(value[0], str):
            return cls(*value)
        raise ValueError("a source reference is {file, line}")


class Located(BaseModel):
    """Base of every model object that a finding can point at."""

    model_config = ConfigDict(extra="forbid")

    src: SourceRef | None = None
    field_src: dict[str, SourceRef] = Field(default_factory=dict)

    def where(self, *fields: str) -> SourceRef | None:
        """Source of the first of ``fields`` that was configured, else of the object itself."""
        for name in fields:
            ref = self.field_src.get(name)
            if ref is not None:
                return ref
        return self.src

    def configured(self, name: str) -> bool:
        """True when ``name`` was set by a line of the input rather than by a default."""
        return name in self.field_src


class Threshold(BaseModel):
    """A queue threshold with its original unit; ``bytes`` is None when it cannot be converted."""

    model_config = ConfigDict(frozen=True)

    value: float
    unit: str
    bytes: int | None = None

    def __str__(self) -> str:
        value = int(self.value) if float(self.value).is_integer() else self.value
        return f"{value} {self.unit}"


class Aqm(Located):
    """Active queue management on one queue: ECN marking or WRED dropping."""

    min_threshold: Threshold | None = None
    max_threshold: Threshold | None = None
    probability: int | None = None
    """Maximum mark or drop probability in percent."""
    weight: int | None = None
    profile: str | None = None
    """Name of the vendor object this came from (SONiC WRED_PROFILE, NX-OS class), if any."""


class Queue(Located):
    """One egress unicast queue of a port."""

    id: int
    name: str | None = None
    """Vendor name of what configures the queue (NX-OS queuing class), if not just its id."""
    scheduling: Scheduling | None = None
    bandwidth_percent: int | None = None
    ecn: Aqm | None = None
    """ECN marking (congestion marks instead of drops)."""
    wred: Aqm | None = None
    """WRED dropping."""


class Watchdog(Located):
    """PFC watchdog (storm detection)."""

    enabled: bool = False
    action: str | None = None
    """What the watchdog does on a storm: ``drop``, ``forward``, ``alert``, ``no-drop``, …"""
    priorities: set[int] | None = None
    """Priorities it watches (SONiC ``pfcwd_sw_enable``); None means every PFC priority."""
    timeout_ms: float | None = None
    polling_ms: float | None = None
    recovery_ms: float | None = None


class Pfc(Located):
    """Priority flow control (IEEE 802.1Qbb) on a port."""

    enabled: bool = False
    """PFC in effect, after device-wide switches (EOS ``priority-flow-control all off``)."""
    mode: Literal["on", "off", "auto"] = "off"
    """Configured mode of the port (``auto`` = DCBX negotiated)."""
    no_drop: set[int] = Field(default_factory=set)
    """Priorities configured lossless."""
    drop: set[int] = Field(default_factory=set)
    """Priorities explicitly configured lossy."""
    disabled_by: SourceRef | None = None
    """The device-wide line that turns PFC off despite the port's own configuration."""
    watchdog: Watchdog = Field(default_factory=Watchdog)

    @property
    def active_priorities(self) -> set[int]:
        """Priorities for which PFC pause frames are actually honoured and sent."""
        return set(self.no_drop) if self.enabled else set()


class LinkPause(Located):
    """IEEE 802.3x link-level pause (flow control)."""

    rx: bool = False
    tx: bool = False

    @property
    def enabled(self) -> bool:
        return self.rx or self.tx


class PolicyBinding(Located):
    """A named QoS policy or profile bound to a port or to the system."""

    name: str
    kind: str
    """``qos``, ``queuing``, ``network-qos``, ``profile``, …"""
    direction: Direction | None = None


class QosSettings(Located):
    """QoS of a port, or of a named template (EOS ``qos profile``) that ports apply."""

    name: str | None = None
    trust: TrustMode | None = None
    default_cos: int | None = None
    default_dscp: int | None = None
    pfc: Pfc = Field(default_factory=Pfc)
    pause: LinkPause = Field(default_factory=LinkPause)
    queues: dict[int, Queue] = Field(default_factory=dict)
    policies: list[PolicyBinding] = Field(default_factory=list)
    maps: ClassMaps | None = None
    """The port's own classification chain (SONiC PORT_QOS_MAP, NX-OS interface policy);
    None: the device's (``Device.maps_for``)."""


class AclBinding(Located):
    """An access list applied to a port."""

    name: str
    direction: Direction
    family: Literal["ipv4", "ipv6", "mac"] = "ipv4"


class PortMatch(BaseModel):
    """A layer-4 port match of an ACL entry, as inclusive ranges."""

    model_config = ConfigDict(frozen=True)

    op: Literal["eq", "neq", "gt", "lt", "range"]
    ranges: list[tuple[int, int]]
    """For ``neq`` the excluded ranges; otherwise the matched ones."""

    def matches(self, port: int) -> bool:
        inside = any(lo <= port <= hi for lo, hi in self.ranges)
        return not inside if self.op == "neq" else inside

    def matches_all(self) -> bool:
        """True when every port matches (e.g. ``range 0 65535``)."""
        if self.op == "neq":
            return not self.ranges
        return any(lo <= 0 and hi >= 65535 for lo, hi in self.ranges)


_ANY_ADDRESS = frozenset({"any", "0.0.0.0/0", "::/0", "0.0.0.0 255.255.255.255"})


class AclEntry(Located):
    """One ordered entry of an access list."""

    seq: int | None = None
    action: AclAction
    protocol: str = "ip"
    """Protocol name (``ip``, ``udp``, ``tcp`` …) or number as text; ``ip`` matches all."""
    src_addr: str = "any"
    dst_addr: str = "any"
    src_port: PortMatch | None = None
    dst_port: PortMatch | None = None
    dscp: list[int] | None = None
    qualifiers: list[str] = Field(default_factory=list)
    """Other match conditions (ttl, fragments, tcp flags …) that narrow the entry."""
    text: str = ""
    """The entry as written, for messages (ACL entries hold no secrets)."""

    def udp_dport_match(self, port: int) -> Literal["all", "some", "none"]:
        """Whether this entry matches all, some or none of the UDP traffic to ``port``."""
        if self.protocol not in ("ip", "udp", "any", "17", "ipv6"):
            return "none"
        if self.dst_port is not None and not self.dst_port.matches(port):
            return "none"
        narrowed = (
            self.src_addr not in _ANY_ADDRESS
            or self.dst_addr not in _ANY_ADDRESS
            or (self.src_port is not None and not self.src_port.matches_all())
            or self.dscp is not None
            or bool(self.qualifiers)
        )
        return "some" if narrowed else "all"


class AclVerdict(BaseModel):
    """How an access list treats UDP traffic to one destination port."""

    action: Literal["permit", "deny", "partial-deny"]
    entry: AclEntry | None = None
    """The entry that decides (None: the implicit deny at the end)."""
    shadowing: list[AclEntry] = Field(default_factory=list)
    """Deny entries that catch part of the traffic before the deciding permit."""


class Acl(Located):
    """A named access list with ordered entries and an implicit deny at the end."""

    name: str
    family: Literal["ipv4", "ipv6", "mac"] = "ipv4"
    standard: bool = False
    entries: list[AclEntry] = Field(default_factory=list)
    implicit_action: AclAction = "deny"

    def udp_dport_verdict(self, port: int) -> AclVerdict:
        """Walk the entries in order, as the switch does, for UDP traffic to ``port``."""
        partial_denies: list[AclEntry] = []
        for entry in self.entries:
            match = entry.udp_dport_match(port)
            if match == "none":
                continue
            if match == "all":
                if entry.action == "deny":
                    return AclVerdict(action="deny", entry=entry)
                if partial_denies:
                    return AclVerdict(action="partial-deny", entry=entry, shadowing=partial_denies)
                return AclVerdict(action="permit", entry=entry)
            if entry.action == "deny":
                partial_denies.append(entry)
        if self.implicit_action == "deny":
            return AclVerdict(action="deny", entry=None, shadowing=partial_denies)
        if partial_denies:
            return AclVerdict(action="partial-deny", shadowing=partial_denies)
        return AclVerdict(action="permit")


class Endpoint(BaseModel):
    """One end of a link: a port of a device."""

    model_config = ConfigDict(frozen=True)

    device: str
    interface: str


class Interface(Located):
    """A port of a device: physical, port-channel, SVI, loopback or management."""

    name: str
    kind: InterfaceKind = "physical"
    description: str | None = None
    admin_up: bool = True
    speed_mbps: int | None = None
    """Configured speed; None when auto-negotiated or not known."""
    lanes: int | None = None
    mtu: int | None = None
    """IP (layer-3) MTU in bytes, in effect; ``configured("mtu")`` tells default from setting."""
    l2_mtu: int | None = None
    routed: bool = False
    """Layer 3 (``no switchport``) rather than a bridged switchport."""
    vrf: str | None = None
    ip_addresses: list[str] = Field(default_factory=list)
    port_channel: str | None = None
    """Name of the port-channel this port is a member of."""
    acls: list[AclBinding] = Field(default_factory=list)
    qos: QosSettings = Field(default_factory=QosSettings)
    profile: str | None = None
    """Name of the QoS profile / service profile applied to the port, if any."""
    buffer_pgs: dict[int, BufferAssignment] = Field(default_factory=dict)
    """Ingress priority group -> buffer profile (SONiC BUFFER_PG)."""
    buffer_queues: dict[int, BufferAssignment] = Field(default_factory=dict)
    """Egress queue -> buffer profile (SONiC BUFFER_QUEUE)."""
    cable_length_m: float | None = None
    """Cable length in metres (SONiC CABLE_LENGTH), which sizes PFC headroom."""
    neighbor: Endpoint | None = None
    """The port the configuration says is at the other end (SONiC DEVICE_NEIGHBOR)."""


def _eos_default_dscp_map() -> dict[int, int]:
    # DSCP -> CoS by precedence (DSCP >> 3), then the default CoS -> TC map, which swaps 0 and 1
    # so that best-effort (CoS 0) sits above background (CoS 1).
    cos_to_tc = {0: 1, 1: 0}
    return {dscp: cos_to_tc.get(dscp >> 3, dscp >> 3) for dscp in range(64)}


DEFAULT_DSCP_MAPS: dict[str, dict[int, int]] = {
    "eos-default": _eos_default_dscp_map(),
    "precedence": {dscp: dscp >> 3 for dscp in range(64)},
    "nxos-default": dict.fromkeys(range(64), 0),  # unclassified traffic is qos-group 0
}
"""Platform default DSCP -> traffic class maps, by the name parsers put in
``ClassMaps.dscp_to_tc_default``: vendor facts resolved here so that rules need not know them."""


class ClassMaps(Located):
    """The classification chain DSCP -> traffic class -> queue / priority group / PFC priority.

    Traffic class is the vendor-neutral name for EOS traffic-class, NX-OS qos-group and SONiC
    TC. Keys of ``field_src`` are ``<map>[N]`` (``dscp_to_tc[26]``) for entries set by a line.
    A map left empty means the platform's identity map unless a ``*_default`` names another.
    """

    name: str | None = None
    """Name of the vendor object (SONiC map or NX-OS policy-map) the chain came from, if any."""
    dscp_to_tc: dict[int, int] = Field(default_factory=dict)
    """Explicitly configured DSCP -> traffic class; ``field_src`` keys are ``dscp_to_tc[N]``."""
    dscp_to_tc_default: str | None = None
    """Name of the platform default map used for DSCPs not in ``dscp_to_tc``."""
    cos_to_tc: dict[int, int] = Field(default_factory=dict)
    tc_to_queue: dict[int, int] = Field(default_factory=dict)
    tc_to_pg: dict[int, int] = Field(default_factory=dict)
    pfc_priority_to_queue: dict[int, int] = Field(default_factory=dict)
    pfc_priority_to_pg: dict[int, int] = Field(default_factory=dict)
    tc_to_pfc_priority: dict[int, int] = Field(default_factory=dict)
    """Traffic class -> the PFC priority its frames are paused with (identity when empty)."""

    def tc_for_dscp(self, dscp: int) -> int | None:
        """Traffic class of ``dscp``: the explicit entry, else the platform default map, else
        None (unclassified: the port's default class)."""
        tc = self.dscp_to_tc.get(dscp)
        if tc is None and self.dscp_to_tc_default is not None:
            tc = DEFAULT_DSCP_MAPS.get(self.dscp_to_tc_default, {}).get(dscp)
        return tc

    def pfc_priority_of(self, tc: int) -> int:
        """The PFC priority that pauses traffic class ``tc``."""
        return self.tc_to_pfc_priority.get(tc, tc)


class DeviceQos(ClassMaps):
    """Device-wide QoS: the classification chain every port uses unless it has its own, and
    global switches."""

    pfc_disabled_globally: bool = False
    watchdog_defaults: Watchdog | None = None
    ecn_allow_non_ect: bool = False
    class_mtu: dict[int, int] = Field(default_factory=dict)
    """Per traffic class MTU where the platform sets one (NX-OS network-qos ``mtu``)."""
    jumbo_mtu: int | None = None
    """Largest MTU the device allows (NX-OS ``system jumbomtu``)."""


class BufferPool(Located):
    """A shared buffer pool (SONiC BUFFER_POOL). Sizes in bytes."""

    name: str
    type: Literal["ingress", "egress"] | None = None
    mode: Literal["static", "dynamic"] | None = None
    size: int | None = None
    """Size in bytes; None for the dynamic model where it is computed by the switch."""
    xoff: int | None = None
    """Shared headroom pool size (ingress lossless pool), bytes."""


class BufferProfile(Located):
    """A buffer profile (SONiC BUFFER_PROFILE): how much a PG or queue may take. Bytes."""

    name: str
    pool: str | None = None
    size: int | None = None
    xon: int | None = None
    xoff: int | None = None
    xon_offset: int | None = None
    dynamic_th: int | None = None
    static_th: int | None = None

    @property
    def lossless(self) -> bool:
        """A profile with an xoff threshold is a lossless (headroom) profile."""
        return self.xoff is not None


class BufferAssignment(Located):
    """The buffer profile given to one priority group or queue of a port."""

    profile: str | None = None
    """Profile name; None when the switch computes one (SONiC ``NULL``, dynamic model)."""
    dynamic: bool = False


class QosPolicy(Located):
    """A named QoS policy as written (NX-OS policy-map, EOS policy-map), bound or not.

    The port and device settings hold what is in effect; this records what was written, so that
    a rule can tell a policy that does nothing because it is not bound.
    """

    name: str
    kind: str
    """``qos``, ``queuing``, ``network-qos``, ``profile`` …"""
    classes: list[str] = Field(default_factory=list)
    bound: bool = False
    """Applied under ``system qos`` or on at least one interface."""


class Reference(Located):
    """A reference from one configuration object to another by name, and whether it resolves."""

    kind: str
    """What is referred to (``WRED_PROFILE``, ``qos profile``, ``policy-map type queuing`` …)."""
    name: str
    owner: str
    """The object holding the reference (``QUEUE|Ethernet0|3``, ``interface Ethernet1``)."""
    resolved: bool = True


class Suppression(BaseModel):
    """An inline ``fablint: disable=…`` comment and the lines it covers."""

    rules: list[str]
    """Rule ids or names; empty means every rule."""
    file: str
    line: int
    """Line of the comment itself."""
    start: int
    end: int
    """Inclusive range of lines covered (the whole file for ``disable-file``)."""
    scope: Literal["next", "file"] = "next"
    reason: str | None = None

    def covers(self, rule_keys: set[str], file: str | None, line: int | None) -> bool:
        if file != self.file:
            return False
        if self.rules and not (rule_keys & set(self.rules)):
            return False
        if self.scope == "file":
            return True
        return line is not None and self.start <= line <= self.end


class Device(Located):
    """A switch (or later a host / IB node) with its ports and settings."""

    name: str
    vendor: Vendor = "unknown"
    role: str | None = None
    platform: str | None = None
    os_version: str | None = None
    files: list[str] = Field(default_factory=list)
    interfaces: dict[str, Interface] = Field(default_factory=dict)
    qos: DeviceQos = Field(default_factory=DeviceQos)
    qos_profiles: dict[str, QosSettings] = Field(default_factory=dict)
    acls: dict[str, Acl] = Field(default_factory=dict)
    policies: dict[str, QosPolicy] = Field(default_factory=dict)
    """QoS policies as written, keyed ``<kind>:<name>``."""
    buffer_model: Literal["traditional", "dynamic"] | None = None
    buffer_pools: dict[str, BufferPool] = Field(default_factory=dict)
    buffer_profiles: dict[str, BufferProfile] = Field(default_factory=dict)
    references: list[Reference] = Field(default_factory=list)
    """Name references between configuration objects (only SONiC and NX-OS record them)."""
    suppressions: list[Suppression] = Field(default_factory=list)

    def maps_for(self, iface: Interface | None = None) -> ClassMaps:
        """The classification chain in effect on ``iface`` (its own, else the device's)."""
        if iface is not None and iface.qos.maps is not None:
            return iface.qos.maps
        return self.qos

    def members(self, port_channel: str) -> list[Interface]:
        return [i for i in self.interfaces.values() if i.port_channel == port_channel]

    def queue_for_priority(self, priority: int, iface: Interface | None = None) -> int:
        """Egress queue that carries PFC priority ``priority`` (traffic class = priority)."""
        maps = self.maps_for(iface)
        queue = maps.pfc_priority_to_queue.get(priority)
        if queue is not None:
            return queue
        return maps.tc_to_queue.get(priority, priority)

    def profile_providing(self, priorities: set[int]) -> str | None:
        """A QoS profile of this device that turns PFC on for ``priorities``, if any."""
        for profile in self.qos_profiles.values():
            pfc = profile.pfc
            if pfc.mode == "on" and priorities <= pfc.no_drop:
                return profile.name
        return None

    def profile_of(self, iface: Interface, section: str) -> str | None:
        """Name of the QoS profile that supplies ``iface.qos.<section>``, or None.

        None when the port has no profile or sets any of that section itself; fixes then go on
        the port, where they win over the profile.
        """
        profile = self.qos_profiles.get(iface.profile or "")
        if profile is None:
            return None
        theirs = getattr(profile, section)
        mine = getattr(iface.qos, section)
        if not isinstance(mine, (dict, Located)):  # a plain field such as trust
            ref = iface.qos.field_src.get(section)
            return profile.name if ref is None or ref == profile.field_src.get(section) else None
        if isinstance(mine, dict):
            refs = {r for q in theirs.values() for r in q.field_src.values()}
            own = [r for q in mine.values() for r in q.field_src.values()]
        else:
            refs = set(theirs.field_src.values())
            own = list(mine.field_src.values())
        return profile.name if all(r in refs for r in own) else None


class Link(Located):
    """A cable between two ports, from LLDP, SONiC DEVICE_NEIGHBOR, IB dumps or intent."""

    a: Endpoint
    b: Endpoint
    speed_mbps: int | None = None
    origin: str = "unknown"
    owner_from: str | None = None
    """For a one-sided claim (LLDP): how the ``a`` device was named (``prompt``, ``folder``,
    ``file name``)."""
    remote_description: str | None = None
    """What the ``b`` end says about its port (LLDP port description: a host's NIC name)."""
    max_frame_bytes: int | None = None
    """Largest frame the ``b`` end advertises (LLDP IEEE 802.3 TLV), for MTU cross-checks."""


class ParseProblem(BaseModel):
    """Something in an input that could not be understood."""

    file: str
    line: int | None = None
    message: str
    kind: Literal["parse-error", "unsupported", "invalid-value", "unreadable"] = "invalid-value"
    fatal: bool = False
    """True when the file as a whole could not be used."""


class InputFile(BaseModel):
    """One file that was read, with what was made of it."""

    path: str
    format: str | None = None
    bytes: int = 0
    lines: int = 0
    unknown_lines: int = 0
    """Lines skipped because the parser does not model them."""
    devices: list[str] = Field(default_factory=list)
    hostname_lines: dict[str, int] = Field(default_factory=dict)
    """Line of each device's name, for messages about duplicate names."""
    explicit: bool = False
    """Named on the command line (as opposed to found in a folder)."""


class Fabric(BaseModel):
    """Everything that was read: the devices, the links between them and what went wrong."""

    devices: dict[str, Device] = Field(default_factory=dict)
    links: list[Link] = Field(default_factory=list)
    inputs: list[InputFile] = Field(default_factory=list)
    problems: list[ParseProblem] = Field(default_factory=list)
