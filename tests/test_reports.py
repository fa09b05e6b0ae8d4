"""Reporters on a real lint run of the demo fabric: SARIF, JUnit, GitHub, text, JSON."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from fablint.checks import REGISTRY
from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.findings import Finding, Severity
from fablint.model import Fabric
from fablint.profiles import load_policy
from fablint.report import REPORTERS, github, json_report, junit, sarif, text
from fablint.report.common import DOCS_URL

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "fixtures" / "demo"
PLANTED = {("spine2", "ECN003"), ("leaf2", "MTU001"), ("leaf3", "ACL001"),
           ("leaf3", "PFC003"), ("leaf4", "PFC001"), ("leaf4", "QOS010")}


def _sarif_schema() -> dict:
    default = REPO.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
    path = Path(os.environ.get("FABLINT_SARIF_SCHEMA", default))
    if not path.is_file():
        pytest.skip(f"SARIF 2.1.0 schema not found at {path} (set FABLINT_SARIF_SCHEMA)")
    return json.loads(path.read_text(encoding="utf-8"))


def _lint(*paths: Path, **options: object) -> LintResult:
    return lint(LintOptions(
        paths=[str(p) for p in paths], config=ProjectConfig(), policy=load_policy("default"),
        **options,  # type: ignore[arg-type]
    ))


@pytest.fixture(scope="module")
def demo() -> LintResult:
    result = _lint(DEMO)
    assert {(f.device, f.rule) for f in result.findings} == PLANTED
    return result


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> LintResult:
    """The demo plus a binary file named explicitly and an unsupported file in a folder."""
    folder = tmp_path_factory.mktemp("damaged")
    (folder / "notes.txt").write_text("not a configuration\n", encoding="utf-8")
    blob = tmp_path_factory.mktemp("blob") / "dump.bin"
    blob.write_bytes(b"\x00\x01\x02 binary")
    result = _lint(DEMO, folder, blob)
    assert result.errors and result.exit_code == 2
    return result


@pytest.fixture(scope="module")
def clean() -> LintResult:
    result = _lint(DEMO / "leaf1.cfg")
    assert result.findings == [] and result.errors == []
    return result


def _device_names(result: LintResult) -> list[str]:
    return [name for i in result.fabric.inputs for name in i.devices]


# -- SARIF -----------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["demo", "damaged", "clean"])
def test_sarif_validates_against_the_schema(which: str, request: pytest.FixtureRequest) -> None:
    schema = _sarif_schema()
    result: LintResult = request.getfixturevalue(which)
    doc = json.loads(sarif.render(result))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    errors = sorted(validator_class(schema).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def test_the_schema_check_can_fail(demo: LintResult) -> None:
    """Guard against a validator that accepts anything: a broken document must be rejected."""
    schema = _sarif_schema()
    doc = json.loads(sarif.render(demo))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    del doc["runs"][0]["tool"]["driver"]["name"]
    validator = jsonschema.validators.validator_for(schema)(schema)
    assert len(list(validator.iter_errors(doc))) >= 2


def test_sarif_rules_results_and_locations(demo: LintResult) -> None:
    doc = json.loads(sarif.render(demo))
    assert doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids))
    assert {r.id for r in demo.rules} <= set(ids)
    for rule in rules:
        assert rule["helpUri"] == f"{DOCS_URL}{rule['id']}.md"
        assert rule["name"] == REGISTRY[rule["id"]].name
    results = run["results"]
    assert len(results) == len(demo.findings)
    for res, finding in zip(results, demo.findings, strict=True):
        assert res["ruleId"] == finding.rule
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert rules[res["ruleIndex"]]["helpUri"].endswith(f"/{res['ruleId']}.md")
        assert res["level"] == {"error": "error", "warning": "warning"}[finding.severity.value]
        assert res["message"]["text"] == finding.message
        assert res["partialFingerprints"]["fablint/v1"] == finding.fingerprint()
        (location,) = res["locations"]
        physical = location["physicalLocation"]
        assert physical["region"]["startLine"] == finding.line
        assert physical["artifactLocation"]["uri"].endswith(Path(finding.file).name)
        assert location["logicalLocations"][0]["fullyQualifiedName"].startswith(finding.device)
    assert {(r["properties"]["device"], r["ruleId"]) for r in results} == PLANTED
    assert run["invocations"][0]["executionSuccessful"] is True


def test_sarif_custom_docs_url(demo: LintResult) -> None:
    doc = json.loads(sarif.render(demo, "https://docs.example.com/fablint/rules/"))
    for rule in doc["runs"][0]["tool"]["driver"]["rules"]:
        assert rule["helpUri"] == f"https://docs.example.com/fablint/rules/{rule['id']}.md"


def test_sarif_reports_unreadable_inputs_as_notifications(damaged: LintResult) -> None:
    doc = json.loads(sarif.render(damaged))
    (invocation,) = doc["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    assert len(notes) == len(damaged.errors) == 1
    assert notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(
        "dump.bin")
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    for res in doc["runs"][0]["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]


# -- JUnit -----------------------------------------------------------------------------------


def _checked(result: LintResult) -> set[tuple[str, str]]:
    """(device, rule) for every rule that applies to the device's vendor."""
    return {(name, rule.id) for i in result.fabric.inputs for name in i.devices
            for rule in result.rules if rule.category != "parse"
            and (i.vendor in rule.vendors or "any" in rule.vendors)}


