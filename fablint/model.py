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

# No "from __future__ import annotations" here: pydantic would compile the text of every
# field's annotation when the classes are made (a sixth of the import). An annotation
# that names a class defined further down is a string.

import re
import struct
import sys
from collections.abc import Callable, Iterable, Iterator, KeysView, Mapping
from typing import Annotated, Any, ForwardRef, Literal, NamedTuple, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    PrivateAttr,
)
from pydantic_core import core_schema

from fablint.platforms import asic_family

Vendor = Literal["eos", "nxos", "sonic", "ib", "opensm", "host", "unknown"]
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
    def _coerce(cls, value: Any) -> "SourceRef":
        if isinstance(value, dict) and isinstance(value.get("file"), str):
            return cls(value["file"], value.get("line"))
        if isinstance(value, (list, tuple)) and value and isinstance(value[0], str):
            return cls(*value)
        raise ValueError("a source reference is {file, line}")


_LINE = struct.Struct("<I")
_new_tuple = tuple.__new__


class FieldSources(bytes):
    """``field_src`` of an object of a very large device, compact (``FieldSources.compact``).

    A dict of a port's configured fields with a ``SourceRef`` and a line-number int for each
    costs about 140 bytes a field; here the keys (and the file) are one layout that every
    object with the same keys shares, and the lines are four bytes each, all in one bytes
    object (the layout's number, then the lines). It reads as the dict it replaces (``get``,
    ``in``, ``[]``, iteration, ``items``, equality, JSON) but cannot be changed: the models of
    a large device are built once and only read. A pickled copy is a plain dict."""

    __slots__ = ()

    @staticmethod
    def compact(refs: Mapping[str, SourceRef]) -> Mapping[str, SourceRef]:
        """``refs`` as FieldSources; ``refs`` itself when it cannot be (empty, or a line that
        is not one number in one file)."""
        if not refs or refs.__class__ is not dict:
            return refs
        file = None
        lines = []
        for ref in refs.values():
            if file is None:
                file = ref.file
            line = ref.line
            if ref.file != file or line.__class__ is not int or not 0 < line < 1 << 32:
                return refs
            lines.append(line)
        key = (file, tuple(refs))
        number = _LAYOUT_NUMBERS.get(key)
        if number is None:
            number = _LAYOUT_NUMBERS[key] = len(_LAYOUTS)
            _LAYOUTS.append((file, {name: 4 + n * 4 for n, name in enumerate(refs)}))
        return FieldSources(struct.pack(f"<{len(lines) + 1}I", number, *lines))

    @property
    def _layout(self) -> tuple[str, dict[str, int]]:
        return _LAYOUTS[_LINE.unpack_from(self)[0]]

    def __getitem__(self, key: str) -> SourceRef:  # type: ignore[override]
        file, places = _LAYOUTS[_LINE.unpack_from(self)[0]]
        return _new_tuple(SourceRef, (file, _LINE.unpack_from(self, places[key])[0]))

    def get(self, key: str, default: Any = None) -> Any:
        file, places = _LAYOUTS[_LINE.unpack_from(self)[0]]
        at = places.get(key)
        if at is None:
            return default
        return _new_tuple(SourceRef, (file, _LINE.unpack_from(self, at)[0]))

    def __contains__(self, key: object) -> bool:  # type: ignore[override]
        return key in _LAYOUTS[_LINE.unpack_from(self)[0]][1]

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        return iter(_LAYOUTS[_LINE.unpack_from(self)[0]][1])

    def __len__(self) -> int:
        return len(_LAYOUTS[_LINE.unpack_from(self)[0]][1])

    def keys(self) -> KeysView[str]:
        return self.as_dict().keys()

    def values(self) -> list[SourceRef]:
        file = _LAYOUTS[_LINE.unpack_from(self)[0]][0]
        return [_new_tuple(SourceRef, (file, line))
                for (line,) in _LINE.iter_unpack(memoryview(self)[4:])]

    def items(self) -> list[tuple[str, SourceRef]]:
        return list(zip(self, self.values(), strict=True))

    def as_dict(self) -> dict[str, SourceRef]:
        return dict(zip(self, self.values(), strict=True))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self.as_dict() == dict(other.items())
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.as_dict())

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (self.as_dict(),))


Mapping.register(FieldSources)
_LAYOUTS: list[tuple[str, dict[str, int]]] = [("", {})]
_LAYOUT_NUMBERS: dict[tuple[str, tuple[str, ...]], int] = {("", ()): 0}


def _serialize_sources(value: Mapping[str, SourceRef]) -> dict[str, dict[str, Any]]:
    return {key: {"file": ref.file, "line": ref.line} for key, ref in value.items()}


class _SourcesSchema:
    """``field_src``'s schema: validated as ``dict[str, SourceRef]`` (a dict, as ever), and
    serialised the same whether it holds a dict or FieldSources."""

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        plain = handler(source)
        return core_schema.union_schema([
            plain,
            core_schema.is_instance_schema(FieldSources, serialization=(
                core_schema.plain_serializer_function_ser_schema(_serialize_sources))),
        ])

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return handler(schema["choices"][0])  # type: ignore[index]


Sources = Annotated[dict[str, SourceRef], _SourcesSchema]
"""The type of ``Located.field_src``: a dict, or FieldSources on a very large device."""

NO_SOURCES = FieldSources(struct.pack("<I", 0))
"""The empty ``field_src`` that the compacted objects of a large device share."""


class _Model(BaseModel):
    """Base of the model classes: each builds its validator when first used, after those of
    the models it holds, so that each is built once and shared by every model that holds it.

    Building every class's validator at import took a quarter of the start-up of a
    pre-commit hook's lint; a run builds only what it validates (an Ethernet lint never builds
    the InfiniBand, topology or fabric-wide classes). pydantic, left to itself, would build a
    deferred class's inner models inline, again for each class that holds them.
    """

    model_config = ConfigDict(defer_build=True)

    @classmethod
    def model_rebuild(
        cls, *, force: bool = False, raise_errors: bool = True, _parent_namespace_depth: int = 2,
        _types_namespace: Any = None,
    ) -> bool | None:
        if not cls.__pydantic_complete__:
            for inner in _held_models(cls):
                if not inner.__pydantic_complete__:
                    inner.model_rebuild(raise_errors=raise_errors)
        return super().model_rebuild(
            force=force, raise_errors=raise_errors,
            _parent_namespace_depth=_parent_namespace_depth + 1, _types_namespace=_types_namespace,
        )


_NAMES = re.compile(r"[A-Za-z_]\w*")


def _held_models(cls: type[BaseModel]) -> list[type[_Model]]:
    """The model classes that ``cls``'s fields hold (in unions, lists, dicts), first seen first."""
    found: list[type[_Model]] = []
    todo = [info.annotation for info in cls.__pydantic_fields__.values()]
    while todo:
        kind = todo.pop(0)
        if isinstance(kind, type) and issubclass(kind, _Model):
            if kind is not cls and kind not in found:
                found.append(kind)
        elif isinstance(kind, ForwardRef):  # a class defined further down: by its name
            space = vars(sys.modules[cls.__module__])
            todo.extend(space.get(name) for name in _NAMES.findall(kind.__forward_arg__))
        else:
            todo.extend(get_args(kind))
    return found


