"""SONiC CONFIG_DB (``config_db.json`` and rendered ``qos.json`` / ``buffers.json``) into the model.

Shapes read: nested tables (``{"PORT": {"Ethernet0": {…}}}``), the flat redis dump
(``{"PORT|Ethernet0": {…}}``, optionally ``{"type": "hash", "value": {…}}`` wrapped, list fields
spelled ``ports@: "a,b"``) and a document whose only SONiC content sits under one top-level
wrapper key (the sonic-yang-models test files), which is unwrapped. References are read both as
names (``"AZURE"``) and in the legacy form (``"[DSCP_TO_TC_MAP|AZURE]"``). Keys of QUEUE,
BUFFER_PG and BUFFER_QUEUE may name several ports and ranges (``Ethernet0,Ethernet4|3-4``) or a
VOQ system port (``host|asic0|Ethernet0|3``: a linecard lists every system port's queues; the
local ones are those of DEVICE_METADATA's hostname and ``asic_name``, or, in a fragment that
names no matching host, of the first ``host|asic`` its keys use).

A device is often several files. ``parse_documents`` groups the documents of one folder by
``DEVICE_METADATA.localhost.hostname`` (a nameless fragment by the hostname its file name carries,
else with the folder's only device when the nameless fragments do not contradict each other;
see ``_group``) and merges their tables field by field, the later file winning, like
``sonic-cfggen -j a -j b``; every value keeps the file and line of its own key.

Decisions (SONiC semantics where documented, ours where not):

- A port is down unless ``admin_status`` is ``up`` (portmgrd); a port-channel is up unless it
  says ``down`` (teammgrd). IP MTU is ``PORT.mtu``, else 9100.
- A port is routed when it has an INTERFACE entry, or is a member of a port-channel with a
  PORTCHANNEL_INTERFACE entry. A *fragment* (a group of documents without a PORT table, such as a
  rendered qos.json) says nothing about layer 3: the ports of its PORT_QOS_MAP are taken as
  routed, up fabric ports with unknown MTU, so that the QoS rules check them (the QoS is what a
  fragment is for); ports named only by QUEUE or BUFFER_* keys are kept for their buffers but
  not taken as routed (a buffers.json alone would otherwise fail every PFC rule).
- PFC: ``pfc_enable`` lists the lossless priorities; empty or missing means PFC off.
- ECN: a queue marks RoCE (green traffic) when its WRED_PROFILE ``ecn`` mode includes green
  (``ecn_green*``, ``ecn_all``); thresholds and probability are the green ones. It drops early
  (WRED) when ``wred_green_enable`` is true and green is not ECN-marked.
- PFC watchdog: a PFC_WD entry for the port turns it on; without one, ``DEVICE_METADATA
  default_pfcwd_status: enable`` starts it with the CLI defaults (200 ms, action drop).
- Buffers: a pool is lossless or lossy by its name (``ingress_lossless_pool``,
  ``egress_lossy_pool``, the names every SONiC template uses); it lends shared headroom when it
  has an ``xoff`` or, for ``ingress_lossless_pool``, when DEFAULT_LOSSLESS_BUFFER_PARAMETER has a
  non-zero ``over_subscribe_ratio`` (buffer_headroom_mellanox.lua). ``headroom_type: dynamic``
  makes a profile lossless. A profile's ``size`` holds its headroom on NVIDIA Spectrum
  (``platform`` / ``hwsku`` naming mlnx, Mellanox or NVIDIA) and under the dynamic buffer
  model; Broadcom tables reserve headroom apart from ``size``, so elsewhere it is unknown.
- ACL tables: data-plane ACL tables are default-permit ("If users have not configured any rule,
  SONiC allows all traffic", sonic-utilities Command Reference); acl-loader writes the deny as an
  explicit DEFAULT_RULE. Rules are ordered by PRIORITY, highest first; ``AclEntry.seq`` holds it.
  Control-plane tables (CTRLPLANE) are not modelled. ``BTH_OPCODE`` and ``AETH_SYNDROME``
  (``0x11/0xbf``: value/mask of the RoCEv2 header byte) are read as masked matches.
- Dangling references (QUEUE -> WRED_PROFILE, PORT_QOS_MAP -> maps, BUFFER_PG -> BUFFER_PROFILE,
  member ports …) are recorded in ``Device.references`` with ``resolved`` False, never fatal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice, repeat
from pathlib import PurePath
from typing import Any, NamedTuple

from pydantic import ValidationError

from fablint import units
from fablint.model import (
    AclBinding,
    Aqm,
    BufferAssignment,
    ClassMaps,
    Device,
    Endpoint,
    Interface,
    LinkPause,
    ParseProblem,
    Pfc,
    QosSettings,
    Queue,
    Reference,
    SourceRef,
    Watchdog,
    shared_names,
)
from fablint.parsers.base import EVERY_REFERENCE, ParseError, ParseResult, reject_nul
from fablint.parsers.build import Obj, new_device, new_interface, new_watchdog
from fablint.parsers.jsonlines import (
    _CONTAINERS,
    JsonSyntaxError,
    LinedDict,
    _keys_in,
    _lined,
    key_lines,
    lined,
    load,
)
from fablint.trusted import Maker, _new, _set_dict, _set_extra, _set_fields, _set_private, bare

SONIC_DEFAULT_MTU = 9100
PFCWD_DEFAULT_MS = 200.0
"""``pfcwd start_default`` detection and restoration time."""
MAX_QUEUE_ID = 63

MAPS = {
    # PORT_QOS_MAP field -> (map table, ClassMaps field, key max, value max)
    "dscp_to_tc_map": ("DSCP_TO_TC_MAP", "dscp_to_tc", 63, 15),
    "dot1p_to_tc_map": ("DOT1P_TO_TC_MAP", "cos_to_tc", 7, 15),
    "tc_to_queue_map": ("TC_TO_QUEUE_MAP", "tc_to_queue", 15, MAX_QUEUE_ID),
    "tc_to_pg_map": ("TC_TO_PRIORITY_GROUP_MAP", "tc_to_pg", 15, 7),
    "pfc_to_queue_map": ("MAP_PFC_PRIORITY_TO_QUEUE", "pfc_priority_to_queue", 7, MAX_QUEUE_ID),
    "pfc_to_pg_map": ("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "pfc_priority_to_pg", 7, 7),
}
MODELLED = frozenset({
    "DEVICE_METADATA", "PORT", "PORTCHANNEL", "PORTCHANNEL_MEMBER", "INTERFACE",
    "PORTCHANNEL_INTERFACE", "VLAN_INTERFACE", "LOOPBACK_INTERFACE", "PORT_QOS_MAP", "QUEUE",
    "SCHEDULER", "WRED_PROFILE", "BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE",
    "CABLE_LENGTH", "PFC_WD", "ACL_TABLE", "ACL_RULE", "DEVICE_NEIGHBOR",
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
    *(table for table, *_ in MAPS.values()),
})
SIGNAL_TABLES = MODELLED | {
    "VLAN", "VLAN_MEMBER", "BGP_NEIGHBOR", "MGMT_INTERFACE", "FEATURE", "LOOPBACK",
    "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST", "TC_TO_DSCP_MAP",
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER", "LOSSLESS_TRAFFIC_PATTERN", "FLEX_COUNTER_TABLE",
    "SYSTEM_PORT", "VOQ_INBAND_INTERFACE", "DEVICE_NEIGHBOR_METADATA", "SYSTEM_DEFAULTS",
    "BGP_DEVICE_GLOBAL", "BGP_INTERNAL_NEIGHBOR", "BGP_VOQ_CHASSIS_NEIGHBOR", "CRM",
    "PORTCHANNEL_MEMBER", "SNMP_COMMUNITY", "NTP_SERVER", "SYSLOG_SERVER", "TACPLUS_SERVER",
    "MGMT_PORT", "KDUMP", "AUTO_TECHSUPPORT", "CONSOLE_SWITCH", "PFC_WD", "BREAKOUT_CFG",
}
"""Table names that mark a JSON document as SONiC CONFIG_DB."""
_SIGNAL_ANYWHERE = re.compile(
    '"(' + "|".join(sorted(SIGNAL_TABLES, key=len, reverse=True)) + r')(?:\|[^"]*)?"\s*:')
"""A known table name as a JSON key, searched through a whole document: the tables of a
config_db.json come in any order (sonic-cfggen dumps a dict), and a chassis linecard's
SYSTEM_PORT table alone can fill the head that ``sniff`` reads."""
_SIGNAL = re.compile(r'"([A-Z][A-Z0-9_]*)(?:\|[^"]*)?"\s*:')
_TEMPLATE = ("{%", "{{", "{#")
SNIFF_HEAD = 16 * 1024
_LEGACY_REF = re.compile(r"^\[([A-Z_0-9]+)\|(.*)\]$")
_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                        r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_CABLE = re.compile(r"^(\d+(?:\.\d+)?)\s*m?$")
_SCHEDULING = {"STRICT": "strict", "DWRR": "dwrr", "WRR": "wrr"}
_GREEN_ECN = frozenset({"ecn_green", "ecn_green_yellow", "ecn_green_red", "ecn_all"})
_PROTOCOLS = {1: "icmp", 6: "tcp", 17: "udp", 58: "icmpv6"}
_IP_TYPES = frozenset({"ANY", "IP", "IPV4", "IPV4ANY", "IPV6", "IPV6ANY"})
_IP_ETHERTYPES = frozenset({0x0800, 0x86DD})
_ACL_META = frozenset({"PRIORITY", "PACKET_ACTION"})
_ACL_NON_MATCH_PREFIXES = ("MIRROR", "REDIRECT", "COUNTER", "POLICER", "INNER_SRC_MAC_REWRITE")
_MASKED = re.compile(r"^(0[xX][0-9a-fA-F]{1,2}|\d{1,3})(?:/(0[xX][0-9a-fA-F]{1,2}|\d{1,3}))?$")
_ROCE_HEADER_FIELDS = {"BTH_OPCODE": "bth_opcode", "AETH_SYNDROME": "aeth_syndrome"}
_new_tuple = tuple.__new__
"""``SourceRef(file, line)`` without the Python-level ``__new__`` of a NamedTuple (one per
field of every row)."""
_INTERFACE = Maker(Interface, required=False)
_QOS = Maker(QosSettings, required=False)
_PFC = Maker(Pfc, required=False)
_WATCHDOG = Maker(Watchdog, required=False)
_PAUSE = Maker(LinkPause, required=False)
_EVERY_BINDING = set(AclBinding.__pydantic_fields__)
_EVERY_ENDPOINT = set(Endpoint.__pydantic_fields__)
"""The one ``model_fields_set`` of every ACL binding and neighbour (every field given), as
``Maker`` shares one among the objects it gives every field."""


def _acl_binding(name: str, direction: str, family: str, src: SourceRef) -> AclBinding:
    """``AclBinding.model_validate({"name": …, "direction": …, "family": …, "src": src,
    "field_src": {}})`` (``Maker``, written out: one per port an ACL table lists)."""
    return bare(AclBinding, {"src": src, "field_src": {}, "name": name, "direction": direction,
                             "family": family}, _EVERY_BINDING)


def _endpoint(device: str, interface: str) -> Endpoint:
    """``Endpoint.model_validate({"device": …, "interface": …})`` (``Maker``, written out:
    one per DEVICE_NEIGHBOR row)."""
    return bare(Endpoint, {"device": device, "interface": interface}, _EVERY_ENDPOINT)


def _trusted_interface(iface: Obj) -> Interface:
    """``Interface.model_validate(iface)`` of a port the builder made (``Maker``, object by
    object: its QoS, PFC, watchdog and pause; the queues, buffer assignments, ACL bindings
    and neighbour are objects already). Validation costs some 12 us a port, five objects with
    their default factories; every container here is the port's own, as validation's copies
    would be."""
    qos = iface["qos"]
    pfc = qos["pfc"]
    pause = qos["pause"]
    values = {**iface, "qos": _QOS({
        **qos, "pause": pause if pause.__class__ is not dict else _PAUSE(pause),
        "pfc": _PFC({**pfc, "watchdog": _WATCHDOG(pfc["watchdog"])})})}
    return _INTERFACE(values)  # type: ignore[no-any-return]


def _parts(maker: Maker[Any]) -> tuple[dict[str, Any], frozenset[str], set[str], type]:
    """What ``_fast_interface`` needs of a Maker: its template, the fields it fills from a
    default factory, its every-field set and its class."""
    return (maker.template, frozenset(name for name, _ in maker.factories), maker.every,
            maker.cls)


_IF_PARTS, _QOS_PARTS, _PFC_PARTS, _WD_PARTS, _PAUSE_PARTS = map(
    _parts, (_INTERFACE, _QOS, _PFC, _WATCHDOG, _PAUSE))
_PFC_FILLED = _PFC_PARTS[1] - {"tunnel_priorities"}
"""The factory fields a builder's PFC holds (``new_pfc``): only ``tunnel_priorities`` is
filled here (an empty set) when the port has none."""


def _made(cls: type, data: dict[str, Any], values: dict[str, Any], every: set[str]) -> Any:
    """The object ``Maker`` makes of ``data`` (every field, in order) given ``values``."""
    return bare(cls, data, every if len(values) == len(every) and values.keys() == every
                else set(values))


def _fast_interface(iface: Obj) -> Interface:
    """``_trusted_interface`` of a port whose dicts hold every default-factory field (what
    ``new_iface`` makes), one merge per object: a switch has dozens of ports, five objects
    each. Any other port takes ``_trusted_interface``. A pause that is a model already is the
    one the builder's ports share (``_SonicBuilder.pause``)."""
    qos = iface["qos"]
    pfc = qos["pfc"]
    watchdog = pfc["watchdog"]
    pause = qos["pause"]
    shared = pause.__class__ is not dict
    if not (_IF_PARTS[1] <= iface.keys() and _QOS_PARTS[1] <= qos.keys()
            and pfc.keys() >= _PFC_FILLED and _WD_PARTS[1] <= watchdog.keys()
            and (shared or _PAUSE_PARTS[1] <= pause.keys())):
        return _trusted_interface(iface)
    template, _, every, cls = _WD_PARTS
    made_watchdog = _made(cls, {**template, **watchdog}, watchdog, every)
    template, _, every, cls = _PFC_PARTS
    data = {**template, **pfc, "watchdog": made_watchdog}
    if "tunnel_priorities" not in pfc:
        data["tunnel_priorities"] = set()
    made_pfc = _made(cls, data, pfc, every)
    if shared:
        made_pause = pause
    else:
        template, _, every, cls = _PAUSE_PARTS
        made_pause = _made(cls, {**template, **pause}, pause, every)
    template, _, every, cls = _QOS_PARTS
    made_qos = _made(cls, {**template, **qos, "pause": made_pause, "pfc": made_pfc}, qos, every)
    template, _, every, cls = _IF_PARTS
    return _made(cls, {**template, **iface, "qos": made_qos}, iface, every)  # type: ignore[no-any-return]


