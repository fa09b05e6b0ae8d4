"""``fablint topo``: the fabric's cabling as a summary, JSON, a Mermaid graph or an SVG drawing."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from html import escape
from typing import TYPE_CHECKING, Any

from fablint.findings import Finding, fmt_gbps
from fablint.model import Cable, Topology, TopologyNode
from fablint.report.json_report import dumps

if TYPE_CHECKING:
    from fablint.report.datasheet import Datasheet

TIERS = ("super-spine", "spine", "leaf", "host")
_escape = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]
HOST_GROUP_LIMIT = 6
"""Above this many hosts under one leaf, the drawing shows them as one group box."""
ROW_LIMIT = 16
"""Boxes per row of the drawing; a larger tier wraps onto several rows."""


def leaf_table(topo: Topology) -> list[dict[str, Any]]:
    """Per leaf: host-facing and uplink capacity and their ratio (None when unknown)."""
    rows = []
    caps = topo.capacity_table()
    for node in sorted((n for n in topo.nodes.values() if n.role == "leaf"),
                       key=lambda n: n.name):  # (the leaves only: 1,000 of 38,000 nodes)
        down, up, unknown = caps[node.name]
        ratio = round(down / up, 2) if up and not unknown else None
        rows.append({"leaf": node.name, "host_mbps": down, "uplink_mbps": up,
                     "unknown_speed_cables": unknown, "oversubscription": ratio})
    return rows


def document(topo: Topology, findings: list[Finding],
             datasheet: Datasheet | None = None, written: bool = False) -> dict[str, Any]:
    """The JSON document; ``written``: without the nodes' and cables' dicts (None), for
    ``render_json``, which writes them straight from the models."""
    tiers = Counter(n.role for n in topo.nodes.values())
    return {
        **({"datasheet": datasheet.model_dump(mode="json")} if datasheet else {}),
        "nodes": None if written else [n.model_dump(mode="json") for n in topo.nodes.values()],
        "tiers": dict(tiers),
        "cables": None if written
        else [c.model_dump(mode="json", exclude_defaults=True) for c in topo.cables],
        "cables_per_tier": _cables_per_tier(topo),
        "leaves": leaf_table(topo),
        "bisection": topo.bisection.model_dump(mode="json") if topo.bisection else None,
        "issues": [i.model_dump(mode="json") for i in topo.issues],
        "findings": [
            {"rule": f.rule, "severity": f.severity.value, "device": f.device,
             "object": f.object, "file": f.file, "line": f.line, "message": f.message}
            for f in findings
        ],
    }


def _cables_per_tier(topo: Topology) -> dict[str, int]:
    """Cables per pair of roles, ``leaf-spine``, in the order each pair first appears."""
    return {"-".join(pair): len(edges) for pair, edges in topo.role_edges().items()}


def render_json(topo: Topology, findings: list[Finding],
                datasheet: Datasheet | None = None) -> str:
    """``json.dumps(document(...), indent=2)``, written faster: the cables from a template
    (51,000 in a 2,000-switch fabric), the rest by the JSON report's encoder."""
    parts = [f'\n  {_escape(key)}: ' + (
        _cables_json(topo.cables, "\n  ") if key == "cables" else
        _nodes_json(topo, "\n  ") if key == "nodes" else
        dumps(value).replace("\n", "\n  "))  # (a JSON string never holds a raw newline)
        for key, value in document(topo, findings, datasheet, written=True).items()]
    return "{" + ",".join(parts) + "\n}\n"


_NODE_FIELDS = tuple((name, _escape(name)) for name in TopologyNode.model_fields)


def _nodes_json(topo: Topology, newline: str) -> str:
    """The nodes' ``model_dump(mode="json")`` as ``json.dumps(indent=2)`` writes them at the
    indentation of ``newline``, straight from their fields (18,000 nodes of a 2,000-switch
    fabric): every field of a node is a string, a number, a boolean or None, which JSON
    writes as they are; any other value takes the model's own dump."""
    if not topo.nodes:
        return "[]"
    inner = newline + "  "
    one = "," + inner + "  "
    escape, number, constants = _escape, _int, _CONSTANTS
    items = []
    for node in topo.nodes.values():
        values = node.__dict__
        parts = []
        for name, key in _NODE_FIELDS:
            value = values[name]
            cls = value.__class__
            if cls is str:
                parts.append(f"{key}: {escape(value)}")
            elif value is None or cls is bool:
                parts.append(f"{key}: {constants[value]}")
            elif cls is int:
                parts.append(f"{key}: {number(value)}")
            else:
                break
        else:
            items.append("{" + inner + "  " + one.join(parts) + inner + "}")
            continue
        items.append(dumps(node.model_dump(mode="json")).replace("\n", inner))
    return "[" + inner + ("," + inner).join(items) + newline + "]"


