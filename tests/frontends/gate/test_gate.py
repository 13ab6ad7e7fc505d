"""`flaglint gate` and check_manifest on JobSets in the shape the seed's launcher produces."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.cli import main
from flaglint.core.findings import InputError
from flaglint.frontends.checker import Checker
from flaglint.frontends.gate.manifests import check_manifest

ROOT = Path(__file__).parents[3]
JOBSETS = ROOT / "examples" / "jobsets"
PIN = "bbd0f6f10"
SARIF_SCHEMA = json.loads((ROOT / "tests" / "report" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


_CHECKER = Checker(PIN)


@pytest.fixture(scope="module")
def checker() -> Checker:
    return _CHECKER


def _findings(checked, severity="error"):
    return [f for item in checked for f in item.result.findings if f.severity == severity]


def _position_of(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    at = -1
    for _ in range(occurrence):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def gate(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["gate", "--pin", PIN, *args], input=stdin)


def test_the_seeds_256_chip_conflict_is_found_inside_the_bash_c_command(checker):
    path = JOBSETS / "trainer-256-bad.yaml"
    text = path.read_text(encoding="utf-8")
    (error,) = _findings(check_manifest(path, checker=checker))
    assert error.rule == "FL101"
    assert error.message.startswith("grpo-trainer-256/proc/main (python): moe_roe_packed_routing_gather=true requires")
    line, column = _position_of(text, "moe_chunk_pipeline=false")
    assert (error.location.file, error.location.line, error.location.column) == (str(path), line, column)
    assert error.location.end_column == column + len("moe_chunk_pipeline=false")
    related_line, related_column = _position_of(text, "moe_roe_packed_routing_gather=true")
    assert [(r.line, r.column) for r in error.related] == [(related_line, related_column)]


def test_the_cli_blocks_the_bad_trainer_and_passes_the_good_ones():
    bad = gate(str(JOBSETS / "trainer-256-bad.yaml"))
    assert bad.exit_code == 1
    assert "trainer-256-bad.yaml:" in bad.output and "error FL101" in bad.output
    for name in ("trainer-128.yaml", "trainer-256.yaml", "rollout.yaml", "orchestrator.yaml"):
        result = gate(str(JOBSETS / name))
        assert result.exit_code == 0, (name, result.output)


def test_orchestrator_env_values_are_checked_and_located():
    path = JOBSETS / "orchestrator-fp8-bad.yaml"
    result = gate(str(path), "--format", "json")
    assert result.exit_code == 1
    (finding,) = [f for f in json.loads(result.output)["findings"] if f["severity"] == "error"]
    text = path.read_text(encoding="utf-8")
    line, column = _position_of(text, '"true"', 1)
    assert finding["rule"] == "FL115"
    assert (finding["location"]["line"], finding["location"]["column"]) == (line, column + 1)


def _apply_placed(text: str, placed) -> str:
    lines = text.split("\n")
    for edit in sorted(placed, key=lambda e: (e.location.line, e.location.column), reverse=True):
        loc, line = edit.location, lines[edit.location.line - 1]
        assert line[loc.column - 1:loc.end_column - 1] == edit.old  # the edit names what is there
        lines[loc.line - 1] = line[:loc.column - 1] + edit.new + line[loc.end_column - 1:]
    return "\n".join(lines)


# "ring": chunks need the ring of experts; one fix deletes a token, the other inserts one after the last.
@pytest.mark.parametrize("name,pin", [("trainer-256-bad.yaml", PIN), ("trainer-256-bad.yaml", "maxtext-0.2.5"),
                                      ("orchestrator-fp8-bad.yaml", PIN), ("ring", "maxtext-0.2.5")])
def test_every_fix_is_given_as_edits_of_the_manifest_that_make_it_pass(name, pin):
    if name == "ring":
        text = 'apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: t}\nspec:\n  replicatedJobs:\n' \
               '  - name: p\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n' \
               '            - name: main\n              command: [python, -m, tunix.train]\n              env:\n' \
               '              - {name: MAXTEXT_EXTRA_FLAGS, value: "ici_expert_parallelism=2 num_moe_token_chunks=4"}\n'
    else:
        text = (JOBSETS / name).read_text(encoding="utf-8")
    checked = check_manifest(text, checker=Checker(pin), label=name)
    fixes = [fix for item in checked for fix in item.result.fixes]
    assert _findings(checked) and fixes
    for fix in fixes:
        assert fix.edits and all(edit.location and edit.location.file == name for edit in fix.edits)
        if any(not edit.written for edit in fix.edits):
            continue  # unsetting a variable removes its entry: not an edit of characters
        assert not _findings(check_manifest(_apply_placed(text, fix.edits), checker=Checker(pin), fix=False))
    if name == "ring":
        assert sorted(bool(edit.old) for fix in fixes for edit in fix.edits) == [False, True]


def test_the_cli_lists_a_fix_as_manifest_edits():
    path = JOBSETS / "trainer-256-bad.yaml"
    output = gate(str(path)).output
    line, column = _position_of(path.read_text(encoding="utf-8"), "moe_roe_packed_routing_gather=true")
    assert f"{os.path.relpath(path)}:{line}:{column}: delete 'moe_roe_packed_routing_gather=true'" in output  # relative to the working directory
    assert "fixed flags" not in output
    fp8 = gate(str(JOBSETS / "orchestrator-fp8-bad.yaml")).output
    assert "ROLLOUT_FP8: 'false' -> 'true'" in fp8 and "unset TRAINER_FP8 (remove its entry)" in fp8


def test_the_topology_selector_is_the_trainers_slice(checker):
    text = (JOBSETS / "trainer-128.yaml").read_text(encoding="utf-8").replace("gke-tpu-topology: 4x4x8", "gke-tpu-topology: 4x8x8")
    (error,) = _findings(check_manifest(text, checker=checker, fix=False))
    assert error.rule == "FL113"
    line, column = _position_of(text, "gke-tpu-topology: 4x8x8")
    assert (error.location.line, error.location.column) == (line, column + len("gke-tpu-topology: "))


def test_launcher_flags_map_to_tunix_variables_at_their_value(checker):
    text = (JOBSETS / "trainer-128.yaml").read_text(encoding="utf-8").replace("--train_micro_batch_size=64", "--train_micro_batch_size=48")
    (error,) = _findings(check_manifest(text, checker=checker, fix=False))
    assert error.rule == "FL112"
    line, column = _position_of(text, "--train_micro_batch_size=48")
    assert (error.location.line, error.location.column) == (line, column + len("--train_micro_batch_size="))


FLOW_STYLE = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: flow}
spec:
  replicatedJobs:
  - name: proc
    template:
      spec:
        template:
          spec:
            containers:
            - name: main
              env:
              - {name: BASE, value: "per_device_batch_size=2"}
              command: ["bash", "-c", "export MAXTEXT_EXTRA_FLAGS=\\"$(BASE) moe_roe_packed_routing_gather=true moe_chunk_pipeline=false\\"\\nexec python3 -m tunix.main"]
"""