_interface: Any = _fast_interface
_GIVEN = shared_names({"src", "kind", "name", "owner"})
_GIVEN_UNRESOLVED = shared_names({*_GIVEN, "resolved"})
"""The ``model_fields_set`` of every reference (``model.shared_names``: one set for all)."""


def _reference(kind: str, name: str, owner: str, src: SourceRef, resolved: bool) -> Reference:
    """``Reference.model_validate({"kind": …, "name": …, "owner": …, "src": …})``, with
    ``"resolved": False`` given only when it does not resolve (``Maker``, written out for
    the most numerous object of a switch: about two per QUEUE and BUFFER_* row)."""
    return bare(Reference, {"src": src, "field_src": {}, "kind": kind, "name": name,
                            "owner": owner, "resolved": resolved},
                _GIVEN if resolved else _GIVEN_UNRESOLVED)


@dataclass(slots=True)
class _QueuePlan:
    """What the scheduler and WRED profile spelled in a QUEUE row resolve to: the same for
    every port's row that spells them alike."""

    scheduler: str | None = None
    scheduler_row: Row | None = None
    wred: str | None = None
    wred_row: Row | None = None
    mode: str | None = None
    kind: str | None = None
    ecn: Aqm | None = None
    drop: Aqm | None = None
    wrong_type: bool = False
    given: set[str] = field(default_factory=set)
    """The ``model_fields_set`` of its queues (shared)."""
    links: list[tuple[str, str, str, bool, tuple[str, ...]]] = field(default_factory=list)
    """(row field, referenced table, name, resolved, the queue fields it sets) of each
    reference the row makes, in the order they are recorded."""
    quiet: bool | None = None
    """Whether a row of this spelling records no reference any more (each resolved, and one
    of its kind recorded already, ``record``'s rule): None until known."""
    single: tuple[str, str] | None = None
    """(row field, queue field) when the row's queues take one source, from one field, and
    record nothing (``quiet``): the rows of most spellings, made without the general loop."""

    def quiet_after(self, seen: set[str] | tuple[()]) -> None:
        """Learn ``quiet`` (and ``single``) once the first row of the spelling recorded its
        references, ``seen`` being the kinds of which one resolved reference is recorded."""
        self.quiet = all(resolved and kind in seen for _, kind, _, resolved, _ in self.links)
        sources = [(field_name, target) for field_name, _, _, _, targets in self.links
                   for target in targets]
        if self.quiet and len(sources) == 1:
            self.single = sources[0]


@dataclass(slots=True)
class _MapsPlan:
    """What the maps spelled in a PORT_QOS_MAP row bind (``_SonicBuilder.maps_plan``)."""

    chosen: Chosen
    bound: list[tuple[str, str, str, bool]] = field(default_factory=list)
    """(field, map table, name, resolved) of each map the row names, in ``MAPS`` order."""
    key: tuple[tuple[str, str], ...] = ()
    """The maps chosen, by ClassMaps field: rows with the same share one ClassMaps."""


_ASSIGNED_PROFILE = shared_names({"src", "field_src", "profile"})
_ASSIGNED_DYNAMIC = shared_names({"src", "field_src", "dynamic"})


def _bare_assignment(src: SourceRef, profile: str | None,
                     ref: SourceRef | None) -> BufferAssignment:
    """``BufferAssignment.model_validate`` of ``{"src": src, "field_src": {"profile": ref},
    "profile": profile}``, or of ``{"src": src, "field_src": {}, "dynamic": True}`` when no
    profile is named (``Maker``, written out: one per BUFFER_PG and BUFFER_QUEUE row of every
    port; ``assignment``'s answer)."""
    if profile is None:
        return bare(BufferAssignment, {"src": src, "field_src": {}, "profile": None,
                                       "dynamic": True}, _ASSIGNED_DYNAMIC)
    return bare(BufferAssignment, {"src": src, "field_src": {"profile": ref},
                                   "profile": profile, "dynamic": False}, _ASSIGNED_PROFILE)


_buffer_assignment = _bare_assignment
"""What ``buffers`` makes an assignment with when tests swap in validation (else written
out)."""


def _bare_queue(queue_id: int, src: SourceRef, refs: dict[str, SourceRef],
                plan: _QueuePlan) -> Queue:
    """``Queue.model_validate({"id": …, "src": …, "field_src": refs, **fields})`` where the
    fields are the plan's ``scheduling``, ``ecn`` and ``wred`` that are set (``Maker``,
    written out: one per queue of every port)."""
    return bare(Queue, {"src": src, "field_src": refs.copy(), "id": queue_id, "name": None,
                        "scheduling": plan.mode, "bandwidth_percent": None, "ecn": plan.ecn,
                        "wred": plan.drop}, plan.given)


_queue = _bare_queue
"""What ``queues`` makes a queue with when tests swap in validation (else written out)."""


_SPECTRUM = re.compile(r"mlnx|mellanox|nvidia", re.IGNORECASE)
"""DEVICE_METADATA ``platform`` / ``hwsku`` of NVIDIA Spectrum switches
(``x86_64-mlnx_msn2700-r0``, ``x86_64-nvidia_sn5600-r0``, ``Mellanox-SN5600-C256S1``)."""


_NON_FABRIC_ROLES = {"dpc": "a port to a DPU", "inb": "the in-band port",
                     "rec": "a recirculation port"}
"""SONiC ``PORT.role`` values of ports the QoS template leaves out of the lossless fabric
(``Ext`` front-panel and ``Int`` backplane ports are fabric ports)."""
_NON_FABRIC_NAMES = ("Ethernet-IB", "Ethernet-Rec")
"""Names of the in-band and recirculation ports of VOQ chassis, which qos_config.j2 skips."""
_DUAL_TOR_PFC = frozenset({2, 3, 4, 6})
"""``pfc_enable`` of the ports of a SONiC dual-ToR design (qos_config.j2: ports towards the
other tier when TUNNEL_QOS_REMAP is enabled, ``port_names_list_extra_queues``)."""
_TUNNEL_PRIORITIES = frozenset({2, 6})
"""The priorities of that design that carry the tunnelled copies of lossless TC 3 and 4,
re-marked DSCP 2 and 6 (TC_TO_DSCP_MAP AZURE_TUNNEL)."""


def _tunnel_lossless(maps: ClassMaps) -> bool:
    """The port's map keeps priority 2 for DSCP 2 and priority 6 for DSCP 6 (or for nothing),
    as the dual-ToR DSCP_TO_TC_MAP does: then pausing them protects the tunnelled lossless
    traffic, not lossy traffic that happens to share the priority."""
    carried = maps.dscps_by_priority()
    return all(carried.get(p, []) in ([], [p]) for p in _TUNNEL_PRIORITIES)


# -- loading ---------------------------------------------------------------------------------


class Row(NamedTuple):
    """One CONFIG_DB entry (``TABLE|key``) with the place of the key and of each field. A
    tuple: the rows of a table of plain rows are made in one C-level pass (``read_plain``)."""

    table: str
    key: str
    fields: dict[str, Any]
    src: SourceRef
    lines: dict[str, int]
    """Line of each field's key (in ``src.file``)."""
    merged: dict[str, SourceRef] | None = None
    """Where each field came from, for a row merged from several documents."""

    @property
    def owner(self) -> str:
        return f"{self.table}|{self.key}"

    def ref(self, name: str) -> SourceRef:
        if self.merged is not None:
            return self.merged.get(name, self.src)
        line = self.lines.get(name)
        return _new_tuple(SourceRef, (self.src.file, line)) if line is not None else self.src


Tables = dict[str, dict[str, Row]]
Chosen = dict[str, tuple[Row, dict[int, int], dict[str, SourceRef]]]
"""ClassMaps field -> (map row, its entries, their ``field_src``)."""


