"""MaxText command lines in scripts: recognised on every branch, argv words parsed with shell
quoting, the config argument resolved, findings at the word in the script; none on command lines
MaxText accepts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.maxtext.launch import recognise, xpk_command
from flaglint.render.bash.builtins import shell_operand
from flaglint.schema.config_index import load_index

SCRIPTS = Path(__file__).with_name("scripts")
INDEX = load_index("0.2.5")


def _lint(name: str):
    return check_script(SCRIPTS / name, Checker()).result


def _at(result):
    return sorted((f.rule, f.location.line, f.location.column) for f in result.findings if f.severity == "error")


def test_entry_points_are_the_pins_and_other_programs_are_ignored():
    assert recognise(["python3", "-m", "maxtext.trainers.pre_train.train", "a.yml", "k=v"], INDEX).config == "a.yml"
    assert recognise(["python", "-u", "/app/src/MaxText/train.py", "k=v"], INDEX).module == "maxtext.trainers.pre_train.train"
    assert recognise(["env", "A=1", "python3.12", "-m", "maxtext.trainers.post_train.sft.train_sft"], INDEX).default_config == "post_train/sft.yml"
    assert recognise(["python3", "-m", "pip", "install", "x"], INDEX) is None
    assert recognise(["python3", "-m", "maxtext.utils.max_utils"], INDEX) is None  # no pyconfig.initialize(argv) there
    assert xpk_command(["xpk", "workload", "create", "--command=python3 -m x"]) == "python3 -m x"


def test_each_refused_word_is_found_where_the_script_wrote_it():
    result = _lint("pretrain.sh")
    # `enable_checkpointing: False` is two words MaxText does not know. SCAN_LAYERS is set nowhere:
    # the caller's, taken as set (under `set -u` bash stops where it is not), so scan_layers is not
    # judged, and a note names the variable.
    assert _at(result) == [("FL004", 14, 3), ("FL004", 14, 25)]
    assert not [f for f in result.findings if f.rule == "FL012"]
    (scan,) = [n for n in result.notes if "scan_layers" in n]
    assert scan.endswith("pretrain.sh:15: scan_layers is not judged: it reads SCAN_LAYERS, which the script never sets: taken as"
                         " set by its caller, to a value not known here (--env SCAN_LAYERS=VALUE judges it)")


def test_a_value_one_branch_gives_is_found_with_that_branch():
    result = _lint("pretrain.sh")
    (batch,) = [f for f in result.findings if f.rule == "FL005" and "per_device_batch_size" in f.message] or [None]
    assert batch is None  # 0.5 is a float MaxText accepts: no finding on either branch


def test_command_lines_maxtext_accepts_give_no_finding():
    result = _lint("clean.sh")
    assert not [f for f in result.findings if f.severity != "info"], [f.message for f in result.findings]


def test_a_script_whose_only_launch_flaglint_cannot_verify_fails_closed(tmp_path):
    """grpo_trainer cuts its argv into two configs: its launch is FL011 (a warning with
    --allow-unverified), never an empty flag string that passes."""
    script = tmp_path / "grpo.sh"
    script.write_text("#!/bin/bash\npython3 -m maxtext.experimental.rl.grpo_trainer grpo.yml run_name=x grpo_inference.yml\n")
    for allow, severity in ((False, "error"), (True, "warning")):
        findings = check_script(script, Checker(), allow_unverified=allow).result.findings
        assert [(f.rule, f.severity, f.location.line) for f in findings] == [("FL011", severity, 2)]


def test_an_xpk_command_string_is_checked_at_its_text():
    result = _lint("xpk.sh")
    (finding,) = [f for f in result.findings if f.severity == "error"]
    text = (SCRIPTS / "xpk.sh").read_text().splitlines()[finding.location.line - 1]
    assert finding.rule == "FL005" and text[finding.location.column - 1:].startswith("log_period=1.5")


def test_other_config_classes_missing_configs_and_m_variables():
    result = _lint("other.sh")
    notes = " ".join(result.notes)
    # train_rl is judged with RLConfig's keys, trainer_devices_fraction among them
    assert not [f for f in result.findings if f.location.line == 3]
    assert "configs/missing.yml" in notes
    assert ("FL040", 6) in {(f.rule, f.location.line) for f in result.findings}


def test_an_xpk_command_loses_its_redirections_and_keeps_the_keys_inputs_set():
    # bash takes `2>&1`, `>/tmp/out.log` and `2> /tmp/err.log` out before MaxText sees its argv,
    # and `|& tee` is another command; an input that sets a key inside the string is checked at
    # each value: STAGES=4 does not divide the 3 microbatches.
    from flaglint.frontends.lint.scripts import check_script

    result = check_script(SCRIPTS / "xpk_redirects.sh", Checker(), vary={"STAGES": ["1", "4"]}).result
    errors = [f for f in result.findings if f.severity == "error"]
    assert [f.rule for f in errors] == ["MX1GVDH"], [f.message for f in errors]
    assert errors[0].witness["env"] == {"STAGES": "4"}
    # both keys are placed where the script writes them, also the one whose value the input gives
    places = [(where.file, where.line) for where in (errors[0].location, *errors[0].related)]
    assert places == [(str(SCRIPTS / "xpk_redirects.sh"), 6)] * 2
    assert not [f for f in result.findings if "2>" in f.message or "/tmp/" in f.message]


def test_command_lines_handed_over_as_strings_are_checked():
    result = _lint("command_strings.sh")
    found = sorted((f.location.line, f.message.split(":")[0]) for f in result.findings if f.severity == "error")
    assert found == [(5, "steps"), (6, "log_period"), (7, "checkpoint_period"), (8, "eval_interval"), (8, "per_device_batch_size")]


@pytest.mark.parametrize("options", [["-c"], ["-lc"], ["-ec"], ["-e", "-c"], ["-o", "pipefail", "-c"], ["-o", "pipefail"],
                                     ["-e"], [], ["--norc", "-c"], ["-x", "--"], ["+o", "posix", "-c"]])
def test_bash_options_are_read_as_bash_reads_them(options, tmp_path):
    # One operand that is both a command string and the name of a script file: bash says which it took.
    operand = "echo from-string; true"
    (tmp_path / operand).write_text("echo from-file\n")
    ran = subprocess.run(["bash", *options, operand], capture_output=True, text=True, cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert "from-string" in ran.stdout or "from-file" in ran.stdout, ran.stderr
    at, command_string = shell_operand([*options, operand])
    assert command_string == ("from-string" in ran.stdout)
    assert at == len(options)


def test_a_config_the_script_writes_is_the_one_checked_where_it_is_written():
    result = _lint("writes_config.sh")
    errors = sorted((f.location.line, f.location.column, f.message.split(":")[0]) for f in result.findings if f.severity == "error")
    # log_period 2.5 in the here-document; `steps: $STEPS` from a quoted one (no expansion) is not an
    # integer; `maybe` in the echo's text, which starts in the middle of its line.
    assert errors == [(12, 1, "log_period"), (16, 1, "steps"), (19, 1, "enable_checkpointing")], errors
    assert not [n for n in result.notes if "not found" in n]


@pytest.mark.parametrize("writes", [
    'cat > out.yml <<EOF\na: "$X"\nb: ${X}-2\nEOF',
    "cat > out.yml <<'EOF'\na: $X\nEOF",
    'cat <<EOF > out.yml\n  a: 1\n\tb: \\$X\nEOF\ncat >> out.yml <<"EOF"\nc: $X\nEOF',
    "echo 'a: 1\nb: 2' > out.yml",
    'echo -n "a: $X" > out.yml\necho " tail" >> out.yml',
    'echo a: $X b > out.yml',
])
def test_the_files_a_script_writes_are_what_bash_writes(writes, tmp_path):
    from flaglint.render import evaluate

    script = tmp_path / "writes.sh"
    script.write_text(f"X=seven\n{writes}\npython3 -c pass\n")
    subprocess.run(["bash", str(script)], cwd=tmp_path, check=True, env={"PATH": "/usr/bin:/bin"})
    (outcome,) = evaluate(script).outcomes
    (launch,) = outcome.rendering.launched
    assert launch.files["out.yml"].text == (tmp_path / "out.yml").read_text()


def test_an_xpk_workload_gives_the_devices_and_slices_of_its_command_line():
    result = _lint("xpk_slices.sh")
    errors = sorted((f.location.line, f.rule) for f in result.findings if f.severity == "error")
    # two v5p-256 slices take DCN parallelism 2; one does not; a tpu7x 4x4x4 slice has 128 devices
    # (two per chip), which an ICI mesh of 64 does not span
    assert errors == [(7, "MXRQ7R8"), (9, "FL141")], [(f.location.line, f.rule, f.message[:80]) for f in result.findings]


@pytest.mark.parametrize(("words", "devices", "topology"), [
    (["--tpu-type=v5litepod-16"], 16, "v5e-16"),  # XPK's v5e names are MaxText's v5e-N
    (["--tpu-type", "v5litepod-16x16", "--num-slices", "2"], 512, "v5e-256"),
    (["--tpu-type=v5p-8", "--num-slices=4"], 16, "v5p-8"),  # a v5p-8 is 4 chips, one device each
    (["--device-type=tpu7x-4x4x8"], 256, "tpu7x-256"),  # two devices a chip
    (["--tpu-type=v6e-256"], 256, "v6e-256"),
])
def test_an_xpk_workload_names_its_devices_and_the_compile_topology_of_a_slice(words, devices, topology):
    from flaglint.frontends.commands import xpk_devices

    count = xpk_devices(["xpk", "workload", "create", *words], "0.2.5")
    assert (count.devices, count.topology) == (devices, topology)


def test_a_tpu_type_maxtext_has_no_topology_for_gives_no_device_count():
    from flaglint.frontends.commands import xpk_devices

    assert xpk_devices(["--tpu-type=v5litepod-3"], "0.2.5") is None


def test_a_value_a_command_substitution_prints_is_not_judged(tmp_path):
    # flaglint never runs `$(nproc)`: the keys it sets are unknown, neither empty nor refused.
    script = tmp_path / "opaque.sh"
    script.write_text(
        "#!/bin/bash\n"
        'export MAXTEXT_EXTRA_FLAGS="steps=$(nproc) log_period=1.5"\n'
        "python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml run_name=r steps=$(nproc) eval_interval=2.5\n"
        "cat > gen.yml <<EOF\nbase_config: base.yml\nper_device_batch_size: $(nproc)\ncheckpoint_period: 3.5\nEOF\n"
        "python3 -m maxtext.trainers.pre_train.train gen.yml run_name=r\n")
    result = check_script(script, Checker()).result
    errors = sorted((f.location.line, f.message.split(":")[0]) for f in result.findings if f.severity == "error")
    assert errors == [(2, "log_period"), (3, "eval_interval"), (7, "checkpoint_period")], errors
    assert not result.fixes or all("steps" not in c.key for fix in result.fixes for c in fix.changes)


def test_a_container_runs_the_trainer_on_the_config_the_script_wrote():
    result = _lint("docker_written_config.sh")
    errors = sorted((f.location.line, f.message.split(":")[0]) for f in result.findings if f.severity == "error")
    assert errors == [(9, "steps"), (16, "log_period")], errors  # the written file's line, the command line's word
    assert any("taken to be" in note and "llama_gpu.yml" in note for note in result.notes), result.notes


def test_a_written_config_is_found_by_any_name_of_its_path(tmp_path):
    script = tmp_path / "dotted.sh"
    script.write_text("#!/bin/bash\ncat > configs/../out.yml <<EOF\nbase_config: base.yml\nsteps: 2.5\nEOF\n"
                      "python3 -m maxtext.trainers.pre_train.train ./out.yml run_name=r\n")
    (error,) = [f for f in check_script(script, Checker()).result.findings if f.severity == "error"]
    assert (error.location.line, error.message.split(":")[0]) == (4, "steps")
