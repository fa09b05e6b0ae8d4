"""``fablint report``: one self-contained HTML file to hand to a reviewer.

The datasheet at the top (the same ``Datasheet`` object as ``fablint topo --format markdown``),
plots where a plot says more than a table, the topology drawing (tiers, pods, hosts grouped per
leaf; devices and cables with findings in red and linked to them), the findings as a table that
filters by severity, family, device and file, and a section per device (ports, QoS chain, PFC and
ECN per queue). No external URL: the CSS, the script and every picture are inline, so the file
opens anywhere, offline, and can be attached to a ticket.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from html import escape

from fablint.checks import REGISTRY
from fablint.findings import Finding
from fablint.model import Cable, Topology, ib_rate_mbps
from fablint.report.datasheet import Datasheet, gbps, ratio_text, rows
from fablint.report.digest import DeviceDigest
from fablint.report.html_shell import html_id as _id
from fablint.report.html_shell import page

DETAIL_LIMIT = 64
"""Above this many switches the drawing shows one box per pod and tier; each pod is drawn in
full inside its own expandable section."""
ROW_LIMIT = 16
"""Boxes per row of a detailed drawing; a larger tier wraps."""
COLLAPSE = 8
"""Above this many super-spines, a pod's drawing shows them as one box."""
SPEED_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")

SCRIPT = """
(function(){
  var rows=Array.prototype.slice.call(document.querySelectorAll('#findings tbody tr'));
  var sels=document.querySelectorAll('.filters select');
  function apply(){
    var want={};sels.forEach(function(s){want[s.name]=s.value;});
    var shown=0;
    rows.forEach(function(r){
      var ok=true;for(var k in want){if(want[k]&&r.getAttribute('data-'+k)!==want[k]){ok=false;}}
      r.classList.toggle('hidden',!ok);if(ok){shown++;}
    });
    document.getElementById('shown-count').textContent=shown;
  }
  sels.forEach(function(s){s.addEventListener('change',apply);});
  function open(){
    var id=decodeURIComponent(location.hash.slice(1));if(!id){return;}
    if(id.indexOf('filter=')===0){
      id.slice(7).split(';').forEach(function(kv){
        var i=kv.indexOf(':');var s=document.querySelector('select[name="'+kv.slice(0,i)+'"]');
        if(s){s.value=kv.slice(i+1);}
      });
      apply();return;
    }
    var el=document.getElementById(id);
    if(el&&el.classList.contains('hidden')){sels.forEach(function(s){s.value='';});apply();}
    while(el){if(el.tagName==='DETAILS'){el.open=true;}el=el.parentElement;}
  }
  window.addEventListener('hashchange',open);open();
  document.querySelectorAll('.cable-link').forEach(function(g){
    g.addEventListener('click',function(){
      var ids=g.getAttribute('data-findings').split(' ');
      rows.forEach(function(r){r.classList.remove('picked');});
      var hidden=false;
      ids.forEach(function(i){var r=document.getElementById(i);
        if(r){r.classList.add('picked');hidden=hidden||r.classList.contains('hidden');}});
      if(hidden){sels.forEach(function(s){s.value='';});apply();}
    });
  });
  document.querySelectorAll('[data-filter-device]').forEach(function(a){
    a.addEventListener('click',function(){
      var s=document.querySelector('select[name=device]');
      s.value=a.getAttribute('data-filter-device');apply();
    });
  });
  apply();
})();
"""


def _esc(text: str) -> str:
    """``html.escape``, skipped for the usual text that needs none (the per-port tables call it
    a hundred thousand times)."""
    if "&" in text or "<" in text or ">" in text or '"' in text or "'" in text:
        return escape(text)
    return text


def _why(rule_id: str) -> str:
    rule = REGISTRY.get(rule_id)
    if rule is None:
        return ""
    doc = rule.doc()
    match = re.search(r"## Why it matters\n(.*?)(?:\n## |\Z)", doc, re.S)
    return " ".join(match.group(1).split()) if match else ""


def render(datasheet: Datasheet, topo: Topology | None, findings: list[Finding],
           digests: dict[str, object], title: str = "Fabric report") -> str:
    """The whole report as one HTML document."""
    devices = {n: d for n, d in digests.items() if isinstance(d, DeviceDigest)}
    numbered = list(enumerate(findings))
    by_device: dict[str, list[int]] = defaultdict(list)
    for n, f in numbered:
        if f.device:
            by_device[f.device].append(n)
    sections = set(devices) | set(by_device)
    placed: dict[str, str] = {}  # device -> the id of its box in the drawing
    counts = Counter(f.severity.value for f in findings)
    summary = ", ".join(f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}"
                        for s in ("error", "warning", "info") if counts[s]) or "no findings"
    cable_of: dict[int, str] = {}  # finding -> the id of its red cable in the drawing
    body = [_datasheet(datasheet), _plots(datasheet),
            _topology(topo, findings, sections, placed, cable_of) if topo is not None else "",
            _findings(numbered, sections, placed, cable_of),
            _devices(devices, by_device, findings, topo, placed)]
    nav = [("datasheet", "Datasheet"), ("plots", "Plots")] + (
        [("topology", "Topology")] if topo is not None else []) + [
        ("findings-section", "Findings"), ("devices", "Devices")]
    subtitle = (f'{escape(datasheet.kind.kind)} · <span id="finding-total">{len(findings)}'
                f"</span> findings ({escape(summary)})")
    return page(title, subtitle, nav, body, SCRIPT)


def _datasheet(ds: Datasheet) -> str:
    out = ['<section id="datasheet"><h2>Fabric datasheet</h2><table>',
           '<thead><tr><th class="fig">Figure</th><th>Value</th><th>Where it comes from</th>'
           "</tr></thead><tbody>"]
    for figure, value, source in rows(ds):
        slug = re.sub(r"[^a-z0-9]+", "-", figure.lower()).strip("-")
        cls = ""
        if figure == "Non-blocking" and ds.non_blocking.value is not None:
            cls = ' class="yes"' if ds.non_blocking.value else ' class="no"'
        out.append(f'<tr id="ds-{slug}"><th class="fig">{escape(figure)}</th><td{cls}>'
                   f'{escape(value)}</td>'
                   f'<td class="src">{escape(source)}</td></tr>')
    out.append("</tbody></table></section>")
    return "\n".join(out)


