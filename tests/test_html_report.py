"""``fablint report`` and ``fablint drift --format html``: self-contained HTML files, valid under
the HTML5 parsing rules (html5lib, strict) and well formed (balanced tags, unique ids, every link
inside the file, no external URL), then used in headless Chromium (Debian's ``chromium``;
skipped with the reason when it is not installed) through the DevTools protocol
(tests/chromium.py): real mouse clicks and key presses, the result read back from the rendered
DOM. Screenshots of the demo, of a generated 2,192-node InfiniBand fabric and of a drift report
are written to ``bench/out/screenshots/`` (gitignored; ``FABLINT_SCREENSHOTS`` names another
folder) for people to look at."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from typer.testing import CliRunner

from fablint.cli import app
from fablint.testing_fabrics import ThreeTier
from tests.chromium import CHROMIUM, Browser
from tests.conftest import FIXTURES, REPO

DEMO = FIXTURES / "demo"
DRIFT = FIXTURES / "drift"
SHOTS = Path(os.environ.get("FABLINT_SCREENSHOTS") or REPO / "bench" / "out" / "screenshots")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium not installed (Debian: apt-get install chromium)")
BIG = ThreeTier(pods=16, rails=8, spines=8, supers=16, servers=15, narrow=3)
"""2,192 IB nodes: 16 pods of 8 rail leaves and 8 spines, 16 super-spines, 240 servers x 8
NICs; three leaf-spine cables trained at 1x."""


def _report(tmp_path: Path, *paths: Path, name: str = "fabric.html") -> tuple[Path, str]:
    out = tmp_path / name
    result = CliRunner().invoke(app, ["report", *map(str, paths), "--output", str(out)])
    assert result.exit_code in (0, 1), result.output
    return out, out.read_text(encoding="utf-8")


def _findings(paths: list[Path]) -> list[dict[str, object]]:
    result = CliRunner().invoke(app, ["lint", *map(str, paths), "--format", "json"])
    return json.loads(result.output)["findings"]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The generated fabric's dump and its report."""
    folder = tmp_path_factory.mktemp("big")
    dump = folder / "fabric.topo"
    dump.write_text(BIG.ibnetdiscover())
    out, page = _report(folder, dump)
    return dump, out, page


# -- validity ----------------------------------------------------------------------------------

class _Collect(HTMLParser):
    """Every start tag with its attributes; fails on a tag left open or closed out of order."""

    VOID = {"meta", "br", "img", "input", "link", "hr", "col", "wbr"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()


def check_html(page: str) -> None:
    """Valid HTML5 (html5lib's strict parser raises on any parse error), well formed as XML
    after the doctype, balanced, unique ids, links only to ids of the page, nothing loaded from
    elsewhere and no external URL anywhere."""
    html5lib = pytest.importorskip("html5lib", reason="html5lib (a dev extra) not installed")
    html5lib.HTMLParser(strict=True).parse(page)
    assert page.startswith("<!DOCTYPE html>\n")
    ET.fromstring(page.split("\n", 1)[1])
    parser = _Collect()
    parser.feed(page)
    parser.close()
    assert parser.stack == [], f"left open: {parser.stack}"
    ids = [a["id"] for _, a in parser.tags if a.get("id")]
    assert len(ids) == len(set(ids)), "duplicate ids"
    known = set(ids)
    for tag, attrs in parser.tags:
        for key in ("href", "src", "action", "xlink:href"):
            value = attrs.get(key)
            if value is None:
                continue
            assert value.startswith("#"), f"<{tag} {key}={value!r}> leaves the file"
            assert value[1:] in known, f"<{tag} {key}={value!r}> points at nothing"
        assert tag not in ("link", "img", "iframe", "object", "embed"), tag
    assert not re.search(r"(?:https?:|ftp:)?//[\w.-]+\.[a-z]{2,}", page, re.I), \
        "an external URL"
    assert "@import" not in page and "url(" not in page


@pytest.mark.parametrize("broken", [
    "<p><b>bold</p>",  # misnested
    '<p id="x">a</p><p id="x">b</p>',  # duplicate id
    '<a href="#nowhere">a</a>',  # a link to nothing
    '<svg><image href="https://example.com/a.png"/></svg>',  # fetched from elsewhere
    '<p style="background:url(x.png)">a</p>',
])
def test_the_html_check_catches_what_it_is_for(broken: str) -> None:
    page = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/><title>t</title>'
            f"</head><body>{broken}</body></html>\n")
    with pytest.raises(Exception):  # noqa: B017 - html5lib's ParseError or our assertions
        check_html(page)