class _SharedNames(set[str]):
    """A set of field names that many model objects share (``share_fields_set``)."""

    __slots__ = ()


_FIELDS_SETS: dict[frozenset[str], _SharedNames] = {}


def shared_names(names: Iterable[str]) -> set[str]:
    """The one shared ``model_fields_set`` of the objects given ``names`` (a builder that makes
    many alike objects without validation gives each this set; see ``share_fields_set``)."""
    key = frozenset(names)
    shared = _FIELDS_SETS.get(key)
    if shared is None:
        shared = _FIELDS_SETS[key] = _SharedNames(key)
    return shared


def share_fields_set(model: BaseModel) -> None:
    """Let ``model`` share its ``model_fields_set`` with every other object that has the same.

    pydantic gives each object its own set of the names it was given, 216 to 728 bytes, as
    much as the object's values on a port of a large switch: objects with the same names (all
    the ports of a chassis) need one. An assignment to a shared object's field gives it its own
    set again (``Located.__setattr__``); nothing in fablint reads these sets.
    """
    names = model.__pydantic_fields_set__
    if names.__class__ is _SharedNames:
        return
    key = frozenset(names)
    shared = _FIELDS_SETS.get(key)
    if shared is None:
        shared = _FIELDS_SETS[key] = _SharedNames(key)
    object.__setattr__(model, "__pydantic_fields_set__", shared)


class Located(_Model):
    """Base of every model object that a finding can point at."""

    model_config = ConfigDict(extra="forbid")

    src: SourceRef | None = None
    field_src: Sources = Field(default_factory=dict)

    def __setattr__(self, name: str, value: Any) -> None:
        names = self.__pydantic_fields_set__
        if names.__class__ is _SharedNames:  # share_fields_set(): this object's own again
            object.__setattr__(self, "__pydantic_fields_set__", set(names))
        super().__setattr__(name, value)

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


class Threshold(_Model):
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
    tunnel_priorities: set[int] = Field(default_factory=set)
    """Priorities of ``no_drop`` that a vendor design makes lossless for tunnelled copies of
    the lossless traffic, not for traffic of their own: SONiC dual-ToR ports pause 2 and 6
    besides 3 and 4 (``pfc_enable: 2,3,4,6``) because the traffic a standby ToR bounces
    through its IP-in-IP tunnel is re-marked DSCP 2 / 6 (TUNNEL_QOS_REMAP)."""
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
    maps: "ClassMaps | None" = None
    """The port's own classification chain (SONiC PORT_QOS_MAP, NX-OS interface policy);
    None: the device's (``Device.maps_for``)."""


class AclBinding(Located):
    """An access list applied to a port."""

    name: str
    direction: Direction
    family: Literal["ipv4", "ipv6", "mac"] = "ipv4"


class PortMatch(_Model):
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


class MaskedMatch(_Model):
    """A header field matched under a bit mask (``value/mask``): a packet matches when its
    field ANDed with ``mask`` equals ``value`` ANDed with ``mask``."""

    model_config = ConfigDict(frozen=True)

    value: int
    mask: int = 0xFF

    def matches(self, field: int) -> bool:
        return field & self.mask == self.value & self.mask

    def __str__(self) -> str:
        return f"0x{self.value:02x}/0x{self.mask:02x}"


class AclEntry(Located):
    """One ordered entry of an access list."""

    seq: int | None = None
    name: str | None = None
    """The entry's own name where the vendor names entries (SONiC ACL_RULE key), for fixes."""
    action: AclAction
    protocol: str = "ip"
    """Protocol name (``ip``, ``udp``, ``tcp`` …) or number as text; ``ip`` matches all."""
    src_addr: str = "any"
    dst_addr: str = "any"
    src_port: PortMatch | None = None
    dst_port: PortMatch | None = None
    dscp: list[int] | None = None
    bth_opcode: MaskedMatch | None = None
    """RoCEv2 Base Transport Header opcode match (SONiC ``BTH_OPCODE``)."""
    aeth_syndrome: MaskedMatch | None = None
    """RoCEv2 ACK Extended Transport Header syndrome match (SONiC ``AETH_SYNDROME``)."""
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
            or self.bth_opcode is not None
            or self.aeth_syndrome is not None
            or bool(self.qualifiers)
        )
        return "some" if narrowed else "all"


class AclVerdict(_Model):
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


class Endpoint(_Model):
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
    buffer_pgs: "dict[int, BufferAssignment]" = Field(default_factory=dict)
    """Ingress priority group -> buffer profile (SONiC BUFFER_PG)."""
    buffer_queues: "dict[int, BufferAssignment]" = Field(default_factory=dict)
    """Egress queue -> buffer profile (SONiC BUFFER_QUEUE)."""
    cable_length_m: float | None = None
    """Cable length in metres (SONiC CABLE_LENGTH), which sizes PFC headroom."""
    neighbor: Endpoint | None = None
    """The port the configuration says is at the other end (SONiC DEVICE_NEIGHBOR)."""
    alias: str | None = None
    """Another name the device gives the port (SONiC ``PORT.alias``, which LLDP advertises)."""
    non_fabric: str | None = None
    """Why the vendor's own template keeps this port out of the lossless fabric (a SONiC DPU,
    in-band or recirculation port, a service port the QoS template leaves lossy); None for an
    ordinary port. ``field_src`` key ``non_fabric``."""


def _eos_default_dscp_map() -> dict[int, int]:
    # DSCP -> CoS by precedence (DSCP >> 3), then the default CoS -> TC map, which swaps 0 and 1
    # so that best-effort (CoS 0) sits above background (CoS 1).
    cos_to_tc = {0: 1, 1: 0}
    return {dscp: cos_to_tc.get(dscp >> 3, dscp >> 3) for dscp in range(64)}


CARRIED_CHAINS = 256
"""Distinct classification chains whose ``dscps_by_priority`` a process keeps."""
_CARRIED: dict[tuple[object, ...], dict[int, list[int]]] = {}