def _plots(ds: Datasheet) -> str:
    parts = ['<section id="plots"><h2>Plots</h2>']
    over = [r for r in ds.oversubscription.per_leaf if r.ratio is not None]
    if over:
        parts.append("<h3>Oversubscription per leaf</h3>" + _over_plot(over))
    if ds.links.rates:
        parts.append("<h3>Link speeds and widths per tier</h3>" + _rate_plot(ds))
    if len(parts) == 1:
        parts.append('<p class="muted">Nothing to plot: no cable with a known speed.</p>')
    parts.append("</section>")
    return "\n".join(parts)


LABELLED_LEAVES = 48
"""Up to this many leaves, each bar of the oversubscription plot carries the leaf's name."""


def _over_plot(leaves: list) -> str:
    """One bar per leaf, worst first, with the 1:1 line; bars link to the leaf."""
    leaves = sorted(leaves, key=lambda r: -r.ratio)
    named = len(leaves) <= LABELLED_LEAVES
    longest = max(len(r.leaf) for r in leaves) if named else 0
    width, left, right = 860, 44, 100
    bottom = 24 + (min(longest, 24) * 5 if named else 0)
    height = 200 + bottom
    top = max(max(r.ratio for r in leaves), 1.0) * 1.1
    step = (width - left - right) / len(leaves)
    bar = min(max(step * 0.8, 0.6), 40)

    def y(v: float) -> float:
        return 10 + (height - bottom - 10) * (1 - v / top)

    out = [f'<svg id="plot-oversubscription" '
           f'width="{width}" height="{height}" role="img" '
           f'aria-label="oversubscription per leaf">']
    for tick in _ticks(top):
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" '
                   f'y2="{y(tick):.1f}" stroke="#eceef2"/><text x="{left - 4}" '
                   f'y="{y(tick) + 4:.1f}" text-anchor="end" font-size="10">{tick:g}:1</text>')
    for n, r in enumerate(leaves):
        x = left + n * step
        colour = "#d33" if r.ratio > 1 + 1e-9 else "#4a7fd4"
        out.append(f'<rect class="bar" data-leaf="{escape(r.leaf)}" x="{x:.2f}" '
                   f'y="{y(r.ratio):.1f}" width="{bar:.2f}" '
                   f'height="{y(0) - y(r.ratio):.1f}" fill="{colour}"><title>'
                   f'{escape(r.leaf)}: {ratio_text(r.ratio)} ({gbps(r.host_mbps)} to hosts, '
                   f'{gbps(r.uplink_mbps)} up)</title></rect>')
        if named:
            cx, cy = x + bar / 2, y(0) + 10
            out.append(f'<text x="{cx:.1f}" y="{cy:.1f}" font-size="10" text-anchor="end" '
                       f'transform="rotate(-45 {cx:.1f} {cy:.1f})">{escape(r.leaf[:24])}</text>')
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(1):.1f}" y2="{y(1):.1f}" '
               f'stroke="#176b2c" stroke-dasharray="4 3"/>'
               f'<text x="{width - right + 4}" y="{y(1) + 4:.1f}" font-size="10" '
               f'fill="#176b2c">non-blocking 1:1</text>')
    out.append(f'<text x="{width - right + 4}" y="{height - 20}" font-size="11">'
               f"{len(leaves)} leaves,</text><text x=\"{width - right + 4}\" "
               f'y="{height - 6}" font-size="11">worst first</text></svg>')
    return "".join(out)


def _ticks(top: float) -> list[float]:
    step = 0.5 if top <= 3 else 1 if top <= 8 else 2 if top <= 16 else 5
    return [i * step for i in range(int(top / step) + 1)]


def _rate_rows(ds: Datasheet) -> list[tuple[str, str, int, int | None, str]]:
    """(tiers, label, cables, rate, note) per bar: InfiniBand cables by active width and speed
    (a degraded width shows as its own bar), Ethernet cables by rate; the note says why a bar
    is below the rest of its tier."""
    out = []
    ib_tiers = {w.tiers for w in ds.links.widths}
    for w in ds.links.widths:
        rate = ib_rate_mbps(w.speed, w.width)
        usual = next(u for u in ds.links.widths if u.tiers == w.tiers and not u.degraded)
        note = (f"degraded: most {w.tiers} cables run {usual.width}x {usual.speed}"
                if w.degraded else "")
        out.append((w.tiers, f"{w.width}x {w.speed} ({gbps(rate)})", w.cables, rate, note))
    usual_rate: dict[str, tuple[int, int | None]] = {}
    for r in ds.links.rates:
        if r.tiers not in usual_rate or r.cables > usual_rate[r.tiers][0]:
            usual_rate[r.tiers] = (r.cables, r.rate_mbps)
    for r in ds.links.rates:
        if r.tiers in ib_tiers and r.rate_mbps is not None:
            continue
        most = usual_rate[r.tiers][1]
        note = (f"slower than most {r.tiers} cables ({gbps(most)})"
                if r.rate_mbps and most and r.rate_mbps < most else "")
        out.append((r.tiers, r.generation or "unknown speed", r.cables, r.rate_mbps, note))
    order = {"host-leaf": 0, "leaf-spine": 1, "spine-super-spine": 2}
    return sorted(out, key=lambda row: (order.get(row[0], 9), row[0], -(row[3] or 0)))