def _expected_cases(result: LintResult) -> set[tuple[str, str]]:
    return _checked(result) | {(f.device or f.file or "fabric", f.rule) for f in result.findings}


@pytest.mark.parametrize("which", ["demo", "damaged", "clean"])
def test_junit_one_testcase_per_device_and_rule(which: str, request: pytest.FixtureRequest) -> None:
    result: LintResult = request.getfixturevalue(which)
    root = ET.fromstring(junit.render(result))
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    keys = [(c.get("classname"), c.get("name", "").split()[0]) for c in cases]
    assert len(keys) == len(set(keys))
    assert set(keys) == _expected_cases(result)
    extra = {(f.device or f.file, f.rule) for f in result.findings} - _checked(result)
    assert len(cases) == len(_checked(result)) + len(extra)

    failing = [c for c in cases if c.find("failure") is not None]
    assert suite.get("tests") == root.get("tests") == str(len(cases))
    assert suite.get("failures") == root.get("failures") == str(len(failing))
    threshold = Severity(result.fail_on).rank
    should_fail = {(f.device or f.file, f.rule) for f in result.findings
                   if f.severity.rank >= threshold}
    assert {(c.get("classname"), c.get("name", "").split()[0]) for c in failing} == should_fail


def test_junit_demo_counts(demo: LintResult) -> None:
    root = ET.fromstring(junit.render(demo))
    suite = root.find("testsuite")
    assert suite is not None
    # One case per device and rule that applies to its vendor: five EOS and NX-OS switches and
    # a SONiC one, no InfiniBand, OpenSM or host NIC rule among them.
    def applying(vendor: str) -> int:
        return sum(1 for r in demo.rules if r.category != "parse"
                   and (vendor in r.vendors or "any" in r.vendors))

    assert applying("eos") >= 8 and applying("sonic") > applying("nxos")
    assert suite.get("tests") == str(4 * applying("eos") + applying("nxos") + applying("sonic"))
    assert suite.get("failures") == "6"  # six errors, each failing its own (device, rule) case
    cases = {(c.get("classname"), c.get("name", "").split()[0]): c
             for c in suite.findall("testcase")}
    assert {key for key, c in cases.items() if c.find("failure") is not None} == PLANTED
    assert all(c.find("system-out") is None for c in cases.values())
    assert ("leaf1", "PFC001") in cases and ("leaf4", "BUF001") in cases
    assert ("leaf1", "BUF001") not in cases, "a SONiC buffer rule has nothing to say of EOS"
    assert not any(rule.startswith(("IB", "DCQ")) for _, rule in cases)
    failure = cases[("leaf4", "PFC001")].find("failure")
    assert failure is not None and failure.get("type") == "error"
    assert (failure.text or "").startswith(f"{DEMO / 'leaf4' / 'config_db.json'}:31 [error] ")
    assert "Ethernet16" in (failure.text or "")


def test_junit_warning_below_fail_on_passes_with_its_findings_as_output(
    tmp_path: Path,
) -> None:
    # The demo has errors only: leaf1 with the ECN marking removed from its RoCE queue has only
    # ECN001 warnings, which pass at the default --fail-on error.
    ecn = ("      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
           "max-mark-probability 100\n")
    config = (DEMO / "leaf1.cfg").read_text(encoding="utf-8")
    assert config.count(ecn) == 1
    leaf = tmp_path / "leaf1.cfg"
    leaf.write_text(config.replace(ecn, ""), encoding="utf-8")
    result = _lint(leaf)
    assert result.findings and {(f.device, f.rule, f.severity) for f in result.findings} == {
        ("leaf1", "ECN001", Severity.WARNING)}
    root = ET.fromstring(junit.render(result))
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("failures") == root.get("failures") == "0"
    (case,) = [c for c in suite.findall("testcase")
               if c.get("classname") == "leaf1" and c.get("name", "").startswith("ECN001 ")]
    assert case.find("failure") is None
    out = case.find("system-out")
    assert out is not None
    for finding in result.findings:
        assert f"{leaf}:{finding.line} [warning] {finding.message}" in (out.text or "")
    assert "Ethernet49/1" in (out.text or "")