DEFAULT_TRAFFIC_CLASS = 0
"""The class of traffic that no map classifies (the port default: SONiC TC 0, NX-OS qos-group
0): the default, best-effort class. EOS resolves every DSCP through its default map."""

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
    no_drop_classes: set[int] | None = None
    """Traffic classes made no-drop where the platform makes classes, not priorities, lossless
    (NX-OS network-qos ``pause``; ``field_src`` keys ``no_drop_classes[N]``). None where a class
    is lossless exactly when its PFC priority is no-drop on the port (EOS, SONiC)."""

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

    def class_of_dscp(self, dscp: int) -> int:
        """Traffic class ``dscp`` is queued in: unclassified traffic is in the default class."""
        tc = self.tc_for_dscp(dscp)
        return DEFAULT_TRAFFIC_CLASS if tc is None else tc

    def dscps_by_priority(self) -> dict[int, list[int]]:
        """PFC priority -> the DSCPs whose traffic class it pauses, over all 64 DSCPs (defaults
        and unclassified traffic resolved): what traffic PFC on a priority would hold back.
        Where no-drop is per class, a priority pauses only the no-drop classes paused with it.

        One dict for every chain with the values it reads (the switches of a fabric mostly
        share their maps): callers must not change it."""
        no_drop = self.no_drop_classes
        key = (tuple(self.dscp_to_tc.items()), self.dscp_to_tc_default,
               None if no_drop is None else frozenset(no_drop),
               tuple(self.tc_to_pfc_priority.items()))
        out = _CARRIED.get(key)
        if out is None:
            if len(_CARRIED) >= CARRIED_CHAINS:
                _CARRIED.clear()
            out = _CARRIED[key] = self._dscps_by_priority()
        return out

    def _dscps_by_priority(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        # class_of_dscp and pfc_priority_of inlined: 64 DSCPs a map chain
        explicit = self.dscp_to_tc
        platform = (DEFAULT_DSCP_MAPS.get(self.dscp_to_tc_default, {})
                    if self.dscp_to_tc_default is not None else {})
        no_drop = self.no_drop_classes
        to_priority = self.tc_to_pfc_priority
        for dscp in range(64):
            tc = explicit.get(dscp)
            if tc is None:
                tc = platform.get(dscp)
                if tc is None:
                    tc = DEFAULT_TRAFFIC_CLASS
            if no_drop is not None and tc not in no_drop:
                continue
            out.setdefault(to_priority.get(tc, tc), []).append(dscp)
        return out

    def class_is_no_drop(self, tc: int, active: set[int]) -> bool:
        """Is traffic class ``tc`` lossless on a port whose PFC pauses ``active`` priorities?"""
        if self.no_drop_classes is not None and tc not in self.no_drop_classes:
            return False
        return self.pfc_priority_of(tc) in active

    def lossless_class(self, priority: int) -> int:
        """The traffic class to put traffic in so that PFC ``priority`` protects it: a no-drop
        class paused with that priority where the platform says, else the class of the same
        number (traffic class N is paused with priority N unless remapped)."""
        for tc in sorted(self.no_drop_classes or ()):
            if self.pfc_priority_of(tc) == priority:
                return tc
        for tc, prio in sorted(self.tc_to_pfc_priority.items()):
            if prio == priority:
                return tc
        return priority


class PolicySlot(_Model):
    """A kind of QoS policy through which part of the platform's QoS takes effect: settings of
    that part are in effect only through a policy bound in the slot (NX-OS modular QoS)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    """``PolicyBinding.kind`` / ``QosPolicy.kind`` of the policies that fill the slot."""
    direction: Direction | None = None
    purpose: str
    """What it carries, for messages: ``classification``, ``no-drop classes and MTU`` …"""
    device_wide: bool = False
    """Bound only device-wide (NX-OS network-qos under ``system qos``), never on a port."""


class DeviceQos(ClassMaps):
    """Device-wide QoS: the classification chain every port uses unless it has its own, and
    global switches."""

    pfc_disabled_globally: bool = False
    watchdog_defaults: Watchdog | None = None
    ecn_allow_non_ect: bool = False
    class_mtu: dict[int, int] = Field(default_factory=dict)
    """Per traffic class MTU where the platform sets one (NX-OS network-qos ``mtu``), in effect:
    a class of the bound policy without an ``mtu`` line has the platform default (not in
    ``field_src``; keys ``class_mtu[N]``)."""
    class_names: dict[int, str] = Field(default_factory=dict)
    """Traffic class -> name of the vendor object that sets its no-drop and MTU (NX-OS
    network-qos class), for fixes."""
    jumbo_mtu: int | None = None
    """Largest MTU the device allows (NX-OS ``system jumbomtu``)."""
    policy_slots: list[PolicySlot] = Field(default_factory=list)
    """The policy kinds this platform's QoS takes effect through (NX-OS: qos input, network-qos,
    queuing output); empty where QoS is configured directly (EOS, SONiC)."""


class BufferPool(Located):
    """A shared buffer pool (SONiC BUFFER_POOL). Sizes in bytes."""

    name: str
    type: Literal["ingress", "egress"] | None = None
    mode: Literal["static", "dynamic"] | None = None
    size: int | None = None
    """Size in bytes; None for the dynamic model where it is computed by the switch."""
    xoff: int | None = None
    """Shared headroom pool size (ingress lossless pool), bytes."""
    lossless: bool | None = None
    """A pool for lossless traffic (SONiC ``ingress_lossless_pool``, ``egress_lossless_pool``),
    False for a lossy one; None when the input does not say."""
    shared_headroom: bool = False
    """Lossless priority groups of this pool take their xoff headroom from a shared headroom
    pool (``xoff`` set, or sized at run time from an over-subscribe ratio) instead of each
    reserving its own."""


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
    dynamic_headroom: bool = False
    """The switch computes the headroom (SONiC ``headroom_type: dynamic``)."""

    @property
    def lossless(self) -> bool:
        """A profile with an xoff threshold (or a headroom the switch computes) is a lossless
        (headroom) profile."""
        return self.xoff is not None or self.dynamic_headroom


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


class Suppression(_Model):
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


NicVendor = Literal["nvidia", "broadcom", "other"]


class NicFirmware(_Model):
    """Where a NIC's persistent firmware configuration (an ``mlxconfig`` query) was read: what
    fixes need to make a change survive a reboot (``mlxconfig -d DEVICE set KEY_P1=VALUE``)."""

    device: str
    """What ``mlxconfig -d`` takes for the adapter: ``mlx5_0``, a PCI address or an mst path."""
    ports: list[int] = Field(default_factory=list)
    """NVConfig ports (``_P1``, ``_P2``) the NIC's values were read from: one, or every
    Ethernet port of the adapter when the output did not say which one the device is and they
    all agreed."""
    prio_mask: int | None = None
    """``ROCE_CC_PRIO_MASK`` as read (a fix that enables DCQCN on a priority adds its bit)."""
    fields: list[str] = Field(default_factory=list)
    """``field_src`` keys whose value is the firmware's: no runtime input reported them."""
    pending: dict[str, str] = Field(default_factory=dict)
    """NVConfig parameter -> its Next Boot value, where ``mlxconfig -e`` shows one that differs
    from the Current value: a change that waits for a reboot or firmware reset."""


