"""Drift reports: text (rich), JSON (versioned) and Markdown (for a ticket or a PR comment).

Identical differences on several ports of one device (a shared map, a profile applied to every
uplink) are shown once with the ports listed, so one change reads as one line.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from fablint.drift import DeviceDrift, DriftReport, FactDrift
from fablint.model import SourceRef

JSON_VERSION = "1"
MAX_PORTS_SHOWN = 6


def fact_label(fact: str, udp_port: int = 4791) -> str:
    """A fact key as a person reads it: ``priority[3].ecn`` -> ``priority 3 ECN``."""
    if fact.startswith("dscp["):
        return f"DSCP {fact[5:fact.index(']')]} -> traffic class"
    if fact.startswith("priority["):
        prio, _, what = fact[9:].partition("].")
        names = {"queue": "queue", "ecn": "ECN", "wred_drop": "WRED drop",
                 "scheduling": "scheduling"}
        return f"priority {prio} {names.get(what, what)}"
    labels = {
        "present": "interface", "vendor": "vendor", "admin_up": "admin state",
        "routed": "routed (L3)", "port_channel": "port-channel", "mtu": "IP MTU",
        "neighbor": "neighbor", "trust": "QoS trust", "pfc": "PFC",
        "pfc_disabled_globally": "PFC off device-wide", "pfc_priorities": "PFC priorities",
        "watchdog": "PFC watchdog", "link_pause": "802.3x pause",
        "acl_in_roce": f"inbound ACL on UDP {udp_port}",
        "acl_out_roce": f"outbound ACL on UDP {udp_port}",
    }
    return labels.get(fact, fact)


def _size(value: Any) -> str:
    if isinstance(value, int) and value and value % 1024 == 0:
        return f"{value // 1024} KiB"
    return f"{value} B" if isinstance(value, int) else str(value)


def fact_value(fact: str, value: Any) -> str:
    """A fact value as a person reads it."""
    if value is None:
        return "none" if fact != "present" else "missing"
    if fact == "present":
        return "present" if value else "missing"
    if fact == "admin_up":
        return "up" if value else "down"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) if value else "none"
    if isinstance(value, dict) and {"min", "max"} <= set(value):
        prob = value.get("probability")
        tail = f", {prob} %" if prob is not None else ""
        return f"min {_size(value['min'])}, max {_size(value['max'])}{tail}"
    return str(value)


def _where(ref: SourceRef | None) -> str:
    return str(ref) if ref is not None else ""


def grouped(diffs: Iterable[FactDrift]) -> list[tuple[list[str], FactDrift]]:
    """Differences with the same fact and values on several objects, as one entry."""
    out: list[tuple[list[str], FactDrift]] = []
    index: dict[tuple[str, str, str], int] = {}
    for d in diffs:
        key = (d.fact, json.dumps(d.intended, sort_keys=True, default=str),
               json.dumps(d.live, sort_keys=True, default=str))
        if d.object != "device" and key in index:
            out[index[key]][0].append(d.object)
            continue
        if d.object != "device":
            index[key] = len(out)
        out.append(([d.object], d))
    return out


def _objects(names: list[str]) -> str:
    if len(names) <= MAX_PORTS_SHOWN:
        return ", ".join(names)
    return f"{', '.join(names[:MAX_PORTS_SHOWN])} … ({len(names)} ports)"


# -- text ------------------------------------------------------------------------------------


def render_text(report: DriftReport, *, color: bool = False, width: int = 100) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width,
                      highlight=False, soft_wrap=True)
    for error in report.errors:
        p = error.problem
        where = f"{p.file}:{p.line}" if p.line else p.file
        console.print(f"[bold red]error[/] ({error.side}) {escape(where)}: {escape(p.message)}")
    if report.errors:
        console.print()
    for device in report.devices:
        if device.state == "same":
            continue
        _device_text(console, device, report.udp_port)
    console.print(summary_line(report))
    return buffer.getvalue()


def _device_text(console: Console, device: DeviceDrift, udp_port: int) -> None:
    vendor = f" ({device.vendor})" if device.vendor else ""
    if device.state == "only-intended":
        files = ", ".join(device.intended_files)
        console.print(f"[bold]{escape(device.device)}[/]{vendor}  [yellow]only in intended[/] "
                      f"[dim]{escape(files)}[/]")
        return
    if device.state == "only-live":
        files = ", ".join(device.live_files)
        console.print(f"[bold]{escape(device.device)}[/]{vendor}  [yellow]only in live[/] "
                      f"[dim]{escape(files)}[/]")
        return
    changes = grouped(device.differences)
    n = len(changes)
    console.print(f"[bold]{escape(device.device)}[/]{vendor}  {n} change{'' if n == 1 else 's'}")
    for objects, d in changes:
        line = Text("  ")
        line.append(f"{objects[0] if len(objects) == 1 else f'{len(objects)} ports':<14}",
                    style="cyan")
        line.append(f" {fact_label(d.fact, udp_port):<30} ")
        line.append(fact_value(d.fact, d.intended), style="green")
        line.append(" -> ")
        line.append(fact_value(d.fact, d.live), style="bold red")
        console.print(line)
        if len(objects) > 1:
            console.print(Text("      " + _objects(objects), style="cyan"))
        refs = []
        if d.intended_src is not None:
            refs.append(f"intended {_where(d.intended_src)}")
        if d.live_src is not None:
            refs.append(f"live {_where(d.live_src)}")
        if refs:
            console.print(Text("      " + "   ".join(refs), style="dim"))
    console.print()


def summary_line(report: DriftReport) -> str:
    c = report.counts()
    extras = []
    if c["only-intended"]:
        extras.append(f"{c['only-intended']} only in intended")
    if c["only-live"]:
        extras.append(f"{c['only-live']} only in live")
    if report.errors:
        extras.append(f"[bold red]{len(report.errors)} input(s) could not be read[/]")
    tail = f"; {', '.join(extras)}" if extras else ""
    if not report.drifted:
        mark = "[green]✓[/green]" if not report.errors else "[red]✗[/red]"
        return f"{mark} {c['compared']} device(s) compared: no drift{tail}."
    changes = sum(len(grouped(d.differences)) for d in report.devices)
    return (f"[bold red]✗[/] drift in {c['drift']} of {c['compared']} device(s) compared: "
            f"{changes} change(s) in {c['differences']} port or device fact(s){tail}.")


# -- JSON ------------------------------------------------------------------------------------


def _ref(ref: SourceRef | None) -> dict[str, Any] | None:
    return {"file": ref.file, "line": ref.line} if ref is not None else None


def to_document(report: DriftReport) -> dict[str, Any]:
    c = report.counts()
    return {
        "version": JSON_VERSION,
        "tool": "fablint",
        "intended": report.intended,
        "live": report.live,
        "summary": {
            "devices_compared": c["compared"], "devices_with_drift": c["drift"],
            "devices_only_intended": c["only-intended"], "devices_only_live": c["only-live"],
            "differences": c["differences"], "drift": bool(report.drifted),
        },
        "devices": [
            {
                "device": d.device, "state": d.state, "vendor": d.vendor,
                "intended_files": d.intended_files, "live_files": d.live_files,
                "differences": [
                    {"object": f.object, "fact": f.fact,
                     "label": fact_label(f.fact, report.udp_port),
                     "intended": f.intended, "live": f.live,
                     "intended_src": _ref(f.intended_src), "live_src": _ref(f.live_src)}
                    for f in d.differences
                ],
            }
            for d in report.devices
        ],
        "errors": [
            {"side": e.side, "file": e.problem.file, "line": e.problem.line,
             "kind": e.problem.kind, "message": e.problem.message}
            for e in report.errors
        ],
    }


def render_json(report: DriftReport) -> str:
    return json.dumps(to_document(report), indent=2) + "\n"


# -- Markdown --------------------------------------------------------------------------------


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: DriftReport) -> str:
    c = report.counts()
    lines = ["# fablint drift", ""]
    lines.append(f"Intended: `{', '.join(report.intended)}`; live: `{', '.join(report.live)}`.")
    lines.append("")
    plain = Text.from_markup(summary_line(report)).plain
    lines += [plain, ""]
    if report.errors:
        lines += ["## Inputs that could not be read", ""]
        for e in report.errors:
            where = f"{e.problem.file}:{e.problem.line}" if e.problem.line else e.problem.file
            lines.append(f"- {e.side}: `{_md(where)}`: {_md(e.problem.message)}")
        lines.append("")
    one_sided = [d for d in report.devices if d.state in ("only-intended", "only-live")]
    if one_sided:
        lines += ["## Devices on one side only", "", "| Device | Only in | Files |",
                  "|---|---|---|"]
        for d in one_sided:
            files = d.intended_files if d.state == "only-intended" else d.live_files
            lines.append(f"| {_md(d.device)} | {d.state[5:]} | {_md(', '.join(files))} |")
        lines.append("")
    for d in report.devices:
        if d.state != "drift":
            continue
        lines += [f"## {_md(d.device)}" + (f" ({d.vendor})" if d.vendor else ""), "",
                  "| Where | Fact | Intended | Live | Intended source | Live source |",
                  "|---|---|---|---|---|---|"]
        for objects, f in grouped(d.differences):
            lines.append(
                f"| {_md(_objects(objects))} | {_md(fact_label(f.fact, report.udp_port))} | "
                f"{_md(fact_value(f.fact, f.intended))} | {_md(fact_value(f.fact, f.live))} | "
                f"{_md(_where(f.intended_src))} | {_md(_where(f.live_src))} |")
        lines.append("")
    if not report.drifted and c["compared"]:
        lines += ["No RoCE-relevant difference.", ""]
    return "\n".join(lines)
