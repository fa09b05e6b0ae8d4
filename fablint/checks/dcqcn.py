"""GPU host NIC rules: DCQCN on the NICs, and the NICs agreeing with the profile and switches.

Hosts are devices of vendor ``host`` whose ``Device.host`` lists their RoCE NICs
(``HostNic``). Only what the host's inputs report is checked: an unknown value is never a
finding. The rules that compare a NIC with the switch port it is cabled to are
``FabricRule``s: ``summarize`` keeps a host's NICs, or the few facts of each switch port the
rule needs, in the worker that parsed the device; ``compare`` pairs NICs with ports. The cable
comes from the host's own facts (``cabled_to``), a topology link, or a switch port whose
configured neighbour is the NIC.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from fablint.checks.base import (
    Context,
    DeviceSummary,
    FabricRule,
    Rule,
    fmt_priorities,
    policy_bindings,
    register,
)
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import Device, Fabric, HostNic, SourceRef

PREFERRED_ROCE_DSCP = 26
"""DSCP fixes give RoCE when the profile lists it: NVIDIA's and Broadcom's default (ToS 106)."""
ECT0 = 2
"""ECN field of the ToS that fixes keep when the NIC's own is unknown (ECT(0), as ToS 106)."""


def nic_params(nic: HostNic, **params: object) -> dict[str, object]:
    """Fix parameters every host fix carries: the NIC, whose NIC it is, and what its firmware
    configuration says (an mlxconfig query), so that a fix can also make the change persist."""
    return {"interface": nic.name, "nic_vendor": nic.vendor, "rdma_device": nic.rdma_device,
            "firmware": nic.firmware.model_dump() if nic.firmware else None, **params}


def firmware_note(nic: HostNic, *keys: str) -> str:
    """A note for a message about a NIC value that only its firmware configuration (an
    mlxconfig query) reported: what the NIC boots with, which a script may change at run time."""
    if nic.firmware is not None and any(key in nic.firmware.fields for key in keys):
        return (" (from the NIC's firmware configuration: what it boots with; capture "
                "mlnx_qos or sysfs to see the running setting)")
    return ""


def _lossless(ctx: Context) -> set[int]:
    return set(ctx.policy.pfc.lossless_priorities)


# -- NICs and the switch ports they are cabled to, as summaries ------------------------------


class PfcDetail(NamedTuple):
    """PFC of a port outside the fabric scope (PFC006 compares those with the NIC)."""

    ref: SourceRef | None
    priority_refs: tuple[tuple[int, SourceRef | None], ...]
    fix: tuple[tuple[str, object], ...]
    """Parameters of a switch PFC fix (profile, mode, no_drop, policies …)."""


class PortRow(NamedTuple):
    """What the host rules need of one switch port (a tuple: cheap to send between processes)."""

    name: str
    fabric: bool
    routed: bool
    neighbor: tuple[str, str] | None
    mtu: int | None
    mtu_configured: bool
    mtu_ref: SourceRef | None
    active: set[int] | frozenset[int]
    """PFC priorities in effect (the model's own set: read, never changed)."""
    maps: int
    """Key of the port's classification in ``SwitchSide.classes``."""
    pfc: PfcDetail | None


class HostSide(NamedTuple):
    nics: tuple[HostNic, ...]


class SwitchSide(NamedTuple):
    ports: dict[str, PortRow]
    classes: dict[int, tuple[tuple[int, int, int, bool, SourceRef | None], ...]]
    """Maps key -> (DSCP, traffic class, PFC priority, class may be no-drop, map line) for each
    RoCE DSCP of the profile; ports share the key of the device-wide maps."""


_NONE: frozenset[int] = frozenset()
_SIDES: dict[tuple[int, int], tuple[Device, HostSide | SwitchSide | None]] = {}
"""The last devices' summaries: the three host rules share one pass over the ports."""
_SIDES_KEPT = 16


def sides(device: Device, ctx: Context) -> HostSide | SwitchSide | None:
    """A host's NICs, or the port table of a switch (None: nothing to pair)."""
    key = (id(device), id(ctx.policy))
    cached = _SIDES.get(key)
    if cached is not None and cached[0] is device:
        return cached[1]
    side = _host_side(device) if device.host is not None else _switch_side(device, ctx)
    if len(_SIDES) >= _SIDES_KEPT:
        _SIDES.clear()
    _SIDES[key] = (device, side)
    return side