class HostNic(Located):
    """One RoCE NIC port of a GPU host (one Linux netdev), as the host reports it.

    None (or an empty map) means the inputs did not say; rules check only what is known.
    ``field_src`` keys of per-priority and per-parameter values are ``ecn_np[3]``,
    ``ecn_rp[3]``, ``dscp_to_priority[26]`` and ``dcqcn[rpg_gd]``.
    """

    name: str
    """Netdev name (``ens1f0``)."""
    vendor: NicVendor | None = None
    """Whose NIC: decides the commands fixes print (``mlnx_qos`` and sysfs for NVIDIA)."""
    rdma_device: str | None = None
    """RDMA device of the port (``mlx5_0``), where known."""
    mtu: int | None = None
    """Netdev MTU (the IP MTU, comparable with ``Interface.mtu``)."""
    trust: TrustMode | None = None
    """How the NIC classifies received traffic: ``dscp``, or ``cos`` (mlnx_qos ``pcp``)."""
    dcbx: Literal["os", "firmware"] | None = None
    """Who owns the DCB settings (mlnx_qos ``DCBX mode``)."""
    pfc_priorities: set[int] | None = None
    """Priorities with PFC enabled; None when not reported."""
    dscp_to_priority: dict[int, int] = Field(default_factory=dict)
    """DSCP -> priority in effect under DSCP trust (unlisted DSCPs are filled in as defaulted:
    the default priority, or ``DSCP >> 3`` when the NIC printed no map)."""
    default_priority: int | None = None
    priority_to_tc: dict[int, int] = Field(default_factory=dict)
    tc_scheduling: dict[int, Literal["strict", "ets", "vendor"]] = Field(default_factory=dict)
    tc_bandwidth: dict[int, int] = Field(default_factory=dict)
    """ETS bandwidth share of each ``ets`` traffic class, percent."""
    buffer_sizes: list[int] = Field(default_factory=list)
    """Receive buffer sizes in bytes, by buffer index."""
    priority_to_buffer: dict[int, int] = Field(default_factory=dict)
    cable_length_m: float | None = None
    roce_tos: int | None = None
    """IP ToS byte RoCE traffic is sent with (``default_roce_tos``, ``traffic_class``)."""
    roce_dscp: int | None = None
    """DSCP of RoCE traffic (``roce_tos >> 2`` when only the ToS is known)."""
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    """802.1p priority of the congestion notification packets the NIC sends."""
    ecn_np: dict[int, bool] = Field(default_factory=dict)
    """DCQCN notification point (sends CNPs on ECN-marked packets), per priority."""
    ecn_rp: dict[int, bool] = Field(default_factory=dict)
    """DCQCN reaction point (slows down on CNPs), per priority."""
    dcqcn: dict[str, int] = Field(default_factory=dict)
    """DCQCN parameters by their sysfs name (``rpg_min_dec_fac``, ``min_time_between_cnps``)."""
    cabled_to: Endpoint | None = None
    """The switch port the NIC is cabled to, when the host's inputs say."""
    firmware: NicFirmware | None = None
    """The adapter's persistent configuration (``mlxconfig``), when one was read for the NIC;
    runtime inputs (mlnx_qos, sysfs, host-facts) win over it field by field."""


class HostFacts(Located):
    """What a GPU host's inputs say about its RoCE NICs (``Device.host``)."""

    nics: dict[str, HostNic] = Field(default_factory=dict)
    rdma_tos: dict[str, int] = Field(default_factory=dict)
    """RDMA device -> RoCE ToS, for devices no NIC could be matched to (``field_src`` keys
    ``rdma_tos[mlx5_0]``)."""


IbMembership = Literal["full", "limited", "both"]


class OpenSmOption(Located):
    """One ``key value`` line of an opensm.conf, as OpenSM reads it (every line is kept)."""

    key: str
    value: str
    """The rest of the line, trimmed and unquoted (OpenSM's ``clean_val``); ``(null)`` kept."""
    known: bool = True
    """An option OpenSM reads; an unknown key is ignored by OpenSM without a word."""
    close_to: str | None = None
    """For an unknown key: the OpenSM option it is a likely misspelling of."""


class OpenSmQosSet(Located):
    """One set of low-level QoS options: ``qos_`` (defaults) or ``qos_ca_``, ``qos_sw0_``,
    ``qos_swe_``, ``qos_rtr_``. None: not written, or ``(null)`` (OpenSM's built-in table)."""

    prefix: str
    max_vls: int | None = None
    high_limit: int | None = None
    vlarb_high: list[tuple[int, int]] | None = None
    """(VL, weight) pairs."""
    vlarb_low: list[tuple[int, int]] | None = None
    sl2vl: list[int] | None = None
    """VL of SL 0, 1, … (16 entries when well formed); VL 15 means drop."""


class IbPartitionMember(Located):
    """A port list entry of a partition: a keyword (``ALL``, ``ALL_CAS``, ``ALL_SWITCHES``,
    ``ALL_ROUTERS``, ``SELF``) or a port GUID."""

    name: str
    guid: int | None = None
    membership: IbMembership = "limited"
    """In effect: the member's own flag, else the partition's ``defmember``, else limited."""
    explicit: bool = False
    """The membership was written on the member (``=full``)."""


class IbMulticastGroup(Located):
    """An ``mgid=`` group pre-created in a partition, with its own flags."""

    mgid: str
    flags: list[tuple[str, str | None]] = Field(default_factory=list)


class IbPartition(Located):
    """One partitions.conf entry (``Name=PKey,flags : members ;``). Codes are the IBTA codes as
    written (``mtu=5`` is 4096 bytes); None: not written, OpenSM's default applies."""

    name: str | None = None
    pkey: int | None = None
    """As written (None: OpenSM generates one); only the low 15 bits identify the partition."""
    ipoib: bool = False
    mtu: int | None = None
    rate: int | None = None
    sl: int | None = None
    scope: int | None = None
    defmember: IbMembership | None = None
    flags: list[tuple[str, str | None]] = Field(default_factory=list)
    """Every flag of the definition in order, as written (for fixes that rewrite it)."""
    members: list[IbPartitionMember] = Field(default_factory=list)
    groups: list[IbMulticastGroup] = Field(default_factory=list)

    @property
    def pkey15(self) -> int | None:
        """The partition's identity: the P_Key without its membership bit."""
        return None if self.pkey is None else self.pkey & 0x7FFF