def test_flow_style_commands_with_kubelet_references_and_exported_flags(checker):
    (error,) = _findings(check_manifest(FLOW_STYLE, checker=checker, fix=False))
    assert error.rule == "FL101"
    assert (error.location.line, error.location.column) == _position_of(FLOW_STYLE, "moe_chunk_pipeline=false")
    assert error.location.file == "<manifest>"


def test_flags_in_a_plain_env_entry_are_checked():
    text = FLOW_STYLE.replace('command: ["bash", "-c", ', "command: [python, -m, tunix.main]\n              args: [").replace(
        '{name: BASE, value: "per_device_batch_size=2"}',
        "{name: MAXTEXT_EXTRA_FLAGS, value: moe_roe_packed_routing_gather=true moe_chunk_pipeline=false}")
    (error,) = _findings(check_manifest(text, pin=PIN, fix=False))
    assert (error.location.line, error.location.column) == _position_of(text, "moe_chunk_pipeline=false")


def test_non_jobsets_are_skipped_with_a_note_in_text_and_json():
    path = JOBSETS / "trainer-128.yaml"
    text_output = gate(str(path)).output
    assert f"note: {path}:106: skipped ConfigMap grpo-recipe (v1): it runs no container" in text_output
    assert "skipped Service grpo-trainer-head (v1)" in text_output
    only = check_manifest("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n", pin=PIN)
    assert only[0].result.notes == ["<manifest>:1: skipped Service s (v1): it runs no container"]
    # A gate that read no workload checked nothing: it does not pass.
    assert [(f.rule, f.severity) for f in only[0].result.findings] == [("FL011", "error")]


@pytest.mark.parametrize("text", ["kind: JobSet\nspec: [\n", "a: b\n  c: d\n", "- x\ny: z\n"])
def test_broken_yaml_exits_2_with_one_line(text):
    result = gate("-", stdin=text)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith("flaglint: error: <stdin>:") and "not valid YAML" in lines[0]


def test_a_missing_manifest_exits_2():
    result = gate(str(JOBSETS / "missing.yaml"))
    assert result.exit_code == 2 and "cannot read" in result.output
    with pytest.raises(InputError):
        check_manifest("no/such/manifest.yaml", pin=PIN)


