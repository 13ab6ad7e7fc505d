"""JUnit XML for test reports: a testsuite per checked input, a testcase per finding.

Findings at or above --fail-on (error unless it says otherwise) are failures, as they fail the
run; lower ones pass with their message in system-out. An input without findings is one passing
testcase, so every suite shows up in the report.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from flaglint.core.findings import Finding, severity_rank
from flaglint.report import Checked

# Characters XML 1.0 cannot carry at all, even escaped.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _where(finding: Finding, label: str) -> str:
    loc = finding.location
    if loc is None:
        return label
    return f"{loc.file or label}:{loc.line}:{loc.column}"


def _testcase(suite: ET.Element, finding: Finding, label: str, fail_on: str) -> bool:
    where = _where(finding, label)
    case = ET.SubElement(suite, "testcase", classname=_xml_text(label), name=_xml_text(f"{finding.rule} {where}"))
    detail = _xml_text(f"{where}: {finding.severity} {finding.rule} {finding.message}")
    if severity_rank(finding.severity) >= severity_rank(fail_on):
        failure = ET.SubElement(case, "failure", type=finding.rule, message=_xml_text(finding.message))
        failure.text = detail
        return True
    ET.SubElement(case, "system-out").text = detail
    return False


def render(checked: list[Checked], fail_on: str = "error") -> str:
    root = ET.Element("testsuites", name="flaglint")
    total_tests = total_failures = 0
    for item in checked:
        label = item.name
        suite = ET.SubElement(root, "testsuite", name=_xml_text(label))
        failures = sum(_testcase(suite, finding, label, fail_on) for finding in item.result.findings)
        tests = len(item.result.findings)
        if not tests:
            ET.SubElement(suite, "testcase", classname=_xml_text(label), name="flaglint")
            tests = 1
        if item.result.notes:
            ET.SubElement(suite, "system-out").text = _xml_text("\n".join(item.result.notes))
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        total_tests += tests
        total_failures += failures
    root.set("tests", str(total_tests))
    root.set("failures", str(total_failures))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")