class OpenSmConfig(Located):
    """An OpenSM subnet manager: its opensm.conf options and the partitions it defines.

    Typed fields hold the value as written (None: not written, OpenSM's default applies;
    ``field_src`` says which line set it). ``(null)`` file names are None with a ``field_src``.
    """

    options: list[OpenSmOption] = Field(default_factory=list)
    """Every option line in file order, known to fablint or not."""
    sm_priority: int | None = None
    lmc: int | None = None
    routing_engines: list[str] | None = None
    """``routing_engine`` split as OpenSM splits it (commas, blanks); [] for ``(null)``."""
    qos: bool | None = None
    qos_policy_file: str | None = None
    partition_config_file: str | None = None
    no_partition_enforcement: bool | None = None
    allow_both_pkeys: bool | None = None
    force_link_speed: int | None = None
    force_link_speed_ext: int | None = None
    force_link_width: int | None = None
    max_op_vls: int | None = None
    sm_sl: int | None = None
    qos_sets: dict[str, OpenSmQosSet] = Field(default_factory=dict)
    """Prefix (``qos``, ``qos_ca`` …) -> its low-level QoS options, when any is written."""
    partitions: list[IbPartition] = Field(default_factory=list)
    conf_file: str | None = None
    """The opensm.conf read, if any (a partitions file may come alone)."""
    partitions_file: str | None = None
    """The partitions.conf read with it (same folder and name prefix), if any."""
    qos_policy_source: str | None = None
    """The qos-policy.conf read with it (same folder and name prefix), if any."""
    qos_policy_sls: dict[int, SourceRef] = Field(default_factory=dict)
    """SLs that QoS policy assigns (``sl:`` of its levels, ``qos-ulps`` rules), first line."""

    def option(self, key: str) -> OpenSmOption | None:
        """The line that sets ``key`` (the last one: OpenSM reads the file top to bottom)."""
        for opt in reversed(self.options):
            if opt.key == key:
                return opt
        return None


class Device(Located):
    """A switch (or later a host / IB node) with its ports and settings."""

    name: str
    vendor: Vendor = "unknown"
    role: str | None = None
    platform: str | None = None
    """Model or platform as the input names it (SONiC hwsku, EOS header, NX-OS boot image)."""
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
    headroom_in_size: bool | None = None
    """True where a lossless buffer profile's ``size`` is its headroom (xon + xoff, or xon with
    a shared headroom pool), as on NVIDIA Spectrum; None where the input does not say (Broadcom
    ASICs reserve the headroom apart from ``size``)."""
    references: list[Reference] = Field(default_factory=list)
    """Name references between configuration objects (only SONiC and NX-OS record them)."""
    suppressions: list[Suppression] = Field(default_factory=list)
    host: HostFacts | None = None
    """The RoCE NICs of a GPU host (``vendor`` ``host``); None on switches."""
    opensm: OpenSmConfig | None = None
    """The subnet manager configuration, on the device that stands for an OpenSM host."""

    @property
    def asic_family(self) -> str | None:
        """The switch ASIC family of ``platform`` (``fablint.platforms``); None: unknown."""
        return asic_family(self.platform)

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

    def pg_for_priority(self, priority: int, iface: Interface | None = None) -> int:
        """Ingress priority group that buffers (and pauses) PFC priority ``priority``: the PFC
        priority to PG map where the vendor has one, else traffic class = priority through
        the traffic-class to PG map."""
        maps = self.maps_for(iface)
        pg = maps.pfc_priority_to_pg.get(priority)
        if pg is not None:
            return pg
        return maps.tc_to_pg.get(priority, priority)

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


# -- InfiniBand discovery (ibnetdiscover, iblinkinfo, subnet lists) ---------------------------

IbNodeType = Literal["switch", "ca", "router"]
IbPortState = Literal["Down", "Initialize", "Armed", "Active"]
"""Logical port state (IBTA PortInfo:PortState)."""
IbPhysState = Literal["Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp",
                      "LinkErrorRecovery", "PhyTest"]
"""Physical port state (IBTA PortInfo:PortPhysicalState)."""


class IbSpeed(NamedTuple):
    """One InfiniBand speed generation (domain.md 2.4: libibmad strings, IBTA rate codes)."""

    name: str
    rank: int
    """Order of the generations: a higher rank carries more data per lane."""
    lane_gbps: float
    """Per-lane signalling rate as the diagnostics print it (``106.25 Gbps`` for NDR)."""
    lane_mbps: int
    """Nominal per-lane data rate in Mb/s: the 4x rate the generation is named by, over 4."""


IB_SPEEDS: dict[str, IbSpeed] = {s.name: s for s in (
    IbSpeed("SDR", 1, 2.5, 2_500),
    IbSpeed("DDR", 2, 5.0, 5_000),
    IbSpeed("QDR", 3, 10.0, 10_000),
    IbSpeed("FDR10", 4, 10.3125, 10_000),
    IbSpeed("FDR", 5, 14.0625, 14_000),
    IbSpeed("EDR", 6, 25.78125, 25_000),
    IbSpeed("HDR", 7, 53.125, 50_000),
    IbSpeed("NDR", 8, 106.25, 100_000),
    IbSpeed("XDR", 9, 212.5, 200_000),
)}
"""Generation name -> its facts; the one table every IB parser and rule goes through (the
text forms are read in ``fablint.units``). FDR10 signals 10.3125 Gb/s per lane with 64b/66b, so
it outranks QDR although both are sold as 40 Gb/s at 4x."""
IB_WIDTHS = (1, 2, 4, 8, 12)
"""Link widths in lanes (``1x`` … ``12x``)."""


_SPEED_RANKS: dict[str | None, int] = {name: info.rank for name, info in IB_SPEEDS.items()}
"""``IB_SPEEDS``' ranks by name, for ``ib_speed_rank`` (asked 350,000 times on a large dump)."""


def ib_speed_rank(speed: str | None) -> int:
    """Rank of a generation name; 0 when unknown (``???`` in a dump)."""
    return _SPEED_RANKS.get(speed, 0)


def ib_rate_mbps(speed: str | None, width: int | None) -> int | None:
    """Nominal data rate of a link in Mb/s (4x NDR: 400000), None when either is unknown."""
    info = IB_SPEEDS.get(speed or "")
    return info.lane_mbps * width if info and width else None


def fmt_guid(guid: int | None) -> str:
    """A GUID as the diagnostics print it: ``0x0002c903003421b0``."""
    return "" if guid is None else f"0x{guid:016x}"


class IbPort(Located):
    """A port of an InfiniBand node as a discovery dump shows it."""

    number: int
    guid: int | None = None
    """Port GUID of a CA or router port (a switch's ports share ``IbNode.port_guid``)."""
    lid: int | None = None
    """Base LID of a CA or router port; a switch's ports use the switch's ``IbNode.lid``."""
    lmc: int | None = None
    state: IbPortState | None = None
    """Logical state where the dump says (iblinkinfo, subnet lists); None: not shown."""
    phys_state: IbPhysState | None = None
    width: int | None = None
    """Active width in lanes (1, 2, 4, 8, 12)."""
    speed: str | None = None
    """Active speed generation (``IB_SPEEDS`` name), None when unknown (``???``)."""
    could_be_width: int | None = None
    """Widest width both ends support, where the dump says the port runs narrower
    (iblinkinfo ``Could be 4X``)."""
    could_be_speed: str | None = None
    """Fastest generation both ends support, where the dump says the port runs slower
    (iblinkinfo ``Could be 106.25 Gbps``, ``Could be FDR10``)."""
    label: str | None = None
    """Front-panel label of a switch port where ibdiagnet gives one (``1/2/1`` ASIC/cage/port
    on Quantum-2, ``1/2/1/1`` when split, ``3/2`` on a split Quantum port)."""
    mtu: int | None = None
    """Active MTU in bytes (PortInfo NeighborMTU: ibdiagnet net_dump ``MTU``, db_csv ``NMTU``)."""
    mtu_cap: int | None = None
    """Largest MTU the port supports, in bytes (PortInfo MTUCap, db_csv)."""
    fec: str | None = None
    """Active FEC mode as ibdiagnet names it (``MLNX_RS_544_514_PLR``, ``NO-FEC``)."""
    supported_widths: list[int] | None = None
    """Widths the port supports (PortInfo LinkWidthSupported), where the dump says."""
    supported_speeds: list[str] | None = None
    """Generations the port supports (LinkSpeedSupported and its extensions), where the dump
    says: what the port could run, for judging a slow link against its own hardware."""
    peer: Endpoint | None = None
    """The port at the other end of the cable: ``device`` is the peer's ``IbNode.key`` and
    ``interface`` its port number. None: nothing cabled, or the dump does not say."""

    @property
    def rate_mbps(self) -> int | None:
        return ib_rate_mbps(self.speed, self.width)


