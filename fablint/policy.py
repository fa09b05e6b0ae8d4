"""The typed policy that rules read: what a correct fabric looks like.

A policy is what a profile (``rules/*.yaml``) resolves to after ``extends:`` and the project's own
overrides. Every section forbids unknown keys so that a typo in a profile is an error, not a
silently ignored setting.
"""

# No "from __future__ import annotations" here: pydantic would compile the text of every
# field's annotation when the classes are made (a sixth of the import). An annotation
# that names a class defined further down is a string.

import fnmatch
import re
from typing import Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from fablint.model import _Model


def _regexes(patterns: list[str]) -> list[str]:
    """``patterns`` if each is a regular expression, else a ValueError naming the bad one."""
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"bad regular expression {pattern!r}: {exc}") from exc
    return patterns


class _Section(_Model):
    """Base of the policy sections. Their validators are built when a profile is first
    validated (``_Model``: each once), which a run that finds its policy in the cache of
    validated policies (``fablint.policycache``) never does."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _priorities(values: list[int]) -> list[int]:
    for v in values:
        if not 0 <= v <= 7:
            raise ValueError(f"priority {v} outside 0-7")
    return sorted(set(values))


class Classification(_Section):
    """Which traffic is RoCE and which is CNP, as the hosts mark it."""

    roce_dscp: list[int] = Field(default_factory=lambda: [24, 26])
    cnp_dscp: list[int] = Field(default_factory=lambda: [48])
    cnp_traffic_class: int = Field(default=6, ge=0, le=7)
    """Class suggested for CNPs in fixes (6 on NVIDIA; Cisco and Broadcom Thor2 use 7)."""
    other_lossless_dscp: list[int] = Field(default_factory=lambda: [3, 4])
    """DSCPs of lossless traffic other than the hosts' RoCE data that a design may send to a
    paused priority (SONiC's stock AZURE map: RDMA on DSCP 3 and 4); not lossy traffic."""

    @field_validator("roce_dscp", "cnp_dscp", "other_lossless_dscp")
    @classmethod
    def _dscp(cls, values: list[int]) -> list[int]:
        for v in values:
            if not 0 <= v <= 63:
                raise ValueError(f"DSCP {v} outside 0-63")
        return sorted(set(values))


class PfcPolicy(_Section):
    lossless_priorities: list[int] = Field(default_factory=lambda: [3])
    """Priorities that must have PFC on every RoCE-carrying port."""
    lossy_priorities: list[int] = Field(default_factory=list)
    """Priorities that must never be paused whatever the DSCP maps send to them (e.g. a
    priority hosts mark by PCP only). Otherwise a priority is lossy when the device's maps send
    it traffic other than RoCE: the default class, CNPs or other DSCPs."""
    forbid_link_pause: bool = True
    """802.3x pause on a PFC port is an error (the two are mutually exclusive on most ASICs)."""

    _check_lossless = field_validator("lossless_priorities")(_priorities)
    _check_lossy = field_validator("lossy_priorities")(_priorities)

    @model_validator(mode="after")
    def _disjoint(self) -> "PfcPolicy":
        both = set(self.lossless_priorities) & set(self.lossy_priorities)
        if both:
            raise ValueError(f"priorities {sorted(both)} are both lossless and lossy")
        return self


Range = tuple[int, int]
SPEED_CLASS = re.compile(r"^(any|[1-9]\d*g)$")
"""Keys of ``ecn.bounds``: ``any``, or a port speed in Gb/s (``100g``, ``400g``, ``800g``)."""


class EcnBounds(_Section):
    """Inclusive [low, high] ranges the ECN settings of a lossless queue should fall in."""

    min_bytes: Range | None = None
    max_bytes: Range | None = None
    probability: Range | None = None
    """Maximum marking probability, percent."""

    @field_validator("min_bytes", "max_bytes", "probability")
    @classmethod
    def _ordered(cls, value: Range | None) -> Range | None:
        if value is not None and not 0 <= value[0] <= value[1]:
            raise ValueError(f"range {list(value)} must be [low, high] with 0 <= low <= high")
        return value


class EcnPolicy(_Section):
    required_on_lossless: bool = True
    """ECN marking on every lossless queue. Set false for a PFC-only design (no DCQCN)."""
    fix_min_bytes: int = Field(default=153_600, gt=0)
    """Minimum threshold suggested in fixes (150 KiB, close to NVIDIA's RoCE default)."""
    fix_max_bytes: int = Field(default=1_536_000, gt=0)
    """Maximum threshold suggested in fixes (1500 KiB)."""
    fix_probability: int = Field(default=100, ge=1, le=100)
    allow_step_marking: bool = True
    """Minimum threshold equal to the maximum (step marking, every packet marked past one
    point) is a deliberate design in some profiles; false makes it an ECN003 warning."""
    bounds: dict[str, EcnBounds] = Field(default_factory=dict)
    """Expected ECN thresholds by port speed class (``400g``, ``100g``, or ``any``), for
    ECN005. Empty: no baseline (published values differ by vendor)."""

    @field_validator("bounds")
    @classmethod
    def _speed_classes(cls, values: dict[str, EcnBounds]) -> dict[str, EcnBounds]:
        for key in values:
            if not SPEED_CLASS.match(key):
                raise ValueError(f"speed class {key!r} is not 'any' or a speed such as '400g'")
        return values


class WatchdogPolicy(_Section):
    required: bool = True
    """A PFC watchdog on every port that runs PFC."""
    detection_ms: tuple[int, int] = (100, 5000)
    """Allowed storm detection time, ms (SONiC PFC_WD ``detection_time``)."""
    restoration_ms: tuple[int, int] = (100, 60000)
    """Allowed restoration time, ms (SONiC PFC_WD ``restoration_time``)."""
    poll_ms: tuple[int, int] = (100, 1000)
    """Allowed polling interval, ms (SONiC PFC_WD ``GLOBAL`` ``POLL_INTERVAL``)."""
    actions: list[str] = Field(default_factory=lambda: ["drop", "forward", "alert"])
    """Storm actions the platforms of ``range_vendors`` accept."""
    range_vendors: list[str] = Field(default_factory=lambda: ["sonic"])
    """Inputs whose timers and action are held to the ranges and actions above (they are the
    limits of SONiC's PFC_WD schema; other platforms enforce their own)."""
    alert_only_actions: list[str] = Field(default_factory=lambda: ["alert"])
    """Actions that only report a storm without breaking it (a warning on every input)."""
    fix_action: str = "drop"
    """Action suggested in fixes."""

    @field_validator("detection_ms", "restoration_ms", "poll_ms")
    @classmethod
    def _ordered(cls, value: tuple[int, int]) -> tuple[int, int]:
        if not 0 < value[0] <= value[1]:
            raise ValueError(f"range {list(value)} must be [low, high] with 0 < low <= high")
        return value


class BufferPolicy(_Section):
    """Lossless buffer (priority group headroom) expectations."""

    headroom_mtu: int = Field(default=9100, ge=1280, le=65535)
    """MTU assumed for the headroom estimate of a port whose MTU the input does not give."""
    fix_cable_length_m: int = Field(default=5, ge=1, le=100_000)
    """Cable length fixes write for a port that has none (measure yours: it sizes headroom)."""


class MtuPolicy(_Section):
    fabric_min: int = Field(default=9000, ge=1280, le=65535)
    """Smallest IP MTU allowed on a fabric port, in bytes (normalised across vendors)."""
    lossless_class_min: int = Field(default=9216, ge=1280, le=65535)
    """Smallest MTU of the lossless traffic class where the platform sets one per class (NX-OS
    network-qos ``mtu``): 9216, which also carves the class's no-drop buffers."""


class AclPolicy(_Section):
    roce_udp_port: int = Field(default=4791, ge=1, le=65535)


class PortScope(_Section):
    """Which ports are fabric ports (carry RoCE): the ports the RoCE rules look at."""

    routed: bool = True
    """Routed (layer-3) physical ports and port-channels are fabric ports."""
    switched: bool = False
    """Bridged switchports are fabric ports too (an L2 RoCE design)."""
    include: list[str] = Field(default_factory=list)
    """Regular expressions on interface name or description that force a port in."""
    exclude: list[str] = Field(default_factory=list)
    """Regular expressions on interface name or description that take a port out."""

    @field_validator("include", "exclude")
    @classmethod
    def _regex(cls, values: list[str]) -> list[str]:
        return _regexes(values)


class RoceDevices(_Section):
    """Which switches must carry RoCE: a switch with no lossless configuration at all is
    reported once (QOS011), for information, unless it is named here; then it is an error and
    the per-port PFC, ECN, QoS and MTU rules check it as well."""

    names: list[str] = Field(default_factory=list)
    """Shell-style patterns (``leaf*``, ``gpu-leaf-[0-9]*``) on the device's hostname,
    case-insensitive."""
    roles: list[str] = Field(default_factory=list)
    """Shell-style patterns on the device's role where its configuration states one (SONiC
    ``DEVICE_METADATA`` ``type``: ``ToRRouter``, ``LeafRouter`` …), case-insensitive."""

    def requires(self, name: str, role: str | None) -> bool:
        """Does the profile say the device ``name`` (with ``role``) must carry RoCE?"""
        name = name.lower()
        return (any(fnmatch.fnmatchcase(name, p.lower()) for p in self.names)
                or (role is not None
                    and any(fnmatch.fnmatchcase(role.lower(), p.lower()) for p in self.roles)))


IbGeneration = Literal["SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"]
IB_GENERATIONS: tuple[str, ...] = ("SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR",
                                   "XDR")
"""InfiniBand link generations, oldest first."""


class IbSmPolicy(_Section):
    """What a correct OpenSM subnet manager configuration looks like (``ib-sm`` rules)."""

    fabric_generation: IbGeneration | None = None
    """InfiniBand generation of the fabric's links (``EDR``, ``HDR``, ``NDR`` …). Unset: rules
    that depend on it say what they cannot tell, at info severity."""
    routing_engines: list[str] = Field(default_factory=lambda: [
        "minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "nue",
        "dfsssp", "sssp", "kdor-hc", "chain", "pqft", "dfp", "dfp2", "ar_updn", "ar_ftree",
        "ar_torus", "ar_dor", "no_fallback",
    ])
    """Names ``routing_engine`` may list (OpenSM compares them case-sensitively)."""
    ipoib_min_mtu: int = Field(default=5, ge=1, le=5)
    """Smallest IBTA MTU code for an IPoIB partition's broadcast group (5 = 4096 bytes)."""
    ipoib_mtu_from: IbGeneration = "EDR"
    """Generation from which a smaller IPoIB MTU is a warning rather than a note."""
    default_qos_policy_files: list[str] = Field(default_factory=lambda: [
        "/etc/opensm/qos-policy.conf", "/etc/rdma/qos-policy.conf",
        "/usr/local/etc/opensm/qos-policy.conf",
    ])
    """Paths ``opensm -c`` writes as ``qos_policy_file`` by default: naming one is not a
    deliberate QoS setting."""


class IbLinkPolicy(_Section):
    """What healthy InfiniBand links look like (``ib-link`` rules IB001-IB009)."""

    expected_width: Literal[1, 2, 4, 8, 12] = 4
    """Width every link should train at, in lanes (IB001). 4x is the standard HCA and switch
    port; set 2 for a fabric of split ports (QM9700 NDR200: two 2x ports per cage)."""
    prevailing_share: float | None = Field(default=0.9, gt=0, le=1)
    """IB002 without ``ib_sm.fabric_generation``: a link slower than the generation of at
    least this share of a dump's links is a warning. None: do not guess the generation."""
    shared_descriptions: list[str] = Field(
        default_factory=lambda: ["^Mellanox Technologies Aggregation Node$"])
    """Regular expressions on node descriptions that many nodes may share (IB007)."""

    @field_validator("shared_descriptions")
    @classmethod
    def _regex(cls, values: list[str]) -> list[str]:
        return _regexes(values)


class TopologyPolicy(_Section):
    """What the cabling of a GPU fabric should look like."""

    roles: dict[Literal["host", "leaf", "spine", "super-spine"], list[str]] = Field(
        default_factory=dict)
    """Regular expressions on device names that fix a role (checked before inference)."""
    max_leaf_oversubscription: float = Field(default=1.0, gt=0)
    """Host-facing over uplink capacity a leaf may have (1.0: non-blocking)."""
    max_tier_oversubscription: float = Field(default=1.0, gt=0)
    min_bisection_ratio: float = Field(default=1.0, gt=0, le=1)
    """Bisection bandwidth as a share of the ideal (half the host-facing capacity)."""
    rail_optimised: Literal["auto", "yes", "no"] = "auto"
    """Rail checks: ``auto`` when most servers spread their NICs over several leaves."""
    management_ports: list[str] = Field(default_factory=list)
    """Regular expressions on interface names of out-of-band ports, beyond the vendors' own
    (``Management1``, ``Ma1``, ``mgmt0``, a switch's ``eth0``): their neighbours are not fabric."""

    @field_validator("roles")
    @classmethod
    def _patterns(cls, roles: dict[str, list[str]]) -> dict[str, list[str]]:
        for patterns in roles.values():
            _regexes(patterns)
        return roles

    @field_validator("management_ports")
    @classmethod
    def _mgmt_patterns(cls, patterns: list[str]) -> list[str]:
        _regexes(patterns)
        return patterns


NVIDIA_DCQCN_DEFAULTS: dict[str, int] = {
    "dce_tcp_g": 1019, "dce_tcp_rtt": 1, "initial_alpha_value": 1023,
    "rate_to_set_on_first_cnp": 0, "rpg_min_dec_fac": 50, "rpg_min_rate": 1, "rpg_gd": 11,
    "rate_reduce_monitor_period": 4, "rpg_time_reset": 300, "rpg_byte_reset": 32767,
    "rpg_threshold": 1, "rpg_ai_rate": 5, "rpg_hai_rate": 50, "min_time_between_cnps": 4,
}
"""NVIDIA ConnectX DCQCN defaults by mlx5 sysfs name (rules/default.yaml names the sources)."""


class DcqcnPolicy(_Section):
    """DCQCN congestion control on the hosts' NICs."""

    required: bool = True
    """DCQCN notification and reaction point on for every lossless priority (DCQ001). A
    PFC-only design without DCQCN sets this false (and ``ecn.required_on_lossless``)."""
    cnp_priority: int | None = Field(default=6, ge=0, le=7)
    """802.1p priority NICs send CNPs with (ConnectX ``cnp_802p_prio``). None: any priority
    that is not lossless."""
    defaults: dict[str, int] = Field(default_factory=lambda: dict(NVIDIA_DCQCN_DEFAULTS))
    """DCQCN parameter values DCQ002 compares the NICs' with, by mlx5 sysfs name."""


class HostPolicy(_Section):
    """GPU host NIC expectations beyond QoS."""

    roce_mtu: Literal[256, 512, 1024, 2048, 4096] = 4096
    """RDMA path MTU the NICs must be able to use (MTU003); RoCE's largest is 4096."""
    fix_mtu: int = Field(default=9000, ge=1280, le=65535)
    """Netdev MTU that fixes set on a host NIC."""


class Policy(_Section):
    """The resolved policy profile."""

    name: str = "default"
    description: str = ""
    classification: Classification = Field(default_factory=Classification)
    pfc: PfcPolicy = Field(default_factory=PfcPolicy)
    ecn: EcnPolicy = Field(default_factory=EcnPolicy)
    watchdog: WatchdogPolicy = Field(default_factory=WatchdogPolicy)
    buffer: BufferPolicy = Field(default_factory=BufferPolicy)
    mtu: MtuPolicy = Field(default_factory=MtuPolicy)
    acl: AclPolicy = Field(default_factory=AclPolicy)
    ports: PortScope = Field(default_factory=PortScope)
    roce_devices: RoceDevices = Field(default_factory=RoceDevices)
    topology: TopologyPolicy = Field(default_factory=TopologyPolicy)
    ib_sm: IbSmPolicy = Field(default_factory=IbSmPolicy)
    ib_link: IbLinkPolicy = Field(default_factory=IbLinkPolicy)
    dcqcn: DcqcnPolicy = Field(default_factory=DcqcnPolicy)
    hosts: HostPolicy = Field(default_factory=HostPolicy)


SeverityName = Literal["error", "warning", "info"]
