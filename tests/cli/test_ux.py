"""The command line read one way: inputs named alike in every command, options honoured or refused,
messages that point where they say, the help, and `flaglint smoke`."""

import json
import os
import re
import shlex
import subprocess
import xml.etree.ElementTree as ET

import pytest
from commandline import EXAMPLES, REPO, run_flaglint, run_flaglint_process
from hypothesis import example, given, settings
from hypothesis import strategies as st

from flaglint.read.flags import read_dotenv

TYPOS = EXAMPLES / "flags" / "typos.flags"
TRAIN = "python3 -m maxtext.train"


def _one_line_error(ran, *parts: str) -> None:
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout
    (line,) = ran.stderr.strip().splitlines()
    assert line.startswith("flaglint: error: ") and all(part in line for part in parts), line


# ---- the help ----

def test_the_top_level_help_gives_every_command_one_whole_line():
    ran = run_flaglint("--help")
    commands = ran.stdout.split("Commands:\n", 1)[1].splitlines()
    names = [line.split()[0] for line in commands]
    assert sorted(names) == sorted(["check", "lint", "gate", "show", "render", "rules", "explain", "pins", "schema", "config", "smoke", "memory", "server"])
    assert all(line.rstrip().endswith(".") and "..." not in line for line in commands), commands


@pytest.mark.parametrize("group, last_words", [("schema", "and register it as a pin."), ("pins", "defaults, validators.")])
def test_a_sub_group_s_help_gives_each_command_a_whole_sentence(group, last_words):
    listed = run_flaglint(group, "--help").stdout.split("Commands:\n", 1)[1]
    assert "..." not in listed and " ".join(listed.split()).endswith(last_words), listed


def test_dash_h_is_help_at_the_top_and_on_each_command():
    assert run_flaglint("-h").stdout == run_flaglint("--help").stdout
    assert run_flaglint("lint", "-h").stdout == run_flaglint("lint", "--help").stdout != ""


@pytest.mark.parametrize(("typed", "meant"), [("chek", "check"), ("lnt", "lint"), ("pin", "pins")])
def test_a_misspelled_command_gets_a_suggestion(typed, meant):
    _one_line_error(run_flaglint(typed), f"no command {typed!r}", f"did you mean `flaglint {meant}`?")


# ---- inputs ----

def test_a_path_that_exists_is_read_as_a_flag_file():
    by_path = json.loads(run_flaglint("check", "--format", "json", str(TYPOS)).stdout)
    by_option = json.loads(run_flaglint("check", "--format", "json", "-f", str(TYPOS)).stdout)
    assert by_path == by_option and "FL001" not in {f["rule"] for f in by_path["findings"]}
    assert {f["location"]["file"] for f in by_path["findings"]} == {"examples/flags/typos.flags"}


def test_a_flag_file_given_as_a_path_is_fixed_in_place(tmp_path):
    flags = tmp_path / "run.flags"
    flags.write_text("log_period=100 bogus_key=1\n")
    assert run_flaglint("check", "--fix", "run.flags", cwd=tmp_path).returncode == 0
    assert flags.read_text() == "log_period=100\n"


@pytest.mark.parametrize("given", [("-f", str(TYPOS), "steps=1"), ("--batch", str(TYPOS), "steps=1")])
def test_a_file_option_with_flags_too_is_refused(given):
    _one_line_error(run_flaglint("check", *given), "steps=1", "give one or the other")


@pytest.mark.parametrize("command", [
    ("check", "-f", "missing.flags"), ("check", "--batch", "missing.flags"), ("lint", "missing.flags"),
    ("gate", "missing.flags"), ("render", "missing.flags"), ("smoke", "--recipe", "missing.flags"),
    ("check", "--env-file", "missing.flags", "log_period=1"), ("check", "--requirements", "missing.flags", "log_period=1"),
    ("check", "missing.flags.yml", "steps=1"), ("show", "missing.flags.yml", "steps"),
])
def test_a_missing_file_is_worded_one_way_by_every_command(command):
    missing = next(word for word in command if word.startswith("missing"))
    _one_line_error(run_flaglint(*command), f"{missing}: cannot read (No such file or directory")