# -- GitHub annotations ----------------------------------------------------------------------

_ANNOTATION = re.compile(
    r"^::(error|warning|notice) file=[^,:\n]+,line=[1-9]\d*,title=[^,:\n]+::[^\n]+$"
)


def test_github_lines_are_workflow_commands(demo: LintResult) -> None:
    out = github.render(demo)
    lines = out.splitlines()
    assert len(lines) == len(demo.findings)
    for line, finding in zip(lines, demo.findings, strict=True):
        assert _ANNOTATION.match(line), line
        assert f"file={finding.file},line={finding.line},title={finding.rule} " in line
        level = {"error": "error", "warning": "warning", "info": "notice"}
        assert line.startswith(f"::{level[finding.severity.value]} ")


def _result_with(*findings: Finding) -> LintResult:
    return LintResult(fabric=Fabric(), findings=list(findings),
                      rules=[REGISTRY[f.rule] for f in findings])


def test_github_escapes_special_characters() -> None:
    finding = Finding(
        rule="PFC001", name="pfc-lossless-priorities", severity=Severity.INFO, category="pfc",
        message="100% of queue 3: lossy\nsecond line\r\nthird", device="sw1",
        file="configs/odd,name:1.cfg", line=12,
    )
    out = github.render(_result_with(finding))
    assert out.endswith("\n") and out.count("\n") == 1
    assert out == (
        "::notice file=configs/odd%2Cname%3A1.cfg,line=12,title=PFC001 pfc-lossless-priorities"
        "::sw1: 100%25 of queue 3: lossy%0Asecond line%0D%0Athird\n"
    )


def test_github_without_file_or_line() -> None:
    finding = Finding(rule="FAB002", name="unsupported-input", severity=Severity.ERROR,
                      category="parse", message="x")
    assert github.render(_result_with(finding)) == "::error title=FAB002 unsupported-input::x\n"
    assert github.render(_result_with()) == ""


# -- text ------------------------------------------------------------------------------------


def test_text_of_a_clean_result_is_one_line(clean: LintResult) -> None:
    out = text.render(clean)
    assert out.endswith("\n")
    assert out.splitlines() == ["✓ 1 device in 1 file: no problems found."]


def test_text_of_the_demo(demo: LintResult) -> None:
    out = text.render(demo, show_fixes=False)
    assert "fix:" not in out
    for finding in demo.findings:
        assert finding.message in out
    # --no-fixes: no fix shown, so the summary does not say "6 with a fix shown"
    assert out.splitlines()[-1] == "6 problems (6 errors) in 6 devices in 11 files."
    with_fixes = text.render(demo)
    assert with_fixes.count("fix:") == sum(1 for f in demo.findings if f.fix)
    assert with_fixes.splitlines()[-1] == "6 problems (6 errors) in 6 devices in 11 files; " \
                                          "6 with a fix shown."


def test_text_mentions_files_that_could_not_be_linted(damaged: LintResult) -> None:
    assert "1 file could not be linted" in text.render(damaged).splitlines()[-1]


def test_several_problems_in_one_file_count_one_unlintable_file(tmp_path: Path) -> None:
    """Four duplicate keys in one SONiC file: four FAB001 findings, one file not linted."""
    path = tmp_path / "config_db.json"
    path.write_text('{"DEVICE_METADATA": {"localhost": {"hostname": "s1"}},\n'
                    '"PORT": {"Ethernet0": {"mtu": "9100"}, "Ethernet0": {"mtu": "9100"},\n'
                    '"Ethernet4": {}, "Ethernet4": {}},\n'
                    '"VLAN": {"Vlan1": {}, "Vlan1": {}, "Vlan2": {}, "Vlan2": {}}}\n',
                    encoding="utf-8")
    result = lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                              policy=load_policy("default"), jobs=1))
    assert len(result.errors) == 4
    assert text.render(result).splitlines()[-1].endswith("(1 file could not be linted).")
    assert json.loads(json_report.render(result))["summary"]["unparsed_files"] == 1


# -- JSON ------------------------------------------------------------------------------------