def test_outputs_are_valid_and_self_contained(tmp_path: Path, big: tuple[Path, Path, str]
                                              ) -> None:
    check_html(_report(tmp_path, DEMO)[1])
    check_html(big[2])
    check_html(_report(tmp_path, DRIFT / "intended", name="nocabling.html")[1])
    drift = tmp_path / "drift.html"
    CliRunner().invoke(app, ["drift", str(DRIFT / "intended"), str(DRIFT / "live"),
                             "--format", "html", "--output", str(drift)])
    check_html(drift.read_text(encoding="utf-8"))


# -- content -----------------------------------------------------------------------------------

def test_report_carries_every_finding_with_its_why_and_fix(tmp_path: Path) -> None:
    _, page = _report(tmp_path, DEMO)
    findings = _findings([DEMO])
    rows = re.findall(r'<tr id="f-\d+" data-severity="(\w+)" data-family="([\w-]+)" '
                      r'data-device="([^"]*)" data-file="([^"]*)">', page)
    assert sorted(rows) == sorted((f["severity"], f["category"], f["device"], f["file"])
                                  for f in findings)
    assert f'<span id="finding-total">{len(findings)}</span>' in page
    assert "why</summary>" in page
    assert page.count("<summary>fix</summary>") == sum(1 for f in findings if f["fix"])


def test_large_fabric_is_drawn_per_pod(big: tuple[Path, Path, str]) -> None:
    _, _, page = big
    assert 'id="topo-overview"' in page
    assert len(re.findall(r'<details id="pod-\d+">', page)) == 16
    assert "3-tier fat tree, 16 pods, rail-optimised" in page
    # pods are named by their switches' shared prefix, in natural order
    # in a pod's drawing the 16 super-spines are one box, cabled to each of the pod's spines
    assert page.count(">16 super-spines</text>") == 1 + 16  # the overview and each pod
    assert len(re.findall(r'<g class="node" id="topo-pod-0-super-spine_23tier">', page)) == 1
    summaries = re.findall(r'<details id="pod-\d+"><summary>Pod (p\d+)-\*: 8 spines, 8 leaves, '
                           r"15 hosts", page)
    assert summaries == [f"p{n}" for n in range(1, 17)]


def test_link_widths_per_tier_show_the_degraded_cables(big: tuple[Path, Path, str]) -> None:
    dump, _, page = big
    bars = re.findall(r'<g class="rate( degraded)?" data-tiers="([^"]*)" data-label="([^"]*)" '
                      r'data-cables="(\d+)">', page)
    assert [(t, label, int(n), bool(d)) for d, t, label, n in bars] == [
        ("host-leaf", "4x NDR (400G)", 1920, False),
        ("leaf-spine", "4x NDR (400G)", 1024 - 3, False),
        ("leaf-spine", "1x NDR (100G)", 3, True),
        ("spine-super-spine", "4x NDR (400G)", 2048, False),
    ]
    assert "3 · degraded: most leaf-spine cables run 4x NDR" in page
    # the same three cables are IB001's, each drawn red in its pod
    ib001 = [f for f in _findings([dump]) if f["rule"] == "IB001"]
    assert len(ib001) == 3
    assert len(re.findall(r'class="cable bad" data-cable="p1-leaf1 \d+ - p1-spine\d ', page)) == 3


def test_large_single_pod_groups_switches_that_look_alike(tmp_path: Path) -> None:
    dump = tmp_path / "fabric.topo"
    dump.write_text(ThreeTier(pods=1, rails=4, spines=62, supers=2, servers=2).ibnetdiscover())
    _, page = _report(tmp_path, dump)
    assert 'id="topo-groups"' in page
    assert ">62 spines<" in page and ">2 super-spines<" in page
    assert re.findall(r">1 leaf</text><text[^>]*>rail (\d)<", page) == ["0", "1", "2", "3"]


def test_report_from_a_collect_snapshot(tmp_path: Path) -> None:
    snapshot = DRIFT / "live"  # fablint collect's layout, with its manifest
    assert json.loads((snapshot / "manifest.json").read_text())["kind"] == "fablint-snapshot"
    _, page = _report(tmp_path, snapshot)
    for device in ("leaf1", "leaf2", "leaf3", "spine1"):
        assert f'<details class="devsec" id="dev-{device}">' in page
    assert "manifest.json" not in page  # the manifest is read for names, not linted as a file
    assert re.search(r'<tr id="ds-switches-per-tier"><th class="fig">[^<]*</th>'
                     r"<td>1 spine, 3 leaves<", page)