def _rate_plot(ds: Datasheet) -> str:
    """Cables per pair of tiers and rate; InfiniBand per active width and speed, so a link
    that trained at 1x stands out in red beside its tier's 4x bar."""
    rows_ = _rate_rows(ds)
    width, row, left, gap = 860, 22, 150, 12
    most = max(r[2] for r in rows_)
    tiers = list(dict.fromkeys(r[0] for r in rows_))
    height = row * (len(rows_) + len(tiers)) + gap * len(tiers) + 10
    out = [f'<svg id="plot-rates" width="{width}" height="{height}" role="img" '
           f'aria-label="link speeds and widths per tier">']
    y, last = 5.0, None
    for tiers_, label, cables, rate, note in rows_:
        if tiers_ != last:
            if last is not None:
                y += gap
                out.append(f'<line x1="0" x2="{width}" y1="{y - gap / 2:.1f}" '
                           f'y2="{y - gap / 2:.1f}" stroke="#eceef2"/>')
            out.append(f'<text x="0" y="{y + 14:.1f}" font-size="12" font-weight="600">'
                       f"{escape(tiers_)} cables</text>")
            last = tiers_
            y += row
        w = max((width - left - 330) * cables / most, 2)
        colour = "#d33" if note.startswith("degraded") else "#e08a00" if note else \
            _colour(rate, ds)
        red = ' fill="#a00"' if note else ""
        out.append(f'<g class="rate{" degraded" if note else ""}" data-tiers="{escape(tiers_)}" '
                   f'data-label="{escape(label)}" data-cables="{cables}">'
                   f'<text x="{left - 6}" y="{y + 14:.1f}" text-anchor="end" font-size="12">'
                   f'{escape(label)}</text><rect x="{left}" y="{y + 3:.1f}" width="{w:.1f}" '
                   f'height="{row - 8}" fill="{colour}"/><text x="{left + w + 4:.1f}" '
                   f'y="{y + 14:.1f}" font-size="12"{red}>'
                   f"{cables}{escape(' · ' + note) if note else ''}</text></g>")
        y += row
    out.append("</svg>")
    return "".join(out)


def _speeds(ds: Datasheet) -> list[int]:
    return sorted({r.rate_mbps for r in ds.links.rates if r.rate_mbps}, reverse=True)


def _colour(rate: int | None, ds: Datasheet | None = None, speeds: list[int] | None = None
            ) -> str:
    speeds = speeds if speeds is not None else _speeds(ds) if ds else []
    if rate is None or rate not in speeds:
        return "#bbb"
    return SPEED_COLOURS[min(speeds.index(rate), len(SPEED_COLOURS) - 1)]


# -- topology drawing --------------------------------------------------------------------------

def _cable_findings(topo: Topology, findings: list[Finding]) -> dict[int, list[int]]:
    """Cable index -> findings about one of its ports (``Ethernet1/1``, an IB dump's ``port
    16``): the cables drawn in red. A finding's line is no key: a device-wide finding points
    at the device's first port line in an IB dump."""
    ends: dict[tuple[str, str], int] = {}
    for n, cable in enumerate(topo.cables):
        ends[(cable.a.device, cable.a.interface)] = n
        ends[(cable.b.device, cable.b.interface)] = n
    out: dict[int, list[int]] = defaultdict(list)
    for n, f in enumerate(findings):
        for obj in [f.object, *f.objects]:
            index = ends.get((f.device or "", (obj or "").removeprefix("port ")))
            if index is not None and n not in out[index]:
                out[index].append(n)
    return out