def test_lint_of_a_directory_lints_the_scripts_below_it_once_each(tmp_path):
    (tmp_path / "recipes" / "nested").mkdir(parents=True)
    (tmp_path / "recipes" / "a.sh").write_text(f"{TRAIN} bogus_a=1\n")
    (tmp_path / "recipes" / "nested" / "b.sh").write_text(f"{TRAIN} bogus_b=1\n")
    (tmp_path / "recipes" / "notes.txt").write_text("not a script\n")
    ran = run_flaglint("lint", "--format", "json", "recipes", "recipes/a.sh", cwd=tmp_path)
    files = [f["location"]["file"] for f in json.loads(ran.stdout)["findings"]]
    assert sorted(files) == ["recipes/a.sh", "recipes/nested/b.sh"], files
    (tmp_path / "empty").mkdir()
    _one_line_error(run_flaglint("lint", "empty", cwd=tmp_path), "empty: a directory with no scripts in it")


def test_gate_of_a_directory_gates_the_manifests_in_it(tmp_path):
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "bad.yaml").write_bytes((EXAMPLES / "jobsets" / "trainer-256-bad.yaml").read_bytes())
    by_directory = run_flaglint("gate", "--format", "json", "--pin", "bbd0f6f10", "jobs", cwd=tmp_path)
    by_file = run_flaglint("gate", "--format", "json", "--pin", "bbd0f6f10", "jobs/bad.yaml", cwd=tmp_path)
    assert by_directory.returncode == by_file.returncode == 1 and by_directory.stdout == by_file.stdout


def test_render_reads_stdin_as_it_reads_the_file(tmp_path):
    script = b'export MODE="${MODE:-train}" FLAGS="steps=1 run_name=it\'s"\n'
    (tmp_path / "run.sh").write_bytes(script)
    from_file = run_flaglint("render", "--env", "MODE=eval", "run.sh", cwd=tmp_path)
    from_stdin = run_flaglint("render", "--env", "MODE=eval", "-", stdin=script, cwd=tmp_path)
    assert from_file.returncode == from_stdin.returncode == 0 and from_file.stdout == from_stdin.stdout != ""


# What bash can hold in a variable and a script can write in single quotes: any text but NUL.
VALUES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)


@settings(max_examples=50)
@given(values=st.dictionaries(st.from_regex(r"[A-Z][A-Z0-9_]{0,6}", fullmatch=True), VALUES, min_size=1, max_size=4))
# Found by CI's fresh draws: a value holding "\r\n" (the in-process run read render's output as
# click's Result.stdout gives it, each "\r\n" turned into "\n"; render prints the "\r").
@example(values={"A": "x\r\ny"})
def test_what_render_prints_sources_in_bash_to_the_script_s_values(tmp_path_factory, values):
    folder = tmp_path_factory.mktemp("render")
    script = "".join(f"export {name}={shlex.quote(value)}\n" for name, value in values.items())
    (folder / "run.sh").write_text(script, encoding="utf-8")
    rendered = run_flaglint("render", "run.sh", cwd=folder)
    assert rendered.returncode == 0, rendered.stderr
    printed = "".join(f'printf "%s\\0" "${name}"\n' for name in values)
    bash = subprocess.run(["bash", "-c", rendered.stdout + printed], capture_output=True, env={"PATH": os.environ["PATH"]})
    assert bash.returncode == 0 and bash.stdout.decode("utf-8").split("\0")[:-1] == list(values.values())


def test_a_value_only_running_the_script_would_give_is_not_sourced(tmp_path):
    (tmp_path / "run.sh").write_text("export HOST=$(hostname) MODE=train\n")
    lines = run_flaglint("render", "run.sh", cwd=tmp_path).stdout.splitlines()
    assert lines == ["# HOST=<unknown>: not known without running the script", "export MODE=train"]


# ---- --env-file as python-dotenv reads it ----

