"""``fablint report``: one self-contained HTML file, well formed, with no external URL, and
checked in headless Chromium (Debian's ``chromium`` package; skipped with the reason when it
is not installed): the datasheet figures, the finding count and each filter in the rendered
DOM, a red cable leading to its finding and a device link opening its section. A screenshot of
the demo report is written to ``bench/out/report-demo.png`` for people to look at."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from typer.testing import CliRunner

from fablint.cli import app
from fablint.testing_fabrics import ThreeTier
from tests.conftest import FIXTURES, REPO

DEMO = FIXTURES / "demo"
CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"))
                 if p), None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium not installed (Debian: apt-get install chromium)")


def _report(tmp_path: Path, *paths: Path, name: str = "fabric.html") -> tuple[Path, str]:
    out = tmp_path / name
    result = CliRunner().invoke(app, ["report", *map(str, paths), "--output", str(out)])
    assert result.exit_code in (0, 1), result.output
    return out, out.read_text(encoding="utf-8")


def _findings(paths: list[Path]) -> list[dict[str, object]]:
    result = CliRunner().invoke(app, ["lint", *map(str, paths), "--format", "json"])
    return json.loads(result.output)["findings"]


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


def test_report_is_well_formed_and_self_contained(tmp_path: Path) -> None:
    _, page = _report(tmp_path, DEMO)
    ET.fromstring(page.split("\n", 1)[1])  # well-formed as XML after the doctype line
    parser = _Collect()
    parser.feed(page)
    parser.close()
    assert parser.stack == []
    ids = [a["id"] for _, a in parser.tags if a.get("id")]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for tag, attrs in parser.tags:
        for key in ("href", "src", "action", "xlink:href"):
            value = attrs.get(key)
            if value is None:
                continue
            assert value.startswith("#"), f"<{tag} {key}={value!r}> leaves the file"
            assert value[1:] in ids, f"<{tag} {key}={value!r}> points at nothing"
        assert tag not in ("link", "img", "iframe", "object", "embed"), tag
    assert not re.search(r"(?:https?:|ftp:)?//[\w.-]+\.[a-z]{2,}", page, re.I), \
        "an external URL in the report"
    assert "@import" not in page and "url(" not in page


def test_report_carries_every_finding_with_its_why_and_fix(tmp_path: Path) -> None:
    _, page = _report(tmp_path, DEMO)
    findings = _findings([DEMO])
    rows = re.findall(r'<tr id="f-\d+" data-severity="(\w+)" data-family="([\w-]+)" '
                      r'data-device="([^"]*)" data-file="([^"]*)">', page)
    assert sorted(rows) == sorted((f["severity"], f["category"], f["device"], f["file"])
                                  for f in findings)
    assert f'<span id="finding-total">{len(findings)}</span>' in page
    assert "802.3x pause and PFC" in page or "why</summary>" in page
    assert page.count("<summary>fix</summary>") == sum(1 for f in findings if f["fix"])


def test_large_fabric_is_drawn_per_pod(tmp_path: Path) -> None:
    dump = tmp_path / "fabric.topo"
    dump.write_text(ThreeTier(pods=12, rails=4, spines=2, supers=4, servers=4).ibnetdiscover())
    _, page = _report(tmp_path, dump)
    assert 'id="topo-overview"' in page
    assert len(re.findall(r'<details id="pod-\d+">', page)) == 12
    assert "3-tier fat tree, 12 pods, rail-optimised" in page


def _dom(page: Path, fragment: str = "", tmp: Path | None = None) -> str:
    assert CHROMIUM is not None
    run = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         f"--user-data-dir={tmp or page.parent}/chromium-profile", "--dump-dom",
         page.resolve().as_uri() + fragment],
        capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def _visible_rows(dom: str) -> list[str]:
    """Finding rows the filters leave visible (no ``hidden`` class) in the rendered DOM."""
    return [m.group(1) for m in re.finditer(r'<tr id="(f-\d+)"([^>]*)>', dom)
            if not re.search(r'class="[^"]*\bhidden\b', m.group(2))]


def _shown(dom: str) -> int:
    match = re.search(r'<span id="shown-count">(\d+)</span>', dom)
    assert match, "no shown-count in the DOM"
    return int(match.group(1))


@needs_chromium
def test_rendered_datasheet_and_filters_in_chromium(tmp_path: Path) -> None:
    out, _ = _report(tmp_path, DEMO)
    findings = _findings([DEMO])
    dom = _dom(out)
    cell = re.search(r'<tr id="ds-bisection-bandwidth"><th>[^<]*</th><td>([^<]*)</td>', dom)
    assert cell and cell.group(1) == "1.6T of an ideal 1.6T (100 %, exact); 200G per host"
    assert re.search(r'<tr id="ds-non-blocking"><th>[^<]*</th><td class="yes">yes', dom)
    assert re.search(r'<tr id="ds-switches-per-tier"><th>[^<]*</th><td>2 spines, 4 leaves<',
                     dom)
    assert _shown(dom) == len(findings) == len(_visible_rows(dom))
    for key, field in (("severity", "severity"), ("family", "category"),
                       ("device", "device"), ("file", "file")):
        value = str(findings[0][field])
        filtered = _dom(out, f"#filter={key}:{value}")
        want = sum(1 for f in findings if str(f[field]) == value)
        assert want < len(findings) or key == "severity"
        assert _shown(filtered) == want == len(_visible_rows(filtered)), key
    both = _dom(out, "#filter=device:leaf2;family:mtu")
    assert _shown(both) == sum(1 for f in findings
                               if f["device"] == "leaf2" and f["category"] == "mtu")


@needs_chromium
def test_red_cable_and_device_lead_to_their_findings_in_chromium(tmp_path: Path) -> None:
    out, page = _report(tmp_path, DEMO)
    red = re.search(r'<a href="#(f-\d+)"><g class="cable-link"[^>]*><line [^>]*class="cable bad" '
                    r'data-cable="([^"]*)"', page)
    assert red, "no red cable in the demo drawing"
    row, cable = red.groups()
    # following the cable's link shows the finding's row, about one end of that cable
    dom = _dom(out, f"#{row}")
    assert row in _visible_rows(dom)
    tr = re.search(rf'<tr id="{row}"[^>]*data-device="([^"]*)"[^>]*>(.*?)</tr>', dom, re.S)
    assert tr and f"{tr.group(1)} " in cable
    interface = cable.split(f"{tr.group(1)} ", 1)[1].split(" ")[0]
    assert interface in tr.group(2)
    # a red device opens its section with its findings listed
    dom = _dom(out, "#dev-leaf2")
    section = re.search(r'<details class="devsec" id="dev-leaf2" open="">(.*?)</details>\s*'
                        r'<details class="devsec"', dom, re.S)
    assert section, "leaf2's section is not open"
    assert "MTU001" in section.group(1) and "Ethernet50/1" in section.group(1)
    # and back: the section and the device's findings lead to its red box in the drawing
    assert '<a href="#topo-all-leaf2">show in the drawing</a>' in section.group(1)
    assert re.search(r'<g class="node bad" id="topo-all-leaf2">', dom)
    row = re.search(r'<tr id="f-\d+"[^>]*data-device="leaf2"[^>]*>.*?</tr>', dom, re.S)
    assert row and 'href="#topo-all-leaf2"' in row.group(0)


@needs_chromium
@pytest.mark.parametrize("name", ["demo", "2000"])
def test_screenshots_for_people_to_look_at(tmp_path: Path, name: str) -> None:
    """bench/out/report-demo.png and report-2000.png (a generated 3-tier fabric of 2,192 IB
    nodes: 16 pods of 8 rail leaves and 8 spines, 16 super-spines, 240 servers x 8 NICs)."""
    if name == "demo":
        out, _ = _report(tmp_path, DEMO)
    else:
        dump = tmp_path / "fabric.topo"
        dump.write_text(ThreeTier(pods=16, rails=8, spines=8, supers=16, servers=15)
                        .ibnetdiscover())
        out, page = _report(tmp_path, dump)
        assert "240 hosts, 1920 NICs (8 per host), 8 rails" in page
    shot = REPO / "bench" / "out" / f"report-{name}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    assert CHROMIUM is not None
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", f"--user-data-dir={tmp_path}/chromium-profile",
                    "--window-size=1400,2600", f"--screenshot={shot}", out.resolve().as_uri()],
                   capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 20_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_large_single_pod_groups_switches_that_look_alike(tmp_path: Path) -> None:
    dump = tmp_path / "fabric.topo"
    dump.write_text(ThreeTier(pods=1, rails=4, spines=62, supers=2, servers=2).ibnetdiscover())
    _, page = _report(tmp_path, dump)
    assert 'id="topo-groups"' in page
    assert ">62 spines<" in page and ">2 super-spines<" in page
    assert re.findall(r">1 leaf</text><text[^>]*>rail (\d)<", page) == ["0", "1", "2", "3"]


def test_report_from_a_collect_snapshot(tmp_path: Path) -> None:
    snapshot = FIXTURES / "drift" / "live"  # fablint collect's layout, with its manifest
    assert (snapshot / "manifest.json").is_file()
    _, page = _report(tmp_path, snapshot)
    for device in ("leaf1", "leaf2", "leaf3", "spine1"):
        assert f'<details class="devsec" id="dev-{device}">' in page
    assert re.search(r'<tr id="ds-switches-per-tier"><th>[^<]*</th><td>1 spine, 3 leaves<', page)


def test_report_without_cabling_says_what_is_not_determined(tmp_path: Path) -> None:
    _, page = _report(tmp_path, FIXTURES / "drift" / "intended")
    cell = re.search(r'<tr id="ds-non-blocking"><th>[^<]*</th><td>([^<]*)<', page)
    assert cell and cell.group(1).startswith("not determined: no cabling in the inputs")
    assert 'id="topology"' not in page
    assert re.search(r'<tr id="ds-pfc"><th>[^<]*</th><td>priority 3 on 16 of 16 fabric ports<',
                     page)