class IbNode(Located):
    """An InfiniBand node (switch, channel adapter or router) of a discovery dump.

    Not a ``Device``: a device is a configuration that fablint lints line by line, an IB node is
    what a fabric scan saw; one dump describes thousands of them. A dump that lists the same
    GUID twice yields two nodes with the same ``guid`` and distinct ``key``.
    """

    key: str
    """Unique within its dump: the node GUID (``0x…``) where the dump gives one, else the GUID
    of a port, with ``#2``, ``#3`` … for further records that claim the same identity."""
    type: IbNodeType
    guid: int | None = None
    """Node GUID, where the dump shows it (ibnetdiscover topology, subnet lists)."""
    system_guid: int | None = None
    port_guid: int | None = None
    """Port GUID of a switch (its management port 0, reported by every port of the switch)."""
    description: str | None = None
    """NodeDescription (a host name and device such as ``gpu01 mlx5_0``, or the factory
    string when nobody set one)."""
    lid: int | None = None
    """LID of a switch (its port 0)."""
    lmc: int | None = None
    port_count: int | None = None
    vendor_id: int | None = None
    device_id: int | None = None
    revision: int | None = None
    enhanced_port0: bool | None = None
    master_sm: bool = False
    """The master subnet manager runs here (subnet list ``SW-SM`` / ``CA-SM``)."""
    ports: dict[int, IbPort] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        """How messages name the node: its description, else its GUID."""
        return (self.description or "").strip() or fmt_guid(self.guid or self.port_guid) \
            or self.key


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
    width: int | None = None
    """Active width in lanes (InfiniBand links)."""
    a_speed: str | None = None
    b_speed: str | None = None
    """Active speed generation as each end reports it (InfiniBand links: ``NDR``)."""


Role = Literal["host", "leaf", "spine", "super-spine", "switch", "unknown"]