def test_an_env_file_s_inline_comment_is_not_part_of_the_value_in_check_and_show(tmp_path):
    (tmp_path / "run.env").write_text("TRAINER_MESH_FSDP=64 # fsdp\nPACK_PAD_POSITION=end # the default\n")
    checked = run_flaglint("check", "--format", "json", "--env-file", "run.env", "log_period=10", cwd=tmp_path)
    assert "FL008" not in {f["rule"] for f in json.loads(checked.stdout)["findings"]}, checked.stdout
    shown = run_flaglint("show", "--env-file", "run.env", "ici_fsdp_parallelism", cwd=tmp_path)
    assert shown.returncode == 0 and re.search(r"ici_fsdp_parallelism\W+64\b.*TRAINER_MESH_FSDP", shown.stdout), shown.stdout


def test_an_env_file_reads_quotes_escapes_exports_and_earlier_names():
    text = ("# a comment\nexport A=1 # one\nB='two # words' # and a comment\nC=\"x\\ty \\\"q\\\"\"\nD=#kept\nE=  # only a comment\n"
            "F=${A}-${Z:-default}\n'G'=g\nH\nI=a#b\nJ=\"two\nlines\"\n\nK=\n")
    assert read_dotenv(text, "f") == {"A": "1", "B": "two # words", "C": 'x\ty "q"', "D": "#kept", "E": "", "F": "1-default",
                                      "G": "g", "I": "a#b", "J": "two\nlines", "K": ""}


@pytest.mark.parametrize(("text", "error"), [("A=1\nB='x' y\n", "f:2: expected KEY=VALUE"), ("A=${NOPE}\n", "f:1: ${NOPE} is not set")])
def test_an_env_file_line_python_dotenv_would_skip_or_a_name_it_does_not_set_is_refused(text, error):
    with pytest.raises(Exception, match=re.escape(error)):
        read_dotenv(text, "f")


BARE = st.text(st.characters(whitelist_categories=("L", "N", "P", "S"), blacklist_characters="'\"#\\$"), min_size=1, max_size=20)


@given(values=st.lists(st.tuples(st.sampled_from(["bare", "single", "double"]), VALUES.filter(lambda v: "\r" not in v)), min_size=1, max_size=5),
       bare=BARE)
def test_values_written_in_each_quoting_read_back(values, bare):
    lines, expected = [], {}
    for number, (style, value) in enumerate(values):
        name = f"K{number}"
        if style == "bare":
            value = bare
            lines.append(f"{name}={value}  # comment")
        elif style == "single":
            value = value.replace("${", "$")  # python-dotenv expands ${…} in every style
            lines.append(f"{name}='" + value.replace("\\", "\\\\").replace("'", "\\'") + "'")
        else:
            value = value.replace("${", "$")
            lines.append(f'{name}="' + value.replace("\\", "\\\\").replace('"', '\\"') + '"')
        expected[name] = value
    assert read_dotenv("\n".join(lines) + "\n", "f") == expected


def test_a_requirement_with_extras_and_a_marker_names_its_pin(tmp_path):
    (tmp_path / "requirements.txt").write_text('jax==0.5\nmaxtext[tpu]==0.2.4 ; python_version >= "3.10"  # the trainer\n')
    ran = run_flaglint("check", "--format", "json", "--requirements", "requirements.txt", "log_period=10", cwd=tmp_path)
    assert json.loads(ran.stdout)["pin"] == "maxtext-0.2.4"


# ---- options honoured or refused ----

@pytest.mark.parametrize(("args", "parts"), [
    (("--batch", "-", "--format", "sarif"), ["--batch", "--format sarif"]),
    (("--batch", "-", "--statistics"), ["--batch", "--statistics"]),
    (("--batch", "-", "-o", "out.json"), ["--batch", "-o"]),
    (("--show-fixes", "log_period=1"), ["--show-fixes", "--fix"]),
    (("--unsafe-fixes", "log_period=1"), ["--unsafe-fixes"]),
    (("--fix", "--diff", "log_period=1"), ["--fix", "--diff"]),
    (("--statistics", "--format", "sarif", "log_period=1"), ["--statistics", "--format sarif"]),
    (("--batch", "-", "--confirm-with", "python3"), ["--batch", "--confirm-with"]),
    (("--files", "-f", str(TYPOS)), ["--file", "--files"]),
])
def test_an_option_nothing_would_honour_is_refused(args, parts):
    _one_line_error(run_flaglint("check", *args), *parts)