_int = int.__repr__
_CONSTANTS = {None: "null", True: "true", False: "false"}


def _cables_json(cables: list[Cable], newline: str) -> str:
    """``cables`` as ``json.dumps(indent=2)`` writes their ``model_dump(mode="json",
    exclude_defaults=True)`` at the indentation of ``newline``: the usual cable (no port
    configuration) from a template; any other through the model's own dump."""
    if not cables:
        return "[]"
    inner = newline + "  "
    one, two, three = inner + "  ", inner + "    ", inner + "      "
    escape, number = _escape, _int
    items = []
    for cable in cables:
        if cable.a_port is not None or cable.b_port is not None:
            items.append(dumps(cable.model_dump(mode="json", exclude_defaults=True)).replace(
                "\n", inner))
            continue
        a, b = cable.a, cable.b
        text = (f'{{{one}"a": {{{two}"device": {escape(a.device)},{two}"interface": '
                f'{escape(a.interface)}{one}}},{one}"b": {{{two}"device": {escape(b.device)},'
                f'{two}"interface": {escape(b.interface)}{one}}}')
        if cable.speed_mbps is not None:
            text += f',{one}"speed_mbps": {number(cable.speed_mbps)}'
        if cable.confirmed:
            text += f',{one}"confirmed": true'
        if cable.sources:
            text += f',{one}"sources": [' + ",".join(
                f'{two}{{{three}"file": {escape(src.file)},{three}"line": '
                f'{"null" if src.line is None else number(src.line)}{two}}}'
                for src in cable.sources) + f"{one}]"
        if cable.origin != "unknown":
            text += f',{one}"origin": {escape(cable.origin)}'
        items.append(text + inner + "}")
    return "[" + inner + ("," + inner).join(items) + newline + "]"


def render_text(topo: Topology, findings: list[Finding]) -> str:
    tiers = Counter(n.role for n in topo.nodes.values() if not n.service)
    services = sum(1 for n in topo.nodes.values() if n.service)
    lines = ["Devices per tier: " + ", ".join(
        f"{tiers[t]} {_plural(t, tiers[t])}" for t in (*TIERS, "switch", "unknown") if tiers[t])
        + (f" (and {services} service host{'s' if services != 1 else ''}: UFM, login, "
           "management)" if services else "")]
    for tier in ("super-spine", "spine", "leaf", "switch"):
        members = sorted((n for n in topo.nodes.values() if n.role == tier),
                         key=lambda n: _natural(n.name))
        if members:
            shown = ", ".join(n.name + ("" if n.role_from == "inferred" else f" ({n.role_from})")
                              for n in members[:12])
            more = f", … {len(members) - 12} more" if len(members) > 12 else ""
            lines.append(f"  {_plural(tier, len(members))}: {shown}{more}")
    confirmed = sum(1 for c in topo.cables if c.confirmed)
    lines.append(f"Cables: {len(topo.cables)} ({confirmed} seen from both ends): " + ", ".join(
        f"{n} {pair}" for pair, n in sorted(_cables_per_tier(topo).items())))
    table = leaf_table(topo)
    alone = _whole_fabric(topo, table)
    if alone is not None:
        lines += ["", alone]
    elif table:
        lines += ["", f"{'Leaf':<24} {'Hosts':>10} {'Uplinks':>10} {'Ratio':>8}"]
        for label, row in _leaf_rows(table):
            ratio = (f"{row['oversubscription']:.2f}:1" if row["oversubscription"] is not None
                     else "unknown")
            lines.append(f"{label:<24} {fmt_gbps(row['host_mbps']):>10} "
                         f"{fmt_gbps(row['uplink_mbps']):>10} {ratio:>8}")
    b = topo.bisection
    lines.append("")
    if b is None and alone is not None:
        lines.append("Bisection: not computed (one switch is the whole fabric: no cut between "
                     "leaves; the hosts' own links are the limit)")
    elif b is None:
        lines.append("Bisection: not computed (needs two or more leaves with known port speeds)")
    else:
        lines.append(f"Bisection: {fmt_gbps(b.mbps)} of an ideal {fmt_gbps(b.ideal_mbps)} "
                     f"({b.mbps / b.ideal_mbps:.0%}; {'exact' if b.exact else 'upper bound'}: "
                     f"{b.why})")
    rails = [f for f in findings if f.rule == "TOP003"]
    lines.append("Rails: " + (f"{len(rails)} NIC(s) off their rail" if rails else
                              "no misplaced NIC found"))
    if findings:
        lines += ["", "Findings:"]
        lines += [f"  {f.file or '-'}:{f.line or '-'} {f.rule} {f.severity.value}: {f.message}"
                  for f in findings]
    return "\n".join(lines) + "\n"