@dataclass
class Document:
    """One loaded file: its tables and what went wrong reading them."""

    path: str
    tables: Tables
    lines: int
    unknown: int
    problems: list[ParseProblem] = field(default_factory=list)
    first_unknown: int | None = None
    """Line of the first table fablint does not model."""

    @property
    def hostname(self) -> str | None:
        row = self.tables.get("DEVICE_METADATA", {}).get("localhost")
        name = row.fields.get("hostname") if row is not None else None
        return name.strip() if isinstance(name, str) and name.strip() else None


def _is_table_key(key: str) -> bool:
    return key.split("|", 1)[0] in SIGNAL_TABLES


def _row_fields(value: Any, list_fields: bool) -> dict[str, Any] | None:
    """The fields of a row: the redis-dump ``{"type": "hash", "value": {…}}`` is unwrapped and
    (when the text has any) ``name@`` list fields, comma-joined in the dump, become lists."""
    if not isinstance(value, dict):
        return None
    if value.get("type") == "hash" and isinstance(value.get("value"), dict):
        value = value["value"]
    if list_fields and any(k.endswith("@") for k in value):
        out = LinedDict()
        lines = getattr(value, "lines", {})
        for key, item in value.items():
            name = key[:-1] if key.endswith("@") else key
            out[name] = item.split(",") if key.endswith("@") and isinstance(item, str) else item
            if key in lines:
                out.lines[name] = lines[key]
        return out
    return value


class _DocumentLoader:
    """Turns one JSON text into tables of rows, counting the lines of tables not modelled."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.lines = 0
        """The text's lines (counted by ``key_lines``, else here)."""
        self.tables: Tables = {}
        self.problems: list[ParseProblem] = []
        self.unknown = 0
        self.first_unknown: int | None = None
        self.list_fields = "@" in text and '@"' in text  # (one memchr: the pair is slow)

    def problem(self, line: int | None, message: str, kind: str = "parse-error") -> None:
        """Structural faults of the document (duplicate keys, a table that is not an object):
        the file is not a valid config_db, even though the rest of it is still used."""
        self.problems.append(ParseProblem(file=self.path, line=line, message=message,
                                          kind=kind))  # type: ignore[arg-type]

    def run(self) -> Document:
        found = key_lines(self.text)
        self.lines = found[2] if found is not None else self.text.count("\n") + 1
        if found is not None and self.read_plain(found[0], found[1]):
            return self.document()
        try:
            loaded = (lined(found[0], found[1]) if found is not None else None) or load(
                self.text)
        except JsonSyntaxError as exc:
            raise ParseError(self.path, min(exc.line, self.lines),
                             f"not valid JSON: {exc.message}") from None
        for dup in loaded.duplicates:
            where = "/".join(dup.path) or "the top level"
            self.problem(dup.line, f"duplicate key {dup.key!r} in {where}; the last one is used")
        root = loaded.value
        end = self.lines + 1
        keys = list(root)
        if keys and not any(_is_table_key(k) for k in keys):
            wrappers = [k for k in keys if isinstance(root[k], LinedDict)
                        and any(_is_table_key(t) for t in root[k])]
            if len(wrappers) == 1:
                self.unknown += self.spans(root, keys, end, skip=wrappers[0])
                after = [root.lines[k] for k in keys if root.lines[k] > root.lines[wrappers[0]]]
                root = root[wrappers[0]]
                end = min(after, default=end)
        self.read_root(root, end)
        return self.document()

    def document(self) -> Document:
        self.unknown = max(0, min(self.unknown, self.lines))
        return Document(self.path, self.tables, self.lines, self.unknown, self.problems,
                        self.first_unknown if self.unknown else None)

    def read_plain(self, root: dict[str, Any], starts: list[int]) -> bool:
        """``read_root`` of ``jsonlines.key_lines``'s answer: the plain objects of
        ``json.loads`` and the line of each key in walk order, without making LinedDicts of
        them first. A row of scalars (most of a config_db) keeps its dict as the row's fields
        with a dict of its keys' lines beside it; other values take the way of ``load``
        (``jsonlines.lined``), and the tables fablint does not model are passed over. False
        (nothing kept) when the walk does not take one line per key, and for what this does
        not cover (a wrapped document, ``name@`` list fields): then ``run`` reads as before."""
        if self.list_fields or not any(map(_is_table_key, root)):
            return False
        lines = iter([*starts, 0])  # 0: taken by a walk finding more keys than key lines
        tops: list[int] = []
        unknown: list[int] = []  # indexes in ``tops`` of the tables not modelled
        path = self.path
        try:
            for key, value in root.items():
                line = next(lines)
                cls = value.__class__
                if "|" in key:
                    table, rest = key.split("|", 1)
                    if table not in MODELLED:
                        unknown.append(len(tops))
                        if cls is dict or cls is list:
                            _skip(lines, _keys_in(value))
                    else:
                        if cls is dict:
                            value = _lined(value, 2, 4, lines)
                        elif cls is list:
                            _skip(lines, _keys_in(value))
                        self.add_row(table, rest, value, line)
                    tops.append(line)
                    continue
                tops.append(line)
                if key not in MODELLED:
                    unknown.append(len(tops) - 1)
                    if cls is dict or cls is list:
                        _skip(lines, _keys_in(value))
                    continue
                if cls is not dict:
                    if cls is list:
                        _skip(lines, _keys_in(value))
                    self.problem(line, f"table {key} is not a JSON object; ignored")
                    continue
                rows: dict[str, Row] | None = self.tables.get(key)
                values = value.values()
                if not value:
                    continue
                if _all_plain_rows(values):
                    # every row a dict of scalars (most tables): the rows, their key lines
                    # and their fields' lines in one pass of C-level iterators, in walk order
                    made = zip(value, map(_new_tuple, repeat(Row), zip(
                        repeat(key), value, values,
                        map(_new_tuple, repeat(SourceRef), zip(repeat(path), lines)),
                        map(dict, map(zip, values, repeat(lines))), repeat(None))), strict=False)
                    if rows is None:
                        self.tables[key] = dict(made)
                    else:
                        rows.update(made)
                    continue
                for row_key, row in value.items():
                    row_line = next(lines)
                    kind = row.__class__
                    if kind is dict:
                        if _CONTAINERS.isdisjoint(map(type, row.values())):  # most rows
                            if rows is None:
                                rows = self.tables[key] = {}
                            rows[row_key] = Row(key, row_key, row,
                                                _new_tuple(SourceRef, (path, row_line)),
                                                dict(zip(row, lines, strict=False)))
                            continue
                        row = _lined(row, 3, 4, lines)
                    elif kind is list:
                        _skip(lines, _keys_in(row))
                    self.add_row(key, row_key, row, row_line)
                    rows = self.tables.get(key)
            complete = next(lines) == 0 and next(lines, None) is None
        except StopIteration:
            complete = False
        if not complete:  # the keys and their lines do not pair up: read the other way
            self.tables, self.problems, self.unknown, self.first_unknown = {}, [], 0, None
            return False
        end = self.lines + 1
        for n in unknown:
            self.unknown += max(1, (tops[n + 1] if n + 1 < len(tops) else end) - tops[n])
        if unknown:
            self.first_unknown = tops[unknown[0]]
        return True

    @staticmethod
    def spans(obj: LinedDict, keys: list[str], end: int, skip: str | None = None) -> int:
        """Lines taken by the members of ``obj`` other than ``skip``."""
        starts = [obj.lines[k] for k in keys]
        total = 0
        for n, key in enumerate(keys):
            if key != skip:
                nxt = starts[n + 1] if n + 1 < len(starts) else end
                total += max(1, nxt - starts[n])
        return total

    def read_root(self, root: LinedDict, end: int) -> None:
        keys = list(root)
        starts = [root.lines[k] for k in keys]
        for n, key in enumerate(keys):
            span = max(1, (starts[n + 1] if n + 1 < len(keys) else end) - starts[n])
            value = root[key]
            line = root.lines[key]
            if "|" in key:
                table, rest = key.split("|", 1)
                if table not in MODELLED:
                    self.unknown += span
                    if self.first_unknown is None or line < self.first_unknown:
                        self.first_unknown = line
                    continue
                self.add_row(table, rest, value, line)
            elif key not in MODELLED:
                self.unknown += span
                if self.first_unknown is None or line < self.first_unknown:
                    self.first_unknown = line
            elif isinstance(value, dict):
                lines = getattr(value, "lines", {})
                for row_key, fields in value.items():
                    self.add_row(key, row_key, fields, lines.get(row_key, line))
            else:
                self.problem(line, f"table {key} is not a JSON object; ignored")

    def add_row(self, table: str, key: str, value: Any, line: int) -> None:
        fields = _row_fields(value, self.list_fields)
        src = _new_tuple(SourceRef, (self.path, line))
        if fields is None:
            self.problem(line, f"{table}|{key} is not a JSON object; ignored")
            return
        rows = self.tables.get(table)
        if rows is None:
            rows = self.tables[table] = {}
        rows[key] = Row(table, key, fields, src, getattr(fields, "lines", {}))


def _all_plain_rows(rows: Iterable[Any]) -> bool:
    """Whether every row is a plain dict of scalars (none holds a list or an object)."""
    return _DICT_ONLY.issuperset(map(type, rows)) and _CONTAINERS.isdisjoint(
        map(type, chain.from_iterable(map(dict.values, rows))))


_DICT_ONLY = frozenset({dict})
_STR_OR_NONE = frozenset({str, type(None)})


def _skip(lines: Iterator[int], count: int) -> None:
    """Pass over the lines of ``count`` keys (of values whose lines are not kept)."""
    if count:
        next(islice(lines, count, count), None)


def _without_surrogates(text: str) -> str:
    """Lone UTF-16 surrogates (raw, or ``\\ud800`` escapes) cannot be written out as UTF-8 by
    the reports: replace them, one character for one so that lines stay where they are."""
    if not text.isascii():  # (an ASCII text, as most are, holds no surrogate: O(1) to ask)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = text.encode("utf-8", "replace").decode("utf-8")
    if "\\" in text and "\\u" in text and _SURROGATE_HINT.search(text):
        # ('\\' first: one memchr, where a search for the pair walks the text slowly)
        text = _SURROGATE.sub(lambda m: m.group(0) if len(m.group(0)) == 12 else "\\ufffd", text)
    return text


def load_document(text: str, path: str) -> Document:
    """Load one CONFIG_DB JSON text. Raises ParseError when it is not a usable JSON object."""
    reject_nul(text, path, "binary data (NUL byte) in a JSON document")
    return _DocumentLoader(_without_surrogates(text), path).run()


def merge_tables(docs: list[Document]) -> Tables:
    """Tables of several documents, field by field; the later document wins (sonic-cfggen)."""
    if len(docs) == 1:
        return docs[0].tables  # (nothing changes a document's tables once loaded)
    merged: Tables = {}
    for doc in docs:
        for table, rows in doc.tables.items():
            target = merged.setdefault(table, {})
            for key, row in rows.items():
                old = target.get(key)
                if old is None:
                    target[key] = row
                else:
                    refs = {name: old.ref(name) for name in old.fields}
                    refs.update((name, row.ref(name)) for name in row.fields)
                    target[key] = Row(table, key, {**old.fields, **row.fields}, row.src, {},
                                      refs)
    return merged


# -- value helpers ---------------------------------------------------------------------------


