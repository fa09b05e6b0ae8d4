"""PFC watchdog rules: every port that can be paused can also break out of a PFC storm."""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import (
    Context,
    Rule,
    fmt_priorities,
    fmt_where,
    merge_alike,
    register,
)
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import Device, Interface, SourceRef, Watchdog


@register
class PfcWatchdogEnabled(Rule):
    """A port runs PFC without a PFC watchdog.

    ## What it checks
    Every fabric port with PFC in effect must have the PFC watchdog enabled for its lossless
    priorities: on EOS `priority-flow-control pause watchdog` with a non-zero timeout (on the
    port, in its QoS profile, or device-wide defaults), on NX-OS `priority-flow-control
    watch-dog-interval on`, on SONiC a `PFC_WD` entry for the port and `pfcwd_sw_enable`
    covering every `pfc_enable` priority. Turn the rule off with `watchdog.required: false`.

    ## Why it matters
    A NIC or switch that stops draining its receive queue keeps sending PFC pause frames; the
    pause spreads hop by hop until whole branches of the fabric stand still (a PFC storm), and
    with cyclic buffer dependencies it becomes a deadlock that outlives its cause. The watchdog
    notices a queue that has been paused too long and drops or forwards its traffic instead,
    confining the damage to the one faulty port.

    ## How to fix
    Enable the PFC watchdog on the port (or in its QoS profile) with a timeout of a few hundred
    milliseconds at most, and drop as its action.
    """

    id = "WD001"
    name = "pfc-watchdog-enabled"
    title = "PFC without a PFC watchdog"
    severity = Severity.WARNING
    category = "watchdog"
    vendors = ("eos", "nxos", "sonic")
    settings = ("watchdog.required",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if not ctx.policy.watchdog.required:
            return
        # Ports missing the watchdog the same way (one profile, or SONiC's per-port entries
        # written alike) make one finding that names them, with one fix for all.
        groups: dict[tuple[object, ...], list[Interface]] = {}
        for iface, (active, uncovered) in ctx.ports_with(device, _unwatched, alike=True):
            wd = iface.qos.pfc.watchdog
            key = (wd.enabled, tuple(sorted(active)), tuple(sorted(uncovered)),
                   device.profile_of(iface, "pfc"), wd.timeout_ms is not None)
            groups.setdefault(key, []).append(iface)
        for (enabled, active, uncovered, profile, has_timeout), ports in groups.items():
            first = ports[0]
            where = fmt_where(p.name for p in ports)
            message = (
                f"no PFC watchdog on {where}, which "
                f"{'pause' if len(ports) > 1 else 'pauses'} priority {fmt_priorities(active)}"
                if not enabled else
                f"PFC watchdog on {where} does not watch priority {fmt_priorities(uncovered)}"
            )
            wd = first.qos.pfc.watchdog
            params: dict[str, object] = {
                "interface": first.name, "priorities": list(active), "profile": profile,
                "timeout_ms": 200, "has_timeout": has_timeout,
            }
            if len(ports) > 1:
                params["interfaces"] = [p.name for p in ports]
            yield self.finding(
                device, first.name, wd.where("enabled", "priorities") or first.src, message,
                fix=FixIntent("watchdog-enable", params),
                places=[(p.name, p.qos.pfc.watchdog.where("enabled", "priorities") or p.src)
                        for p in ports],
            )


def _unwatched(iface: Interface) -> tuple[set[int], set[int]] | None:
    """(paused priorities, those the watchdog does not watch) of a port that pauses without
    a watchdog or with one that misses some of them."""
    pfc = iface.qos.pfc
    active = pfc.active_priorities
    if not active:
        return None
    wd = pfc.watchdog
    uncovered = set() if wd.priorities is None else active - wd.priorities
    if wd.enabled and not uncovered:
        return None
    # one pair of sets for the ports that pause alike (not read-write: sorted, listed)
    return _UNWATCHED.setdefault((frozenset(active), frozenset(uncovered)), (active, uncovered))


_UNWATCHED: dict[tuple[frozenset[int], frozenset[int]], tuple[set[int], set[int]]] = {}


_TIMERS = (("timeout_ms", "detection time", "detection_ms"),
           ("recovery_ms", "restoration time", "restoration_ms"))
_SETTINGS = frozenset({"polling_ms", "action", *(name for name, _, _ in _TIMERS)})
"""Watchdog fields a port can set for itself (what ``_check`` judges)."""


def _own(wd: Watchdog, defaults: Watchdog | None, name: str) -> bool:
    """Was ``name`` set on this watchdog by a line of its own, rather than by the device
    ``defaults`` it inherits?"""
    ref = wd.field_src.get(name)
    return ref is not None and (defaults is None or ref != defaults.field_src.get(name))


def _ms(value: float) -> str:
    return f"{int(value)}" if float(value).is_integer() else f"{value}"


@register
class PfcWatchdogSettings(Rule):
    """PFC watchdog timers out of range, or an action that does not break a storm.

    ## What it checks
    Every PFC watchdog setting written in the input (per port, and the device-wide polling
    interval) is held to the policy:

    - detection time within `watchdog.detection_ms` (SONiC `detection_time`, 100-5000 ms),
      restoration time within `watchdog.restoration_ms` (100-60000 ms), polling interval within
      `watchdog.poll_ms` (SONiC `PFC_WD|GLOBAL` `POLL_INTERVAL`, 100-1000 ms), and the action
      one of `watchdog.actions` (drop, forward, alert). These are the limits of SONiC's PFC_WD
      schema and apply to the inputs named in `watchdog.range_vendors` (SONiC); EOS and NX-OS
      enforce their own ranges.
    - on every input, detection and restoration no shorter than the polling interval: the
      watchdog looks at the queue once per poll, so it cannot detect or restore faster.

    These are errors. An action that only reports the storm (`watchdog.alert_only_actions`:
    SONiC `alert`) is a warning. SONiC's PFC_WD rows of several ports that are wrong the same
    way (one template wrote them) make one finding naming the ports, with one fix.

    ## Why it matters
    SONiC's YANG schema and its `pfcwd` CLI refuse values outside these ranges, so a config_db
    holding them fails validation or does not do what it says; a detection or restoration time
    below the polling interval is in effect rounded up to whole polls.
    A watchdog that only alerts leaves a stuck queue pausing its neighbours until someone reads
    the log: the PFC storm spreads exactly as if there were no watchdog.

    ## How to fix
    Bring the value into range (200 ms detection and restoration with a 200 ms poll are SONiC's
    defaults) and use `drop` (or `forward`) as the action.
    """

    id = "WD002"
    name = "pfc-watchdog-settings"
    title = "PFC watchdog timers out of range or an action that does not act"
    severity = Severity.ERROR
    category = "watchdog"
    vendors = ("eos", "sonic")
    settings = ("watchdog.detection_ms", "watchdog.restoration_ms", "watchdog.poll_ms",
                "watchdog.actions", "watchdog.range_vendors", "watchdog.alert_only_actions",
                "watchdog.fix_action")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        # SONiC writes these rows one per port: alike ones make one finding (merge_alike)
        return merge_alike(self._port_findings(device, ctx), device)

    def _port_findings(self, device: Device, ctx: Context) -> Iterable[Finding]:
        policy = ctx.policy.watchdog
        ranged = device.vendor in policy.range_vendors
        defaults = device.qos.watchdog_defaults
        poll = defaults.polling_ms if defaults is not None else None
        if defaults is not None:
            finding, poll = self._check(device, ctx, None, defaults, None, poll, ranged)
            if finding is not None:
                yield finding
        # Ports sharing a QoS profile share its watchdog: judge it once, report each port.
        faulty: set[int] = set()
        # whether a watchdog has a finding, by its own settings and their values: each SONiC
        # port has a PFC_WD entry of its own, most of them alike
        verdicts: dict[tuple[object, ...], bool] = {}
        # the verdict of each watchdog object: the ports of an NX-OS switch, each with QoS
        # settings of its own, share the one the global line gives
        judged: dict[int, bool] = {}
        for ports in ctx.all_qos_groups(device):
            port = ports[0] if ports[0].kind == "physical" else next(
                (i for i in ports if i.kind == "physical"), None)
            if port is None:
                continue
            wd = port.qos.pfc.watchdog
            verdict = judged.get(id(wd))
            if verdict is None:
                verdict = judged[id(wd)] = self._faulty(device, ctx, port.name, wd, defaults,
                                                        poll, ranged, verdicts)
            if verdict:
                faulty.add(id(port.qos))
        if not faulty:
            return
        for iface in device.interfaces.values():
            if iface.kind != "physical" or id(iface.qos) not in faulty:
                continue
            finding, _ = self._check(device, ctx, iface.name, iface.qos.pfc.watchdog, defaults,
                                     poll, ranged)
            if finding is not None:
                yield finding

    def _faulty(self, device: Device, ctx: Context, interface: str, wd: Watchdog,
                defaults: Watchdog | None, poll: float | None, ranged: bool,
                verdicts: dict[tuple[object, ...], bool]) -> bool:
        """Has this watchdog a finding of its own (``verdicts``: by its settings and values)?"""
        # A watchdog with no setting of its own (none, or all from the defaults judged
        # above) has nothing to judge.
        if not wd.field_src:
            return False
        owned = tuple([_own(wd, defaults, name) for name in _SETTINGS])
        if not any(owned):
            return False
        key = (owned, wd.polling_ms, wd.timeout_ms, wd.recovery_ms, wd.action)
        verdict = verdicts.get(key)
        if verdict is None:
            verdict = verdicts[key] = self._check(device, ctx, interface, wd, defaults,
                                                  poll, ranged)[0] is not None
        return verdict

    def _check(self, device: Device, ctx: Context, interface: str | None, wd: Watchdog,
               defaults: Watchdog | None, poll: float | None,
               ranged: bool) -> tuple[Finding | None, float | None]:
        """One watchdog's own settings: a port's (``interface``; what it inherits from the
        device ``defaults`` is checked once, on them) or the device defaults (None). Returns
        the finding and the polling interval to judge the ports by (None when in error)."""
        policy = ctx.policy.watchdog
        obj = interface or "PFC watchdog defaults"

        def own(name: str) -> bool:
            return _own(wd, defaults, name)

        problems: list[str] = []
        changes: dict[str, float | str] = {}
        refs: list[SourceRef] = []
        errors = False
        if interface is None and own("polling_ms") and wd.polling_ms is not None and ranged:
            lo, hi = policy.poll_ms
            if not lo <= wd.polling_ms <= hi:
                problems.append(f"polling interval {_ms(wd.polling_ms)} ms is outside "
                                f"{lo}-{hi} ms")
                changes["polling_ms"] = float(min(max(wd.polling_ms, lo), hi))
                refs.append(wd.field_src["polling_ms"])
                errors = True
                poll = None  # the ports are not judged against a polling interval in error
        port_poll = wd.polling_ms if interface is None or own("polling_ms") else poll
        for name, label, key in _TIMERS:
            value = getattr(wd, name)
            if value is None or not own(name):
                continue
            lo, hi = getattr(policy, key)
            if ranged and not lo <= value <= hi:
                problems.append(f"{label} {_ms(value)} ms is outside {lo}-{hi} ms")
            elif port_poll is not None and value < port_poll:
                problems.append(f"{label} {_ms(value)} ms is shorter than the polling "
                                f"interval {_ms(port_poll)} ms")
            else:
                continue
            wanted = max(value, port_poll or 0)
            changes[name] = float(min(max(wanted, lo), hi)) if ranged else wanted
            refs.append(wd.field_src[name])
            errors = True
        action = wd.action
        if action is not None and own("action"):
            if action in policy.alert_only_actions:
                problems.append(f"action {action} only reports a storm, it does not stop it")
            elif ranged and action not in policy.actions:
                problems.append(f"action {action!r} is not one of {', '.join(policy.actions)}")
                errors = True
            if action in policy.alert_only_actions or (ranged and action not in policy.actions):
                changes["action"] = policy.fix_action
                refs.append(wd.field_src["action"])
        if not problems:
            return None, poll
        label = f"PFC watchdog of {interface}" if interface else "PFC watchdog defaults"
        finding = self.finding(
            device, obj, refs[0], f"{label}: {'; '.join(problems)}",
            severity=None if errors else Severity.WARNING,
            related=refs[1:],
            fix=FixIntent("watchdog-settings", {"interface": interface, "settings": changes}),
        )
        return finding, poll