def test_report_without_cabling_says_what_is_not_determined(tmp_path: Path) -> None:
    _, page = _report(tmp_path, DRIFT / "intended")
    cell = re.search(r'<tr id="ds-non-blocking"><th class="fig">[^<]*</th><td>([^<]*)<', page)
    assert cell and cell.group(1).startswith("not determined: no cabling in the inputs")
    assert 'id="topology"' not in page and 'href="#topology"' not in page
    assert re.search(r'<tr id="ds-pfc"><th class="fig">[^<]*</th><td>priority 3 on 16 of 16 '
                     r"fabric ports<", page)


def test_output_follows_the_umask_and_stays_in_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    old = os.umask(0o027)
    try:
        out, _ = _report(folder, DEMO)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["fabric.html", "out"]
    out.chmod(0o600)  # a report rewritten keeps the mode it was given
    _report(folder, DEMO)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert [p.name for p in folder.iterdir()] == ["fabric.html"]


def test_drift_html_shows_both_sides(tmp_path: Path) -> None:
    out = tmp_path / "drift.html"
    result = CliRunner().invoke(app, ["drift", str(DRIFT / "intended"), str(DRIFT / "live"),
                                      "--format", "html", "--output", str(out)])
    assert result.exit_code == 1, result.output
    page = out.read_text(encoding="utf-8")
    doc = json.loads(CliRunner().invoke(app, ["drift", str(DRIFT / "intended"),
                                              str(DRIFT / "live"), "--format", "json"]).output)
    rows = re.findall(r'<tr data-fact="([^"]+)"><td>(.*?)</td><td>[^<]*</td>'
                      r'<td class="intended">([^<]*)</td><td class="live">([^<]*)</td>', page)
    assert ("mtu", "Ethernet2", "9214", "1500") in rows
    assert ("pfc", "Ethernet1/3", "on", "off") in rows
    ecn = next(r for r in rows if r[0] == "priority[3].ecn")
    assert ecn[1].startswith("4 ports") and ecn[2:] == ("min 150 KiB, max 1500 KiB, 100 %",
                                                        "min 300 KiB, max 1500 KiB, 100 %")
    grouped = sum(len({(d["fact"], json.dumps(d["intended"]), json.dumps(d["live"]))
                       for d in dev["differences"]}) for dev in doc["devices"])
    assert len(rows) == grouped == 6
    for device, state in (("leaf9", "only-intended"), ("spine1", "only-live")):
        assert re.search(rf'<tr data-state="{state}"><td>{device}</td>', page)
    assert 'id="drift-devices">5</span> of 5 devices differ' in page
    # the same page as the report: its style sheet and header
    from fablint.report.html_shell import CSS
    assert CSS in page and "<header><h1>Fabric drift</h1>" in page


# -- in the browser ----------------------------------------------------------------------------

@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.skip("headless Chromium not installed (Debian: apt-get install chromium)")
    with Browser(tmp_path / "chromium-profile", height=1000) as b:
        yield b


VISIBLE_ROWS = ("Array.from(document.querySelectorAll('#findings tbody tr'))"
                ".filter(function(r){return r.offsetParent!==null;}).map(function(r){"
                "return [r.id,r.dataset.severity,r.dataset.family,r.dataset.device,"
                "r.dataset.file];})")
SHOWN = "Number(document.getElementById('shown-count').textContent)"
IN_VIEW = ("(function(el){var r=el.getBoundingClientRect();return r.height>0&&r.top>=-2&&"
           "r.top<window.innerHeight-20;})(document.getElementById({}))")
"""The element is shown in the window (its top in it: a long row may end below)."""


def _choose(b: Browser, name: str, value: str) -> None:
    """Pick ``value`` in a filter as a person does: click the list, arrow down, Enter."""
    options = b.js(f"Array.from(document.querySelector('select[name={name}]').options)"
                   ".map(function(o){return o.value;})")
    current = b.js(f"document.querySelector('select[name={name}]').selectedIndex")
    b.click(f"select[name={name}]")
    target = options.index(value)
    for _ in range(abs(target - current)):
        b.key("ArrowDown" if target > current else "ArrowUp", 40 if target > current else 38)
    b.key("Enter", 13)
    assert b.wait_for(f"document.querySelector('select[name={name}]').value==={value!r}")