def test_json_matches_the_engine(demo: LintResult) -> None:
    doc = json.loads(json_report.render(demo))
    assert doc["version"] == "1"
    assert [
        (f["rule"], f["device"], f["object"], f["file"], f["line"], f["message"], f["fix"],
         f["fingerprint"], f["severity"])
        for f in doc["findings"]
    ] == [
        (f.rule, f.device, f.object, f.file, f.line, f.message, f.fix, f.fingerprint(),
         f.severity.value)
        for f in demo.findings
    ]
    counts = demo.counts()
    summary = doc["summary"]
    assert (summary["errors"], summary["warnings"], summary["infos"], summary["total"]) == (
        counts["error"], counts["warning"], counts["info"], len(demo.findings))
    assert summary["by_rule"] == {"ACL001": 1, "ECN003": 1, "MTU001": 1,
                                  "PFC001": 1, "PFC003": 1, "QOS010": 1}
    assert summary["exit_code"] == demo.exit_code == 1
    assert doc["errors"] == []


@pytest.mark.parametrize("which", ["demo", "damaged", "clean"])
def test_json_validates_against_the_published_schema(
    which: str, request: pytest.FixtureRequest
) -> None:
    result: LintResult = request.getfixturevalue(which)
    schema = json.loads((REPO / "docs" / "json-report.schema.json").read_text(encoding="utf-8"))
    doc = json.loads(json_report.render(result))
    jsonschema.validators.validator_for(schema)(schema).validate(doc)
    assert [e["file"] for e in doc["errors"]] == [p.file for p in result.errors]


def test_every_reporter_renders_every_result(
    demo: LintResult, damaged: LintResult, clean: LintResult
) -> None:
    assert set(REPORTERS) == {"text", "json", "sarif", "junit", "github", "gitlab", "concise",
                              "markdown"}
    for result in (demo, damaged, clean):
        for name, render in REPORTERS.items():
            out = render(result)
            assert isinstance(out, str), name
            assert out.endswith("\n") or (name == "github" and out == ""), name


# -- findings that group the ports sharing one cause ------------------------------------------

GROUPED = REPO / "fixtures" / "reference" / "cisco-nexus-roce-enable.faulty.cfg"
"""Priority 3 is not no-drop on six ports for one cause: one PFC001 naming them all (with
QOS007 left out: it names the `pause pfc-cos 4` line behind it, and PFC001 folds into it)."""


@pytest.fixture(scope="module")
def grouped() -> LintResult:
    return lint(LintOptions(paths=[str(GROUPED)], config=ProjectConfig(),
                            policy=load_policy("cisco-nexus-ai"), jobs=1, ignore=["QOS007"]))


def _pfc001(result: LintResult) -> Finding:
    (finding,) = [f for f in result.findings if f.rule == "PFC001"]
    return finding


def test_a_grouped_finding_lists_every_port_and_line_in_json(grouped: LintResult) -> None:
    finding = _pfc001(grouped)
    doc = json.loads(json_report.render(grouped))
    (entry,) = [f for f in doc["findings"] if f["rule"] == "PFC001"]
    lines = GROUPED.read_text(encoding="utf-8").split("\n")
    ports = [p["object"] for p in entry["places"]]
    assert len(ports) == 6 and ports[0] == entry["object"] == finding.object
    for place in entry["places"]:  # each port at its own `interface` line
        assert place["file"] == entry["file"]
        assert lines[place["line"] - 1] == f"interface {place['object']}"
    assert "6 ports" in entry["message"] and len(entry["message"]) < 300  # bounded text
    schema = json.loads((REPO / "docs" / "json-report.schema.json").read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(doc)


def test_a_grouped_finding_lists_every_port_in_sarif_related_locations(
        grouped: LintResult) -> None:
    schema = _sarif_schema()
    doc = json.loads(sarif.render(grouped))
    validator = jsonschema.validators.validator_for(schema)(schema)
    assert sorted(validator.iter_errors(doc), key=lambda e: list(e.path)) == []
    finding = _pfc001(grouped)
    (result,) = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "PFC001"]
    named = [r for r in result["relatedLocations"] if "message" in r]
    assert [r["message"]["text"] for r in named] == [p.object for p in finding.places]
    assert [r["physicalLocation"]["region"]["startLine"] for r in named] == [
        p.line for p in finding.places]
    assert [r["logicalLocations"][0]["fullyQualifiedName"] for r in named] == [
        f"{finding.device}/{p.object}" for p in finding.places]
    ids = [r["id"] for r in result["relatedLocations"]]
    assert ids == list(range(len(ids)))