def test_stdin_and_sarif_output_point_at_the_manifest():
    text = (JOBSETS / "trainer-256-bad.yaml").read_text(encoding="utf-8")
    result = gate("-", "--format", "sarif", stdin=text)
    assert result.exit_code == 1
    log = json.loads(result.output)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(log)
    (error,) = [r for r in log["runs"][0]["results"] if r["level"] == "error"]
    physical = error["locations"][0]["physicalLocation"]
    line, column = _position_of(text, "moe_chunk_pipeline=false")
    assert physical["artifactLocation"]["uri"] == "%3Cstdin%3E"
    assert (physical["region"]["startLine"], physical["region"]["startColumn"]) == (line, column)


def test_fail_on_warning_and_github_annotations():
    result = gate(str(JOBSETS / "trainer-256.yaml"), "--format", "github", "--fail-on", "info")
    assert result.exit_code == 1
    assert result.output.startswith("::notice file=")
    assert gate(str(JOBSETS / "trainer-256.yaml"), "--fail-on", "warning").exit_code == 0


def test_a_script_that_cannot_be_evaluated_fails_closed_at_its_line(checker):
    text = _block_manifest(["set -e", 'MAXTEXT_EXTRA_FLAGS="a=1" python -m tunix.main', "if then fi"])
    checked = check_manifest(text, checker=checker, fix=False)
    (error,) = _findings(checked)
    assert error.rule == "FL010" and error.message.startswith("flow/proc/main: the bash -c script cannot be evaluated")
    assert error.location.line == _position_of(text, "if then fi")[0]
    result = gate("-", stdin=text)
    assert result.exit_code == 1 and "error FL010" in result.output


def test_a_setup_python_command_is_not_taken_for_the_trainer(checker):
    text = FLOW_STYLE.replace("\\nexec python3 -m tunix.main", "\\npython -c pass\\nexec python3 -m tunix.main --mesh_fsdp=4")
    assert "python -c pass" in text
    checked = check_manifest(text, checker=checker, fix=False)
    assert len(checked) == 1
    assert [f.rule for f in _findings(checked)] == ["FL101"]


_KNOWN = ["per_device_batch_size=2", "remat_policy=full", "scan_layers=true", "max_target_length=4096"]


def _block_manifest(script_lines: list[str]) -> str:
    head = FLOW_STYLE.split("              command:")[0]
    return head + "              command:\n              - bash\n              - -c\n              - |\n" + "".join(
        f"                {line}\n" for line in script_lines)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_KNOWN), max_size=6), st.integers(0, 6), st.lists(st.sampled_from([" ", "  ", " \\\n  "]), min_size=7, max_size=7),
       st.booleans(), st.booleans())
def test_a_token_anywhere_in_a_block_script_is_located_exactly(known, where, separators, wrapped, echo_first):
    """Property: wherever the flag sits in the script, its finding points at its own manifest line and column."""
    tokens = list(known)
    tokens.insert(min(where, len(tokens)), "zz_not_a_key=1")
    flags = "".join(sep + token for sep, token in zip(separators, tokens)).lstrip(" ")
    launch = f'MAXTEXT_EXTRA_FLAGS="{flags}" python -m tunix.main --mesh_fsdp=1'
    launch = f"( {launch} ) &" if wrapped else launch
    lines = (["echo $$HOSTNAME; echo \"$$(date)\""] if echo_first else []) + launch.split("\n") + ["wait $$!"]
    text = _block_manifest(lines)
    (checked,) = check_manifest(text, checker=_CHECKER, fix=False)
    (finding,) = [f for f in checked.result.findings if f.rule == "FL004"]
    assert (finding.location.line, finding.location.column) == _position_of(text, "zz_not_a_key=1")
    assert finding.location.end_column == finding.location.column + len("zz_not_a_key=1")



_SHELL_WORDS = ['MAXTEXT_EXTRA_FLAGS="moe_chunk_pipeline=false x=1"', "python", "-m", "tunix.main", "--mesh_fsdp=4", "--mesh_fsdp",
                "(", ")", "&", ";", "\n", "$$", "$(A)", "\\\n", "'", '"', "export", "if", "then", "fi", "exec", "env",
                "TRAINER_MESH_FSDP=3", "--train_micro_batch_size=5", "${X:-y}", "$((1+2))", "|", "&&", "#"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(_SHELL_WORDS), max_size=16).map(" ".join), st.sampled_from([None, '"', "'", "|", ">"]),
       st.text(max_size=12), st.booleans())