@needs_chromium
@pytest.mark.parametrize("fabric", ["demo", "2000"])
def test_datasheet_matches_fablint_topo_in_the_browser(tmp_path: Path, browser: Browser,
                                                       big: tuple[Path, Path, str],
                                                       fabric: str) -> None:
    source, out = (DEMO, _report(tmp_path, DEMO)[0]) if fabric == "demo" else big[:2]
    browser.open(out.as_uri())
    shown = browser.js("Array.from(document.querySelectorAll('#datasheet tbody tr')).map("
                       "function(r){return [r.cells[0].innerText,r.cells[1].innerText];})")
    markdown = CliRunner().invoke(app, ["topo", str(source), "--format", "markdown"]).output
    datasheet = markdown.split("\n## ")[0]  # the per-leaf table after it is the plot's
    table = [line[2:].split(" | ")[:2] for line in datasheet.splitlines()
             if line.startswith("| ") and not line.startswith("| Figure")]
    assert shown == table and len(shown) >= 11
    findings = _findings([source])
    assert browser.js("Number(document.getElementById('finding-total').textContent)") == \
        len(findings) == browser.js(SHOWN) == len(browser.js(VISIBLE_ROWS))
    assert browser.js("document.querySelector('#ds-non-blocking td').className") == (
        "yes" if fabric == "demo" else "no")
    # the plot's bars: one per leaf, each with the ratio fablint topo gives that leaf
    bars = dict(browser.js(
        "Array.from(document.querySelectorAll('#plot-oversubscription .bar')).map(function(b)"
        "{return [b.dataset.leaf,b.querySelector('title').textContent];})"))
    leaves = re.findall(r"^\| (\S+) \| [\d.]+[GT] \| [\d.]+[GT] \| ([\d.]+:1) \|$", markdown,
                        re.M)
    assert len(bars) == (4 if fabric == "demo" else 128) and len(leaves) >= 4
    for leaf, ratio in leaves:
        assert bars[leaf].startswith(f"{leaf}: {ratio} ("), (leaf, bars[leaf])


@needs_chromium
def test_each_filter_works_by_mouse_and_keyboard(tmp_path: Path, browser: Browser,
                                                 big: tuple[Path, Path, str]) -> None:
    """Every value of every filter on the demo, and a few on the large fabric: the rows left
    visible are exactly the findings with that value, and the count says so."""
    cases = [(DEMO, None), (big[0], 3)]
    for source, limit in cases:
        out = big[1] if source == big[0] else _report(tmp_path, source)[0]
        findings = _findings([source])
        browser.open(out.as_uri())
        for column, (name, field) in enumerate((("severity", "severity"), ("family", "category"),
                                                ("device", "device"), ("file", "file")), 1):
            values = sorted({str(f[field] or "-") for f in findings})[:limit]
            for value in values:
                _choose(browser, name, value)
                rows = browser.js(VISIBLE_ROWS)
                want = sum(1 for f in findings if str(f[field] or "-") == value)
                assert len(rows) == want == browser.js(SHOWN), (name, value)
                assert {r[column] for r in rows} == {value}
            _choose(browser, name, "")
            assert browser.js(SHOWN) == len(findings)
        # two filters at once
        _choose(browser, "severity", str(findings[-1]["severity"]))
        _choose(browser, "device", str(findings[-1]["device"]))
        assert browser.js(SHOWN) == sum(
            1 for f in findings if (f["severity"], f["device"]) ==
            (findings[-1]["severity"], findings[-1]["device"]))


@needs_chromium
def test_clicking_a_red_cable_shows_its_finding_and_back(tmp_path: Path,
                                                         browser: Browser) -> None:
    out, _ = _report(tmp_path, DEMO)
    browser.open(out.as_uri())
    cables = browser.js("Array.from(document.querySelectorAll('.cable-link')).map(function(g){"
                        "return [g.id,g.dataset.findings,g.querySelector('.cable').dataset.cable];"
                        "})")
    assert len(cables) >= 2, "the demo draws red cables"
    for ident, rows, ends in cables:
        first = rows.split()[0]
        # hide the finding first: a filter on another device
        device = browser.js(f"document.getElementById('{first}').dataset.device")
        other = next(v for v in browser.js(
            "Array.from(document.querySelector('select[name=device]').options)"
            ".map(function(o){return o.value;})") if v not in ("", device))
        _choose(browser, "device", other)
        assert browser.js(f"document.getElementById('{first}').offsetParent") is None
        hit = browser.click(f"#{ident} .cable")
        assert hit["hit"], f"the red cable {ends} is covered by {hit}"
        assert browser.wait_for(f"location.hash==='#{first}'")
        assert browser.wait_for(IN_VIEW.replace("{}", repr(first))), "the finding is not shown"
        assert browser.js(SHOWN) == len(browser.js(VISIBLE_ROWS))  # the filter let go
        picked = browser.js("Array.from(document.querySelectorAll('tr.picked')).map("
                            "function(r){return r.id;})")
        assert picked == rows.split()
        # the finding is about an end of that cable
        text = browser.js(f"document.getElementById('{first}').innerText")
        assert any(f"{d} {i}".split()[1] in text for d, i in
                   (end.rsplit(" ", 1) for pair in ends.split("; ")
                    for end in pair.split(" - ")) if d == device)
        # and back: the row's "cable" link leads to the same red cable, in view
        browser.click(f"#{first} a[href='#{ident}']")
        assert browser.wait_for(f"location.hash==='#{ident}'")
        assert browser.wait_for(IN_VIEW.replace("{}", repr(ident)))