def _text(value: Any) -> str | None:
    """A scalar as text: CONFIG_DB values are strings, hand-written files use numbers too."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _names(value: Any) -> list[str]:
    """Referenced names: ``"AZURE"``, ``"[DSCP_TO_TC_MAP|AZURE]"`` or a list of them."""
    if isinstance(value, str) and not value.startswith("["):
        return [value.strip()] if value.strip() else []
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        text = _text(item)
        if not text:
            continue
        for part in text.split(",") if text.startswith("[") else [text]:
            match = _LEGACY_REF.match(part.strip())
            out.append(match.group(2) if match else part.strip())
    return [name for name in out if name]


def _port_list(value: Any) -> list[str]:
    if isinstance(value, str) and "," not in value:  # one port: most keys, cheaply
        value = value.strip()
        return [value] if value else []
    if isinstance(value, list):
        return [t for t in (_text(v) for v in value) if t]
    text = _text(value)
    return [p.strip() for p in text.split(",") if p.strip()] if text else []


def _masked(text: str) -> Obj | None:
    """``0x11/0xbf`` (the YANG form), ``0x11`` or ``17``: a one-byte header field under a
    mask (0xff when none is given), or None when it is not one."""
    match = _MASKED.match(text)
    if match is None:
        return None
    value, mask = (0xFF if part is None else int(part, 16 if part[:2].lower() == "0x" else 10)
                   for part in match.groups())
    if value > 0xFF or mask > 0xFF:
        return None
    return {"value": value, "mask": mask}


def _threshold(value: float) -> Obj:
    return {"value": value, "unit": "bytes", "bytes": int(value)}


# -- the device ------------------------------------------------------------------------------


class _SonicBuilder:
    """Builds one Device from the merged tables of one group of documents."""

    def __init__(self, tables: Tables, files: list[str], name: str) -> None:
        self.tables = tables
        self.files = files
        self.problems: list[ParseProblem] = []
        self.device: Obj = new_device(name, "sonic", files[0])
        self.device.update(files=list(files), buffer_pools={}, buffer_profiles={},
                           references=[])
        self.ifaces: dict[str, Obj] = self.device["interfaces"]
        self.add_reference = self.device["references"].append
        self.every_reference = EVERY_REFERENCE.get()
        """Record every reference; else (``one_resolved_reference_per_kind``) every unresolved
        one and the first resolved one of each kind."""
        self.resolved_kinds: set[str] = set()
        self.profile_cache: dict[str, tuple[str | None, bool]] = {}
        """BUFFER_PG/BUFFER_QUEUE ``profile`` spelling -> (profile name, whether it exists)."""
        self.fragment = "PORT" not in tables
        self.meta: Row | None = tables.get("DEVICE_METADATA", {}).get("localhost")
        self.map_cache: dict[tuple[str, str],
                             tuple[dict[int, int], dict[str, SourceRef]]] = {}
        self.aqm_cache: dict[str, tuple[Aqm | None, Aqm | None]] = {}
        self.target_cache: dict[tuple[str, str], tuple[str | None, Row | None]] = {}
        self.mode_cache: dict[str, tuple[str | None, str | None]] = {}
        self.ids_cache: dict[str, list[int]] = {}
        self.ports_cache: dict[str, tuple[list[Obj], list[int]]] = {}
        """``local_ports`` of a key whose ports all exist (the lists are read only)."""
        self.port_lists: dict[str, list[Obj]] = {}
        """The ports of the ``PORTS`` part of such a key (``Ethernet0`` in ``Ethernet0|3``)."""
        self.priorities_cache: dict[str, list[int]] = {}
        self.priority_names_cache: dict[int, list[str]] = {}
        """``priority_names`` by the id of a list ``priorities_cache`` holds (alive as long)."""
        self.lossless_rows: bool | None = None
        """Some PORT_QOS_MAP row has pfc_enable and pfc_to_queue_map (``template_lossy``)."""
        self.voq_local: tuple[str, ...] | None = None
        self.pause = _PAUSE({"field_src": {}})
        """The link pause of every port: config_db has none to set (PFC is per priority), so
        the ports share one object, as ``build.Compactor`` shares them on large devices."""

    # -- helpers -------------------------------------------------------------------------

    def rows(self, table: str) -> Iterable[Row]:
        return self.tables.get(table, {}).values()

    def problem(self, ref: SourceRef, message: str, kind: str = "invalid-value") -> None:
        self.problems.append(ParseProblem(file=ref.file, line=ref.line, message=message,
                                          kind=kind))  # type: ignore[arg-type]

    def int_field(self, row: Row, name: str, lo: int, hi: int) -> int | None:
        """An integer field in [lo, hi]; a wrong value is a problem and is ignored."""
        value = row.fields.get(name)
        if value is None:
            return None
        text = _text(value)
        if text is not None and text.lstrip("-").isdigit() and len(text) < 20:
            number = int(text)
            if lo <= number <= hi:
                return number
            self.problem(row.ref(name), f"{row.owner}: {name} {number} is outside "
                                        f"{lo}-{hi}; ignored")
            return None
        # Not a number at all: the document breaks the config_db schema (YANG rejects it).
        self.problem(row.ref(name), f"{row.owner}: {name} {value!r} is not a number "
                                    f"({lo}-{hi}); ignored", kind="parse-error")
        return None

    def record(self, kind: str, name: str, owner: str, src: SourceRef, resolved: bool) -> None:
        """Add a reference to the device (see ``every_reference``)."""
        if resolved and not self.every_reference:
            if kind in self.resolved_kinds:
                return
            self.resolved_kinds.add(kind)
        self.add_reference(_reference(kind, name, owner, src, resolved))

    def reference(self, row: Row, field_name: str, kind: str, name: str,
                  resolved: bool | None = None, src: SourceRef | None = None) -> bool:
        """Record a by-name reference; returns whether it resolves. ``src``: the place of
        ``field_name`` when the caller has it already."""
        if resolved is None:
            resolved = name in self.tables.get(kind, {})
        self.record(kind, name, f"{row.table}|{row.key}",
                    src if src is not None else row.ref(field_name), resolved)
        return resolved

    def target(self, row: Row, field_name: str, kind: str) -> Row | None:
        """The row a reference field names (recorded), or None."""
        return self.target_ref(row, field_name, kind)[0]

    def target_ref(self, row: Row, field_name: str,
                   kind: str) -> tuple[Row | None, SourceRef | None]:
        """``target``, and the place of the field when it names something."""
        value = row.fields.get(field_name)
        if value is None:
            return None, None
        # Every port's QUEUE/BUFFER_* rows name the same few profiles: resolve each spelling
        # once (the name and its row), then only the reference itself is per row.
        cache_key = (kind, value) if isinstance(value, str) else None
        hit = self.target_cache.get(cache_key) if cache_key is not None else None
        if hit is None:
            names = _names(value)
            name = names[0] if names else None
            hit = (name, self.tables.get(kind, {}).get(name) if name is not None else None)
            if cache_key is not None:
                self.target_cache[cache_key] = hit
        name, target = hit
        if name is None:
            return None, None
        line = row.lines.get(field_name) if row.merged is None else None
        ref = (_new_tuple(SourceRef, (row.src.file, line)) if line is not None
               else row.ref(field_name))
        self.record(kind, name, f"{row.table}|{row.key}", ref, target is not None)
        return target, ref

    def key_ports(self, row: Row) -> tuple[list[Obj], list[int]]:
        """Ports and ids of a ``PORTS|IDS`` key: found without a word when they were before
        (most keys), else ``local_ports`` tells, recording what it has to say in order."""
        key = row.key
        found = self.ports_cache.get(key)
        if found is not None:
            return found
        ports, _, id_text = key.rpartition("|")
        ifaces = self.port_lists.get(ports) if ports else None
        ids = self.ids_cache.get(id_text)
        if ifaces is None or ids is None:
            return self.local_ports(row)
        return ifaces, ids

    def local_ports(self, row: Row) -> tuple[list[Obj], list[int]]:
        """Ports and ids of a ``PORTS|IDS`` key (QUEUE, BUFFER_PG, BUFFER_QUEUE)."""
        key = row.key
        parts = key.split("|")
        if len(parts) < 2:
            self.problem(row.src, f"{row.owner}: key is not PORT|ID; ignored")
            return [], []
        if len(parts) > 2 and not self.is_local(parts[:-2]):
            return [], []  # a VOQ system port of another linecard or ASIC
        ids = self.ids_cache.get(parts[-1])  # the same few spellings on every port
        if ids is None:
            try:
                ids = ([int(parts[-1])] if parts[-1].isdigit() and len(parts[-1]) < 3 else
                       units.parse_int_list(parts[-1], 0, MAX_QUEUE_ID))
            except ValueError:
                self.problem(row.src, f"{row.owner}: {parts[-1]!r} is not a list of ids in "
                                      f"0-{MAX_QUEUE_ID}; ignored")
                return [], []
            self.ids_cache[parts[-1]] = ids
        ifaces = []
        missing = False
        for port in _port_list(parts[-2]):
            iface = self.port(row, port)
            if iface is not None:
                ifaces.append(iface)
            else:
                missing = True
        if not missing:  # a key naming a missing port records its reference for each row
            self.ports_cache[key] = ifaces, ids
            if len(parts) == 2:
                self.port_lists[parts[-2]] = ifaces
        return ifaces, ids

    def is_local(self, prefix: list[str]) -> bool:
        """Is a VOQ system port prefix (``host|asic``) this device's?"""
        if self.voq_local is None:
            self.voq_local = self.local_system_prefix()
        return tuple(prefix) == self.voq_local

    def local_system_prefix(self) -> tuple[str, ...]:
        """The ``host|asic`` of this device's own system ports among the VOQ keys of QUEUE and
        BUFFER_* (a chassis linecard lists the queues of every system port): the one naming
        DEVICE_METADATA's hostname and ``asic_name``, else its hostname; a fragment without
        (or with another) hostname is one linecard's rendering, so its first prefix."""
        meta = self.meta.fields if self.meta is not None else {}
        host, asic = _text(meta.get("hostname")), _text(meta.get("asic_name"))
        seen: dict[tuple[str, ...], None] = {}
        for table in ("QUEUE", "BUFFER_PG", "BUFFER_QUEUE"):
            for key in self.tables.get(table, {}):
                parts = key.split("|")
                if len(parts) > 2:
                    seen.setdefault(tuple(parts[:-2]), None)
        prefixes = list(seen)
        for wanted in ((host, asic), (host,)):
            for prefix in prefixes:
                if prefix[:len(wanted)] == wanted:
                    return prefix
        return prefixes[0] if prefixes else ()

    def port(self, row: Row, name: str) -> Obj | None:
        """The interface ``row`` names; a missing one is an unresolved reference."""
        iface = self.ifaces.get(name)
        if iface is None and not self.fragment:
            kind = "PORTCHANNEL" if name.startswith("PortChannel") else "PORT"
            self.reference(row, "", kind, name, resolved=False)
        return iface

    # -- build ---------------------------------------------------------------------------

    def run(self) -> tuple[Device, list[ParseProblem]]:
        self.metadata()
        self.ports()
        self.port_channels()
        self.l3_interfaces()
        self.qos_maps()
        self.watchdog()
        self.queues()
        self.buffers()
        self.neighbors()
        self.acls()
        try:
            self.device["interfaces"] = {name: _interface(iface)
                                         for name, iface in self.ifaces.items()}
            device = Device.model_validate(self.device)
        except ValidationError as exc:  # a parser bug must still name the file
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ParseError(self.files[0], None, f"cannot build the model ({where}: "
                             f"{first['msg']})") from exc
        return device, self.problems

    def metadata(self) -> None:
        row = self.meta
        if row is None:
            return
        device, fs = self.device, self.device["field_src"]
        device["src"] = row.src
        if _text(row.fields.get("hostname")) == device["name"]:
            fs["name"] = row.ref("hostname")
        for key, name in (("type", "role"), ("platform", "platform"), ("hwsku", "platform")):
            value = _text(row.fields.get(key))
            if value:  # the hwsku, which names the model, wins over the platform string
                device[name] = value
                fs[name] = row.ref(key)
        model = row.fields.get("buffer_model")
        if model in ("traditional", "dynamic"):
            device["buffer_model"] = model
            fs["buffer_model"] = row.ref("buffer_model")
        elif model is not None:
            self.problem(row.ref("buffer_model"), f"buffer_model {model!r} is not traditional "
                                                  "or dynamic; ignored")

    def new_iface(self, name: str, kind: str, row: Row, routed: bool = False) -> Obj:
        iface = self.ifaces[name] = new_interface(name, kind, row.src, routed)
        iface.update(buffer_pgs={}, buffer_queues={})
        iface["qos"]["pause"] = self.pause
        return iface

    def ports(self) -> None:
        for row in self.rows("PORT"):
            iface = self.new_iface(row.key, "physical", row)
            self.common_port_fields(iface, row, admin_default=False)
            speed = self.int_field(row, "speed", 1, units.MAX_SPEED_MBPS)
            if speed is not None:
                iface["speed_mbps"] = speed
                iface["field_src"]["speed_mbps"] = row.ref("speed")
            alias = _text(row.fields.get("alias"))
            if alias and alias != row.key:
                iface["alias"] = alias
            lanes = _port_list(row.fields.get("lanes"))
            if lanes:
                iface["lanes"] = len(lanes)
                iface["field_src"]["lanes"] = row.ref("lanes")
        if self.fragment:
            self.fragment_ports()

    def fragment_ports(self) -> None:
        """Ports of a document group without a PORT table: PORT_QOS_MAP binds QoS to a port,
        so its ports are checked as fabric ports; ports that only have queues or buffers are
        kept (for their buffer assignments) but not taken as routed."""
        for row in self.rows("PORT_QOS_MAP"):
            for name in _port_list(row.key):
                if name != "global" and name not in self.ifaces:
                    iface = self.new_iface(name, "physical", row, routed=True)
                    iface["mtu"] = None
        for table in ("QUEUE", "BUFFER_PG", "BUFFER_QUEUE"):
            for row in self.rows(table):
                parts = row.key.split("|")
                if len(parts) < 2 or (len(parts) > 2 and not self.is_local(parts[:-2])):
                    continue
                for name in _port_list(parts[-2]):
                    if name not in self.ifaces:
                        self.new_iface(name, "physical", row)["mtu"] = None

    def common_port_fields(self, iface: Obj, row: Row, admin_default: bool) -> None:
        fs, fields = iface["field_src"], row.fields
        role = _text(fields.get("role"))
        if role is not None and role.lower() in _NON_FABRIC_ROLES:
            iface["non_fabric"] = f"PORT role {role} ({_NON_FABRIC_ROLES[role.lower()]})"
            fs["non_fabric"] = row.ref("role")
        elif iface["name"].startswith(_NON_FABRIC_NAMES):
            iface["non_fabric"] = "an in-band or recirculation port"
            fs["non_fabric"] = row.src
        status = _text(fields.get("admin_status"))
        iface["admin_up"] = status == "up" if status else admin_default
        if status:
            fs["admin_up"] = row.ref("admin_status")
        description = _text(fields.get("description"))
        if description:
            iface["description"] = description
            fs["description"] = row.ref("description")
        mtu = self.int_field(row, "mtu", 68, 65535)
        iface["mtu"] = mtu if mtu is not None else SONIC_DEFAULT_MTU
        if mtu is not None:
            fs["mtu"] = row.ref("mtu")

    def port_channels(self) -> None:
        for row in self.rows("PORTCHANNEL"):
            iface = self.new_iface(row.key, "port-channel", row)
            self.common_port_fields(iface, row, admin_default=True)
            for member in _port_list(row.fields.get("members")):
                self.join(row, "members", row.key, member)
        for row in self.rows("PORTCHANNEL_MEMBER"):
            channel, _, member = row.key.partition("|")
            if not member:
                self.problem(row.src, f"{row.owner}: key is not PORTCHANNEL|PORT; ignored")
                continue
            if self.reference(row, "", "PORTCHANNEL", channel):
                self.join(row, "", channel, member)

    def join(self, row: Row, field_name: str, channel: str, member: str) -> None:
        iface = self.ifaces.get(member)
        if not self.reference(row, field_name, "PORT", member, resolved=iface is not None):
            return
        assert iface is not None
        iface["port_channel"] = channel
        iface["field_src"]["port_channel"] = row.ref(field_name)

    def l3_interfaces(self) -> None:
        for table, kind in (("INTERFACE", "physical"), ("PORTCHANNEL_INTERFACE", "port-channel"),
                            ("VLAN_INTERFACE", "svi"), ("LOOPBACK_INTERFACE", "loopback")):
            for row in self.rows(table):
                name, _, prefix = row.key.partition("|")
                iface = self.ifaces.get(name)
                if iface is None:
                    if kind in ("physical", "port-channel"):
                        self.reference(row, "", "PORT" if kind == "physical" else "PORTCHANNEL",
                                       name, resolved=False)
                        continue
                    iface = self.new_iface(name, kind, row)
                    iface["mtu"] = None
                iface["routed"] = True
                iface["field_src"].setdefault("routed", row.src)
                if prefix:
                    iface["ip_addresses"].append(prefix)
                    iface["field_src"].setdefault("ip_addresses", row.src)
                vrf = _text(row.fields.get("vrf_name"))
                if vrf:
                    iface["vrf"] = vrf
                    iface["field_src"]["vrf"] = row.ref("vrf_name")
        for iface in self.ifaces.values():
            parent = self.ifaces.get(iface.get("port_channel") or "")
            if parent is not None and "routed" not in iface["field_src"]:
                iface["routed"] = parent["routed"]

    # -- QoS -----------------------------------------------------------------------------

    def read_map(self, row: Row, target: str, key_hi: int,
                 value_hi: int) -> tuple[dict[int, int], dict[str, SourceRef]]:
        """One map table row: entries and the ``field_src`` of each (read once per map)."""
        cached = self.map_cache.get((row.table, row.key))
        if cached is not None:
            return cached
        entries: dict[int, int] = {}
        refs: dict[str, SourceRef] = {}
        lines = row.lines if row.merged is None else None
        file = row.src.file
        for key, value in row.fields.items():
            text = value.strip() if value.__class__ is str else _text(value)
            if (key.isdigit() and len(key) < 4 and int(key) <= key_hi and text is not None
                    and text.isdigit() and len(text) < 4 and int(text) <= value_hi):
                number = int(key)
                entries[number] = int(text)
                line = lines.get(key) if lines is not None else None
                refs[f"{target}[{number}]"] = (_new_tuple(SourceRef, (file, line))
                                               if line is not None else row.ref(key))
            else:
                self.problem(row.ref(key), f"{row.owner}: entry {key!r}: {value!r} is not "
                                           f"0-{key_hi} -> 0-{value_hi}; ignored")
        self.map_cache[(row.table, row.key)] = entries, refs
        return entries, refs

    def chosen_maps(self, row: Row, base: Chosen | None) -> Chosen:
        """The maps a PORT_QOS_MAP row binds, by ClassMaps field; ``base`` (the global row's)
        fills the maps the row does not name."""
        chosen: Chosen = dict(base or {})
        for map_field, (table, target, key_hi, value_hi) in MAPS.items():
            map_row = self.target(row, map_field, table)
            if map_row is not None:
                chosen[target] = (map_row, *self.read_map(map_row, target, key_hi, value_hi))
        return chosen

    def maps_plan(self, row: Row, base: Chosen | None) -> _MapsPlan:
        """``chosen_maps`` of a PORT_QOS_MAP row without recording its references: the maps
        it binds, and the (map table, name, resolved) of each reference it makes."""
        plan = _MapsPlan(dict(base or {}))
        for map_field, (table, target, key_hi, value_hi) in MAPS.items():
            name, map_row = self.resolve(row, map_field, table)
            if name is None:
                continue
            plan.bound.append((map_field, table, name, map_row is not None))
            if map_row is not None:
                plan.chosen[target] = (map_row, *self.read_map(map_row, target, key_hi,
                                                               value_hi))
        plan.key = tuple(sorted((target, item[0].key) for target, item in plan.chosen.items()))
        return plan

    @staticmethod
    def maps_obj(chosen: Chosen, src: SourceRef) -> Obj:
        """A ClassMaps: the chain is the maps, so ``src`` and ``name`` are the DSCP map's."""
        out: Obj = {"src": src, "field_src": {}}
        for target, (map_row, entries, refs) in chosen.items():
            out[target] = entries
            out["field_src"].update(refs)
            if target == "dscp_to_tc":
                out["name"] = map_row.key
                out["src"] = map_row.src
        return out

    def qos_maps(self) -> None:
        rows = self.tables.get("PORT_QOS_MAP", {})
        global_row = rows.get("global")
        base = None
        if global_row is not None:
            base = self.chosen_maps(global_row, None)
            qos = self.device["qos"]
            for key, value in self.maps_obj(base, global_row.src).items():
                if key == "field_src":
                    qos["field_src"].update(value)
                elif key != "src":
                    qos[key] = value
        shared: dict[tuple[tuple[str, str], ...], ClassMaps] = {}
        # Every port's row spells the same few maps: what a spelling binds is worked out once
        # (``maps_plan``); each row then records its own references.
        plans: dict[tuple[str | None, ...], _MapsPlan] = {}
        add = self.record
        seen = self.resolved_kinds if not self.every_reference else ()
        for row in rows.values():
            if row.key == "global":
                continue
            fields = row.fields
            spelled = tuple(map(fields.get, MAPS))
            plain = _STR_OR_NONE.issuperset(map(type, spelled))
            plan = plans.get(spelled) if plain else None  # type: ignore[arg-type]
            if plan is None:
                plan = self.maps_plan(row, base)
                if plain:
                    plans[spelled] = plan  # type: ignore[index]
            owner = f"PORT_QOS_MAP|{row.key}"
            lines = row.lines if row.merged is None else None
            for map_field, table, name, resolved in plan.bound:
                if resolved and table in seen:
                    continue  # (``record`` keeps one resolved reference of a kind)
                line = lines.get(map_field) if lines is not None else None
                add(table, name, owner, _new_tuple(SourceRef, (row.src.file, line))
                    if line is not None else row.ref(map_field), resolved)
            chosen = plan.chosen
            maps = shared.get(plan.key)
            if maps is None:  # ports bound to the same maps share one validated chain
                maps = shared[plan.key] = ClassMaps.model_validate(
                    self.maps_obj(chosen, row.src))
            for name in _port_list(row.key):
                iface = self.port(row, name)
                if iface is not None:
                    self.port_qos(iface, row, maps, chosen)

    def port_qos(self, iface: Obj, row: Row, maps: ClassMaps, chosen: Chosen) -> None:
        qos = iface["qos"]
        qos["maps"] = maps
        qos["field_src"]["maps"] = row.src
        if "pfc_enable" not in row.fields and "non_fabric" not in iface:
            why = self.template_lossy(row)
            if why is not None:
                iface["non_fabric"] = why
                iface["field_src"]["non_fabric"] = row.src
        for target, trust, map_field in (("dscp_to_tc", "dscp", "dscp_to_tc_map"),
                                         ("cos_to_tc", "cos", "dot1p_to_tc_map")):
            if target in chosen:
                qos["trust"] = trust
                qos["field_src"]["trust"] = (row.ref(map_field) if map_field in row.fields
                                             else chosen[target][0].src)
                break
        pfc = qos["pfc"]
        if "pfc_enable" in row.fields:
            ref = row.ref("pfc_enable")
            pfc["field_src"]["mode"] = ref
            priorities = self.priorities(row, "pfc_enable")
            if priorities:
                pfc.update(mode="on", enabled=True, no_drop=set(priorities))
                pfc["field_src"]["no_drop"] = ref
                pfc["field_src"].update(dict.fromkeys(self.priority_names(priorities), ref))
                if set(priorities) == _DUAL_TOR_PFC and _tunnel_lossless(maps):
                    pfc["tunnel_priorities"] = set(_TUNNEL_PRIORITIES)
                    pfc["field_src"]["tunnel_priorities"] = ref
        if "pfcwd_sw_enable" in row.fields:
            watchdog = pfc["watchdog"]
            watchdog["priorities"] = set(self.priorities(row, "pfcwd_sw_enable"))
            watchdog["field_src"]["priorities"] = row.ref("pfcwd_sw_enable")

    def template_lossy(self, row: Row) -> str | None:
        """Why SONiC's QoS template (qos_config.j2) rendered this PORT_QOS_MAP row without
        ``pfc_enable`` on purpose, or None: a port of the smart switch's DPUs (``PORT_DPC``:
        ``tc_to_pg_map`` AZURE_DPC, every class in lossy PG 0), or a service port
        (``PORT_SERVICE``: neither ``pfc_enable`` nor ``pfc_to_queue_map``, where the other
        ports of the device have both)."""
        if _text(row.fields.get("tc_to_pg_map")) == "AZURE_DPC":
            return "a DPU port (tc_to_pg_map AZURE_DPC), lossy in SONiC's smart-switch template"
        if "pfc_to_queue_map" in row.fields:
            return None
        if self.lossless_rows is None:
            self.lossless_rows = any(
                "pfc_enable" in r.fields and "pfc_to_queue_map" in r.fields
                for r in self.rows("PORT_QOS_MAP"))
        if self.lossless_rows:
            return ("a service port (no pfc_enable and no pfc_to_queue_map where the other "
                    "ports have both), lossy in SONiC's QoS template")
        return None

    def priority_names(self, priorities: list[int]) -> list[str]:
        """``priority[N]`` of each priority (the ``field_src`` keys), made once per list."""
        names = self.priority_names_cache.get(id(priorities))
        if names is None:
            names = self.priority_names_cache[id(priorities)] = [
                f"priority[{p}]" for p in priorities]
        return names

    def priorities(self, row: Row, name: str) -> list[int]:
        text = _text(row.fields.get(name))
        if text is None:
            self.problem(row.ref(name), f"{row.owner}: {name} is not a priority list; ignored")
            return []
        cached = self.priorities_cache.get(text)  # every port's row spells the same few lists
        if cached is not None:
            return cached
        try:
            cached = self.priorities_cache[text] = units.parse_int_list(text, 0, 7)
        except ValueError as exc:
            self.problem(row.ref(name), f"{row.owner}: {name} {text!r}: {exc}; ignored")
            return []
        return cached

    def watchdog(self) -> None:
        rows = self.tables.get("PFC_WD", {})
        global_row = rows.get("GLOBAL")
        qos = self.device["qos"]
        if global_row is not None:
            poll = self.int_field(global_row, "POLL_INTERVAL", 1, 86_400_000)
            defaults = qos["watchdog_defaults"] = {**new_watchdog(), "src": global_row.src}
            if poll is not None:
                defaults["polling_ms"] = float(poll)
                defaults["field_src"]["polling_ms"] = global_row.ref("POLL_INTERVAL")
        meta = self.meta
        default_on = meta is not None and meta.fields.get("default_pfcwd_status") == "enable"
        for iface in self.ifaces.values():
            if iface["kind"] != "physical":
                continue
            watchdog = iface["qos"]["pfc"]["watchdog"]
            row = rows.get(iface["name"])
            if row is not None:
                self.port_watchdog(watchdog, row)
            elif default_on and meta is not None:
                watchdog.update(enabled=True, action="drop", timeout_ms=PFCWD_DEFAULT_MS,
                                recovery_ms=PFCWD_DEFAULT_MS)
                watchdog["field_src"]["enabled"] = meta.ref("default_pfcwd_status")
            elif meta is None and not rows and watchdog.get("priorities"):
                # A rendered QoS fragment: PFC_WD is written at boot by 'pfcwd start_default'
                # from DEVICE_METADATA, which lives in another file. The fragment's
                # pfcwd_sw_enable is the template's intent; take it rather than report a
                # watchdog that is merely not in this file.
                watchdog["enabled"] = True
                watchdog["field_src"]["enabled"] = watchdog["field_src"]["priorities"]
            poll = (qos.get("watchdog_defaults") or {}).get("polling_ms")
            if watchdog.get("enabled") and poll is not None:
                watchdog["polling_ms"] = poll
        for row in rows.values():
            if row.key != "GLOBAL":
                self.port(row, row.key)

    def port_watchdog(self, watchdog: Obj, row: Row) -> None:
        fs = watchdog["field_src"]
        watchdog["src"] = row.src
        action = _text(row.fields.get("action"))
        if action:
            watchdog["action"] = action
            fs["action"] = row.ref("action")
        for key, target in (("detection_time", "timeout_ms"), ("restoration_time",
                                                               "recovery_ms")):
            value = self.int_field(row, key, 1, 86_400_000)
            if value is not None:
                watchdog[target] = float(value)
                fs[target] = row.ref(key)
        watchdog["enabled"] = bool(watchdog.get("timeout_ms"))
        fs["enabled"] = row.src

    def queues(self) -> None:
        for wred_row in self.rows("WRED_PROFILE"):  # every profile, so that all are checked
            self.aqm_cache[wred_row.key] = self.validated_aqm(wred_row)
        # Every port's rows name the same scheduler and profile: what a spelling resolves to
        # is worked out once (``queue_plan``), then only the row's references and queues
        # are made, in one loop.
        plans: dict[tuple[Any, Any, type, type], _QueuePlan] = {}
        add = self.record
        # A resolved reference of a kind recorded already is not recorded again (``record``):
        # tested here, so that most rows make no owner text and no call.
        seen = self.resolved_kinds if not self.every_reference else ()
        make = _queue if _queue is not _bare_queue else None  # (tests swap in validation)
        for row in self.tables.get("QUEUE", {}).values():
            _, key, fields, src, lines, merged = row
            scheduler, wred = fields.get("scheduler"), fields.get("wred_profile")
            # (the classes too: 1 and True are one key, and read differently)
            spelled = (scheduler, wred, scheduler.__class__, wred.__class__)
            try:
                plan = plans[spelled]
            except KeyError:
                plan = plans[spelled] = self.queue_plan(row)
            except TypeError:  # a list or an object: not a key, and rare
                plan = self.queue_plan(row)
            single = plan.single
            if single is not None and merged is None:
                # (most rows: one field with a source, its references all recorded)
                line = lines.get(single[0])
                refs = {single[1]: _new_tuple(SourceRef, (src[0], line)) if line is not None
                        else src}
            else:
                refs = {}
                for field_name, kind, name, resolved, targets in plan.links:
                    line = lines.get(field_name) if merged is None else None
                    ref = (_new_tuple(SourceRef, (src[0], line)) if line is not None
                           else row.ref(field_name))
                    if not resolved or kind not in seen:
                        add(kind, name, "QUEUE|" + key, ref, resolved)
                    for target in targets:
                        refs[target] = ref
                if plan.quiet is None and not self.every_reference:
                    plan.quiet_after(seen)
            ifaces, ids = self.key_ports(row)
            if plan.wrong_type and ifaces and ids:
                self.wrong_type(plan, len(ifaces) * len(ids))
            if make is not None:
                for iface in ifaces:
                    queues = iface["qos"]["queues"]
                    for queue_id in ids:
                        queues[queue_id] = make(queue_id, src, refs, plan)
                continue
            mode, ecn, drop, given = plan.mode, plan.ecn, plan.drop, plan.given
            one = len(ids) == 1 and len(ifaces) == 1  # (most keys: one port, one queue)
            for iface in ifaces:
                queues = iface["qos"]["queues"]
                for queue_id in ids:
                    # ``_queue`` written out (one per queue of every port); a queue owns its
                    # ``field_src``, so a key of several queues copies it for each
                    queue = _new(Queue)
                    _set_dict(queue, {"src": src, "field_src": refs if one else refs.copy(),
                                      "id": queue_id, "name": None, "scheduling": mode,
                                      "bandwidth_percent": None, "ecn": ecn, "wred": drop})
                    _set_fields(queue, given)
                    _set_extra(queue, None)
                    _set_private(queue, None)
                    queues[queue_id] = queue

    def wrong_type(self, plan: _QueuePlan, count: int) -> None:
        """The problem of a scheduler whose type is not known, once per queue naming it."""
        scheduler = plan.scheduler_row
        assert scheduler is not None
        for _ in range(count):
            self.problem(scheduler.ref("type"), f"{scheduler.owner}: type "
                         f"{plan.kind!r} is not STRICT, DWRR or WRR; ignored")

    def queue_plan(self, row: Row) -> _QueuePlan:
        """What a QUEUE row's scheduler and WRED profile fields resolve to (no reference
        recorded: ``queues`` does that per row)."""
        plan = _QueuePlan()
        plan.scheduler, plan.scheduler_row = self.resolve(row, "scheduler", "SCHEDULER")
        plan.wred, plan.wred_row = self.resolve(row, "wred_profile", "WRED_PROFILE")
        if plan.wred_row is not None:
            wred = plan.wred_row
            if wred.key not in self.aqm_cache:
                self.aqm_cache[wred.key] = self.validated_aqm(wred)
            plan.ecn, plan.drop = self.aqm_cache[wred.key]
        if plan.scheduler_row is not None:
            plan.mode, plan.kind = self.scheduling(plan.scheduler_row)
        plan.wrong_type = plan.mode is None and bool(plan.kind)
        if plan.scheduler is not None:
            plan.links.append(("scheduler", "SCHEDULER", plan.scheduler,
                               plan.scheduler_row is not None,
                               ("scheduling",) if plan.mode is not None else ()))
        if plan.wred is not None:
            plan.links.append(("wred_profile", "WRED_PROFILE", plan.wred,
                               plan.wred_row is not None,
                               tuple(name for name, value in (("ecn", plan.ecn),
                                                              ("wred", plan.drop))
                                     if value is not None)))
        given = {"id", "src", "field_src"}
        given.update(name for name, value in (("scheduling", plan.mode), ("ecn", plan.ecn),
                                              ("wred", plan.drop)) if value is not None)
        plan.given = shared_names(given)
        return plan

    def resolve(self, row: Row, field_name: str, kind: str) -> tuple[str | None, Row | None]:
        """The name a reference field gives and the row it names (``target_ref`` without
        recording the reference)."""
        value = row.fields.get(field_name)
        if value is None:
            return None, None
        names = _names(value)
        name = names[0] if names else None
        return name, (self.tables.get(kind, {}).get(name) if name is not None else None)

    def scheduling(self, scheduler: Row) -> tuple[str | None, str | None]:
        """(scheduling mode, SCHEDULER type as written) of a scheduler, read once per name."""
        cached = self.mode_cache.get(scheduler.key)
        if cached is None:
            kind = _text(scheduler.fields.get("type"))
            cached = self.mode_cache[scheduler.key] = (_SCHEDULING.get((kind or "").upper()),
                                                       kind)
        return cached

    def validated_aqm(self, row: Row) -> tuple[Aqm | None, Aqm | None]:
        """``aqm`` validated once per profile: every queue that names the profile shares the
        same (immutable in use) models instead of each being validated again."""
        ecn, drop = self.aqm(row)
        return (Aqm.model_validate(ecn) if ecn is not None else None,
                Aqm.model_validate(drop) if drop is not None else None)

    def aqm(self, row: Row) -> tuple[Obj | None, Obj | None]:
        """(ECN marking, WRED dropping) of a WRED_PROFILE, as seen by green (RoCE) packets."""
        fields = row.fields
        mode = (_text(fields.get("ecn")) or "ecn_none").lower()
        marks = mode in _GREEN_ECN
        drops = (_text(fields.get("wred_green_enable")) or "false").lower() == "true"
        if not marks and not drops:
            return None, None
        out: Obj = {"src": row.src, "field_src": {}, "profile": row.key}
        prefix = "ecn_green_" if marks and "ecn_green_min_threshold" in fields else "green_"
        for key, target in (("min_threshold", "min_threshold"), ("max_threshold",
                                                                 "max_threshold")):
            value = self.int_field(row, prefix + key, 0, units.MAX_BYTES)
            if value is not None:
                out[target] = _threshold(float(value))
                out["field_src"][target] = row.ref(prefix + key)
        prob_key = "ecn_green_mark_probability" if prefix == "ecn_green_" else (
            "green_drop_probability")
        probability = self.int_field(row, prob_key, 0, 100)
        out["probability"] = 100 if probability is None else probability
        if probability is not None:
            out["field_src"]["probability"] = row.ref(prob_key)
        return (out, None) if marks else (None, out)

    # -- buffers -------------------------------------------------------------------------

    def buffers(self) -> None:
        pools, profiles = self.device["buffer_pools"], self.device["buffer_profiles"]
        self.headroom_semantics()
        oversubscribed = self.oversubscribed_headroom()
        for row in self.rows("BUFFER_POOL"):
            pool: Obj = {"name": row.key, "src": row.src, "field_src": {}}
            kind = _text(row.fields.get("type"))
            if kind in ("ingress", "egress"):
                pool["type"] = kind
            mode = _text(row.fields.get("mode"))
            if mode in ("static", "dynamic"):
                pool["mode"] = mode
            self.sizes(pool, row, ("size", "xoff"))
            name = row.key.lower()
            if "lossless" in name or "lossy" in name:
                pool["lossless"] = "lossless" in name
            if pool.get("type") == "egress":
                pass  # headroom is ingress buffer; an egress pool's xoff lends none
            elif pool.get("xoff"):
                pool["shared_headroom"] = True
                pool["field_src"]["shared_headroom"] = row.ref("xoff")
            elif oversubscribed is not None and row.key == "ingress_lossless_pool":
                pool["shared_headroom"] = True
                pool["field_src"]["shared_headroom"] = oversubscribed
            pools[row.key] = pool
        for row in self.rows("BUFFER_PROFILE"):
            profile: Obj = {"name": row.key, "src": row.src, "field_src": {}}
            names = _names(row.fields.get("pool"))
            if names:
                profile["pool"] = names[0]
                self.reference(row, "pool", "BUFFER_POOL", names[0])
            self.sizes(profile, row, ("size", "xon", "xoff", "xon_offset"))
            for key in ("dynamic_th", "static_th"):
                value = self.int_field(row, key, -(1 << 62), 1 << 62)
                if value is not None:
                    profile[key] = value
                    profile["field_src"][key] = row.ref(key)
            if (_text(row.fields.get("headroom_type")) or "").lower() == "dynamic":
                profile["dynamic_headroom"] = True
                profile["field_src"]["dynamic_headroom"] = row.ref("headroom_type")
            profiles[row.key] = profile
        profile_cache, seen = self.profile_cache, self.resolved_kinds
        lint = not self.every_reference
        make = _buffer_assignment if _buffer_assignment is not _bare_assignment else None
        for table, target in (("BUFFER_PG", "buffer_pgs"), ("BUFFER_QUEUE", "buffer_queues")):
            for row in self.tables.get(table, {}).values():
                _, key, fields, src, lines, merged = row
                value = fields.get("profile")
                hit = profile_cache.get(value) if value.__class__ is str else None
                if (hit is not None and hit[1] and merged is None and lint
                        and "BUFFER_PROFILE" in seen):
                    # ``assignment`` of a row naming a profile that exists, whose kind has
                    # its one reference recorded: the name and the place of the field
                    name = hit[0]
                    line = lines.get("profile")
                    ref = _new_tuple(SourceRef, (src[0], line)) if line is not None else src
                else:
                    name, ref = self.assignment(row)
                ifaces, ids = self.key_ports(row)
                if not ifaces:
                    continue
                if make is not None:
                    assignment = make(src, name, ref)
                else:  # (``_bare_assignment`` written out: one a row, shared by its ids)
                    assignment = _new(BufferAssignment)
                    if name is None:
                        _set_dict(assignment, {"src": src, "field_src": {}, "profile": None,
                                               "dynamic": True})
                        _set_fields(assignment, _ASSIGNED_DYNAMIC)
                    else:
                        _set_dict(assignment, {"src": src, "field_src": {"profile": ref},
                                               "profile": name, "dynamic": False})
                        _set_fields(assignment, _ASSIGNED_PROFILE)
                    _set_extra(assignment, None)
                    _set_private(assignment, None)
                for iface in ifaces:
                    assigned = iface[target]
                    for n in ids:
                        assigned[n] = assignment
        self.cable_lengths()

    def headroom_semantics(self) -> None:
        """Whether a lossless profile's ``size`` holds its headroom: on NVIDIA Spectrum it does
        (size = xon + xoff, or xon with a shared headroom pool: buffer_headroom_mellanox.lua),
        and so does SONiC's dynamic buffer model, which computes profiles that way. Broadcom
        tables keep ``size`` as the reserved minimum with the headroom apart (size 4608, xoff
        160000), so elsewhere the model says nothing."""
        meta = self.meta.fields if self.meta is not None else {}
        for key in ("platform", "hwsku"):
            text = _text(meta.get(key))
            if text and _SPECTRUM.search(text):
                self.device["headroom_in_size"] = True
                self.device["field_src"]["headroom_in_size"] = self.meta_ref(key)
                return
        if self.device.get("buffer_model") == "dynamic":
            self.device["headroom_in_size"] = True
            self.device["field_src"]["headroom_in_size"] = self.device["field_src"][
                "buffer_model"]

    def meta_ref(self, key: str) -> SourceRef:
        assert self.meta is not None
        return self.meta.ref(key)

    def oversubscribed_headroom(self) -> SourceRef | None:
        """The ``over_subscribe_ratio`` line that turns on the shared headroom pool without a
        pool ``xoff`` (dynamic model: the switch sizes the pool), or None."""
        for row in self.rows("DEFAULT_LOSSLESS_BUFFER_PARAMETER"):
            text = _text(row.fields.get("over_subscribe_ratio"))
            if text is not None and text.isdecimal() and len(text) < 10 and int(text) > 0:
                return row.ref("over_subscribe_ratio")
        return None

    def sizes(self, obj: Obj, row: Row, keys: Iterable[str]) -> None:
        for key in keys:
            value = self.int_field(row, key, 0, units.MAX_BYTES)
            if value is not None:
                obj[key] = value
                obj["field_src"][key] = row.ref(key)

    def assignment(self, row: Row) -> tuple[str | None, SourceRef | None]:
        """The profile a BUFFER_PG or BUFFER_QUEUE row names and the place of its name (the
        reference recorded), or (None, None) for a dynamic one (no profile, or ``NULL``)."""
        value = row.fields.get("profile")
        hit = self.profile_cache.get(value) if value.__class__ is str else None
        if hit is None:
            names = _names(value)
            name = names[0] if names and names[0] != "NULL" else None
            hit = (name, name is not None and name in self.tables.get("BUFFER_PROFILE", {}))
            if value.__class__ is str:  # every port's rows name the same few profiles
                self.profile_cache[value] = hit
        name, resolved = hit
        if name is None:
            return None, None
        line = row.lines.get("profile") if row.merged is None else None
        ref = (_new_tuple(SourceRef, (row.src.file, line)) if line is not None
               else row.ref("profile"))
        if not resolved or self.every_reference or "BUFFER_PROFILE" not in self.resolved_kinds:
            self.record("BUFFER_PROFILE", name, f"{row.table}|{row.key}", ref, resolved)
        return name, ref

    def cable_lengths(self) -> None:
        # Rendered buffer files list every port of the platform: unknown ports are not errors.
        for row in self.rows("CABLE_LENGTH"):
            for port, value in row.fields.items():
                iface = self.ifaces.get(port)
                text = _text(value)
                match = _CABLE.match(text) if text is not None else None
                if match is None:
                    self.problem(row.ref(port), f"{row.owner}: cable length {value!r} of "
                                                f"{port} is not metres; ignored")
                elif iface is not None:
                    iface["cable_length_m"] = float(match.group(1))
                    iface["field_src"]["cable_length_m"] = row.ref(port)

    def neighbors(self) -> None:
        for row in self.rows("DEVICE_NEIGHBOR"):
            # config_db keys the table by local port; the YANG model by peer, with local_port
            local = _text(row.fields.get("local_port")) or row.key
            name = _text(row.fields.get("name")) or (row.key if local != row.key else None)
            port = _text(row.fields.get("port"))
            iface = self.port(row, local)
            if iface is not None and name and port:
                iface["neighbor"] = _endpoint(name, port)
                iface["field_src"]["neighbor"] = row.src

    # -- ACLs ----------------------------------------------------------------------------

    def acls(self) -> None:
        acls = self.device["acls"]
        for row in self.rows("ACL_TABLE"):
            kind = (_text(row.fields.get("type")) or "").upper()
            if kind == "CTRLPLANE":
                continue
            family = "ipv6" if kind.endswith("V6") else "mac" if kind == "L2" else "ipv4"
            acls[row.key] = {"name": row.key, "family": family, "src": row.src, "field_src": {},
                             "entries": [], "implicit_action": "permit"}
            stage = (_text(row.fields.get("stage")) or "ingress").lower()
            direction = "out" if stage == "egress" else "in"
            ports_ref = row.ref("ports")  # (the one line of the list, for every port in it)
            for port in _port_list(row.fields.get("ports")):
                iface = self.port(row, port)
                if iface is not None:
                    iface["acls"].append(_acl_binding(row.key, direction, family, ports_ref))
        entries: dict[str, list[tuple[int, Obj]]] = {}
        for row in self.rows("ACL_RULE"):
            table, _, rule = row.key.partition("|")
            if table not in acls:
                if table not in self.tables.get("ACL_TABLE", {}):
                    self.reference(row, "", "ACL_TABLE", table, resolved=False)
                continue
            entry = self.acl_entry(row, rule)
            if entry is not None:
                entries.setdefault(table, []).append((entry["seq"], entry))
        for table, items in entries.items():
            items.sort(key=lambda item: -item[0])  # stable: equal priorities keep file order
            acls[table]["entries"] = [entry for _, entry in items]

    def acl_entry(self, row: Row, rule: str) -> Obj | None:
        fields = {k.upper(): v for k, v in row.fields.items()}
        refs = {k.upper(): row.ref(k) for k in row.fields}
        priority_row = Row(row.table, row.key, fields, row.src, {}, refs)
        priority = self.int_field(priority_row, "PRIORITY", 0, 1 << 32)
        if priority is None:
            if "PRIORITY" not in fields:
                self.problem(row.src, f"{row.owner}: rule without PRIORITY; ignored")
            return None
        action = (_text(fields.get("PACKET_ACTION")) or "FORWARD").upper()
        entry: Obj = {"seq": priority, "action": "deny" if action == "DROP" else "permit",
                      "name": rule, "src": row.src, "field_src": {}, "qualifiers": []}
        words = [f"{rule} (priority {priority}): {action}"]
        for key, value in fields.items():
            if key in _ACL_META or key.startswith(_ACL_NON_MATCH_PREFIXES):
                continue
            text = _text(value) or str(value)
            words.append(f"{key} {text}")
            self.acl_match(entry, key, text)
            target = _ROCE_HEADER_FIELDS.get(key)
            if target is not None and target in entry and key in refs:
                entry["field_src"][target] = refs[key]
        if "PACKET_ACTION" in refs:
            entry["field_src"]["action"] = refs["PACKET_ACTION"]
        entry["text"] = " ".join(words)
        return entry

    @staticmethod
    def acl_match(entry: Obj, key: str, text: str) -> None:
        """One match field of an ACL rule into the entry (anything unknown narrows it)."""
        if key in ("IP_PROTOCOL", "NEXT_HEADER"):
            number = int(text, 16) if text.lower().startswith("0x") and len(text) < 8 else (
                int(text) if text.isdigit() and len(text) < 4 else None)
            entry["protocol"] = _PROTOCOLS.get(number, text) if number is not None else text
        elif key in ("L4_DST_PORT", "L4_SRC_PORT", "L4_DST_PORT_RANGE", "L4_SRC_PORT_RANGE"):
            lo, _, hi = text.partition("-")
            target = "dst_port" if "_DST_" in key else "src_port"
            if lo.isdigit() and (not hi or hi.isdigit()) and len(lo) < 6 and len(hi) < 6:
                high = int(hi) if hi else int(lo)
                entry[target] = {"op": "range" if hi else "eq", "ranges": [(int(lo), high)]}
            else:
                entry["qualifiers"].append(f"{key} {text}")
        elif key in ("SRC_IP", "SRC_IPV6"):
            entry["src_addr"] = text
        elif key in ("DST_IP", "DST_IPV6"):
            entry["dst_addr"] = text
        elif key == "DSCP" and text.isdigit() and len(text) < 3:
            entry["dscp"] = [int(text)]
        elif key in _ROCE_HEADER_FIELDS and (masked := _masked(text)) is not None:
            entry[_ROCE_HEADER_FIELDS[key]] = masked
        elif key == "IP_TYPE" and text.upper() in _IP_TYPES:
            return
        elif key == "IP_TYPE" and not text.upper().startswith("NON_IPV"):
            entry["protocol"] = text.lower()  # NON_IP, ARP …: never UDP
        elif key == "ETHER_TYPE":
            try:
                ethertype = int(text, 0) if len(text) < 10 else -1
            except ValueError:
                ethertype = -1
            if ethertype not in _IP_ETHERTYPES:
                entry["protocol"] = f"ethertype {text}"
        else:
            entry["qualifiers"].append(f"{key} {text}")