def _whole_fabric(topo: Topology, table: list[dict[str, Any]]) -> str | None:
    """The line that replaces the leaf table when one switch is the whole fabric (a director
    chassis whose chips are folded into one node, or a single switch): every host is one hop
    from every other through it, so there is no uplink and no ratio to rate; None otherwise."""
    if len(table) != 1 or table[0]["uplink_mbps"] or table[0]["unknown_speed_cables"]:
        return None
    switches = [n for n in topo.nodes.values()
                if not n.service and n.role in ("super-spine", "spine", "leaf", "switch")]
    if len(switches) != 1:
        return None
    node = switches[0]
    what = f"a director of {node.chips} chips" if node.chips > 1 else "a single switch"
    inside = " (a director is built non-blocking inside)" if node.chips > 1 else ""
    return (f"One switch is the whole fabric: {node.name} ({what}) with "
            f"{fmt_gbps(table[0]['host_mbps'])} of host links; every host reaches every other "
            f"through it alone, so there are no uplinks and no leaf ratio to rate{inside}")


LEAF_ROWS = 24
"""Up to this many leaves, one row each; beyond, leaves with the same figures share a row."""


def _leaf_rows(table: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(label, row) per leaf, or on a large fabric per set of leaves with identical capacities
    (a 1,000-leaf fat tree is one row, its outliers one each), worst ratio first."""
    if len(table) <= LEAF_ROWS:
        return [(row["leaf"], row) for row in table]
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in table:
        key = (row["host_mbps"], row["uplink_mbps"], row["oversubscription"])
        groups.setdefault(key, []).append(row)
    ordered = sorted(groups.values(), key=lambda rows: (
        rows[0]["oversubscription"] is None, -(rows[0]["oversubscription"] or 0), len(rows)))
    return [(rows[0]["leaf"] + (f" +{len(rows) - 1} alike" if len(rows) > 1 else ""), rows[0])
            for rows in ordered]


def _plural(word: str, n: int) -> str:
    if n == 1:
        return word
    return "leaves" if word == "leaf" else word + ("es" if word.endswith("switch") else "s")


def _faulty(findings: list[Finding]) -> set[str]:
    """Devices to draw in red: those a finding is about (not fabric- or tier-wide figures)."""
    return {f.device for f in findings if f.device
            and not (f.object == "fabric" or (f.object or "").endswith(" tier"))}


def _ident(name: str) -> str:
    return "n_" + "".join(ch if ch.isalnum() else "_" for ch in name)


def render_mermaid(topo: Topology, findings: list[Finding]) -> str:
    """A Mermaid flowchart, hosts grouped per leaf so that a pull-request comment stays short."""
    faulty = _faulty(findings)
    lines = ["flowchart TB"]
    groups = _host_groups(topo)
    for tier in TIERS[:-1]:
        members = sorted(n.name for n in topo.nodes.values() if n.role == tier)
        if members:
            lines.append(f"  subgraph {tier.replace('-', '_')}s [{_plural(tier, 2)}]")
            lines += [f'    {_ident(m)}["{m}"]' for m in members]
            lines.append("  end")
    for leaf, hosts in sorted(groups.items()):
        label = hosts[0] if len(hosts) == 1 else f"{len(hosts)} hosts: {hosts[0]} … {hosts[-1]}"
        lines.append(f'  {_ident(leaf + "_hosts")}(["{label}"])')
    group_of = {h: leaf + "_hosts" for leaf, hosts in groups.items() for h in hosts}
    seen: set[tuple[str, str]] = set()
    for cable in topo.cables:
        a, b = cable.a.device, cable.b.device
        if topo.role(a) == "host" or topo.role(b) == "host":
            host, leaf = (a, b) if topo.role(a) == "host" else (b, a)
            a, b = leaf, group_of.get(host, host)
        key = (min(a, b), max(a, b))
        if key in seen:
            continue
        seen.add(key)
        label = f"|{fmt_gbps(cable.speed_mbps)}|" if cable.speed_mbps else ""
        lines.append(f"  {_ident(a)} ---{label} {_ident(b)}")
    for name in sorted(faulty):
        if name in topo.nodes and topo.role(name) != "host":
            lines.append(f"  style {_ident(name)} stroke:#d00,stroke-width:3px")
    return "\n".join(lines) + "\n"


def _host_groups(topo: Topology) -> dict[str, list[str]]:
    """Each host under the leaf it has the most cables to (rail fabrics: its NIC 0 leaf)."""
    per_host: dict[str, Counter[str]] = defaultdict(Counter)
    for cable in topo.cables:
        for h, other in ((cable.a.device, cable.b.device), (cable.b.device, cable.a.device)):
            if topo.role(h) == "host":
                per_host[h][other] += 1
    groups: dict[str, list[str]] = defaultdict(list)
    for host, leaves in sorted(per_host.items()):
        groups[leaves.most_common(1)[0][0]].append(host)
    return groups


def _natural(name: str) -> tuple[object, ...]:
    """leaf2 before leaf10."""
    import re

    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def render_svg(topo: Topology, findings: list[Finding]) -> str:
    """Tiers top to bottom; hosts grouped per leaf above ``HOST_GROUP_LIMIT``; faults in red."""
    faulty = _faulty(findings)
    groups = _host_groups(topo)
    rows: list[list[tuple[str, str]]] = []

    def add(items: list[tuple[str, str]]) -> None:
        rows.extend(items[i:i + ROW_LIMIT] for i in range(0, len(items), ROW_LIMIT))

    for tier in TIERS[:-1]:
        add([(n, n) for n in sorted((n.name for n in topo.nodes.values() if n.role == tier),
                                    key=_natural)])
    host_row: list[tuple[str, str]] = []
    for leaf in sorted(groups):
        hosts = groups[leaf]
        if len(hosts) > HOST_GROUP_LIMIT:
            host_row.append((f"{leaf}#hosts", f"{len(hosts)} hosts"))
        else:
            host_row += [(h, h) for h in hosts]
    add(host_row)
    box_w, box_h, gap, row_gap, margin = 120, 34, 14, 90, 30
    width = max((len(r) * (box_w + gap) for r in rows), default=box_w) + 2 * margin
    pos: dict[str, tuple[float, float]] = {}
    for y, row in enumerate(rows):
        row_width = len(row) * (box_w + gap) - gap
        x0 = (width - row_width) / 2
        for x, (key, _) in enumerate(row):
            pos[key] = (x0 + x * (box_w + gap), margin + y * row_gap)
    height = margin * 2 + max(len(rows) - 1, 0) * row_gap + box_h
    grouped = {h: f"{leaf}#hosts" for leaf, hosts in groups.items()
               if len(hosts) > HOST_GROUP_LIMIT for h in hosts}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>']
    drawn: set[tuple[str, str]] = set()
    bad_cables = {(f.device, f.object) for f in findings}
    for cable in topo.cables:
        a = grouped.get(cable.a.device, cable.a.device)
        b = grouped.get(cable.b.device, cable.b.device)
        if a not in pos or b not in pos or (min(a, b), max(a, b)) in drawn:
            continue
        drawn.add((min(a, b), max(a, b)))
        (ax, ay), (bx, by) = pos[a], pos[b]
        bad = ((cable.a.device, cable.a.interface) in bad_cables
               or (cable.b.device, cable.b.interface) in bad_cables)
        colour, stroke = ("#d00", 2.5) if bad else ("#888", 1)
        if not bad and len(topo.cables) > 200:
            colour = "#ccc"  # a large mesh: keep the boxes readable behind the lines
        out.append(f'<line x1="{ax + box_w / 2:.1f}" y1="{ay + box_h:.1f}" '
                   f'x2="{bx + box_w / 2:.1f}" y2="{by:.1f}" stroke="{colour}" '
                   f'stroke-width="{stroke}"/>' if ay < by else
                   f'<line x1="{bx + box_w / 2:.1f}" y1="{by + box_h:.1f}" '
                   f'x2="{ax + box_w / 2:.1f}" y2="{ay:.1f}" stroke="{colour}" '
                   f'stroke-width="{stroke}"/>')
    labels = dict(item for row in rows for item in row)
    for key, (x, y) in pos.items():
        name = key.split("#")[0]
        group = key.endswith("#hosts")
        bad = name in faulty and not group
        fill = "#fde2e2" if bad else ("#f2f2f2" if group or topo.role(name) == "host"
                                      else "#eef4ff")
        edge = "#d00" if bad else "#446"
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{box_w}" height="{box_h}" rx="5" '
                   f'fill="{fill}" stroke="{edge}"/>')
        out.append(f'<text x="{x + box_w / 2:.1f}" y="{y + box_h / 2 + 4:.1f}" '
                   f'text-anchor="middle">{escape(labels[key][:20])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "mermaid": render_mermaid,
             "svg": render_svg}