@pytest.mark.parametrize("command", [("check", "log_period=1"), ("lint", "run.sh"), ("gate", "job.yaml")])
def test_a_stdin_filename_without_stdin_is_refused(tmp_path, command):
    (tmp_path / "run.sh").write_text(f"{TRAIN} steps=1\n")
    (tmp_path / "job.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    _one_line_error(run_flaglint(command[0], "--stdin-filename", "x", *command[1:], cwd=tmp_path), "--stdin-filename x", "no input is `-`")


def test_lint_judges_the_devices_topology_gives(tmp_path):
    (tmp_path / "run.sh").write_text(f"{TRAIN} ici_fsdp_parallelism=3\n")
    assert run_flaglint("lint", "run.sh", cwd=tmp_path).returncode == 0
    ran = run_flaglint("lint", "--format", "json", "--topology", "v5p-8", "run.sh", cwd=tmp_path)
    assert ran.returncode == 1 and json.loads(ran.stdout)["findings"], ran.stdout


def test_batch_honours_exit_zero():
    assert run_flaglint("check", "--batch", "-", stdin=b"bogus_key=1\n").returncode == 1
    ran = run_flaglint("check", "--batch", "-", "--exit-zero", stdin=b"bogus_key=1\n")
    assert ran.returncode == 0 and json.loads(ran.stdout)["findings"]


def test_statistics_are_json_with_format_json():
    ran = run_flaglint("check", "--statistics", "--format", "json", "bogus_key=1 other_bogus=2 log_period=1.5")
    payload = json.loads(ran.stdout)
    assert ran.returncode == 1 and payload["total"] == 3
    assert [(row["rule"], row["count"]) for row in payload["statistics"]] == [("FL004", 2), ("FL005", 1)]


def test_junit_fails_what_fail_on_fails():
    # FL105 is a warning: with --fail-on warning the run fails, and so does its test case
    flags = "context=offload query_proj=device"
    for fail_on, code, failures in (("error", 0, "0"), ("warning", 1, "1")):
        ran = run_flaglint("check", "--format", "junit", "--fail-on", fail_on, flags)
        assert ran.returncode == code and ET.fromstring(ran.stdout).get("failures") == failures, ran.stdout


def test_quiet_with_nothing_to_report_prints_nothing():
    ran = run_flaglint("check", "-q", "--topology", "v5p-8", "log_period=10")
    assert ran.returncode == 0 and ran.stdout == "" and ran.stderr == ""


def test_diff_says_when_only_unsafe_fixes_exist():
    ran = run_flaglint("check", "--diff", "log_period=100 num_moe_token_chunks=4")
    assert ran.returncode == 0 and ran.stdout == ""
    assert "only unsafe fixes; --unsafe-fixes --diff shows them" in ran.stderr
    assert run_flaglint("check", "--diff", "--unsafe-fixes", "log_period=100 num_moe_token_chunks=4").stdout.startswith("--- a/<flags>")


def test_a_config_file_s_unknown_pin_is_refused_at_its_line(tmp_path):
    (tmp_path / "flaglint.toml").write_text('select = ["FL"]\npin = "nope"\n')
    for command in (("config",), ("check", "log_period=1")):
        _one_line_error(run_flaglint(*command, cwd=tmp_path), f"{tmp_path / 'flaglint.toml'}:2: pin: unknown pin 'nope'")


def test_show_with_nothing_to_show_says_so():
    _one_line_error(run_flaglint("show"), "nothing to show")


# ---- messages ----

def test_a_witness_names_the_file_of_each_branch_and_a_script_is_named_once(tmp_path):
    (tmp_path / "common.sh").write_text('if [[ "$BIG" == 1 ]]; then\n  FLAGS="bogus_key=1"\nfi\n')
    (tmp_path / "run.sh").write_text(f'source ./common.sh\nif [[ "$MODE" == x ]]; then\n  {TRAIN} $FLAGS\nfi\n')
    ran = run_flaglint("lint", "--format", "json", "run.sh", "./run.sh", cwd=tmp_path)
    (finding,) = json.loads(ran.stdout)["findings"]
    assert finding["witness"]["branches"] == [{"file": "common.sh", "line": 1}, {"file": "run.sh", "line": 2}], finding
    text = run_flaglint("lint", "run.sh", "run.sh", cwd=tmp_path).stdout
    assert "when: BIG=1 MODE=x; branches taken at lines 1 of common.sh and 2 of run.sh\n" in text, text


def test_a_finding_in_a_shared_file_is_reached_from_each_script_once(tmp_path):
    (tmp_path / "common.sh").write_text(f"{TRAIN} bogus_key=1\n")
    (tmp_path / "a.sh").write_text("source ./common.sh\n")
    ran = run_flaglint("lint", "a.sh", "./a.sh", "a.sh", cwd=tmp_path)
    assert "    reached from a.sh\n" in ran.stdout and "a.sh, " not in ran.stdout, ran.stdout


@pytest.mark.parametrize(("script", "where"), [("A=1\nB=\"\n", "2:4"), (f"{TRAIN} steps=1 )\n", "1:34"), ('echo "$(( 1 + ))"\n', "1:16")])
def test_a_syntax_error_is_located_at_its_column(tmp_path, script, where):
    (tmp_path / "bad.sh").write_text(script)
    ran = run_flaglint("lint", "bad.sh", cwd=tmp_path)
    assert ran.stdout.startswith(f"bad.sh:{where}: error FL010 "), ran.stdout
    assert run_flaglint("render", "bad.sh", cwd=tmp_path).stderr.startswith(f"flaglint: error: bad.sh:{where}: ")


# ---- smoke ----

def test_smoke_reports_findings_at_the_line_that_set_the_variable(tmp_path):
    pytest.importorskip("jax")
    (tmp_path / "run.env").write_text("COMPUTE_LOGPS_CHUNK_SIZE=4096\nTUNIX_LOGPS_SHARDED_HEAD=off # no head\n")
    ran = run_flaglint("smoke", "--env-file", "run.env", "--format", "json", cwd=tmp_path)
    (finding,) = json.loads(ran.stdout)["findings"]
    assert ran.returncode == 1 and finding["rule"] == "FL017" and finding["keys"] == ["COMPUTE_LOGPS_CHUNK_SIZE"]
    assert (finding["location"]["file"], finding["location"]["line"]) == ("run.env", 1)


@pytest.mark.process
def test_smoke_refuses_a_bad_value_before_it_loads_jax(tmp_path):
    # A jax that cannot be imported: smoke must not need it to refuse a value it cannot read.
    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "__init__.py").write_text("raise ImportError('jax was imported')\n")
    (tmp_path / "run.env").write_text("PACK_PAD_POSITION=start\nTUNIX_LOGPS_SHARDED_HEAD=fuse\n")
    ran = run_flaglint_process("smoke", "--env-file", "run.env", cwd=tmp_path,
                               env={"PYTHONPATH": os.pathsep.join((str(REPO), str(tmp_path)))})
    assert ran.returncode == 1 and "jax was imported" not in ran.stderr, ran.stderr
    assert ran.stdout.startswith("run.env:2:1: error FL008 TUNIX_LOGPS_SHARDED_HEAD='fuse' is not a head mode"), ran.stdout


def test_statistics_count_as_fixable_what_fix_makes_without_unsafe_fixes():
    def fixable(flags: str) -> tuple[int, int]:
        payload = json.loads(run_flaglint("check", "--statistics", "--format", "json", flags).stdout)
        return payload["total"], payload["fixable"]

    assert fixable("bogus_key=1 other_bogus=2") == (2, 2)  # dropped by a safe fix
    # the one fix also drops log_period's refused value (its default comes back): unsafe, so --fix changes nothing
    assert fixable("bogus_key=1 other_bogus=2 log_period=1.5") == (3, 0)
    assert run_flaglint("check", "--fix", "bogus_key=1 other_bogus=2 log_period=1.5").stdout.strip() == "bogus_key=1 other_bogus=2 log_period=1.5"