def _host_side(device: Device) -> HostSide | None:
    nics = device.host.nics if device.host is not None else {}
    return HostSide(tuple(nics.values())) if nics else None


def _switch_side(device: Device, ctx: Context) -> SwitchSide | None:
    roce = ctx.policy.classification.roce_dscp
    classes: dict[int, tuple[tuple[int, int, int, bool, SourceRef | None], ...]] = {}
    ports: dict[str, PortRow] = {}
    for iface in device.interfaces.values():
        if iface.kind not in ("physical", "port-channel") or not iface.admin_up:
            continue  # a port that is shut down carries nothing to compare
        maps = device.maps_for(iface)
        key = id(maps)
        if key not in classes:
            rows = []
            for dscp in roce:
                tc = maps.class_of_dscp(dscp)
                allowed = maps.no_drop_classes is None or tc in maps.no_drop_classes
                rows.append((dscp, tc, maps.pfc_priority_of(tc), allowed,
                             maps.field_src.get(f"dscp_to_tc[{dscp}]") or maps.src))
            classes[key] = tuple(rows)
        fabric = ctx.is_fabric_port(device, iface)
        pfc = iface.qos.pfc
        active = pfc.no_drop if pfc.enabled else _NONE
        detail = None if fabric else PfcDetail(
            pfc.where("no_drop", "mode", "enabled") or iface.src,
            tuple((p, pfc.field_src.get(f"priority[{p}]")) for p in sorted(active)),
            (("profile", device.profile_of(iface, "pfc")),
             ("global_off", pfc.disabled_by is not None), ("mode", pfc.mode),
             ("no_drop", sorted(pfc.no_drop)), ("policies", policy_bindings(iface))),
        )
        neighbor = iface.neighbor
        ports[iface.name] = PortRow(
            iface.name, fabric, iface.routed,
            (neighbor.device, neighbor.interface) if neighbor is not None else None,
            iface.mtu, "mtu" in iface.field_src, iface.field_src.get("mtu") or iface.src,
            active, key, detail,
        )
    return SwitchSide(ports, classes) if ports else None


Cabled = tuple[DeviceSummary, PortRow]


class Cabling:
    """Host NICs of the summaries and the switch ports they are cabled to."""

    def __init__(self, summaries: list[DeviceSummary], fabric: Fabric) -> None:
        self.hosts = [(s, nic) for s in summaries if isinstance(s.facts, HostSide)
                      for nic in s.facts.nics]
        self.switches = {s.name: s for s in summaries if isinstance(s.facts, SwitchSide)}
        self.fabric = fabric
        self._index: dict[tuple[str, str], tuple[str, str]] | None = None

    def _port(self, device: str, interface: str) -> Cabled | None:
        switch = self.switches.get(device)
        row = switch.facts.ports.get(interface) if switch is not None else None
        return (switch, row) if switch is not None and row is not None else None

    def _build(self) -> dict[tuple[str, str], tuple[str, str]]:
        index: dict[tuple[str, str], tuple[str, str]] = {}
        # The topology's cables carry the names the devices use (``Et1`` in an LLDP table is
        # the switch's ``Ethernet1``); raw links only when no topology was built.
        topology = self.fabric.topology
        for link in topology.cables if topology is not None else self.fabric.links:
            for near, far in ((link.a, link.b), (link.b, link.a)):
                index.setdefault((near.device, near.interface), (far.device, far.interface))
        for switch in self.switches.values():
            for row in switch.facts.ports.values():
                if row.neighbor is not None:
                    index.setdefault(row.neighbor, (switch.name, row.name))
        return index

    def port_of(self, host: DeviceSummary, nic: HostNic) -> Cabled | None:
        if not self.switches:
            return None
        if nic.cabled_to is not None:
            return self._port(nic.cabled_to.device, nic.cabled_to.interface)
        if self._index is None:
            self._index = self._build()
        far = self._index.get((host.name, nic.name))
        return self._port(*far) if far is not None else None