@needs_chromium
def test_a_red_device_opens_its_section_and_back(tmp_path: Path, browser: Browser) -> None:
    out, _ = _report(tmp_path, DEMO)
    browser.open(out.as_uri())
    assert browser.js("document.getElementById('dev-leaf2').open") is False
    hit = browser.click("#topo-all-leaf2")
    assert hit["hit"]
    assert browser.wait_for("location.hash==='#dev-leaf2'")
    assert browser.wait_for("document.getElementById('dev-leaf2').open") is True
    section = browser.js("document.getElementById('dev-leaf2').innerText")
    assert "MTU001" in section and "Ethernet50/1" in section
    browser.click("#dev-leaf2 a[href='#topo-all-leaf2']")
    assert browser.wait_for("location.hash==='#topo-all-leaf2'")
    assert browser.wait_for(IN_VIEW.replace("{}", "'topo-all-leaf2'"))
    # "show only these in the table" filters the findings to the device
    browser.click("#dev-leaf2 a[data-filter-device]")
    assert browser.wait_for("location.hash==='#findings-section'")
    rows = browser.js(VISIBLE_ROWS)
    assert rows and {r[3] for r in rows} == {"leaf2"} and browser.js(SHOWN) == len(rows)


@needs_chromium
def test_large_fabric_pod_opens_on_click_and_its_red_cable_leads_to_ib001(
        big: tuple[Path, Path, str], browser: Browser) -> None:
    _, out, _ = big
    browser.open(out.as_uri())
    assert browser.js("document.querySelectorAll('details[id^=pod-][open]').length") == 0
    pod = browser.js("document.querySelector('details[id^=pod-] summary').parentElement.id")
    hit = browser.click(f"#topo-overview a[href='#{pod}'] g.bad")
    assert hit["hit"], hit
    assert browser.wait_for(f"location.hash==='#{pod}'")
    assert browser.wait_for(f"document.getElementById('{pod}').open") is True
    hit = browser.click(f"#{pod} .cable.bad")
    assert hit["hit"], hit
    row = browser.wait_for("location.hash.slice(1)")
    assert row.startswith("f-")
    assert browser.wait_for(IN_VIEW.replace("{}", repr(row)))
    text = browser.js(f"document.getElementById('{row}').innerText")
    assert "IB001" in text and "runs at 1x" in text
    # and back, with the pod closed again: the row's "cable" link opens it at that cable
    browser.click(f"#{pod} > summary")
    assert browser.wait_for(f"!document.getElementById('{pod}').open")
    cable = browser.js(f"document.querySelector('#{row} a[title^=\"the red cable\"]')"
                       ".getAttribute('href').slice(1)")
    browser.click(f"#{row} a[href='#{cable}']")
    assert browser.wait_for(f"document.getElementById('{pod}').open")
    assert browser.wait_for(IN_VIEW.replace("{}", repr(cable)))


@needs_chromium
def test_screenshots_for_people_to_look_at(tmp_path: Path, browser: Browser,
                                           big: tuple[Path, Path, str]) -> None:
    """bench/out/screenshots/: report-demo.png (whole page), report-2000.png (datasheet, plots
    and pod overview), report-2000-pod.png (a pod opened by a click), drift.png."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    out, _ = _report(tmp_path, DEMO)
    browser.open(out.as_uri())
    browser.screenshot(SHOTS / "report-demo.png")
    browser.open(big[1].as_uri())
    browser.screenshot(SHOTS / "report-2000.png", full_page=False)
    browser.click("#topo-overview g.bad")
    assert browser.wait_for("document.querySelector('details[id^=pod-][open]')!==null")
    browser.screenshot(SHOTS / "report-2000-pod.png", full_page=False)
    drift = tmp_path / "drift.html"
    CliRunner().invoke(app, ["drift", str(DRIFT / "intended"), str(DRIFT / "live"),
                             "--format", "html", "--output", str(drift)])
    browser.open(drift.as_uri())
    browser.screenshot(SHOTS / "drift.png")
    for name in ("report-demo", "report-2000", "report-2000-pod", "drift"):
        shot = SHOTS / f"{name}.png"
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert shot.stat().st_size > 20_000, name
