"""Every output format, read back with a real parser: json, the SARIF 2.1.0 schema, XML, and the runner's annotation grammar."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.cli import main
from flaglint.core.findings import Finding, Result
from flaglint.core.location import Location
from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource, read_env_assignments
from flaglint.report import Checked, render
from flaglint.report.github_format import escape_data, escape_property

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
BAD_FLAGS = "examples/flags/tuned-256-64x1x8-before.flags"
CLEAN = "clean.flags"
ENV_FILE = "examples/flags/tuned-256-64x1x8.env"
SARIF_SCHEMA = json.loads((HERE / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def checked() -> list[Checked]:
    checker = Checker("bbd0f6f10")
    env = read_env_assignments((), str(ROOT / ENV_FILE))
    out = []
    text = (ROOT / BAD_FLAGS).read_text(encoding="utf-8")
    out.append(Checked(BAD_FLAGS, text, checker.check(FlagSource(text, file=BAD_FLAGS), env)))
    out.append(Checked(CLEAN, "per_device_batch_size=2", checker.check(FlagSource("per_device_batch_size=2", file=CLEAN), env)))
    typo = "per_device_batch_size=2 moe_chunk_pipline=true"
    out.append(Checked(None, typo, checker.check(FlagSource(typo), env, fix=False)))
    return out


def test_the_inputs_cover_every_severity_a_fix_and_a_clean_input(checked):
    severities = {f.severity for item in checked for f in item.result.findings}
    assert {"error", "info"} <= severities
    assert checked[0].result.fixes and not checked[1].result.findings


def test_json_is_the_version_1_contract(checked):
    data = json.loads(render("json", checked))
    assert data["version"] == 2 and data["pin"] == "bbd0f6f10"
    rules = [f["rule"] for f in data["findings"]]
    assert "FL101" in rules and "FL004" in rules
    assert data["fixes"][0]["changes"] == [{"key": "moe_roe_packed_routing_gather", "from": True, "to": False}]


def test_sarif_validates_against_the_official_schema(checked):
    log = json.loads(render("sarif", checked))
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    fl101 = next(r for r in rules if r["id"] == "FL101")
    assert fl101["shortDescription"]["text"] == "packed routing gather needs the chunk pipeline"
    assert "help" in fl101
    error = next(r for r in run["results"] if r["ruleId"] == "FL101")
    assert rules[error["ruleIndex"]]["id"] == "FL101"
    assert error["level"] == "error"
    physical = error["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == BAD_FLAGS
    assert physical["region"] == {"startLine": 1, "startColumn": 863, "endColumn": 887}
    assert {r["level"] for r in run["results"] if r["ruleId"] == "FL003"} == {"note"}
    typo = next(r for r in run["results"] if r["ruleId"] == "FL004")
    assert typo["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "%3Cflags%3E"


def test_sarif_without_findings_is_still_a_valid_log():
    log = json.loads(render("sarif", [Checked("a.flags", "", Result(pin="maxtext-0.2.5", notes=["skipped"]))]))
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"] == "skipped"


_ANNOTATION = re.compile(r"^::(error|warning|notice)(?: ([^:]*))?::(.*)$")


def _unescape(text: str) -> str:
    return re.sub(r"%(25|0D|0A|3A|2C)", lambda m: {"25": "%", "0D": "\r", "0A": "\n", "3A": ":", "2C": ","}[m.group(1)], text)


def parse_annotation(line: str) -> tuple[str, dict[str, str], str]:
    """The runner's reading of a workflow command: the command, its properties, and the message."""
    match = _ANNOTATION.match(line)
    assert match, line
    props = {}
    for part in (match.group(2) or "").split(","):
        key, _, value = part.partition("=")
        props[key] = _unescape(value)
    return match.group(1), props, _unescape(match.group(3))


def test_github_annotations_carry_file_line_and_rule(checked):
    lines = render("github", checked).split("\n")
    parsed = [parse_annotation(line) for line in lines if line.startswith("::")]
    command, props, message = next(p for p in parsed if p[1].get("title") == "FL101")
    assert command == "error"
    assert props == {"file": BAD_FLAGS, "line": "1", "col": "863", "endColumn": "887", "title": "FL101"}
    assert message.startswith("moe_roe_packed_routing_gather=true requires")
    assert "fix (safe): moe_roe_packed_routing_gather: true -> false" in message
    assert {p[0] for p in parsed if p[1]["title"] == "FL003"} == {"notice"}
    assert lines[-1] == "flaglint: 2 error(s), 0 warning(s), 2 info"


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text(min_size=1))
def test_github_escaping_keeps_one_line_and_round_trips(message, file):
    finding = Finding("FL004", "warning", message, location=Location(file, 3, 5, end_column=9))
    out = render("github", [Checked(file, "", Result(pin="", findings=[finding]))]).split("\n")
    assert len(out) == 2
    command, props, text = parse_annotation(out[0])
    assert (command, props["file"], props["line"], props["title"], text) == ("warning", file, "3", "FL004", message)


def test_github_escapes_follow_the_runner_rules():
    assert escape_data("50%\r\nx:y,z") == "50%25%0D%0Ax:y,z"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_junit_is_xml_with_one_suite_per_input_and_failures_for_errors(checked):
    root = ET.fromstring(render("junit", checked))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [BAD_FLAGS, CLEAN, "<flags>"]
    bad, good, typo = suites
    assert int(bad.get("failures")) == 1 and int(bad.get("tests")) == 3
    (failure,) = bad.iter("failure")
    assert failure.get("type") == "FL101"
    assert [c.get("name") for c in good.findall("testcase")] == ["flaglint"] and good.find("testcase/failure") is None
    assert typo.find("testcase/failure").get("type") == "FL004"
    assert int(root.get("failures")) == sum(int(s.get("failures")) for s in suites)
    assert int(root.get("tests")) == sum(len(s.findall("testcase")) for s in suites)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_junit_survives_any_message(message):
    finding = Finding("FL005", "error", message, location=Location(None, 1, 1, end_column=2))
    root = ET.fromstring(render("junit", [Checked("x&<y>.flags", "", Result(pin="", findings=[finding], notes=[message]))]))
    failure = root.find("testsuite/testcase/failure")
    assert root.find("testsuite").get("name") == "x&<y>.flags"
    # XML cannot carry NUL and most C0 controls; everything else comes back as written (CR reads back as LF).
    expected = re.sub("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", "\ufffd", message)
    assert failure.get("message") == expected
    assert failure.get("type") == "FL005"


@pytest.mark.parametrize("output_format", ["json", "sarif", "github", "junit", "text"])
def test_every_format_from_the_check_command(output_format):
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--pin", "bbd0f6f10", "--env-file", str(ROOT / ENV_FILE), "-f", str(ROOT / BAD_FLAGS),
                                  "--format", output_format])
    assert result.exit_code == 1, result.output
    assert "FL101" in result.output
