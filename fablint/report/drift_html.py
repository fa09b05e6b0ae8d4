"""``fablint drift --format html``: the differences side by side, intended beside live, in the
HTML report's page (fablint/report/html_shell.py), one section per device, every value with
the file and line it comes from on each side."""

from __future__ import annotations

from html import escape

from fablint.drift import DeviceDrift, DriftReport
from fablint.report.drift import _objects, fact_label, fact_value, grouped, summary_line
from fablint.report.html_shell import html_id as _id
from fablint.report.html_shell import page


def render_html(report: DriftReport, title: str = "Fabric drift") -> str:
    """The drift report as one self-contained HTML document."""
    from rich.text import Text

    summary = Text.from_markup(summary_line(report)).plain
    body = [f'<section id="summary"><h2>Summary</h2><p id="drift-summary" class="'
            f'{"no" if report.drifted or report.errors else "yes"}">{escape(summary)}</p>'
            f'<p class="muted">Intended: <code>{escape(", ".join(report.intended))}</code>; '
            f'live: <code>{escape(", ".join(report.live))}</code></p>']
    body.append(_device_table(report))
    body.append("</section>")
    if report.errors:
        rows = "".join(
            f"<tr><td>{escape(e.side)}</td><td><code>"
            f"{escape(_where(e.problem.file, e.problem.line))}</code></td>"
            f"<td>{escape(e.problem.message)}</td></tr>" for e in report.errors)
        body.append('<section id="errors"><h2>Inputs that could not be read</h2><table><thead>'
                    "<tr><th>Side</th><th>File</th><th>Problem</th></tr></thead>"
                    f"<tbody>{rows}</tbody></table></section>")
    drifted = [d for d in report.devices if d.state == "drift"]
    if drifted:
        body.append('<section id="differences"><h2>Differences</h2>')
        body += [_device(d, report.udp_port) for d in drifted]
        body.append("</section>")
    nav = [("summary", "Summary")] + ([("errors", "Unreadable inputs")] if report.errors
                                      else []) + ([("differences", "Differences")]
                                                  if drifted else [])
    subtitle = (f'drift · <span id="drift-devices">{len(report.drifted)}</span> of '
                f"{len(report.devices)} devices differ")
    return page(title, subtitle, nav, body)


def _where(file: str | None, line: int | None) -> str:
    return f"{file}:{line}" if file and line else file or ""


def _device_table(report: DriftReport) -> str:
    """Every device, its state and a link to its differences."""
    states = {"drift": "differs", "same": "same", "only-intended": "only in intended",
              "only-live": "only in live"}
    rows = []
    for d in report.devices:
        name = escape(d.device)
        if d.state == "drift":
            n = len(grouped(d.differences))
            name = f'<a href="#{_id("drift", d.device)}">{name}</a>'
            state = f'<span class="no">{n} change{"s" if n != 1 else ""}</span>'
        elif d.state == "same":
            state = '<span class="yes">same</span>'
        else:
            state = f'<span class="no">{states[d.state]}</span>'
        files = d.intended_files if d.state != "only-live" else d.live_files
        rows.append(f'<tr data-state="{d.state}"><td>{name}</td><td>{escape(d.vendor or "-")}'
                    f"</td><td>{state}</td><td class=\"src\">{escape(', '.join(files))}"
                    + (f"<br/>{escape(', '.join(d.live_files))}" if d.state == "drift" else "")
                    + "</td></tr>")
    return ('<table id="drift-devices-table"><thead><tr><th>Device</th><th>Vendor</th>'
            "<th>State</th><th>Files</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table>")


def _device(d: DeviceDrift, udp_port: int) -> str:
    """One device's differences: where, what, intended beside live, and both sources."""
    rows = []
    for objects, f in grouped(d.differences):
        where = escape(objects[0] if len(objects) == 1 else f"{len(objects)} ports")
        if len(objects) > 1:
            where += f'<div class="muted">{escape(_objects(objects))}</div>'
        rows.append(
            f'<tr data-fact="{escape(f.fact)}"><td>{where}</td>'
            f"<td>{escape(fact_label(f.fact, udp_port))}</td>"
            f'<td class="intended">{escape(fact_value(f.fact, f.intended))}</td>'
            f'<td class="live">{escape(fact_value(f.fact, f.live))}</td>'
            f'<td class="src">{escape(str(f.intended_src or ""))}<br/>'
            f"{escape(str(f.live_src or ''))}</td></tr>")
    vendor = f' <span class="muted">{escape(d.vendor)}</span>' if d.vendor else ""
    return (f'<div class="devsec" id="{_id("drift", d.device)}"><h3>{escape(d.device)}{vendor}'
            "</h3><table class=\"drift\"><thead><tr><th>Where</th><th>Fact</th><th>Intended</th>"
            "<th>Live</th><th>Intended / live source</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table></div>")
