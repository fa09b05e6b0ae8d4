"""JUnit XML: one test case per (device, rule), so CI dashboards list what passed and failed.

A device gets a case for each rule that applies to its vendor (``Rule.vendors``; ``any``
applies to all): an EOS switch has no InfiniBand or host NIC cases to pass. A finding always
has its case, whatever the rule.
"""

from __future__ import annotations

from collections import defaultdict

from fablint.checks import Rule
from fablint.engine import LintResult
from fablint.findings import Finding, Severity


def devices(result: LintResult) -> list[tuple[str, str | None]]:
    """Every device of the run with its vendor (from the input that describes it)."""
    return [(name, i.vendor) for i in result.fabric.inputs for name in i.devices]


def applies(rule: type[Rule], vendor: str | None) -> bool:
    """Does ``rule`` check devices of ``vendor``? Parse rules are about files, not devices."""
    if rule.category == "parse":
        return False
    return vendor is None or "any" in rule.vendors or vendor in rule.vendors


def render(result: LintResult) -> str:
    """Cases carry ``file`` (the device's input, or the finding's file) for dashboards that
    link to it; ``time`` is the run's on the suite. Devices are not timed one by one: each
    case says 0."""
    from xml.etree import ElementTree as ET  # only a JUnit report pays for the import

    device_file = {name: i.path for i in reversed(result.fabric.inputs) for name in i.devices}
    by_case: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for finding in result.findings:
        by_case[(finding.device or finding.file or "fabric", finding.rule)].append(finding)
    for device, vendor in devices(result):
        for rule in result.rules:
            if applies(rule, vendor):
                by_case.setdefault((device, rule.id), [])
    rule_names = {r.id: r.name for r in result.rules}
    suites = ET.Element("testsuites", name="fablint")
    suite = ET.SubElement(suites, "testsuite", name="fablint")
    failures = 0
    threshold = Severity(result.fail_on).rank if result.fail_on != "never" else 99
    for (device, rule_id), findings in sorted(by_case.items()):
        name = f"{rule_id} {rule_names.get(rule_id, findings[0].name if findings else '')}"
        where = findings[0].file if findings and findings[0].file else device_file.get(device)
        case = ET.SubElement(suite, "testcase", classname=device, name=name.strip(),
                             time="0")
        if where:
            case.set("file", where)
        if not findings:
            continue
        worst = max(findings, key=lambda f: f.severity.rank)
        body = "\n".join(
            f"{f.file}:{f.line or ''} [{f.severity.value}] {f.message}" for f in findings
        )
        if worst.severity.rank >= threshold:
            failures += 1
            node = ET.SubElement(
                case, "failure", message=f"{len(findings)} finding(s): {worst.message}",
                type=worst.severity.value,
            )
        else:  # below --fail-on: the case passes, the findings are kept as output
            node = ET.SubElement(case, "system-out")
        node.text = body
    for element in (suite, suites):
        element.set("time", f"{result.seconds:.3f}")
        element.set("tests", str(len(suite)))
        element.set("failures", str(failures))
        element.set("errors", "0")
    ET.indent(suites)
    body = ET.tostring(suites, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