_METADATA_HOST = re.compile(
    r'"DEVICE_METADATA"[ \t\n\r]*:[ \t\n\r]*\{[ \t\n\r]*"localhost"[ \t\n\r]*:[ \t\n\r]*'
    r'\{[^{}"]*(?:"[^"\\{}]*"[^{}"]*)*\}')
"""``"DEVICE_METADATA": {"localhost": {…}}`` with a flat ``localhost`` row (no escapes)."""
_HOSTNAME_FIELD = re.compile(r'"hostname"[ \t\n\r]*:[ \t\n\r]*"([!#-\[\]-~]+)"')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_WS_END = re.compile(r"[ \t\n\r]*")


def certain_hostname(text: str) -> str | None:
    """The hostname that ``Document.hostname`` will give this text, when that is certain
    from a few scans of it; None when in doubt (then the document is grouped as usual).

    Certain means: no NUL, no ``\\u`` escape, ``hostname`` and ``DEVICE_METADATA`` each
    written once, in a top-level ``DEVICE_METADATA.localhost`` row of plain strings, with a
    printable ASCII value, and the text a JSON object. Used to parse a folder of whole
    switches one switch at a time (in parallel) rather than as one merge group: a document
    that names its own hostname joins only the documents naming the same one (``_group``).
    """
    if ("\x00" in text or ("\\" in text and "\\u" in text) or text.count("hostname") != 1
            or text.count("DEVICE_METADATA") != 1 or not text.lstrip().startswith("{")
            or not text.rstrip().endswith("}")):
        return None
    block = _METADATA_HOST.search(text)
    if block is None:
        return None
    field_ = _HOSTNAME_FIELD.search(block.group(0))
    if field_ is None:
        return None
    if not text.startswith("}", _WS_END.match(text, block.end()).end()):
        return None  # DEVICE_METADATA holds more than ``localhost`` (maybe a second one)
    outside = _STRING.sub("", text[:block.start()])
    if (outside.count("{") - outside.count("}") != 1
            or outside.count("[") != outside.count("]")):
        return None  # not a table of the top level
    return field_.group(1)


