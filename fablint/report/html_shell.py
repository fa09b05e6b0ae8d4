"""The page every HTML output shares (``fablint report``, ``fablint drift --format html``): the
style sheet, the dark header with its links, the sections' look, and the rules that keep the
file self-contained (inline CSS and script, no external URL) and well formed (XHTML-style void
elements, the script in a CDATA section)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape

from fablint import __version__

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;
background:#f6f7f9;font-size:14px}
header{background:#1d2330;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header .sub{opacity:.8;font-size:13px}nav a{color:#cfe0ff;margin-right:14px}
main{padding:8px 24px 40px}section{background:#fff;border:1px solid #dde1e7;border-radius:6px;
margin:16px 0;padding:12px 16px}h2{font-size:17px;margin:4px 0 10px}h3{font-size:15px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;
padding:4px 8px;border-bottom:1px solid #eceef2;overflow-wrap:break-word}
th{background:#f0f2f5;font-weight:600}th.fig{min-width:11em}td.nw,th.nw{white-space:nowrap}
td code,td.src{overflow-wrap:anywhere}
td.src{color:#5b6575;font-size:12px;max-width:520px}td.num{text-align:right}
.sev{font-weight:600;border-radius:3px;padding:1px 6px;font-size:12px}
.sev-error{background:#fde2e2;color:#a00}.sev-warning{background:#fff1d6;color:#8a5a00}
.sev-info{background:#e3edff;color:#1d4ea8}pre{background:#f6f8fa;padding:6px;margin:4px 0;
overflow:auto;font-size:12px;white-space:pre-wrap}
.filters{display:flex;gap:12px;flex-wrap:wrap;margin-bottom:8px}
.filters label{font-size:12px;color:#5b6575}.filters select{display:block;min-width:140px}
tr.hidden{display:none}.yes{color:#176b2c;font-weight:600}.no{color:#a00;font-weight:600}
tr.picked td{background:#fff7d6}
svg text{font-family:system-ui,sans-serif}.node rect{fill:#eef4ff;stroke:#446}
.node.host rect{fill:#f2f2f2}.node.bad rect{fill:#fde2e2;stroke:#d00;stroke-width:2}
.cable.bad{stroke:#d00;stroke-width:3}.cable-link{cursor:pointer}
.cable-link .hit{stroke:transparent;stroke-width:12}details summary{cursor:pointer}
.legend span{display:inline-block;margin-right:14px;font-size:12px}
.swatch{display:inline-block;width:18px;height:4px;vertical-align:middle;margin-right:4px}
.scroll{overflow-x:auto}.muted{color:#5b6575}.devsec{border-top:1px solid #eceef2;padding:6px 0}
:target{outline:3px solid #f5b400}
td.intended{background:#e3f6e8;color:#0d5a22}td.live{background:#fde2e2;color:#7a0000}
td.intended,td.live{font-family:ui-monospace,monospace;font-size:13px}
table.drift td:nth-child(3),table.drift td:nth-child(4){width:24%}
"""


def page(title: str, subtitle: str, nav: Iterable[tuple[str, str]], body: Iterable[str],
         script: str = "") -> str:
    """One self-contained HTML document: ``subtitle`` is HTML (the caller escapes), ``nav``
    pairs of (section id, label), ``body`` the sections' HTML, ``script`` inline JavaScript."""
    links = "".join(f'<a href="#{escape(ident)}">{escape(label)}</a>' for ident, label in nav)
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8"/>',
        f"<title>{escape(title)}</title>",
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
        f"<style>{CSS}</style>", "</head>", "<body>",
        f'<header><h1>{escape(title)}</h1><div class="sub">fablint {escape(__version__)} · '
        f"{subtitle}</div><nav>{links}</nav></header>", "<main>", *body, "</main>",
        f"<script>//<![CDATA[{script}//]]></script>" if script else "", "</body>", "</html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


def html_id(kind: str, name: str) -> str:
    """An HTML id for a device, pod or cable: letters, digits, ``-`` and ``_`` only, one name
    to one id."""
    return f"{kind}-" + re.sub(r"[^A-Za-z0-9_-]", lambda m: f"_{ord(m.group()):x}", name)