def _faulty(findings: list[Finding]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for n, f in enumerate(findings):
        if f.device and not (f.object == "fabric" or (f.object or "").endswith(" tier")):
            out[f.device].append(n)
    return out


def _natural(name: str) -> tuple[object, ...]:
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", name))


def _topology(topo: Topology, findings: list[Finding], sections: set[str],
              placed: dict[str, str], cable_of: dict[int, str]) -> str:
    switches = [n for n in topo.nodes.values() if n.role not in ("host", "unknown")]
    speeds = sorted({c.speed_mbps for c in topo.cables if c.speed_mbps}, reverse=True)
    legend = ['<div class="legend">'] + [
        f'<span><i class="swatch" style="background:{_colour(s, speeds=speeds)}"></i>'
        f"{gbps(s)} cable</span>" for s in speeds] + [
        '<span><i class="swatch" style="background:#d00;height:6px"></i>cable with a finding'
        '</span><span><i class="swatch" style="background:#fde2e2;border:1px solid #d00;'
        'height:10px"></i>device with a finding (click: its section)</span>'
        '<span><i class="swatch" style="background:#f2f2f2;border:1px solid #446;height:10px">'
        "</i>hosts grouped per leaf</span></div>"]
    faulty = _faulty(findings)
    bad_cables = _cable_findings(topo, findings)
    out = ['<section id="topology"><h2>Topology</h2>', "".join(legend), '<div class="scroll">']
    pods = sorted({n.pod for n in switches if n.pod is not None})
    if len(switches) <= DETAIL_LIMIT:
        names = {n.name for n in topo.nodes.values()}
        out.append(_drawing(topo, names, faulty, bad_cables, sections, speeds, "topo-all",
                            placed=placed, cable_of=cable_of))
    elif len(pods) < 2:
        out.append(_grouped(topo, {n.name for n in topo.nodes.values()}, faulty, bad_cables,
                            sections, speeds, "topo-groups", placed=placed,
                            cable_of=cable_of))
    else:
        labels = _pod_labels(topo, pods)
        pods.sort(key=lambda p: _natural(labels[p]))
        out.append(_pod_overview(topo, pods, faulty, labels))
        for pod in pods:
            members = {n.name for n in topo.nodes.values()
                       if n.pod == pod and n.role not in ("host", "unknown")}
            tops = {c.b.device if c.a.device in members else c.a.device
                    for name in members for c in topo.cables_of(name)
                    if topo.role(c.b.device if c.a.device == name else c.a.device)
                    == "super-spine"}
            bad = sum(len(faulty.get(m, [])) for m in members)
            hosts = {o for m in members for c in topo.cables_of(m)
                     if topo.role(o := (c.b.device if c.a.device == m else c.a.device)) == "host"}
            out.append(
                f'<details id="{_id("pod", str(pod))}"><summary>'
                f"{escape(labels[pod].capitalize())}: "
                f"{sum(1 for m in members if topo.role(m) == 'spine')} spines, "
                f"{sum(1 for m in members if topo.role(m) == 'leaf')} leaves, {len(hosts)} "
                f"hosts{f', {bad} findings' if bad else ''}</summary>"
                + (_drawing if len(members) + len(tops) <= DETAIL_LIMIT else _grouped)(
                    topo, members | hosts | tops, faulty, bad_cables, sections, speeds,
                    _id("topo-pod", str(pod)), placed=placed, cable_of=cable_of,
                    **({"collapse": "super-spine"} if len(members) + len(tops) <= DETAIL_LIMIT
                       else {}))
                + "</details>")
    out.append("</div></section>")
    return "\n".join(out)


def _pod_labels(topo: Topology, pods: list[int]) -> dict[int, str]:
    """``pod p1-*`` when each pod's switches share a name prefix of their own (the names are
    what people know), else fablint's number, ``pod 0``."""
    names: dict[int, list[str]] = defaultdict(list)
    for node in topo.nodes.values():
        if node.pod is not None and node.role in ("leaf", "spine"):
            names[node.pod].append(node.name)
    prefixes = {}
    for pod in pods:
        common = os.path.commonprefix(names.get(pod) or [""])  # noqa: RUF071 - names
        cut = max(common.rfind(c) for c in "-_.")
        prefixes[pod] = common[:cut + 1] if cut > 0 else ""
    distinct = len(set(prefixes.values())) == len(pods) and all(prefixes.values())
    return {pod: f"pod {prefixes[pod]}*" if distinct else f"pod {pod}" for pod in pods}


def _pod_overview(topo: Topology, pods: list[int], faulty: dict[str, list[int]],
                  labels: dict[int, str]) -> str:
    """Super-spines on top, one column per pod (spines above leaves above hosts), boxes
    summarising each pod's tiers; a click opens the pod's full drawing. Rows of pods hang off
    a bus line from the super-spines drawn behind the boxes, so no line crosses a pod."""
    per_pod: dict[int, Counter[str]] = defaultdict(Counter)
    bad: dict[int, Counter[str]] = defaultdict(Counter)
    hosts: dict[int, set[str]] = defaultdict(set)
    for node in topo.nodes.values():
        if node.pod is not None:
            per_pod[node.pod][node.role] += 1
            bad[node.pod][node.role] += len(faulty.get(node.name, []))
            if node.role == "leaf":
                hosts[node.pod].update(
                    o for c in topo.cables_of(node.name)
                    if topo.role(o := c.b.device if c.a.device == node.name else c.a.device)
                    == "host")
    for pod, members in hosts.items():
        per_pod[pod]["host"] = len(members)
        bad[pod]["host"] = sum(len(faulty.get(h, [])) for h in members)
    supers = sorted((n.name for n in topo.nodes.values() if n.role == "super-spine"),
                    key=_natural)
    col, box_w, box_h, row_h = 124, 112, 40, 200
    count = -(-len(pods) // 12)  # rows of at most 12 pods, as even as can be
    per_row = -(-len(pods) // count)
    rows_ = [pods[i:i + per_row] for i in range(0, len(pods), per_row)]
    width = max(len(r) for r in rows_) * col + 40
    height = 80 + len(rows_) * row_h
    lines: list[str] = []
    boxes: list[str] = []
    sbad = sum(len(faulty.get(s, [])) for s in supers)
    if supers:
        boxes.append(f'<g class="node{" bad" if sbad else ""}"><rect x="20" y="10" '
                     f'width="{width - 40}" height="{box_h}" rx="5"/><text x="{width / 2:.0f}" '
                     f'y="34" text-anchor="middle">{len(supers)} super-spines'
                     f'{f" ({sbad} findings)" if sbad else ""}</text></g>')
        lines.append(f'<line x1="10" y1="30" x2="20" y2="30" stroke="#99a"/><line x1="10" '
                     f'y1="30" x2="10" y2="{80 + (len(rows_) - 1) * row_h - 15}" stroke="#99a"/>')
    for r, row in enumerate(rows_):
        y = 80 + r * row_h
        if supers:
            end = 20 + (len(row) - 1) * col + box_w / 2
            lines.append(f'<line x1="10" y1="{y - 15}" x2="{end}" y2="{y - 15}" '
                         'stroke="#99a"/>')
        for c, pod in enumerate(row):
            x = 20 + c * col
            counts = per_pod[pod]
            href = "#" + _id("pod", str(pod))
            mid = x + box_w / 2
            if supers:
                lines.append(f'<line x1="{mid}" y1="{y - 15}" x2="{mid}" y2="{y}" '
                             f'stroke="#99a"/>')
            lines.append(f'<line x1="{mid}" y1="{y + box_h}" x2="{mid}" y2="{y + 100}" '
                         f'stroke="#99a"/>')
            for k, (role, label) in enumerate((("spine", "spines"), ("leaf", "leaves"),
                                               ("host", "hosts"))):
                n_bad = bad[pod][role]
                cls = "node" + (" host" if role == "host" else "") + (" bad" if n_bad else "")
                boxes.append(
                    f'<a href="{href}"><g class="{cls}" data-pod="{pod}"><rect x="{x}" '
                    f'y="{y + k * 50}" width="{box_w}" height="{box_h}" rx="5"/>'
                    f'<text x="{mid}" y="{y + k * 50 + 16}" text-anchor="middle">'
                    f"{escape(labels[pod][:20])}</text>"
                    f'<text x="{mid}" y="{y + k * 50 + 31}" text-anchor="middle">'
                    f"{counts[role]} {label}</text><title>{escape(labels[pod])}: "
                    f"{counts[role]} {label}{f', {n_bad} findings' if n_bad else ''}; click to "
                    "draw the pod</title></g></a>")
    return (f'<svg id="topo-overview" width="{width}" height="{height}" font-size="11">'
            + "".join(lines) + "".join(boxes) + "</svg>")


def _host_groups(topo: Topology, names: set[str]) -> dict[str, list[str]]:
    per_host: dict[str, Counter[str]] = defaultdict(Counter)
    for cable in topo.cables:
        for h, other in ((cable.a.device, cable.b.device), (cable.b.device, cable.a.device)):
            if h in names and topo.role(h) == "host":
                per_host[h][other] += 1
    groups: dict[str, list[str]] = defaultdict(list)
    for host, leaves in sorted(per_host.items()):
        groups[leaves.most_common(1)[0][0]].append(host)
    return groups


def _drawing(topo: Topology, names: set[str], faulty: dict[str, list[int]],
             bad_cables: dict[int, list[int]], sections: set[str], speeds: list[int],
             svg_id: str, limit_hosts: bool = True,
             placed: dict[str, str] | None = None, cable_of: dict[int, str] | None = None,
             collapse: str | None = None) -> str:
    """Tiers top to bottom, hosts grouped under the leaf they hang off; cables aggregated per
    pair of boxes and coloured by speed, red (and linked to the finding) when one has a finding.
    ``collapse``: a tier drawn as one box when it has more than ``COLLAPSE`` switches (a pod's
    super-spines: every spine reaches all of them, so one box says it without a hairball)."""
    rows_: list[list[tuple[str, str, str]]] = []  # (key, label, role)
    grouped: dict[str, str] = {}
    tier_members: dict[str, list[str]] = {}

    def add(items: list[tuple[str, str, str]]) -> None:
        rows_.extend(items[i:i + ROW_LIMIT] for i in range(0, len(items), ROW_LIMIT))

    for tier in ("super-spine", "spine", "leaf", "switch"):
        nodes = sorted((n for n in names if topo.role(n) == tier), key=_natural)
        if tier == collapse and len(nodes) > COLLAPSE:
            key = f"{tier}#tier"
            add([(key, f"{len(nodes)} {_plural_role(tier)}", tier)])
            grouped.update(dict.fromkeys(nodes, key))
            tier_members[key] = nodes
        else:
            add([(n, n, tier) for n in nodes])
    groups = _host_groups(topo, names)
    host_row = []
    for leaf in sorted(groups, key=_natural):
        hosts = groups[leaf]
        if limit_hosts and len(hosts) > 1:
            key = f"{leaf}#hosts"
            host_row.append((key, f"{len(hosts)} hosts", "host"))
            grouped.update(dict.fromkeys(hosts, key))
        else:
            host_row += [(h, h, "host") for h in hosts]
    add(host_row)
    box_w, box_h, gap, row_gap, margin = 120, 34, 14, 90, 20
    width = max((len(r) * (box_w + gap) for r in rows_), default=box_w) + 2 * margin
    pos: dict[str, tuple[float, float]] = {}
    for y, row in enumerate(rows_):
        x0 = (width - (len(row) * (box_w + gap) - gap)) / 2
        for x, (key, _, _) in enumerate(row):
            pos[key] = (x0 + x * (box_w + gap), margin + y * row_gap)
    height = margin * 2 + max(len(rows_) - 1, 0) * row_gap + box_h
    out = [f'<svg id="{svg_id}" width="{width:.0f}" '
           f'height="{height:.0f}" font-size="11">']
    edges: dict[tuple[str, str], list[int]] = defaultdict(list)
    for n, cable in enumerate(topo.cables):
        a = grouped.get(cable.a.device, cable.a.device)
        b = grouped.get(cable.b.device, cable.b.device)
        if a in pos and b in pos and a != b:
            edges[(min(a, b), max(a, b))].append(n)
    lines, bad_lines = [], []
    for (a, b), members in edges.items():
        (ax, ay), (bx, by) = pos[a], pos[b]
        if ay > by:
            (ax, ay), (bx, by) = (bx, by), (ax, ay)
        cables: list[Cable] = [topo.cables[m] for m in members]
        bad = [f for m in members for f in bad_cables.get(m, [])]
        rate = Counter(c.speed_mbps for c in cables).most_common(1)[0][0]
        title = escape(f"{a.split('#')[0]} - {b.split('#')[0]}: {len(cables)} cable"
                       f"{'s' if len(cables) != 1 else ''} at {gbps(rate)}")
        line = (f'<line x1="{ax + box_w / 2:.1f}" y1="{ay + box_h:.1f}" x2="{bx + box_w / 2:.1f}" '
                f'y2="{by:.1f}"')
        if bad:
            bad_lines.append(_bad_cable(line, svg_id, members, topo, bad_cables, cable_of))
        else:
            lines.append(f'{line} stroke="{_colour(rate, speeds=speeds)}" stroke-width="1" '
                         f'stroke-opacity="{0.35 if len(edges) > 300 else 0.8}"><title>{title}'
                         "</title></line>")
    out += lines + bad_lines
    labels = {key: (label, role) for row in rows_ for key, label, role in row}
    for key, (x, y) in pos.items():
        label, role = labels[key]
        name = key.split("#")[0]
        group = "#" in key
        tier_nodes = tier_members.get(key, [])
        bad = [f for m in tier_nodes for f in faulty.get(m, [])] if tier_nodes else \
            faulty.get(name) if not group else None
        cls = "node" + (" host" if role == "host" else "") + (" bad" if bad else "")
        if placed is not None and not group:
            placed.setdefault(name, _id(svg_id, key))
        title = (f"{label}: {', '.join(tier_nodes)}" if tier_nodes else
                 label + " under " + name if group else label)
        box = (f'<g class="{cls}" id="{_id(svg_id, key)}"><rect x="{x:.1f}" y="{y:.1f}" '
               f'width="{box_w}" height="{box_h}" rx="5"/><text x="{x + box_w / 2:.1f}" '
               f'y="{y + box_h / 2 + 4:.1f}" text-anchor="middle">{escape(label[:19])}</text>'
               f"<title>{escape(title)}"
               f"{f': {len(bad)} finding(s)' if bad else ''}</title></g>")
        if name in sections and not group:
            box = f'<a href="#{_id("dev", name)}">{box}</a>'
        out.append(box)
    out.append("</svg>")
    return "".join(out)


def _grouped(topo: Topology, names: set[str], faulty: dict[str, list[int]],
             bad_cables: dict[int, list[int]], sections: set[str], speeds: list[int],
             svg_id: str, placed: dict[str, str] | None = None,
             cable_of: dict[int, str] | None = None) -> str:
    """Too many switches to draw one by one: switches that look alike (same tier, same rail,
    same number of cables down and up) are one box, their hosts another; cables aggregated per
    pair of boxes. Each box lists its members (linked to their sections) below the drawing."""
    roles = {n: topo.role(n) for n in names}
    rail: dict[str, Counter[int]] = defaultdict(Counter)
    shape: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    order = {"host": 0, "leaf": 1, "spine": 2, "super-spine": 3}
    for cable in topo.cables:
        a, b = cable.a, cable.b
        ra, rb = roles.get(a.device), roles.get(b.device)
        if ra is None or rb is None:
            continue
        for near, far, rn, rf in ((a, b, ra, rb), (b, a, rb, ra)):
            if rn == "host":
                continue
            shape[near.device][0 if order.get(rf, 9) < order.get(rn, 9) else 1] += 1
            if rf == "host":
                index = re.search(r"(\d+)$", far.interface)
                if index:
                    rail[near.device][int(index.group(1))] += 1
    group_of: dict[str, str] = {}
    members: dict[str, list[str]] = defaultdict(list)
    for name in sorted(names, key=_natural):
        role = roles[name]
        if role == "host":
            continue
        r = rail[name].most_common(1)[0][0] if rail[name] else None
        down, up = shape[name]
        key = f"{role}|{r}|{down}|{up}"
        group_of[name] = key
        members[key].append(name)
    hosts_of: dict[str, set[str]] = defaultdict(set)
    for cable in topo.cables:
        for h, s_ in ((cable.a.device, cable.b.device), (cable.b.device, cable.a.device)):
            if roles.get(h) == "host" and s_ in group_of:
                hosts_of[group_of[s_]].add(h)
    for key, hosts in hosts_of.items():
        for h in hosts:
            group_of.setdefault(h, f"{key}#hosts")
        members[f"{key}#hosts"] = sorted(hosts, key=_natural)
    tiers = ("super-spine", "spine", "leaf", "switch", "unknown")
    rows_: list[list[str]] = []
    for tier in tiers:
        keys = [k for k in members if k.split("|")[0] == tier and not k.endswith("#hosts")]
        rows_ += [keys[i:i + ROW_LIMIT] for i in range(0, len(keys), ROW_LIMIT)]
    host_keys = [k for k in members if k.endswith("#hosts")]
    rows_ += [host_keys[i:i + ROW_LIMIT] for i in range(0, len(host_keys), ROW_LIMIT)]
    box_w, box_h, gap, row_gap, margin = 132, 40, 14, 100, 20
    width = max((len(r) * (box_w + gap) for r in rows_), default=box_w) + 2 * margin
    pos: dict[str, tuple[float, float]] = {}
    for y, row in enumerate(rows_):
        x0 = (width - (len(row) * (box_w + gap) - gap)) / 2
        for x, key in enumerate(row):
            pos[key] = (x0 + x * (box_w + gap), margin + y * row_gap)
    height = margin * 2 + max(len(rows_) - 1, 0) * row_gap + box_h
    edges: dict[tuple[str, str], list[int]] = defaultdict(list)
    for n, cable in enumerate(topo.cables):
        a, b = group_of.get(cable.a.device), group_of.get(cable.b.device)
        if a and b and a != b:
            edges[(min(a, b), max(a, b))].append(n)
    gid = {key: _id(svg_id, f"g{n}") for n, key in enumerate(members)}
    out = [f'<svg id="{svg_id}" width="{width:.0f}" height="{height:.0f}" font-size="11">']
    bad_lines = []
    for (a, b), cables in edges.items():
        (ax, ay), (bx, by) = pos[a], pos[b]
        if ay > by:
            (ax, ay), (bx, by) = (bx, by), (ax, ay)
        rate = Counter(topo.cables[m].speed_mbps for m in cables).most_common(1)[0][0]
        bad = [f for m in cables for f in bad_cables.get(m, [])]
        line = (f'<line x1="{ax + box_w / 2:.1f}" y1="{ay + box_h:.1f}" '
                f'x2="{bx + box_w / 2:.1f}" y2="{by:.1f}"')
        title = f"{len(cables)} cables at {gbps(rate)}"
        if bad:
            bad_lines.append(_bad_cable(line, svg_id, cables, topo, bad_cables, cable_of))
        else:
            width_ = min(1 + len(cables) / 64, 6)
            out.append(f'{line} stroke="{_colour(rate, speeds=speeds)}" '
                       f'stroke-width="{width_:.1f}" stroke-opacity="0.6"><title>{title}'
                       "</title></line>")
    out += bad_lines
    lists = []
    for key, (x, y) in pos.items():
        names_ = members[key]
        group = key.endswith("#hosts")
        role, r = key.split("|")[0], key.split("|")[1]
        if group:
            label = f"{len(names_)} hosts"
        else:
            label = f"{len(names_)} {role if len(names_) == 1 else _plural_role(role)}"
        sub = (f"rail {r}" if r != "None" and not group and role == "leaf" else
               f"{names_[0]} …" if len(names_) > 1 else names_[0])
        bad = sum(len(faulty.get(m, [])) for m in names_)
        cls = "node" + (" host" if group else "") + (" bad" if bad else "")
        target = gid[key.removesuffix("#hosts")]
        out.append(f'<a href="#{target}"><g class="{cls}"><rect x="{x:.1f}" y="{y:.1f}" '
                   f'width="{box_w}" height="{box_h}" rx="5"/><text x="{x + box_w / 2:.1f}" '
                   f'y="{y + 16:.1f}" text-anchor="middle">{escape(label)}</text>'
                   f'<text x="{x + box_w / 2:.1f}" y="{y + 31:.1f}" text-anchor="middle" '
                   f'font-size="10">{escape(sub[:22])}</text><title>{escape(label)}'
                   f"{f': {bad} finding(s)' if bad else ''}</title></g></a>")
        if not group:
            if placed is not None:
                for m in names_:
                    placed.setdefault(m, gid[key])
            items = ", ".join(
                (f'<a href="#{_id("dev", m)}">{escape(m)}</a>' if m in sections else escape(m))
                + (f' <span class="no">({len(faulty[m])})</span>' if faulty.get(m) else "")
                for m in names_)
            lists.append(f'<details id="{gid[key]}"><summary>{escape(label)} ({escape(sub)})'
                         f"{f', {bad} findings' if bad else ''}</summary><p>{items}</p>"
                         "</details>")
    out.append("</svg>")
    return "".join(out) + "".join(lists)


def _bad_cable(line: str, svg_id: str, members: list[int], topo: Topology,
               bad_cables: dict[int, list[int]], cable_of: dict[int, str] | None) -> str:
    """A red line for cables with findings: a link to the first finding, the others listed in
    ``data-findings`` (the script marks them all), a wide invisible twin to make it easy to
    hit, and an id the findings link back to."""
    bad = [m for m in members if m in bad_cables]
    found = list(dict.fromkeys(f for m in bad for f in bad_cables[m]))
    ident = _id(svg_id, f"c{bad[0]}")
    if cable_of is not None:
        for f in found:
            cable_of.setdefault(f, ident)
    ends = "; ".join(f"{c.a.device} {c.a.interface} - {c.b.device} {c.b.interface}"
                     for c in (topo.cables[m] for m in bad))
    rows = " ".join(f"f-{f}" for f in found)
    return (f'<a href="#f-{found[0]}"><g class="cable-link" id="{ident}" data-findings="{rows}">'
            f'{line} class="hit"/>{line} class="cable bad" data-cable="{escape(ends)}">'
            f"<title>{escape(ends)}: {len(found)} finding{'s' if len(found) != 1 else ''}"
            "</title></line></g></a>")


def _plural_role(role: str) -> str:
    return "leaves" if role == "leaf" else role + ("es" if role.endswith("switch") else "s")


# -- findings ----------------------------------------------------------------------------------

def _options(name: str, label: str, values: Iterable[str]) -> str:
    opts = "".join(f'<option value="{escape(v)}">{escape(v)}</option>'
                   for v in sorted(set(values), key=_natural))
    return (f'<label>{escape(label)}<select name="{name}"><option value="">all</option>{opts}'
            "</select></label>")


def _findings(numbered: list[tuple[int, Finding]], sections: set[str],
              placed: dict[str, str], cable_of: dict[int, str]) -> str:
    fs = [f for _, f in numbered]
    out = ['<section id="findings-section"><h2>Findings</h2><div class="filters">',
           _options("severity", "Severity", (f.severity.value for f in fs)),
           _options("family", "Family", (f.category for f in fs)),
           _options("device", "Device", (f.device or "-" for f in fs)),
           _options("file", "File", (f.file or "-" for f in fs)),
           f'</div><p><span id="shown-count">{len(fs)}</span> of {len(fs)} findings shown</p>',
           '<table id="findings"><thead><tr><th class="nw">Severity</th><th>Rule</th>'
           "<th>Device</th><th>Where</th><th>Message, why and fix</th></tr></thead><tbody>"]
    whys: dict[str, str] = {}
    for n, f in numbered:
        why = whys.setdefault(f.rule, _why(f.rule))
        where = f"{f.file or '-'}:{f.line}" if f.line else (f.file or "-")
        device = escape(f.device or "-")
        if f.device and f.device in sections:
            device = f'<a href="#{_id("dev", f.device)}">{device}</a>'
        if n in cable_of:
            device += (f' <a class="muted" href="#{cable_of[n]}" title="the red cable in the '
                       'drawing">cable</a>')
        elif f.device in placed:
            device += (f' <a class="muted" href="#{placed[f.device]}" title="in the drawing">'
                       "drawing</a>")
        fix = f"<pre>{escape(f.fix)}</pre>" if f.fix else ""
        out.append(
            f'<tr id="f-{n}" data-severity="{f.severity.value}" data-family="{escape(f.category)}"'
            f' data-device="{escape(f.device or "-")}" data-file="{escape(f.file or "-")}">'
            f'<td><span class="sev sev-{f.severity.value}">{f.severity.value}</span></td>'
            f'<td class="nw">{escape(f.rule)}<div class="muted">{escape(f.category)}</div></td>'

            f"<td>{device}</td><td><code>{escape(where)}</code></td>"
            f"<td>{escape(f.message)}"
            + (f"<details><summary>why</summary>{escape(why)}</details>" if why else "")
            + (f"<details open='open'><summary>fix</summary>{fix}</details>" if fix else "")
            + "</td></tr>")
    out.append("</tbody></table></section>")
    return "\n".join(out)


# -- devices -----------------------------------------------------------------------------------

def _devices(devices: dict[str, DeviceDigest], by_device: dict[str, list[int]],
             findings: list[Finding], topo: Topology | None, placed: dict[str, str]) -> str:
    names = sorted(set(devices) | set(by_device), key=_natural)
    neighbours: dict[tuple[str, str], str] = {}
    if topo is not None:
        for c in topo.cables:
            neighbours[(c.a.device, c.a.interface)] = f"{c.b.device} {c.b.interface}"
            neighbours[(c.b.device, c.b.interface)] = f"{c.a.device} {c.a.interface}"
    out = ['<section id="devices"><h2>Devices</h2>',
           f'<p class="muted">{len(names)} devices; a device with findings opens from the '
           "drawing and the findings table.</p>"]
    for name in names:
        d = devices.get(name)
        mine = by_device.get(name, [])
        role = topo.role(name) if topo is not None and name in topo.nodes else None
        head = escape(name) + (f" <span class=\"muted\">{escape(d.vendor)}"
                               f"{' ' + escape(d.platform) if d and d.platform else ''}"
                               f"{' · ' + role if role else ''}</span>" if d else "")
        badge = (f' <span class="sev sev-{findings[mine[0]].severity.value}">{len(mine)} '
                 f"finding{'s' if len(mine) != 1 else ''}</span>") if mine else ""
        body = []
        if name in placed:
            body.append(f'<p><a href="#{placed[name]}">show in the drawing</a></p>')
        if mine:
            body.append("<p>" + ", ".join(
                f'<a href="#f-{n}">{escape(findings[n].rule)}</a>' for n in mine) +
                f' · <a href="#findings-section" data-filter-device="{escape(name)}">show only '
                "these in the table</a></p>")
        if d is not None:
            body.append(_device_body(d, neighbours))
        out.append(f'<details class="devsec" id="{_id("dev", name)}"><summary>{head}{badge}'
                   f"</summary>{''.join(body)}</details>")
    out.append("</section>")
    return "\n".join(out)


_QOS_HTML: dict[tuple[object, object], str] = {}
"""Rendered chain and queue tables by their content: a fabric's switches share a few."""


def _device_body(d: DeviceDigest, neighbours: dict[tuple[str, str], str]) -> str:
    parts = [f'<p class="muted">{escape(", ".join(d.files))}</p>']
    if d.ports:
        parts.append("<h3>Ports</h3><table><thead><tr><th>Port</th><th>Speed</th><th>MTU</th>"
                     "<th>State</th><th>Mode</th><th>PFC</th><th>Neighbour</th>"
                     "<th>Description</th></tr></thead><tbody>")
        pfc = {p: g.pfc_priorities for g in d.qos_groups for p in g.ports}
        for p in d.ports:
            parts.append(
                f"<tr><td>{_esc(p.name)}</td><td>{gbps(p.speed_mbps) if p.speed_mbps else '-'}"
                f"</td><td>{p.mtu or '-'}</td><td>{'up' if p.admin_up else 'shut'}</td>"
                f"<td>{'routed' if p.routed else p.kind if p.kind != 'physical' else 'switched'}"
                f"{'' if p.fabric else ' (not RoCE)'}</td>"
                f"<td>{','.join(map(str, pfc.get(p.name, ()))) or '-'}</td>"
                f"<td>{_esc(neighbours.get((d.name, p.name), ''))}</td>"
                f"<td>{_esc(p.description or '')}</td></tr>")
        parts.append("</tbody></table>")
    for g in d.qos_groups:
        ports = ", ".join(g.ports[:8]) + (f", … {len(g.ports) - 8} more" if len(g.ports) > 8
                                           else "")
        parts.append(f"<h3>QoS of {len(g.ports)} port{'s' if len(g.ports) != 1 else ''} "
                     f'<span class="muted">({escape(ports)})</span></h3>'
                     f"<p>trust {escape(g.trust or 'not set')}; PFC "
                     f"{','.join(map(str, g.pfc_priorities)) or 'off'}; watchdog "
                     f"{'on' if g.watchdog else 'off'}"
                     f"{'; 802.3x pause on' if g.link_pause else ''}</p>")
        cached = _QOS_HTML.get((g.chain, g.queues))
        if cached is not None:
            parts.append(cached)
            continue
        start = len(parts)
        parts.append('<table class="chain"><thead>'
                     "<tr><th>DSCP</th><th>Traffic class</th><th>PFC priority</th>"
                     "<th>Queue</th><th></th></tr></thead><tbody>")
        parts += [f"<tr><td>{escape(s.dscps)}</td><td>{s.traffic_class}</td><td>{s.priority}"
                  f"</td><td>{s.queue}</td><td class=\"{'yes' if s.lossless else 'muted'}\">"
                  f"{'lossless' if s.lossless else 'lossy'}</td></tr>" for s in g.chain]
        parts.append("</tbody></table>")
        if g.queues:
            parts.append("<table><thead><tr><th>Queue</th><th>Scheduling</th><th>Lossless "
                         "priorities</th><th>ECN (min - max, probability)</th><th>WRED drop"
                         "</th></tr></thead><tbody>")
            for q in g.queues:
                ecn = (f"{q.ecn[0] or '?'} - {q.ecn[1] or '?'}"
                       f"{f', {q.ecn[2]} %' if q.ecn[2] is not None else ''}"
                       if q.ecn else ("<span class=\"no\">none</span>" if q.lossless_priorities
                                      else "-"))
                sched = escape(q.scheduling or "-") + (f" {q.bandwidth_percent} %"
                                                       if q.bandwidth_percent else "")
                parts.append(f"<tr><td>{q.id}</td><td>{sched}</td>"
                             f"<td>{','.join(map(str, q.lossless_priorities)) or '-'}</td>"
                             f"<td>{ecn if q.ecn is None else escape(ecn)}</td>"
                             f"<td>{'yes' if q.wred_drops else '-'}</td></tr>")
            parts.append("</tbody></table>")
        _QOS_HTML[(g.chain, g.queues)] = "".join(parts[start:])
    if d.nics:
        parts.append("<h3>NICs</h3><table><thead><tr><th>NIC</th><th>RDMA</th><th>MTU</th>"
                     "<th>Trust</th><th>PFC</th><th>RoCE DSCP</th><th>DCQCN NP</th>"
                     "<th>DCQCN RP</th></tr></thead><tbody>")
        for nic in d.nics:
            def fmt(v: tuple[int, ...] | None) -> str:
                return "not reported" if v is None else ",".join(map(str, v)) or "off"
            parts.append(f"<tr><td>{escape(nic.name)}</td><td>{escape(nic.rdma_device or '-')}"
                         f"</td><td>{nic.mtu or '-'}</td><td>{escape(nic.trust or '-')}</td>"
                         f"<td>{fmt(nic.pfc_priorities)}</td><td>{nic.roce_dscp or '-'}</td>"
                         f"<td>{fmt(nic.np_priorities)}</td><td>{fmt(nic.rp_priorities)}</td>"
                         "</tr>")
        parts.append("</tbody></table>")
    return "".join(parts)