@register
class NicDcqcnEnabled(Rule):
    """DCQCN is off on a NIC for a lossless priority.

    ## What it checks
    For every host NIC whose DCQCN state is known (an `ecn` sysfs dump, or `dcqcn:` in a
    host-facts file), both DCQCN roles must be enabled on every priority of the profile's
    `pfc.lossless_priorities`: the notification point (`ecn/roce_np/enable/P`: the receiver
    sends congestion notification packets for ECN-marked RoCE packets) and the reaction point
    (`ecn/roce_rp/enable/P`: the sender slows down when CNPs arrive). Turn the rule off with
    `dcqcn.required: false` for a PFC-only design.

    ## Why it matters
    The switches' ECN marking does nothing unless the NICs close the loop: without the
    notification point no CNP is ever sent, without the reaction point CNPs are ignored. The
    congestion is then only held back by PFC, which pauses whole priorities hop by hop,
    spreads congestion to innocent flows and, at worst, deadlocks the fabric. ConnectX enables
    DCQCN on every priority by default, so a disabled priority is a deliberate or scripted
    change that is easy to miss.

    ## How to fix
    Enable both roles on the lossless priority (`echo 1 >
    /sys/class/net/IF/ecn/roce_np/enable/3` and the same under `roce_rp`), and make it
    persistent (firmware `ROCE_CC_PRIO_MASK_P1` with `mlxconfig`, or a boot script).
    """

    id = "DCQ001"
    name = "nic-dcqcn-enabled"
    title = "DCQCN off on a NIC for a lossless priority"
    severity = Severity.WARNING
    category = "dcqcn"
    vendors = ("host",)
    settings = ("dcqcn.required", "pfc.lossless_priorities")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if device.host is None or not ctx.policy.dcqcn.required:
            return
        lossless = sorted(_lossless(ctx))
        for nic in device.host.nics.values():
            np_off = [p for p in lossless if nic.ecn_np.get(p) is False]
            rp_off = [p for p in lossless if nic.ecn_rp.get(p) is False]
            if not np_off and not rp_off:
                continue
            parts = []
            if np_off:
                parts.append(f"notification point (roce_np) off for priority "
                             f"{fmt_priorities(np_off)}")
            if rp_off:
                parts.append(f"reaction point (roce_rp) off for priority "
                             f"{fmt_priorities(rp_off)}")
            refs = [nic.field_src.get(f"ecn_np[{p}]") for p in np_off]
            refs += [nic.field_src.get(f"ecn_rp[{p}]") for p in rp_off]
            yield self.finding(
                device, nic.name, next((r for r in refs if r), nic.src),
                f"DCQCN on {nic.name}: {' and '.join(parts)}; the lossless priorities rely "
                "on PFC alone" + firmware_note(nic, *(f"ecn_np[{p}]" for p in np_off),
                                               *(f"ecn_rp[{p}]" for p in rp_off)),
                related=refs[1:],
                fix=FixIntent("nic-dcqcn-enable", nic_params(nic, np=np_off, rp=rp_off)),
            )