def test_any_command_gives_findings_or_one_clear_error_never_a_crash(script, style, value, flow):
    document = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "f"},
                "spec": {"replicatedJobs": [{"name": "p", "template": {"spec": {"template": {"spec": {
                    "nodeSelector": {"cloud.google.com/gke-tpu-accelerator": "tpu7x", "cloud.google.com/gke-tpu-topology": "2x2x1"},
                    "containers": [{"name": "m", "env": [{"name": "A", "value": value}, {"name": "TRAINER_MESH_FSDP", "value": value}],
                                    "command": ["bash", "-c", script]}]}}}}}]}}
    text = yaml.dump(document, default_style=style, default_flow_style=flow, allow_unicode=True)
    try:
        checked = check_manifest(text, checker=_CHECKER, fix=False)
    except InputError as err:
        assert "\n" not in str(err)
        return
    for finding in (f for item in checked for f in item.result.findings):
        if finding.location is not None:
            assert 1 <= finding.location.line <= text.count("\n") + 1


def test_a_crlf_manifest_is_located_the_same(checker):
    text = (JOBSETS / "trainer-256-bad.yaml").read_text(encoding="utf-8")
    (lf,) = _findings(check_manifest(text, checker=checker, fix=False))
    (crlf,) = _findings(check_manifest(text.replace("\n", "\r\n"), checker=checker, fix=False))
    assert (crlf.rule, crlf.location.line, crlf.location.column) == (lf.rule, lf.location.line, lf.location.column)


def test_the_pin_can_come_from_a_requirements_file(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("jax==0.6.2\nmaxtext @ git+https://github.com/AI-Hypercomputer/maxtext@bbd0f6f10\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["gate", "--requirements", str(requirements), "--format", "json",
                                       str(JOBSETS / "trainer-256-bad.yaml")])
    assert result.exit_code == 1
    assert json.loads(result.output)["pin"] == "bbd0f6f10"


def test_env_options_are_defaults_that_the_manifest_overrides():
    orchestrator = str(JOBSETS / "orchestrator.yaml")
    assert gate(orchestrator, "--env", "ROLLOUT_FP8=false").exit_code == 0
    bad = JOBSETS / "orchestrator-fp8-bad.yaml"
    text = bad.read_text(encoding="utf-8").replace("              - name: ROLLOUT_FP8\n                value: \"false\"\n", "")
    assert "ROLLOUT_FP8" not in text
    assert gate("-", "--env", "ROLLOUT_FP8=false", stdin=text).exit_code == 1
    assert gate("-", "--env", "ROLLOUT_FP8=true", stdin=text).exit_code == 0


_MULTISLICE = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: multislice
spec:
  replicatedJobs:
    - name: slice-job
      replicas: REPLICAS
      template:
        spec:
          parallelism: 4
          completions: 4
          template:
            spec:
              nodeSelector:
                cloud.google.com/gke-tpu-accelerator: tpu-v5p-slice
                cloud.google.com/gke-tpu-topology: 2x2x4
              containers:
              - name: jax-tpu
                image: gcr.io/p/runner:latest
                command: [python3, -m, maxtext.trainers.pre_train.train, maxtext/configs/base.yml, run_name=t1, dcn_data_parallelism=2, ici_fsdp_parallelism=16]
"""


@pytest.mark.parametrize("replicas, errors", [("2", []), ("1", ["MXRQ7R8"]), ("3", ["FL143"])])
def test_each_replica_of_the_tpu_job_is_a_slice(replicas, errors):
    # A multislice JobSet runs one TPU slice per replica: DCN parallelism of 2 is for 2 slices; on 1
    # MaxText refuses it, and on 3 the mesh does not span the slices.
    (checked,) = check_manifest(_MULTISLICE.replace("REPLICAS", replicas), checker=Checker("maxtext-0.2.5"), fix=False)
    assert [f.rule for f in checked.result.findings if f.severity == "error"] == errors


@pytest.mark.parametrize("replicas", ["9" * 4400, "\u0663", "2147483648", "0", "-2", "two"])
def test_a_replicas_value_kubernetes_cannot_read_is_no_slice_count(replicas):
    # Kubernetes reads replicas as an int32 of ASCII digits: any other value gives no slice count, the
    # same verdict as a templated one, and never an error from reading the number.
    def errors(value):
        (checked,) = check_manifest(_MULTISLICE.replace("REPLICAS", value), checker=Checker("maxtext-0.2.5"), fix=False)
        return [(f.rule, f.message) for f in checked.result.findings if f.severity == "error"]

    assert errors(replicas) == errors("'{{ .Values.slices }}'")
    assert errors("2147483647") != errors(replicas)
