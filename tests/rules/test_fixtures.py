"""Each rule's fixtures, checked as a user checks them, against the whole text output kept beside them.

tests/fixtures/<RULE>/ holds the rule's cases and a flaglint.toml (the pin, model or settings the
cases need). A case is a file, checked from that directory:

    NAME.flags   flaglint check -f NAME.flags [--env-file NAME.env]
    NAME.sh      flaglint lint NAME.sh [--env-file NAME.env]
    NAME.yaml    flaglint gate NAME.yaml

with the arguments in NAME.args (one line), if there is one, before the file.
NAME.<ext>.out is its snapshot: the command, the exit code, then stdout (and stderr, if any) as
flaglint prints them. After a deliberate change to the output, rewrite them all with
`python -m pytest tests/rules/test_fixtures.py --update-snapshots` and review the diff.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from commandline import REPO, run_flaglint

FIXTURES = REPO / "tests" / "fixtures"
COMMANDS = {".flags": ("check", "-f"), ".sh": ("lint",), ".yaml": ("gate",)}


def _rule_folders() -> list[Path]:
    """tests/fixtures/<rule id>/; other folders there hold other tests' fixtures (recipes/)."""
    return sorted(p for p in FIXTURES.iterdir() if p.is_dir() and re.fullmatch(r"FL[0-9]+|MX[0-9A-Z]+", p.name))


def cases() -> list[Path]:
    return sorted(p for folder in _rule_folders() for p in folder.iterdir() if p.suffix in COMMANDS)


def command(case: Path) -> list[str]:
    extra = case.with_suffix(".args")
    subcommand, *before_file = COMMANDS[case.suffix]
    args = [subcommand, *(extra.read_text(encoding="utf-8").split() if extra.is_file() else ()), *before_file, case.name]
    env_file = case.with_suffix(".env")
    if env_file.is_file() and case.suffix != ".yaml":
        args += ["--env-file", env_file.name]
    return args


def snapshot(case: Path) -> str:
    args = command(case)
    proc = run_flaglint(*args, cwd=case.parent)
    text = f"$ flaglint {' '.join(args)}\nexit {proc.returncode}\n{proc.stdout}"
    text += f"--- stderr\n{proc.stderr}" if proc.stderr else ""
    return text.replace(f"{case.parent}/", "").replace(str(REPO), "<repo>")


def reported(rule: str, text: str) -> bool:
    return re.search(rf"\b(error|warning|info) {rule}\b", text) is not None


@pytest.mark.parametrize("case", cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_output_matches_the_snapshot(case, request):
    expected_file = case.with_name(case.name + ".out")
    actual = snapshot(case)
    rule = case.parent.name
    assert reported(rule, actual) == case.stem.startswith("bad"), f"a {case.stem} case of {rule}:\n{actual}"
    if request.config.getoption("--update-snapshots"):
        expected_file.write_text(actual, encoding="utf-8")
        return
    assert expected_file.is_file(), f"no snapshot {expected_file.relative_to(REPO)}: run with --update-snapshots"
    assert actual == expected_file.read_text(encoding="utf-8")


def test_every_rule_folder_has_good_and_bad_cases_and_no_stale_snapshot():
    for folder in _rule_folders():
        stems = {case.stem for case in folder.iterdir() if case.suffix in COMMANDS}
        assert any(s.startswith("good") for s in stems), f"{folder.name}: no good case"
        assert folder.name in NO_BAD_CASE or any(s.startswith("bad") for s in stems), f"{folder.name}: no bad case"
        assert (folder / "flaglint.toml").is_file(), f"{folder.name}: no flaglint.toml"
        for out in folder.glob("*.out"):
            assert out.with_suffix("").is_file(), f"{out.relative_to(REPO)} is the snapshot of no case"


# FL009's bad case, a flag string over 128 KiB, is made here rather than kept as a file.
NO_BAD_CASE = {"FL009"}


def test_fl009_a_flag_string_over_128_kib_stops_the_check():
    proc = run_flaglint("check", "-", stdin=b"log_period=100 run_name=" + b"r" * 131_072)
    assert proc.returncode == 1 and reported("FL009", proc.stdout), proc.stdout