@register
class NicDcqcnDefaultsDrift(Rule):
    """A NIC's DCQCN parameters differ from the NVIDIA defaults.

    ## What it checks
    Every DCQCN parameter a host reports for an NVIDIA (or unspecified) NIC (`ecn/roce_rp/*`
    and `ecn/roce_np/min_time_between_cnps` in a sysfs dump, `dcqcn.params` in a host-facts
    file) is compared with the profile's `dcqcn.defaults`, NVIDIA's published defaults, and
    the differences are listed. This is information, not a fault: tuned values are common.

    ## Why it matters
    DCQCN's timers and rate steps decide how fast a sender backs off and recovers. Values
    copied from an old tuning guide, left over from an experiment, or different on some hosts
    of a job make flows on the same fabric converge to different rates, which shows up as
    stragglers in collective operations. A list of the hosts that deviate, with the values,
    is the first thing to look at.

    ## How to fix
    If the deviation is not deliberate, write the default back (`echo VALUE >
    /sys/class/net/IF/ecn/roce_rp/NAME`, or reset the firmware defaults with `mlxconfig`);
    if it is, put the site's values in the profile's `dcqcn.defaults`.
    """

    id = "DCQ002"
    name = "nic-dcqcn-defaults-drift"
    title = "NIC DCQCN parameters differ from the NVIDIA defaults"
    severity = Severity.INFO
    category = "dcqcn"
    vendors = ("host",)
    settings = ("dcqcn.defaults",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if device.host is None:
            return
        defaults = ctx.policy.dcqcn.defaults
        for nic in device.host.nics.values():
            if nic.vendor not in (None, "nvidia"):
                continue
            drift = {name: (value, defaults[name]) for name, value in sorted(nic.dcqcn.items())
                     if name in defaults and value != defaults[name]}
            if not drift:
                continue
            refs = [nic.field_src.get(f"dcqcn[{name}]") for name in drift]
            listed = ", ".join(f"{name} {value} (default {default})"
                               for name, (value, default) in drift.items())
            yield self.finding(
                device, nic.name, next((r for r in refs if r), nic.src),
                f"DCQCN parameters of {nic.name} differ from the defaults: {listed}",
                related=refs[1:],
                fix=FixIntent("nic-dcqcn-params", nic_params(
                    nic, params={name: default for name, (_, default) in drift.items()})),
            )




@register
class NicSwitchDscpMatch(FabricRule):
    """A NIC marks or classifies RoCE and CNP traffic differently from the profile and switch.

    ## What it checks
    For every host NIC, what its inputs report must agree with the profile's
    `classification` and with the switch port it is cabled to:

    - the NIC trusts DSCP (`mlnx_qos` `Priority trust state: dscp`);
    - the DSCP it sends RoCE with (`default_roce_tos` / `traffic_class` ToS >> 2) is one of
      `classification.roce_dscp`, and its DSCP-to-priority map puts that DSCP on a priority
      of `pfc.lossless_priorities`;
    - its CNPs carry a DSCP of `classification.cnp_dscp` and the 802.1p priority
      `dcqcn.cnp_priority` (with `null` there: any priority that is not lossless);
    - when the cabled switch port is known, the switch's classification of the NIC's RoCE
      DSCP ends in the PFC priority the NIC sends it on (a switch port that does not make the
      DSCP lossless at all is QOS001's finding).

    ## Why it matters
    "It's critical that the configuration you set up on a NIC be matched by your switch"
    (AMD's RoCE guide). PFC pauses a priority: if the switch puts RoCE on priority 4 and the
    NIC sends it on priority 3, the pause frames stop the wrong traffic and RoCE is dropped. A
    NIC that trusts PCP classifies untagged routed RoCE into priority 0, where it gets no
    lossless buffer; a RoCE or CNP DSCP the switches do not expect lands in the default class.

    ## How to fix
    On NVIDIA NICs: `mlnx_qos -i IF --trust dscp`, `mlnx_qos -i IF --dscp2prio set,DSCP,PRIO`,
    `cma_roce_tos -d DEV -t TOS` (ToS = 4 * DSCP + 2, so DSCP 26 is ToS 106), and the CNP
    marking under `/sys/class/net/IF/ecn/roce_np/`. Fixes pick DSCP 26 when the profile lists
    it. Where the switch disagrees, change whichever side departs from the design.
    """

    id = "QOS005"
    needs_topology = True
    """NICs are paired with switch ports through the cabling (LLDP, DEVICE_NEIGHBOR)."""
    requires = frozenset({"hosts"})
    name = "nic-switch-dscp-match"
    title = "NIC RoCE/CNP marking or trust differs from the profile or switch"
    severity = Severity.ERROR
    category = "qos"
    vendors = ("host",)
    settings = ("classification.roce_dscp", "classification.cnp_dscp", "dcqcn.cnp_priority",
                "pfc.lossless_priorities")


    def summarize(self, device: Device, ctx: Context) -> HostSide | SwitchSide | None:
        return sides(device, ctx)

    def compare(self, summaries: list[DeviceSummary], ctx: Context) -> Iterable[Finding]:
        cabling = Cabling(summaries, ctx.fabric)
        for host, nic in cabling.hosts:
            yield from self._nic(host, nic, ctx, cabling)

    def _nic(self, host: DeviceSummary, nic: HostNic, ctx: Context,
             cabling: Cabling) -> Iterator[Finding]:
        cls = ctx.policy.classification
        lossless = _lossless(ctx)
        if nic.trust is not None and nic.trust != "dscp":
            yield self.finding(
                host, nic.name, nic.where("trust"),
                f"{nic.name} trusts {'PCP (802.1p)' if nic.trust == 'cos' else nic.trust}, "
                "not DSCP: untagged RoCEv2 it receives is classified to the default priority, "
                "outside PFC's protection" + firmware_note(nic, "trust"),
                fix=FixIntent("nic-trust-dscp", nic_params(nic)),
            )
        dscp = nic.roce_dscp
        if dscp is not None and dscp not in cls.roce_dscp:
            wanted = PREFERRED_ROCE_DSCP if PREFERRED_ROCE_DSCP in cls.roce_dscp else (
                cls.roce_dscp[0] if cls.roce_dscp else None)
            tos = f" (ToS {nic.roce_tos})" if nic.roce_tos is not None else ""
            ecn = nic.roce_tos & 3 if nic.roce_tos else ECT0
            yield self.finding(
                host, nic.name, nic.where("roce_dscp", "roce_tos"),
                f"{nic.name} sends RoCE with DSCP {dscp}{tos}, not a RoCE DSCP of the profile "
                f"({', '.join(map(str, cls.roce_dscp)) or 'none'})",
                fix=FixIntent("nic-roce-tos", nic_params(nic, tos=(wanted << 2) | ecn))
                if wanted is not None else None,
            )
        if nic.trust == "dscp" and lossless:
            for code in self._roce_dscps(nic, ctx):
                prio = nic.dscp_to_priority.get(code)
                if prio is None or prio in lossless:
                    continue
                yield self.finding(
                    host, nic.name, nic.where(f"dscp_to_priority[{code}]", "trust"),
                    f"{nic.name} maps RoCE DSCP {code} to priority {prio}, which is not "
                    f"lossless ({fmt_priorities(lossless)})",
                    fix=FixIntent("nic-dscp-map",
                                  nic_params(nic, dscp=code, priority=min(lossless))),
                )
        if nic.cnp_dscp is not None and cls.cnp_dscp and nic.cnp_dscp not in cls.cnp_dscp:
            yield self.finding(
                host, nic.name, nic.where("cnp_dscp"),
                f"{nic.name} sends CNPs with DSCP {nic.cnp_dscp}, not the profile's CNP DSCP "
                f"{', '.join(map(str, cls.cnp_dscp))}" + firmware_note(nic, "cnp_dscp"),
                fix=FixIntent("nic-cnp", nic_params(nic, cnp_dscp=cls.cnp_dscp[0])),
            )
        yield from self._cnp_priority(host, nic, ctx, lossless)
        yield from self._switch(host, nic, cabling, lossless)

    @staticmethod
    def _roce_dscps(nic: HostNic, ctx: Context) -> list[int]:
        """The RoCE DSCPs the NIC uses: its own when known and in the profile, else (unknown)
        every DSCP of the profile; a DSCP outside the profile is reported on its own."""
        roce = ctx.policy.classification.roce_dscp
        if nic.roce_dscp is None:
            return list(roce)
        return [nic.roce_dscp] if nic.roce_dscp in roce else []

    def _cnp_priority(self, host: DeviceSummary, nic: HostNic, ctx: Context,
                      lossless: set[int]) -> Iterator[Finding]:
        prio, wanted = nic.cnp_priority, ctx.policy.dcqcn.cnp_priority
        if prio is None:
            return
        if wanted is not None and prio != wanted:
            message = (f"{nic.name} sends CNPs on priority {prio}, not the profile's CNP "
                       f"priority {wanted}")
        elif wanted is None and prio in lossless:
            message = (f"{nic.name} sends CNPs on lossless priority {prio}: they queue behind "
                       "the paused RoCE traffic they are meant to slow down")
            wanted = ctx.policy.classification.cnp_traffic_class
        else:
            return
        message += firmware_note(nic, "cnp_priority")
        yield self.finding(host, nic.name, nic.where("cnp_priority"), message,
                           fix=FixIntent("nic-cnp", nic_params(nic, cnp_priority=wanted)))

    def _switch(self, host: DeviceSummary, nic: HostNic, cabling: Cabling,
                lossless: set[int]) -> Iterator[Finding]:
        if nic.trust != "dscp":
            return
        cabled = cabling.port_of(host, nic)
        if cabled is None:
            return
        switch, port = cabled
        for code, tc, theirs, allowed, ref in switch.facts.classes[port.maps]:
            if nic.roce_dscp is not None and code != nic.roce_dscp:
                continue
            mine = nic.dscp_to_priority.get(code)
            if mine is None or mine not in lossless or theirs == mine:
                continue  # a NIC priority that is not lossless is reported above
            if port.fabric and not (allowed and theirs in port.active):
                continue  # the switch does not make the DSCP lossless at all: QOS001
            yield self.finding(
                host, nic.name, nic.where(f"dscp_to_priority[{code}]", "roce_dscp", "trust"),
                f"{nic.name} sends RoCE DSCP {code} on priority {mine}, but {switch.name} "
                f"{port.name} classifies it to traffic class {tc}, paused as priority "
                f"{theirs}: PFC from the switch stops the wrong priority",
                related=[ref],
            )


@register
class NicPfcMatch(FabricRule):
    """A NIC's PFC priorities differ from the profile's or from its switch port's.

    ## What it checks
    Every host NIC whose PFC configuration is known (`mlnx_qos` `PFC configuration` /
    `enabled`, or `pfc_priorities` in a host-facts file) must enable PFC on exactly the
    profile's `pfc.lossless_priorities`. When the switch port the NIC is cabled to is known and
    is not a fabric port (a host-facing switchport, outside `ports` scope, which PFC001 and
    PFC002 do not look at), the port must pause the same priorities as the NIC.

    ## Why it matters
    PFC is hop by hop: the NIC and the switch port facing it must agree on which priorities
    are paused. A NIC without PFC on the RoCE priority ignores the switch's pause frames and
    overruns its buffers; a NIC that pauses extra priorities stalls traffic the switch treats
    as lossy, and one pausing priority 4 while the switch uses 3 protects nothing.

    ## How to fix
    On NVIDIA NICs: `mlnx_qos -i IF --pfc 0,0,0,1,0,0,0,0` (one flag per priority 0-7). On
    the switch: enable PFC on the port for the NIC's priorities, or remove the extra ones.
    """

    id = "PFC006"
    needs_topology = True
    """NICs are paired with switch ports through the cabling (LLDP, DEVICE_NEIGHBOR)."""
    requires = frozenset({"hosts"})
    name = "nic-pfc-match"
    title = "NIC PFC priorities differ from the profile or switch port"
    severity = Severity.ERROR
    category = "pfc"
    vendors = ("host",)
    settings = ("pfc.lossless_priorities",)


    def summarize(self, device: Device, ctx: Context) -> HostSide | SwitchSide | None:
        return sides(device, ctx)

    def compare(self, summaries: list[DeviceSummary], ctx: Context) -> Iterable[Finding]:
        lossless = _lossless(ctx)
        cabling = Cabling(summaries, ctx.fabric)
        for host, nic in cabling.hosts:
            mine = nic.pfc_priorities
            if mine is None:
                continue
            if mine != lossless:
                state = (f"PFC on {nic.name} covers priority {fmt_priorities(mine)}" if mine
                         else f"PFC is off on {nic.name}")
                yield self.finding(
                    host, nic.name, nic.where("pfc_priorities"),
                    f"{state}; the profile's lossless priorities are "
                    f"{fmt_priorities(lossless)}",
                    fix=FixIntent("nic-pfc", nic_params(nic, priorities=sorted(lossless))),
                )
                continue
            # A fabric port is held to the same profile by PFC001 and PFC002; only ports
            # outside the fabric scope (host-facing switchports) are summarised and compared.
            cabled = cabling.port_of(host, nic)
            if cabled is not None and cabled[1].pfc is not None:
                yield from self._port(host, nic, cabled[0], cabled[1], cabled[1].pfc)

    def _port(self, host: DeviceSummary, nic: HostNic, switch: DeviceSummary, port: PortRow,
              pfc: PfcDetail) -> Iterator[Finding]:
        mine = nic.pfc_priorities or set()
        missing = mine - port.active
        extra = port.active - mine
        about = (f"{port.name} (cabled to {host.name} {nic.name}, PFC on priority "
                 f"{fmt_priorities(mine)})")
        params = dict(pfc.fix)
        if missing:
            yield self.finding(
                switch, port.name, pfc.ref,
                f"{about} does not pause priority {fmt_priorities(missing)}",
                related=[nic.where("pfc_priorities")],
                fix=FixIntent("pfc-enable", {
                    **params, "interface": port.name, "priorities": sorted(missing)}),
            )
        if extra:
            refs = dict(pfc.priority_refs)
            yield self.finding(
                switch, port.name, next((refs[p] for p in sorted(extra) if refs.get(p)),
                                        pfc.ref),
                f"{about} also pauses priority {fmt_priorities(extra)}, which the NIC does not",
                related=[nic.where("pfc_priorities")],
                fix=FixIntent("pfc-disable-priority", {
                    "interface": port.name, "priorities": sorted(extra),
                    "no_drop": params["no_drop"], "profile": params["profile"],
                    "policies": params["policies"]}),
            )