# -- the parser ------------------------------------------------------------------------------


class SonicParser:
    name = "sonic"
    label = "SONiC config_db.json"
    vendor = "sonic"

    def sniff(self, head: str) -> int:
        stripped = head.lstrip()
        if not stripped.startswith("{") or any(mark in head for mark in _TEMPLATE):
            return 0
        tables: set[str] = set()
        for match in _SIGNAL.finditer(head):
            if match.group(1) in SIGNAL_TABLES:
                tables.add(match.group(1))
                if len(tables) == 3:  # certain: the rest of the head cannot change it
                    break
        if not tables:
            return 0
        return min(100, 55 + 15 * len(tables))

    def sniff_whole(self, text: str) -> int:
        """``sniff`` for a JSON document whose head names no known table: two known tables
        anywhere in it (one regular-expression scan, stopping at the second)."""
        stripped = text[:64].lstrip()
        if not stripped.startswith("{") or any(mark in text[:SNIFF_HEAD] for mark in _TEMPLATE):
            return 0
        seen: set[str] = set()
        for match in _SIGNAL_ANYWHERE.finditer(text):
            seen.add(match.group(1))
            if len(seen) >= 2:
                return 85
        return 0

    def parse(self, text: str, path: str) -> ParseResult:
        result = self.parse_documents([(text, path)])
        fatal = [p for p in result.problems if p.fatal]
        if fatal and not result.devices:
            raise ParseError(path, fatal[0].line, fatal[0].message)
        return result

    def parse_documents(self, docs: list[tuple[str, str]]) -> ParseResult:
        """Parse the documents of one folder: one device per hostname (see the module doc)."""
        loaded: list[Document] = []
        problems: list[ParseProblem] = []
        for text, path in docs:
            try:
                loaded.append(load_document(text, path))
            except ParseError as exc:
                problems.append(ParseProblem(file=exc.file, line=exc.line, message=exc.message,
                                             kind="parse-error", fatal=True))
        devices = []
        for name, group in _group(loaded):
            tables = merge_tables(group)
            builder = _SonicBuilder(tables, [d.path for d in group], name)
            try:
                device, built = builder.run()
            except ParseError as exc:
                problems.append(ParseProblem(file=exc.file, line=exc.line, message=exc.message,
                                             kind="parse-error", fatal=True))
                continue
            devices.append(device)
            problems += [p for d in group for p in d.problems] + built
        return ParseResult(
            devices=devices, problems=problems, lines=sum(d.lines for d in loaded) or 1,
            unknown_lines=sum(d.unknown for d in loaded),
            first_unknown=next((d.first_unknown for d in loaded if d.first_unknown), None),
        )