class TopologyNode(_Model):
    """A device or host as the cabling shows it, with its place in the fabric."""

    name: str
    role: Role = "unknown"
    tier: int | None = None
    """0 hosts, 1 leaves, 2 spines, 3 super-spines."""
    role_from: str = "inferred"
    """``policy`` (a name pattern in topology.roles), ``inferred`` (from the graph) or ``name``."""
    configured: bool = False
    """fablint read this device's configuration (not only seen from its neighbours)."""
    has_lldp: bool = False
    """fablint read this device's own LLDP table, so its silence about a port means something."""
    service: bool = False
    """A management or service host (UFM, login, provisioning) with one fabric link: not a
    compute server, so it counts in no ratio, bisection or homing check."""
    aggregation_nodes: int = 0
    """SHARP Aggregation Nodes folded into this switch (virtual CAs inside Quantum switches)."""
    chips: int = 0
    """Switch chips folded into this node: a director chassis (CS8500 ...) has several."""
    pod: int | None = None
    """Leaves and spines joined by leaf-spine cables share a pod number (0, 1, ...)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _VIEW_FIELDS:
            node_edited()
        super().__setattr__(name, value)


_VIEW_FIELDS = frozenset({"role", "tier", "service"})
"""What of a node the views of a topology depend on (``Topology._view``)."""
_node_edits = [0]


def node_edited() -> None:
    """Count a change of a node's role, tier or service flag, which the views of every
    topology then check again (``TopologyNode.__setattr__`` counts its own; code that writes
    a node's ``__dict__`` directly calls this)."""
    _node_edits[0] += 1


class PortEnd(_Model):
    """How the port at one end of a cable is configured, for checks across the cable."""

    interface: str
    speed_mbps: int | None = None
    mtu: int | None = None
    admin_up: bool = True
    routed: bool = False
    pfc: list[int] = Field(default_factory=list)
    """Priorities PFC is in effect for."""
    trust: str | None = None
    src: SourceRef | None = None
    neighbor: Endpoint | None = None
    """The peer the device's own configuration names (SONiC DEVICE_NEIGHBOR)."""
    neighbor_src: SourceRef | None = None


class Cable(_Model):
    """One cable, joined from what either end (LLDP, IB dump, SONiC DEVICE_NEIGHBOR) says."""

    a: Endpoint
    b: Endpoint
    a_port: PortEnd | None = None
    """The ``a`` end's configuration, when fablint read that device's configuration."""
    b_port: PortEnd | None = None
    speed_mbps: int | None = None
    """The slower end's configured or trained speed; None when neither end says."""
    confirmed: bool = False
    """Both ends report the cable."""
    sources: list[SourceRef] = Field(default_factory=list)
    origin: str = "unknown"

    @property
    def infiniband(self) -> bool:
        """From an InfiniBand dump (every IB format id starts with ``ib``): its speed is the
        trained width x generation, which the IB link rules judge per link."""
        return self.origin.startswith("ib")


class CablingIssue(_Model):
    """Claims about cabling that do not add up: one-sided, contradictory or unresolvable."""

    kind: Literal["one-sided", "contradiction", "self-loop", "missing", "extra", "miswired",
                  "wrong-speed"]
    """The first three: the files disagree with each other; the others: with the intent."""
    device: str
    interface: str
    message: str
    src: SourceRef | None = None
    related: list[SourceRef] = Field(default_factory=list)


class Bisection(_Model):
    """Bisection bandwidth of the switch fabric, with how it was obtained."""

    mbps: int
    ideal_mbps: int
    """What a non-blocking fabric offers: half the host-facing capacity, or, when the host
    ports run at different rates, the capacity of the slower half of them
    (``topology._host_limited``)."""
    method: Literal["clos", "min-cut"]
    exact: bool
    why: str


def components(pairs: Iterable[tuple[str, str]]) -> Callable[[str], str]:
    """Union-find over ``pairs`` (one implementation for every "joined by cables" question:
    fabrics, pods, planes, rail groups): returns each name's component representative; a
    name in no pair is its own."""
    return component_roots(pairs).__getitem__


def component_roots(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """``components`` as a mapping, whose keys are the names in any pair."""
    adjacent: dict[str, list[str]] = {}
    for a, b in pairs:  # (a walk over the pairs: quicker in Python than union by parent)
        if a in adjacent:
            adjacent[a].append(b)
        else:
            adjacent[a] = [b]
        if b in adjacent:
            adjacent[b].append(a)
        else:
            adjacent[b] = [a]
    return joined(adjacent)


def joined(adjacent: dict[str, list[str]] | dict[str, set[str]]) -> dict[str, str]:
    """``component_roots`` of a graph given as node -> the nodes it is joined to (such as
    ``Topology.adjacency``)."""
    root = _Roots()
    for start in adjacent:
        if start in root:
            continue
        root[start] = start
        todo = [start]
        while todo:
            for other in adjacent[todo.pop()]:
                if other not in root:
                    root[other] = start
                    todo.append(other)
    return root


class _Roots(dict[str, str]):
    """Name -> its component's representative; a name in no pair is its own."""

    def __missing__(self, name: str) -> str:
        return name


class Topology(_Model):
    """The cabling of the fabric as a graph: nodes with roles, and the cables between them.

    Derived from links (never parsed directly); built once per run before fabric-wide rules.
    """

    nodes: dict[str, TopologyNode] = Field(default_factory=dict)
    cables: list[Cable] = Field(default_factory=list)
    _index: dict[str, list[Cable]] | None = PrivateAttr(default=None)
    _indexed: int = PrivateAttr(default=-1)
    _views: dict[str, Any] = PrivateAttr(default_factory=dict)
    _views_of: tuple[Any, ...] | None = PrivateAttr(default=None)
    _adjacent: tuple[tuple[int, int], dict[str, set[str]]] | None = PrivateAttr(default=None)
    _pairs: tuple[tuple[int, int], list[tuple[str, str]]] | None = PrivateAttr(default=None)
    _roots: tuple[tuple[int, int], dict[str, str]] | None = PrivateAttr(default=None)
    issues: list[CablingIssue] = Field(default_factory=list)
    bisection: Bisection | None = None
    internal: list[Cable] = Field(default_factory=list)
    """Chip-to-chip links inside director chassis: neither cables nor tiers."""
    management_links: int = 0
    """LLDP neighbours seen on management / out-of-band ports, left out of the fabric."""
    aggregation_nodes: int = 0
    """SHARP Aggregation Nodes left out of the fabric (see ``TopologyNode.aggregation_nodes``)."""

    def role(self, name: str) -> Role:
        node = self.nodes.get(name)
        return node.role if node else "unknown"

    def _view(self, what: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, again only when the cables, the nodes or a node's role, tier or
        service changed since: a view of the whole fabric that the bisection, several rules
        and the reports each ask for (one pass over 50,000 cables each time; this check is
        a pass over the nodes' names and objects, and the count of node edits)."""
        nodes = self.nodes
        # (the nodes themselves, not their ids: the same objects compare by identity, with
        # no int made and compared for each; a node replaced by an equal one, whose views
        # are the same, compares equal)
        state = (id(self.cables), len(self.cables), _node_edits[0], tuple(nodes),
                 tuple(nodes.values()))
        # (the private attributes from their dict: each read of one by name goes through
        # pydantic's __getattr__ in Python)
        private = self.__pydantic_private__
        assert private is not None
        if state != private["_views_of"]:
            private["_views"], private["_views_of"] = {}, state
        views = private["_views"]
        if what not in views:
            views[what] = compute()
        return views[what]

    def roles(self) -> dict[str, Role]:
        """Each node's role by name: what the placement, the bisection and several rules look
        up for every node or cable end. A view (see ``_view``): read it, never change it."""
        return self._view("roles", lambda: {  # type: ignore[no-any-return]
            name: node.role for name, node in self.nodes.items()})

    def tier_groups(self, lower: Role, upper: Role) -> list[set[str]]:
        """The switches of two adjacent tiers joined by cables between those tiers: a pod
        (leaves and spines), a plane (spines and super-spines)."""
        groups = self._view(f"groups {lower} {upper}", lambda: self._tier_groups(lower, upper))
        return [set(group) for group in groups]

    def _tier_groups(self, lower: Role, upper: Role) -> list[set[str]]:
        key = (lower, upper) if lower <= upper else (upper, lower)
        ends = [(a, b) for a, b, _ in self.role_edges().get(key, ())]
        find = components(ends)
        groups: dict[str, set[str]] = {}
        for a, b in ends:
            groups.setdefault(find(a), set()).update((a, b))
        return list(groups.values())

    def role_edges(self) -> dict[tuple[str, str], list[tuple[str, str, Cable]]]:
        """The cables by the roles of their ends (the two roles in order, ``("leaf",
        "spine")``), each as (a device, b device, cable), in the cables' order; a device
        that is no node is ``unknown``. A view (see ``_view``): read it, never change it."""
        return self._view("role edges", self._role_edges)  # type: ignore[no-any-return]

    def _role_edges(self) -> dict[tuple[str, str], list[tuple[str, str, Cable]]]:
        get = self.roles().get
        edges: dict[tuple[str, str], list[tuple[str, str, Cable]]] = {}
        # (one dict look-up per end: 50,000 cables)
        for (a, b), cable in zip(self.device_pairs(), self.cables, strict=True):
            ra, rb = get(a, "unknown"), get(b, "unknown")
            key = (ra, rb) if ra <= rb else (rb, ra)
            if key in edges:
                edges[key].append((a, b, cable))
            else:
                edges[key] = [(a, b, cable)]
        return edges

    def adjacency(self) -> dict[str, set[str]]:
        """Node -> the nodes its cables reach (itself too, over a cable to itself). Shared
        between callers: read it, never change it. It depends on the cables only, so unlike
        the other views (``_view``) it outlives changes of roles and tiers."""
        state = (id(self.cables), len(self.cables))
        if self._adjacent is None or self._adjacent[0] != state:
            self._adjacent = (state, self._adjacency())
        return self._adjacent[1]

    def roots(self) -> dict[str, str]:
        """Each cabled node's component representative (``joined`` of ``adjacency``): the
        separate fabrics, which several rules ask for. Like ``adjacency`` it depends on the
        cables only; read it, never change it."""
        state = (id(self.cables), len(self.cables))
        if self._roots is None or self._roots[0] != state:
            self._roots = (state, joined(self.adjacency()))
        return self._roots[1]

    def found_adjacency(self, adjacent: dict[str, set[str]]) -> None:
        """Take ``adjacent`` as the adjacency of the cables as they are now (what
        ``_adjacency`` would make: their builder made it on the way)."""
        self._adjacent = ((id(self.cables), len(self.cables)), adjacent)

    def _adjacency(self) -> dict[str, set[str]]:
        adjacent: dict[str, set[str]] = {}
        for cable in self.cables:
            a, b = cable.a.device, cable.b.device
            if a in adjacent:
                adjacent[a].add(b)
            else:
                adjacent[a] = {b}
            if b in adjacent:
                adjacent[b].add(a)
            else:
                adjacent[b] = {a}
        return adjacent

    def device_pairs(self) -> list[tuple[str, str]]:
        """(``a`` device, ``b`` device) of each cable, in the cables' order: what the views'
        passes over 50,000 cables read of them. Like ``adjacency`` it depends on the cables
        only; read it, never change it."""
        state = (id(self.cables), len(self.cables))
        if self._pairs is None or self._pairs[0] != state:
            self._pairs = (state, [(c.a.device, c.b.device) for c in self.cables])
        return self._pairs[1]

    def found_pairs(self, pairs: list[tuple[str, str]]) -> None:
        """Take ``pairs`` as ``device_pairs`` of the cables as they are now (their builder
        made them on the way)."""
        self._pairs = ((id(self.cables), len(self.cables)), pairs)

    def found_index(self, index: dict[str, list[Cable]]) -> None:
        """Take ``index`` as ``cables_of``'s index of the cables as they are now (their
        builder made it on the way)."""
        self._index, self._indexed = index, len(self.cables)

    def cables_of(self, name: str) -> list[Cable]:
        """The cables of one node (indexed on first use; the topology is built once)."""
        private = self.__pydantic_private__  # (as in ``_view``: a rule asks once a node)
        assert private is not None
        index = private["_index"]
        if index is None or private["_indexed"] != len(self.cables):
            index = {}
            for cable in self.cables:
                index.setdefault(cable.a.device, []).append(cable)
                if cable.b.device != cable.a.device:
                    index.setdefault(cable.b.device, []).append(cable)
            self._index, self._indexed = index, len(self.cables)
        return index.get(name, [])

    def capacities(self, name: str) -> tuple[int, int, int]:
        """(down, up, cables of unknown speed) of a node, in Mb/s: towards lower and higher
        tiers. Cables within a tier (MLAG peer links) and to service hosts count in neither."""
        node = self.nodes[name]
        down = up = unknown = 0
        for cable in self.cables_of(name):
            other = cable.b.device if cable.a.device == name else cable.a.device
            other_node = self.nodes.get(other)
            other_tier = other_node.tier if other_node else None
            if node.tier is None or other_tier is None or other_tier == node.tier \
                    or (other_node is not None and other_node.service):
                continue  # (service hosts, UFM or login, are not what the fabric serves)
            if cable.speed_mbps is None:
                unknown += 1
            elif other_tier < node.tier:
                down += cable.speed_mbps
            else:
                up += cable.speed_mbps
        return down, up, unknown

    def capacity_table(self) -> dict[str, tuple[int, int, int]]:
        """``capacities`` of every node at once, in one pass over the cables (nodes without
        such cables: (0, 0, 0)); for callers that want them all."""
        return dict(self._view("capacities", self._capacity_table))

    def _capacity_table(self) -> dict[str, tuple[int, int, int]]:
        nodes = self.nodes
        # each node's tier and service flag read once (not once a cable end): a node not
        # in ``nodes`` has no tier either
        tiers: dict[str, int | None] = {}
        service: set[str] = set()
        for name, node in nodes.items():
            values = node.__dict__
            tiers[name] = values["tier"]
            if values["service"]:
                service.add(name)
        get = tiers.get
        down: dict[str, int] = dict.fromkeys(nodes, 0)
        up = down.copy()
        unknown = down.copy()
        for (a, b), cable in zip(self.device_pairs(), self.cables, strict=True):
            if a == b:
                continue  # (a cable to itself joins one tier to itself)
            tier_a, tier_b = get(a), get(b)
            if tier_a is None or tier_b is None or tier_a == tier_b:
                continue
            speed = cable.speed_mbps
            # (service hosts, UFM or login, are not what the fabric serves)
            if b not in service:
                if speed is None:
                    unknown[a] += 1
                elif tier_b < tier_a:
                    down[a] += speed
                else:
                    up[a] += speed
            if a not in service:
                if speed is None:
                    unknown[b] += 1
                elif tier_a < tier_b:
                    down[b] += speed
                else:
                    up[b] += speed
        return {name: (down[name], up[name], unknown[name]) for name in nodes}


class ParseProblem(_Model):
    """Something in an input that could not be understood."""

    file: str
    line: int | None = None
    message: str
    kind: Literal["parse-error", "unsupported", "invalid-value", "unreadable",
                  "partial"] = "invalid-value"
    fatal: bool = False
    """True when the file as a whole could not be used."""


class InputFile(_Model):
    """One file that was read, with what was made of it."""

    path: str
    format: str | None = None
    vendor: Vendor | None = None
    """Vendor of the devices the file describes (its format's), for reports that group by it."""
    bytes: int = 0
    lines: int = 0
    unknown_lines: int = 0
    """Lines skipped because the parser does not model them."""
    first_unknown: int | None = None
    """Line of the first of them."""
    devices: list[str] = Field(default_factory=list)
    hostname_lines: dict[str, int] = Field(default_factory=dict)
    """Line of each device's name, for messages about duplicate names."""
    explicit: bool = False
    """Named on the command line (as opposed to found in a folder)."""
    ib_nodes: int = 0
    """InfiniBand nodes the file describes (discovery dumps)."""
    secrets: list[str] = Field(default_factory=list, exclude=True, repr=False)
    """Secret values the file holds (``fablint.redact``), to be masked in every output."""


class Fabric(_Model):
    """Everything that was read: the devices, the links between them and what went wrong."""

    devices: dict[str, Device] = Field(default_factory=dict)
    links: list[Link] = Field(default_factory=list)
    topology: Topology | None = None
    """Cables joined from ``links`` with roles and tiers; set by the engine when links exist."""
    ib_nodes: list[IbNode] = Field(default_factory=list)
    """InfiniBand nodes of the discovery dumps read (one entry per record: duplicates stay)."""
    inputs: list[InputFile] = Field(default_factory=list)
    problems: list[ParseProblem] = Field(default_factory=list)


def _prime_shared_keys() -> None:
    """Give each model class the instance-dict keys its compacted objects share.

    CPython (3.11+) lets the instances of a class share one table of attribute names, built
    from the first instance whose attributes are set one by one; but every instance made
    before that (pydantic makes its own objects with a dict of their own) shrinks the room the
    table may still grow by, and after a few dozen there is none: the objects that
    ``parsers.build.Compactor`` rebuilds would each get a whole dict again. One object per
    class, made here before any other, sets the table up with every field name."""
    for cls in list(globals().values()):
        if isinstance(cls, type) and issubclass(cls, BaseModel) and cls is not BaseModel:
            sample = object.__new__(cls)
            for name in cls.model_fields:
                object.__setattr__(sample, name, None)


_prime_shared_keys()
