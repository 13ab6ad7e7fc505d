"""Launches written in bash's corners, and scripts that would keep lint busy without end: each
launch is seen and judged (its undefined key is FL004), or the construct is FL011 at its line
(fail closed), never exit 0 with the launch unseen; each unbounded construct is FL011 naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script

LAUNCH = "python3 -m maxtext.train src/maxtext/configs/base.yml run_name=a stepz=1"


def _errors(tmp_path: Path, text: str) -> list[tuple[str, int, str]]:
    script = tmp_path / "run.sh"
    script.write_text(text)
    findings = check_script(script, Checker()).result.findings
    return sorted((f.rule, f.location.line, f.message) for f in findings if f.severity == "error")


@pytest.mark.parametrize("text, line", [
    (f"command {LAUNCH}\n", 1),
    (f"command -p -- {LAUNCH}\n", 1),
    (f"coproc {LAUNCH}\n", 1),
    (f"coproc TRAIN {{ {LAUNCH}; }}\n", 1),
    (f"env -S '{LAUNCH}'\n", 1),
    (f"env -i -S'{LAUNCH}'\n", 1),
    (f"nice env --split-string='{LAUNCH}'\n", 1),
    (f"bash <<EOF\n{LAUNCH}\nEOF\n", 2),
    (f"bash -s <<< '{LAUNCH}'\n", 1),
    (f"trap '{LAUNCH}' EXIT\necho started\n", 1),
    (f"trap -- '{LAUNCH}' 0\n", 1),
    (f"bash -euxo pipefail -c '{LAUNCH}'\n", 1),
])
def test_a_launch_in_a_corner_of_bash_is_checked(tmp_path, text, line):
    (found,) = _errors(tmp_path, text)
    assert found[:2] == ("FL004", line) and "stepz" in found[2]


@pytest.mark.parametrize("text, line, reason", [
    (f"echo '{LAUNCH}' | bash\n", 1, "bash at line 1 reads its commands from standard input"),
    ("FLAGS=stepz=1\ndeclare -n ref=FLAGS\npython3 -m maxtext.train src/maxtext/configs/base.yml $ref\n", 2,
     "ref is a name reference at line 2 (declare -n)"),
    (f"declare -n ref=MAXTEXT_EXTRA_FLAGS\nexport ref=stepz=1\n{LAUNCH}\n", 1, "name reference"),
    (f"shopt -s expand_aliases\nalias train='{LAUNCH}'\ntrain\n", 1, "aliases are expanded from line 1"),
    ("run() {\n  local -x MAXTEXT_EXTRA_FLAGS=stepz=1\n  python3 -m maxtext.train src/maxtext/configs/base.yml\n}\nrun\n", 2,
     "MAXTEXT_EXTRA_FLAGS is exported from a function's own scope at line 2 (local -x)"),
    ('IFS=,\nFLAGS="run_name=a,stepz=10"\npython3 -m maxtext.train src/maxtext/configs/base.yml $FLAGS\n', 1,
     "IFS is set at line 1"),
    (f"run() {{ {LAUNCH}; }}\ntrap run EXIT\n", 2, "the EXIT trap at line 2 runs the function run"),
    ("env -S \"$(cat cmd.txt)\"\n", 1, "env -S at line 1 splits a string that is not known here"),
])
def test_a_construct_that_hides_a_launch_is_fl011_at_its_line(tmp_path, text, line, reason):
    unverified = [(found_line, message) for rule, found_line, message in _errors(tmp_path, text) if rule == "FL011"]
    assert any(found_line == line and reason in message for found_line, message in unverified), unverified


def test_an_alias_without_expand_aliases_is_never_run_and_a_cleanup_trap_is_quiet(tmp_path):
    # bash does not expand aliases in a script unless told to: `train` is no command there
    assert _errors(tmp_path, f"alias train='{LAUNCH}'\ntrain\n") == []
    assert _errors(tmp_path, "cleanup() { rm -rf /tmp/run; }\ntrap cleanup EXIT\n"
                             "python3 -m maxtext.train src/maxtext/configs/base.yml steps=5\n") == []


@pytest.mark.parametrize("construct, why", [
    ("while :; do A+=(x); done", "the array A grows past 16,384 elements at line 1"),
    ('while true; do X="$X$X a"; done', "X grows past 16,384 pieces at line 1"),
    ('for ((i=0;i<100000;i++)); do X="$X steps=$i"; done', "X grows past 16,384 pieces at line 1"),
    ("f() { f $X; }; f", "functions run inside one another 1,000 levels deep"),
])
def test_a_construct_without_end_before_a_launch_is_fl011_naming_it(tmp_path, construct, why):
    (found,) = _errors(tmp_path, f"{construct}\n{LAUNCH} $X\n")
    assert found[:2] == ("FL011", 1) and why in found[2]


def _case(arms: int) -> str:
    body = "\n".join(f'  m{i}) X="steps={i}" ;;' for i in range(arms))
    return f'case "$MODE" in\n{body}\nesac\npython3 -m maxtext.train src/maxtext/configs/base.yml stepz=1 $X\n'


@pytest.mark.slow
def test_a_case_of_5000_arms_is_answered(tmp_path):
    # judged or refused at the launch, as a case of a few arms is; in seconds, where 3,000 arms took 11
    assert [line for _, line, _ in _errors(tmp_path, _case(5000))] == [5003]


def test_a_case_of_500_arms_that_each_launch_is_checked_on_each(tmp_path):
    body = "\n".join(f"  m{i}) python3 -m maxtext.train src/maxtext/configs/base.yml steps={i} ;;" for i in range(500))
    text = f'case "$MODE" in\n{body}\n  m7) python3 -m maxtext.train src/maxtext/configs/base.yml stepz=1 ;;\nesac\n'
    assert _errors(tmp_path, text) == []  # the m7 arm after the first m7 is never taken
    text = text.replace("steps=250 ", "stepz=250 ")
    assert [(rule, line) for rule, line, _ in _errors(tmp_path, text)] == [("FL004", 252)]
