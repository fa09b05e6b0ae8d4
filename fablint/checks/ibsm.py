"""InfiniBand subnet manager rules: what OpenSM silently ignores, resets or misreads at start-up.

OpenSM does not refuse a bad opensm.conf or partitions.conf: it logs a line, falls back to a
default (often the worst one for the fabric) and carries on. These rules read the ``opensm``
configuration of the SM's device (``Device.opensm``) and say what OpenSM will actually do.

Code tables are InfiniBand Architecture facts as OpenSM carries them in
``include/iba/ib_types.h`` (MTU and rate codes, link speed and width bits) [S44].
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from fablint.checks.base import Context, Rule, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import Device, IbPartition, OpenSmConfig, SourceRef
from fablint.policy import IB_GENERATIONS

MTU_BYTES = {1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}
"""IBTA MTU codes (IB_MTU_LEN_*)."""
RATE_GBPS = {
    2: 2.5, 3: 10, 4: 30, 5: 5, 6: 20, 7: 40, 8: 60, 9: 80, 10: 120, 11: 14, 12: 56, 13: 112,
    14: 168, 15: 25, 16: 100, 17: 200, 18: 300, 19: 28, 20: 50, 21: 400, 22: 600, 23: 800,
    24: 1200,
}
"""IBTA rate codes (IB_PATH_RECORD_RATE_*), Gb/s."""
DEFAULT_MGRP_MTU = 4
DEFAULT_MGRP_RATE = 3
DEFAULT_SCOPE = 2
SPEED_BITS = {1: "SDR (2.5 Gb/s)", 2: "DDR (5 Gb/s)", 4: "QDR (10 Gb/s)"}
"""PortInfo:LinkSpeedEnabled bits that ``force_link_speed`` sets."""
SPEED_EXT_BITS = {1: "FDR", 2: "EDR", 4: "HDR", 8: "NDR"}
"""PortInfo:LinkSpeedExtEnabled bits that ``force_link_speed_ext`` sets (14, 25, 50, 100 Gb/s
lanes); 30 disables the extended speeds, 31 means all supported."""
WIDTH_BITS = {1: "1X", 2: "4X", 4: "8X", 8: "12X", 16: "2X"}
"""PortInfo:LinkWidthEnabled bits that ``force_link_width`` sets; 255 means all supported."""
DEFAULT_SL = 0
"""The SL of every path and IPoIB group that no QoS policy or partition says otherwise of."""


def _configs(ctx: Context) -> Iterator[tuple[Device, OpenSmConfig]]:
    for device in ctx.fabric.devices.values():
        if device.opensm is not None:
            yield device, device.opensm


def _label(part: IbPartition) -> str:
    pkey = f"0x{part.pkey:04x}" if part.pkey is not None else "with a generated P_Key"
    return f"{part.name} ({pkey})" if part.name else f"partition {pkey}"


def _entry(part: IbPartition, pkey: int | None = None, **changes: object) -> FixIntent:
    """The partition entry rewritten: ``changes`` replace (or add) flags, ``pkey`` the P_Key."""
    flags: list[tuple[str, object]] = []
    done: set[str] = set()
    for flag, value in part.flags:
        name = _flag_name(flag)
        if name not in changes:
            flags.append((flag, value))
        elif name not in done:
            done.add(name)
            flags.append((name, changes[name]))
    flags += [(name, value) for name, value in changes.items() if name not in done]
    members = [(m.name if m.guid is None else f"0x{m.guid:016x}",
                m.membership if m.explicit else None) for m in part.members]
    groups = [(g.mgid, list(g.flags)) for g in part.groups]
    return FixIntent("partition-entry", {
        "name": part.name, "pkey": part.pkey if pkey is None else pkey, "flags": flags,
        "members": members, "groups": groups,
    })


def _flag_name(flag: str) -> str:
    for name in ("mtu", "rate", "scope", "Q_Key", "TClass", "sl", "FlowLabel", "ipoib",
                 "defmember"):
        if flag and name.startswith(flag):
            return name
    return flag


def _generation_at_least(ctx: Context, generation: str) -> bool | None:
    """Is the fabric of ``generation`` or newer? None when the policy does not say."""
    have = ctx.policy.ib_sm.fabric_generation
    if have is None:
        return None
    return IB_GENERATIONS.index(have) >= IB_GENERATIONS.index(generation)


@register
class OpenSmQosDisabled(Rule):
    """QoS settings that OpenSM ignores because QoS is off.

    ## What it checks
    When `qos` is not `TRUE` in opensm.conf, OpenSM applies no QoS at all: it does not read
    the `qos_policy_file`, programs none of the `qos_*` SL2VL and VL arbitration tables, and
    resets every partition's `sl=` to SL 0. The rule lists what the configuration sets in vain:
    a `qos_policy_file` other than the path `opensm -c` writes by default
    (`ib_sm.default_qos_policy_files`), `qos_*max_vls`, `qos_*high_limit`, `qos_*vlarb_*` or
    `qos_*sl2vl` values, and partitions with `sl=` other than 0. It is a warning when the file
    says `qos FALSE`, and a note when it does not mention `qos` (OpenSM may be started with
    `-Q`, which turns QoS on from the command line).

    ## Why it matters
    The settings read as a QoS design (storage on its own SL and VL, a high-priority VL for
    latency-sensitive traffic) while the fabric runs everything on SL 0 and VL 0. Nothing
    fails loudly: the separation simply is not there when congestion comes.

    ## How to fix
    Set `qos TRUE` in opensm.conf (or start OpenSM with `-Q`), or delete the settings that
    are not meant to apply.
    """

    id = "IB010"
    name = "opensm-qos-disabled"
    title = "QoS settings ignored because OpenSM QoS is off"
    severity = Severity.WARNING
    category = "ib-sm"
    vendors = ("opensm",)
    settings = ("ib_sm.default_qos_policy_files",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        defaults = set(ctx.policy.ib_sm.default_qos_policy_files)
        for device, cfg in _configs(ctx):
            if cfg.conf_file is None or cfg.qos:
                continue
            ignored: list[tuple[str, SourceRef | None]] = []
            if cfg.qos_policy_file and cfg.qos_policy_file not in defaults:
                ignored.append((f"qos_policy_file {cfg.qos_policy_file}",
                                cfg.where("qos_policy_file")))
            elif cfg.qos_policy_source is not None:
                ignored.append((f"the QoS policy in {cfg.qos_policy_source.rsplit('/', 1)[-1]}",
                                next(iter(cfg.qos_policy_sls.values()), None)))
            for prefix, qset in cfg.qos_sets.items():
                for field in ("max_vls", "high_limit", "vlarb_high", "vlarb_low", "sl2vl"):
                    value = getattr(qset, field)
                    if value is None or (field == "max_vls" and value == 0) or (
                            field == "high_limit" and value == -1):
                        continue
                    ignored.append((f"{prefix}_{field}", qset.where(field)))
            for part in cfg.partitions:
                if part.sl:
                    ignored.append((f"sl={part.sl} of {_label(part)}", part.where("sl")))
            if not ignored:
                continue
            explicit = cfg.configured("qos")
            state = ("QoS is off (qos FALSE)" if explicit else
                     "QoS is not turned on here (qos defaults to FALSE unless OpenSM runs "
                     "with -Q)")
            names = ", ".join(name for name, _ in ignored[:4])
            if len(ignored) > 4:
                names += f" and {len(ignored) - 4} more"
            yield self.finding(
                device, "qos", cfg.where("qos") if explicit else ignored[0][1],
                f"{state}, so OpenSM ignores {names}",
                severity=None if explicit else Severity.INFO,
                fix=FixIntent("opensm-set", {"options": [("qos", True)]}),
                related=[ref for _, ref in ignored],
            )


@register
class RoutingEngineLmc(Rule):
    """A routing engine that cannot route with LMC > 0 is configured with LMC > 0.

    ## What it checks
    The fat-tree (`ftree`) and `lash` routing engines do not support an LMC above 0. The rule
    reports an opensm.conf whose `routing_engine` list names either of them while `lmc` is 1 to
    7.

    ## Why it matters
    OpenSM's routing documentation (`doc/current-routing.txt`): "LMC > 0 is not supported by
    fat-tree routing. If this is specified, the default routing algorithm is invoked instead",
    and the same for LASH. The fabric that was designed
    for fat-tree's congestion-free, credit-loop-free routes is then routed by the next engine
    in the list, usually minhop, which neither balances a fat tree nor avoids credit loops.

    ## How to fix
    Set `lmc 0` for `ftree` and `lash`. If you need several LIDs per port for multipathing,
    route with an engine that spreads LMC paths, such as `updn` or `minhop`.
    """

    id = "IB011"
    name = "routing-engine-lmc"
    title = "ftree or lash routing with LMC > 0 (OpenSM falls back)"
    severity = Severity.ERROR
    category = "ib-sm"
    vendors = ("opensm",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        for device, cfg in _configs(ctx):
            lmc = cfg.lmc
            if lmc is None or not 0 < lmc <= 7:
                continue
            engines = [e for e in cfg.routing_engines or [] if e in ("ftree", "lash")]
            if not engines:
                continue
            listed = ",".join(cfg.routing_engines or [])
            yield self.finding(
                device, "lmc", cfg.where("lmc"),
                f"routing_engine {listed} with lmc {lmc}: {engines[0]} does not support LMC > "
                "0, so OpenSM routes with the next engine in the list (or minhop) instead",
                fix=FixIntent("opensm-set", {"options": [("lmc", 0)]}),
                related=[cfg.where("routing_engines")],
            )


@register
class SmPriorityRange(Rule):
    """`sm_priority` outside 0-15.

    ## What it checks
    The SM priority of opensm.conf (`sm_priority`, or `-p`) must be between 0 (lowest) and 15
    (highest), as the InfiniBand SMInfo attribute allows.

    ## Why it matters
    OpenSM does not reject a larger value: it logs "Invalid Cached Option Value" and uses the
    default, 0, the lowest priority (a value above 255 first loses its high bits). The SM that
    was meant to win the master election then loses it to any other SM, such as one running
    on a switch or a test host, and fabric configuration follows that SM's settings.

    ## How to fix
    Use 15 for the intended master and lower values for standby SMs.
    """

    id = "IB012"
    name = "sm-priority-range"
    title = "sm_priority outside 0-15 (OpenSM uses 0)"
    severity = Severity.ERROR
    category = "ib-sm"
    vendors = ("opensm",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        for device, cfg in _configs(ctx):
            value = cfg.sm_priority
            if value is None or value <= 15:
                continue
            stored = value & 0xFF
            effect = (f"OpenSM keeps its low 8 bits, {stored}" if stored <= 15 else
                      "OpenSM ignores it and runs at priority 0, the lowest")
            yield self.finding(
                device, "sm_priority", cfg.where("sm_priority"),
                f"sm_priority {value} is outside 0-15: {effect}, so this SM may lose the "
                "master election",
                fix=FixIntent("opensm-set", {"options": [("sm_priority", 15)]}),
            )


@register
class LmcRange(Rule):
    """`lmc` above 7.

    ## What it checks
    The LID mask control (`lmc`, or `-l`) gives each port 2^LMC LIDs and must be 0 to 7.

    ## Why it matters
    OpenSM logs "Invalid Cached Option Value" and runs with LMC 0 instead: one LID and one path
    per port. Whatever multipathing the value was meant to provide (several paths per
    destination for MPI or storage failover) silently does not exist.

    ## How to fix
    Set `lmc` to the number of path bits you need, at most 7 (each step doubles the LIDs per
    port, and the unicast LID space holds 48K), or to 0.
    """

    id = "IB013"
    name = "lmc-range"
    title = "lmc above 7 (OpenSM uses 0)"
    severity = Severity.ERROR
    category = "ib-sm"
    vendors = ("opensm",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        for device, cfg in _configs(ctx):
            value = cfg.lmc
            if value is None or value <= 7:
                continue
            yield self.finding(
                device, "lmc", cfg.where("lmc"),
                f"lmc {value} is above 7: OpenSM ignores it and assigns one LID per port "
                "(LMC 0)",
                fix=FixIntent("opensm-set", {"options": [("lmc", 0)]}),
            )


@register
class RoutingEngineUnknown(Rule):
    """`routing_engine` names an engine OpenSM does not have.

    ## What it checks
    Every name in `routing_engine` (a comma-separated list tried in order) must be one of the
    engines in `ib_sm.routing_engines`: upstream OpenSM's minhop, updn, dnup, file, ftree,
    lash, dor, torus-2QoS, nue, dfsssp and sssp, NVIDIA's additions (kdor-hc, chain, pqft, dfp,
    dfp2, ar_updn, ar_ftree, ar_torus, ar_dor), or the `no_fallback` keyword. Names are
    case-sensitive (`FTREE` is not `ftree`), and a `#` after the value is not a comment.

    ## Why it matters
    OpenSM logs "cannot find or setup routing engine" for the unknown name and goes on with
    the others; when none is left it routes with minhop. A fat-tree fabric configured with
    `routing_engine fat-tree` is routed by minhop, without fat-tree's balancing and without
    its protection against credit-loop deadlocks.

    ## How to fix
    Spell the engine as OpenSM does (`ftree`, `updn`, `torus-2QoS`); list a fallback after it
    if you want one.
    """

    id = "IB014"
    name = "routing-engine-unknown"
    title = "routing_engine names an engine OpenSM does not have"
    severity = Severity.ERROR
    category = "ib-sm"
    vendors = ("opensm",)
    settings = ("ib_sm.routing_engines",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        known = ctx.policy.ib_sm.routing_engines
        for device, cfg in _configs(ctx):
            engines = cfg.routing_engines or []
            unknown = [e for e in engines if e not in known]
            if not unknown:
                continue
            by_lower = {k.lower(): k for k in known}
            fixed = [by_lower.get(e.lower(), e) for e in engines]
            fixed = [e for e in dict.fromkeys(fixed) if e in known]
            hints = [f"{e} (names are case-sensitive: {by_lower[e.lower()]})"
                     for e in unknown if e.lower() in by_lower]
            plain = [e for e in unknown if e.lower() not in by_lower]
            what = ", ".join([*plain, *hints])
            left = [e for e in engines if e in known and e != "no_fallback"]
            effect = ("OpenSM skips it" if left else
                      "OpenSM skips it and, with no engine left, routes with minhop")
            comment = "; '#' does not start a comment after a value" if "#" in engines else ""
            yield self.finding(
                device, "routing_engine", cfg.where("routing_engines"),
                f"routing_engine lists unknown engine {what}: {effect}{comment}",
                fix=FixIntent("opensm-set", {
                    "options": [("routing_engine", fixed or ["minhop"])]}),
            )


@register
class LinkSpeedForced(Rule):
    """OpenSM forces link speeds or widths below what the hardware can do.

    ## What it checks
    `force_link_speed`, `force_link_speed_ext` and `force_link_width` set the speeds and widths
    OpenSM enables on every port (PortInfo LinkSpeedEnabled, LinkSpeedExtEnabled,
    LinkWidthEnabled). Their defaults (15, 31, 255) mean "whatever the port supports". The rule
    reports a value that leaves out what a current fabric runs:
    `force_link_speed` without the QDR bit (1, 3: SDR and DDR only), `force_link_speed_ext 30`
    (extended speeds off: FDR and faster links train at QDR at most), a `force_link_speed_ext`
    mask without the fabric's generation (`ib_sm.fabric_generation`; a note when the policy
    does not say), a `force_link_width` without the 4X, 8X or 12X bit, and values OpenSM
    rejects as invalid.

    ## Why it matters
    The SM applies these to every port at every sweep. A value left over from bring-up or from
    an old QDR fabric caps an EDR, HDR or NDR fabric at a fraction of its bandwidth, and the
    links look healthy: they are Active, just slow.

    ## How to fix
    Remove the line or set the default that means "all supported": `force_link_speed 15`,
    `force_link_speed_ext 31`, `force_link_width 255`.
    """

    id = "IB015"
    name = "link-speed-forced"
    title = "Link speed or width forced below the hardware's capability"
    severity = Severity.WARNING
    category = "ib-sm"
    vendors = ("opensm",)
    settings = ("ib_sm.fabric_generation",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        generation = ctx.policy.ib_sm.fabric_generation
        for device, cfg in _configs(ctx):
            yield from self._speed(device, cfg)
            yield from self._speed_ext(device, cfg, generation)
            yield from self._width(device, cfg)

    def _fix(self, key: str, value: int) -> FixIntent:
        return FixIntent("opensm-set", {"options": [(key, value)]})

    def _speed(self, device: Device, cfg: OpenSmConfig) -> Iterable[Finding]:
        value = cfg.force_link_speed
        if value is None or value in (0, 15):
            return
        severity: Severity | None = None
        if value > 15 or 7 < value < 15:
            message = (f"force_link_speed {value} is not a valid LinkSpeedEnabled value "
                       "(0, 1-7 or 15): OpenSM ignores it and uses 15")
            severity = Severity.INFO
        elif value & 4:
            return  # QDR, the fastest classic speed, is enabled
        else:
            speeds = " and ".join(n for bit, n in SPEED_BITS.items() if value & bit)
            message = (f"force_link_speed {value} enables only {speeds} on switch ports: QDR "
                       "and links that fall back to the classic speeds train below 10 Gb/s "
                       "per lane")
        yield self.finding(device, "force_link_speed", cfg.where("force_link_speed"), message,
                           severity=severity, fix=self._fix("force_link_speed", 15))

    def _speed_ext(self, device: Device, cfg: OpenSmConfig,
                   generation: str | None) -> Iterable[Finding]:
        value = cfg.force_link_speed_ext
        if value is None or value in (0, 31):
            return
        severity: Severity | None = None
        if value == 30:
            message = ("force_link_speed_ext 30 disables the extended speeds: FDR, EDR, HDR "
                       "and NDR links train at QDR (10 Gb/s per lane) at most")
        elif value > 31 or value & ~0x0F:
            message = (f"force_link_speed_ext {value} is not a LinkSpeedExtEnabled mask "
                       "OpenSM accepts (0-15, 30, 31): it uses 31 instead")
            severity = Severity.INFO
        else:
            enabled = [n for bit, n in SPEED_EXT_BITS.items() if value & bit]
            names = ", ".join(enabled)
            if generation in SPEED_EXT_BITS.values():
                if generation in enabled:
                    return
                message = (f"force_link_speed_ext {value} enables only {names}: the fabric's "
                           f"{generation} links train at {enabled[-1]} at most")
            elif generation is not None:
                return  # an SDR-QDR or FDR10 fabric does not use the extended speeds
            else:
                message = (f"force_link_speed_ext {value} enables only {names}: links of a "
                           f"newer generation train at {enabled[-1]} at most (set "
                           "ib_sm.fabric_generation to judge it)")
                severity = Severity.INFO
        yield self.finding(device, "force_link_speed_ext", cfg.where("force_link_speed_ext"),
                           message, severity=severity, fix=self._fix("force_link_speed_ext", 31))

    def _width(self, device: Device, cfg: OpenSmConfig) -> Iterable[Finding]:
        value = cfg.force_link_width
        if value is None or value in (0, 255) or value & (2 | 4 | 8):
            return
        widths = ", ".join(n for bit, n in WIDTH_BITS.items() if value & bit) or "nothing"
        yield self.finding(
            device, "force_link_width", cfg.where("force_link_width"),
            f"force_link_width {value} enables only {widths}: 4X links train at a quarter or "
            "half of their bandwidth",
            fix=self._fix("force_link_width", 255),
        )


@register
class Sl2VlDropsSl(Rule):
    """A QoS SL2VL table maps a service level to VL15, which drops it.

    ## What it checks
    Each `qos_sl2vl`, `qos_ca_sl2vl`, `qos_swe_sl2vl`, `qos_sw0_sl2vl` and `qos_rtr_sl2vl` lists
    the VL of SL 0 to 15. VL15 is the subnet management VL: "VL15 used here means drop this SL"
    (OpenSM's QoS documentation). The rule reports SLs mapped to VL15 as an error when the
    configuration uses them (SL 0, the default SL of all traffic without a QoS policy;
    `sm_sl`; a partition's `sl=`), and as a note otherwise. A file that says `qos FALSE` is left
    to IB010: the tables do not apply.

    ## Why it matters
    Every data packet on a dropped SL is discarded at the first port that applies the table.
    Mapping SL 0 to VL15 takes down IPoIB, MPI and storage traffic on the whole subnet;
    mapping a partition's SL does the same for that partition. The ports stay Active and the
    counters show only VL15 drops.

    ## How to fix
    Map every SL that carries traffic to a data VL (0-14) within `qos_*max_vls`; map unused
    SLs to VL15 only deliberately.
    """

    id = "IB016"
    name = "sl2vl-drops-sl"
    title = "QoS SL2VL table maps a used SL to VL15 (dropped)"
    severity = Severity.ERROR
    category = "ib-sm"
    vendors = ("opensm",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        for device, cfg in _configs(ctx):
            if cfg.qos is False and cfg.configured("qos"):
                continue
            used = {DEFAULT_SL: "the default SL"}
            sm_sl = cfg.sm_sl if cfg.sm_sl is not None and cfg.sm_sl <= 15 else DEFAULT_SL
            used.setdefault(sm_sl, "sm_sl")
            for part in cfg.partitions:
                if part.sl is not None and part.sl <= 15:
                    used.setdefault(part.sl, f"the SL of {_label(part)}")
            for sl, ref in cfg.qos_policy_sls.items():
                used.setdefault(sl, f"an SL of the QoS policy (line {ref.line})")
            for prefix, qset in cfg.qos_sets.items():
                if not qset.sl2vl:
                    continue
                dropped = [sl for sl, vl in enumerate(qset.sl2vl[:16]) if vl == 15]
                if not dropped:
                    continue
                hit = [sl for sl in dropped if sl in used]
                if hit:
                    why = "; ".join(f"SL {sl} is {used[sl]}" for sl in hit)
                    message = (f"{prefix}_sl2vl maps SL {', '.join(map(str, hit))} to VL15: "
                               f"OpenSM's table drops every packet on it ({why})")
                    severity = None
                    fix_sls = hit
                else:
                    message = (f"{prefix}_sl2vl maps SL {', '.join(map(str, dropped))} to "
                               "VL15 (dropped): fine while nothing sends on them")
                    severity = Severity.INFO
                    fix_sls = dropped
                vls = [0 if sl in fix_sls else vl for sl, vl in enumerate(qset.sl2vl)]
                yield self.finding(
                    device, f"{prefix}_sl2vl", qset.where("sl2vl"), message, severity=severity,
                    fix=FixIntent("opensm-set", {"options": [(f"{prefix}_sl2vl", vls)]}),
                )


def _code_problems(part: IbPartition) -> tuple[list[str], dict[str, int]]:
    """Invalid codes of a partition: messages and the corrected values."""
    problems: list[str] = []
    fixes: dict[str, int] = {}
    raw = {_flag_name(f): v for f, v in part.flags}
    if part.mtu is not None and part.mtu not in MTU_BYTES:
        code = {b: c for c, b in MTU_BYTES.items()}.get(part.mtu, DEFAULT_MGRP_MTU)
        problems.append(f"mtu={raw.get('mtu')} is not an IBTA MTU code (1-5 = 256-4096 bytes; "
                        f"{MTU_BYTES[code]} bytes is mtu={code})")
        fixes["mtu"] = code
    if part.rate is not None and part.rate not in RATE_GBPS:
        by_speed = {int(g): c for c, g in RATE_GBPS.items() if float(g).is_integer()}
        code = by_speed.get(part.rate, DEFAULT_MGRP_RATE)
        problems.append(f"rate={raw.get('rate')} is not an IBTA rate code (2-24; "
                        f"{RATE_GBPS[code]:g} Gb/s is rate={code})")
        fixes["rate"] = code
    if part.sl is not None and part.sl > 15:
        problems.append(f"sl={raw.get('sl')} is not an SL 0-15 (OpenSM ignores it: SL 0)")
        fixes["sl"] = 0
    if part.scope is not None and not 1 <= part.scope <= 15:
        problems.append(f"scope={raw.get('scope')} is not a multicast scope 1-15 (OpenSM "
                        "ignores it: link-local, 2)")
        fixes["scope"] = DEFAULT_SCOPE
    return problems, fixes


@register
class PartitionCodeInvalid(Rule):
    """A partition's mtu, rate, sl or scope is not a valid IBTA code.

    ## What it checks
    In partitions.conf the `mtu=`, `rate=`, `sl=` and `scope=` flags of a partition (they
    configure its IPoIB broadcast group) are IBTA codes, not bytes or Gb/s: MTU 1-5 (256, 512,
    1024, 2048, 4096 bytes), rate 2-24 (2 = 2.5 Gb/s, 3 = 10, 7 = 40, 12 = 56, 16 = 100, 17 =
    200, 21 = 400, 23 = 800 …), SL 0-15, scope 1-15. The rule reports values outside those
    ranges, and names the code that was probably meant (`mtu=4096` -> `mtu=5`, `rate=100` ->
    `rate=16`).

    ## Why it matters
    OpenSM takes `mtu` and `rate` as written and creates the partition's multicast group with
    them: an MTU or rate no port has, so IPoIB interfaces cannot join the broadcast group and
    never come up on that partition. An invalid `sl` or `scope` is dropped for OpenSM's
    default, which is not what the line says.

    ## How to fix
    Write the IBTA code: `mtu=5` for 4096 bytes, `rate=` from the table above.
    """

    id = "IB017"
    name = "partition-code-invalid"
    title = "Partition mtu, rate, sl or scope is not a valid IBTA code"
    severity = Severity.ERROR
    category = "ib-sm"
    vendors = ("opensm",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        for device, cfg in _configs(ctx):
            for part in cfg.partitions:
                problems, fixes = _code_problems(part)
                if not problems:
                    continue
                yield self.finding(
                    device, part.name or _label(part), part.src,
                    f"partition {_label(part)}: {'; '.join(problems)}",
                    fix=_entry(part, **fixes),
                )


@register
class IpoibPartitionMtu(Rule):
    """An IPoIB partition's broadcast group MTU is below 4096 bytes.

    ## What it checks
    A partition with the `ipoib` flag gets an IPoIB broadcast group whose MTU is the
    partition's `mtu=` code, 4 (2048 bytes) when it has none. The rule reports IPoIB
    partitions below `ib_sm.ipoib_min_mtu` (5, 4096 bytes): a warning when
    `ib_sm.fabric_generation` is `ib_sm.ipoib_mtu_from` (EDR) or newer, a note otherwise.

    ## Why it matters
    The broadcast group's MTU caps the IPoIB interface MTU in datagram mode (MTU minus the
    4-byte IPoIB header: 2044 bytes at the default), so IP traffic over InfiniBand, such as
    storage or the control plane of a training job, runs with half-size packets and double the
    per-packet overhead on a fabric whose every port handles 4096.

    ## How to fix
    Add `mtu=5` to the partition definition (`Default=0x7fff,ipoib,mtu=5 : ALL=full ;`) once
    every port in the partition supports a 4096-byte MTU.
    """

    id = "IB018"
    name = "ipoib-partition-mtu"
    title = "IPoIB partition MTU below 4096 bytes"
    severity = Severity.WARNING
    category = "ib-sm"
    vendors = ("opensm",)
    settings = ("ib_sm.fabric_generation", "ib_sm.ipoib_min_mtu", "ib_sm.ipoib_mtu_from")

    def check(self, ctx: Context) -> Iterable[Finding]:
        policy = ctx.policy.ib_sm
        modern = _generation_at_least(ctx, policy.ipoib_mtu_from)
        if modern is False:
            return  # an older generation: 2048 may be all its ports do
        for device, cfg in _configs(ctx):
            for part in cfg.partitions:
                mtu = part.mtu if part.mtu is not None else DEFAULT_MGRP_MTU
                if not part.ipoib or mtu not in MTU_BYTES or mtu >= policy.ipoib_min_mtu:
                    continue
                written = (f"mtu={mtu}" if part.mtu is not None else
                           f"no mtu flag (OpenSM's default, mtu={DEFAULT_MGRP_MTU})")
                if modern:
                    context = f" on this {policy.fabric_generation} fabric"
                else:
                    context = (f"; {policy.ipoib_mtu_from} and newer fabrics run "
                               f"{MTU_BYTES[policy.ipoib_min_mtu]} (set ib_sm.fabric_generation "
                               "to judge it)")
                yield self.finding(
                    device, part.name or _label(part), part.src,
                    f"IPoIB partition {_label(part)} has {written}: its broadcast group runs "
                    f"{MTU_BYTES[mtu]}-byte packets, so IPoIB is limited to {MTU_BYTES[mtu] - 4} "
                    f"bytes{context}",
                    severity=None if modern else Severity.INFO,
                    fix=_entry(part, mtu=policy.ipoib_min_mtu),
                )


@register
class DuplicatePkey(Rule):
    """Two differently named partitions share a P_Key.

    ## What it checks
    OpenSM identifies a partition by the low 15 bits of its P_Key (the top bit is the
    membership type), so `0x8001` and `0x0001` are the same partition. The rule reports an
    entry whose P_Key another entry with a different name already uses. Entries with the same
    name and P_Key are the documented way to split one partition over several lines and are
    fine.

    ## Why it matters
    "If PKey is repeated then those partition configurations will be merged and first
    PartitionName will be used" (OpenSM's partition documentation). Two tenants, or a storage
    and a compute partition, that were meant to be isolated become one partition: every port
    of either can reach every port of the other.

    ## How to fix
    Give each partition its own P_Key (the fix suggests the next free one), and update the
    hosts' IPoIB child interfaces and job schedulers that refer to the old value.
    """

    id = "IB019"
    name = "duplicate-pkey"
    title = "Two partitions share a P_Key (OpenSM merges them)"
    severity = Severity.ERROR
    category = "ib-sm"
    vendors = ("opensm",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        for device, cfg in _configs(ctx):
            first: dict[int, IbPartition] = {}
            taken = {p.pkey15 for p in cfg.partitions if p.pkey15 is not None}
            for part in cfg.partitions:
                key = part.pkey15
                if key is None:
                    continue
                owner = first.setdefault(key, part)
                if owner is part or (owner.name or "") == (part.name or ""):
                    continue
                free = next(k for k in range(1, 0x7FFF) if k not in taken)
                taken.add(free)
                new_pkey = free | ((part.pkey or 0) & 0x8000)
                line = owner.src.line if owner.src else None
                yield self.finding(
                    device, part.name or _label(part), part.src,
                    f"partition {_label(part)} has the P_Key of {_label(owner)} (line {line}): "
                    f"OpenSM merges them into one partition named {owner.name or 'unnamed'}, "
                    "so their ports are no longer isolated",
                    fix=_entry(part, pkey=new_pkey),
                    related=[owner.src],
                )


@register
class BothMembershipNeedsAllowBothPkeys(Rule):
    """A partition asks for `both` membership, which OpenSM ignores without `allow_both_pkeys`.

    ## What it checks
    `defmember=both` on a partition, or `=both` on a member, asks OpenSM to give the ports
    both a full and a limited P_Key. OpenSM honours it only with `allow_both_pkeys TRUE` in
    opensm.conf. The rule reads a partitions.conf together with the opensm.conf beside it and
    reports `both` when that option is not TRUE.

    ## Why it matters
    Without the option the ports become full members only. A design that relies on limited
    membership (hosts that must reach a storage or management service but not each other)
    loses that isolation without any message.

    ## How to fix
    Set `allow_both_pkeys TRUE` in opensm.conf, or write the membership you want (`full` or
    `limited`).
    """

    id = "IB020"
    name = "both-membership-needs-allow-both-pkeys"
    title = "'both' membership without allow_both_pkeys TRUE"
    severity = Severity.WARNING
    category = "ib-sm"
    vendors = ("opensm",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        for device, cfg in _configs(ctx):
            if cfg.conf_file is None or cfg.allow_both_pkeys:
                continue
            for part in cfg.partitions:
                both = [m.name if m.guid is None else f"0x{m.guid:016x}"
                        for m in part.members if m.membership == "both"]
                if not both:
                    continue
                where = part.where("defmember") if part.defmember == "both" else (
                    next(m.src for m in part.members if m.membership == "both"))
                state = ("allow_both_pkeys is not TRUE in opensm.conf"
                         if cfg.configured("allow_both_pkeys") else
                         "no allow_both_pkeys TRUE in opensm.conf")
                yield self.finding(
                    device, part.name or _label(part), where,
                    f"partition {_label(part)} gives {', '.join(both)} 'both' membership but "
                    f"{state}: OpenSM makes them full members only",
                    fix=FixIntent("opensm-set", {"options": [("allow_both_pkeys", True)]}),
                    related=[cfg.where("allow_both_pkeys")],
                )


@register
class OpenSmOptionMisspelled(Rule):
    """An opensm.conf key that is not an OpenSM option but looks like one.

    ## What it checks
    OpenSM ignores a key it does not know, without a message. The rule reports keys that are
    not OpenSM options and are one or two letters away from one (`sm_priorty`,
    `routing_engines`, `partition_conf_file`), naming the option that was probably meant.
    Unknown keys that resemble no option (other OpenSM builds add their own) are left alone.

    ## Why it matters
    The setting on that line has no effect: an SM that should have priority 15 runs at 0, a
    routing engine line is never read. The file looks right to anyone reviewing it.

    ## How to fix
    Correct the key; `opensm -c FILE` writes a full, correctly spelled opensm.conf for the
    installed version to compare with.
    """

    id = "IB021"
    name = "opensm-option-misspelled"
    title = "opensm.conf key that looks like a misspelled option (OpenSM ignores it)"
    severity = Severity.WARNING
    category = "ib-sm"
    vendors = ("opensm",)

    def check(self, ctx: Context) -> Iterable[Finding]:
        for device, cfg in _configs(ctx):
            for opt in cfg.options:
                if opt.known or opt.close_to is None:
                    continue
                yield self.finding(
                    device, opt.key, opt.src,
                    f"'{opt.key}' is not an OpenSM option (did you mean {opt.close_to}?): "
                    "OpenSM ignores the line",
                    fix=FixIntent("opensm-set", {"options": [(opt.close_to, opt.value)]}),
                )