def _group(docs: list[Document]) -> list[tuple[str, list[Document]]]:
    """Documents of one folder by device (the documents keep their order: the later wins).

    A document naming a hostname (DEVICE_METADATA) belongs to that device. A nameless fragment
    (a rendered qos.json, buffers.json) belongs to a device whose hostname its file name
    carries as a word (``leaf1-qos.json``, ``qos_leaf1.json``); otherwise the nameless
    fragments join the folder's only device, or form one together, when no two of them
    contradict each other (a table entry given different values): a folder of one device's
    files, where a fragment may override the named configuration as ``sonic-cfggen -j a -j b``
    does. Fragments that contradict each other are several devices': each stands alone, never
    merged across devices."""
    named: dict[str, list[Document]] = {}
    nameless: list[Document] = []
    for doc in docs:
        host = doc.hostname
        if host is None:
            nameless.append(doc)
        else:
            named.setdefault(host, []).append(doc)
    loose: list[Document] = []
    for doc in nameless:
        words = set(_WORDS.split(PurePath(doc.path).stem.lower()))
        owners = [host for host in named if host.lower() in words
                  or PurePath(doc.path).stem.lower().startswith(host.lower())]
        if len(owners) == 1:
            named[owners[0]].append(doc)
        else:
            loose.append(doc)
    base = next(iter(named.values()), [])
    fragments = [*(d for d in base if d.hostname is None), *loose]  # may not contradict
    if loose and len(named) <= 1 and not any(
            _contradict(a, b) for n, a in enumerate(fragments) for b in fragments[n + 1:]):
        together = [*base, *loose]
        # nameless: a folder of one device's files is named after the folder
        path = PurePath(loose[0].path)
        host = next(iter(named), path.stem if len(together) == 1 else path.parent.name or
                    path.stem)
        chosen = {id(d) for d in together}
        return [(host, [d for d in docs if id(d) in chosen])]
    # Each group in the folder's order; by identity, once (a list membership per host made
    # this quadratic, and compared whole documents).
    order = {id(doc): n for n, doc in enumerate(docs)}
    groups = [(host, sorted(group, key=lambda d: order[id(d)])) for host, group in named.items()]
    return [*groups, *((PurePath(d.path).stem, [d]) for d in loose)]


_WORDS = re.compile(r"[-_.\s]+")


def _contradict(a: Document, b: Document) -> bool:
    """Do two documents give one table entry different values (a field set differently)?"""
    for table, rows in a.tables.items():
        other = b.tables.get(table)
        if not other:
            continue
        for key in rows.keys() & other.keys():
            mine, theirs = rows[key].fields, other[key].fields
            if any(name in theirs and theirs[name] != value for name, value in mine.items()):
                return True
    return False
