"""MaxText's checks that no rule states, at the bundled releases: a config that sets a key such a
check reads is told so (FL016), a warning in check and an error in gate unless --allow-unverified;
never "no findings" where MaxText would refuse for a reason flaglint cannot see."""

from __future__ import annotations

import json
import textwrap

import pytest
import yaml
from commandline import REPO, run_flaglint
from maxtext_env import RELEASES

from flaglint.frontends.checker import Checker
from flaglint.importer.validator_walker import CHECKED_ELSEWHERE
from flaglint.pins.pins import load_pin, not_judged
from flaglint.read.flags import FlagSource
from flaglint.resolve.topology import DeviceCount
from flaglint.rules.expr import parse


def _findings(pin: str, flags: str) -> dict[str, list]:
    result = Checker(pin).check(FlagSource(flags), fix=False)
    found: dict[str, list] = {}
    for finding in result.findings:
        found.setdefault(finding.severity, []).append(finding)
    return found


# The classes MaxText 0.2.2-0.2.5 refused without a word from flaglint (measured against each
# release's pyconfig): each now gets a rule's error or the finding that says it is not judged.
REPRODUCERS = [
    ("maxtext-0.2.3", "context_parallel_strategy=ring ici_context_parallelism=2"),
    ("maxtext-0.2.3", "ici_context_parallelism=2 context_parallel_reorder_strategy=striped"),
    ("maxtext-0.2.3", "context_sharding=tensor"),
    ("maxtext-0.2.3", "ici_sequence_parallelism=3"),
    *[(f"maxtext-{v}", "num_slices=3 dcn_diloco_parallelism=-1 dcn_fsdp_parallelism=2") for v in ("0.2.3", "0.2.4", "0.2.5")],
    *[(f"maxtext-{v}", "compress_ratios=[2]") for v in ("0.2.3", "0.2.4", "0.2.5")],
]


@pytest.mark.parametrize("pin, flags", REPRODUCERS)
def test_a_refusal_flaglint_cannot_state_is_never_a_silent_pass(pin, flags):
    found = _findings(pin, flags)
    assert found.get("error") or any(f.rule == "FL016" for f in found.get("warning", [])), (pin, flags, found)


def test_the_inline_custom_mesh_read_of_0_2_3_is_judged_by_rules():
    for flags, rule in [("context_parallel_strategy=ring ici_context_parallelism=2", "MX52WMC"), ("context_sharding=tensor", "MXRPZNS"),
                        ("ici_sequence_parallelism=3", "MXFN6M5")]:
        assert [f.rule for f in _findings("maxtext-0.2.3", flags).get("error", [])] == [rule]
    # cp-as-ep's file names the context and expert axes itself: nothing to refuse
    assert not _findings("maxtext-0.2.3", "custom_mesh_and_rule=cp-as-ep ici_expert_parallelism=2")


def test_the_finding_names_the_check_the_keys_set_and_why():
    (finding,) = _findings("maxtext-0.2.5", "log_period=10 chat_template=template.jinja")["warning"]
    assert finding.rule == "FL016" and finding.keys == ("chat_template",)
    assert "MX78525 (maxtext/configs/types.py:" in finding.message and "reads chat_template, set here" in finding.message
    assert "(jinja parse (chat_template))" in finding.message and "Specified chat_template is invalid" in finding.message
    assert (finding.location.line, finding.location.column) == (1, 15)


@pytest.mark.parametrize("version", ["0.2.3", "0.2.4", "0.2.5"])
def test_a_list_value_is_judged_element_by_element(version):
    # MaxText loops over compress_ratios: one term per element of the list the config gives
    (finding,) = _findings(f"maxtext-{version}", "log_period=10 compress_ratios=[0,8,2]")["error"]
    assert finding.rule == "MXA8YX8" and finding.keys == ("compress_ratios",)
    assert not _findings(f"maxtext-{version}", "compress_ratios=[0,4,128]")


@pytest.mark.parametrize("flags", ["log_period=10", "dcn_diloco_parallelism=2 num_slices=4", "hf_access_token=x"])
def test_no_finding_where_no_key_is_set_or_the_stated_part_of_the_way_fails(flags):
    # dcn_diloco_parallelism=2: the check runs only for -1; hf_access_token: Engram is off (and FL119 states it)
    assert not [f for f in Checker("maxtext-0.2.5").check(FlagSource(flags), fix=False).findings if f.rule == "FL016"]


def test_values_from_maxtext_own_files_do_not_make_a_check_worth_naming():
    # deepseek4-284b's model file sets compress_ratios (0, 4, 128): MaxText's checks accept its own values
    own = Checker("maxtext-0.2.5").check(FlagSource("model_name=deepseek4-284b"), fix=False)
    assert not [f for f in own.findings if "compress_ratios" in f.keys or f.rule == "FL016"]
    set_again = Checker("maxtext-0.2.5").check(FlagSource("model_name=deepseek4-284b override_model_config=true compress_ratios=[2]"), fix=False)
    assert [f.rule for f in set_again.findings if "compress_ratios" in f.keys or f.rule == "FL016"] == ["MXA8YX8"]


def test_a_check_a_hand_written_rule_states_is_judged():
    result = Checker("maxtext-0.2.5").check(FlagSource("model_name=deepseek-custom tokenizer_path=x"), fix=False)
    assert "FL119" in {f.rule for f in result.findings} and "FL016" not in {f.rule for f in result.findings}


@pytest.mark.parametrize("version", RELEASES)
def test_every_check_not_judged_carries_keys_unless_flaglint_checks_it_elsewhere(version):
    entries = yaml.safe_load((REPO / "rules" / "maxtext" / version / "unexpressible.yml").read_text())["unexpressible"]
    for entry in entries:
        elsewhere = entry["reason"] in CHECKED_ELSEWHERE or entry["reason"].startswith("unreachable")
        assert bool(entry.get("keys")) != elsewhere, entry
        assert set(entry.get("keys", ())) <= set(load_pin(version).keys), entry
        if "when" in entry:
            parse(entry["when"])
    assert len(not_judged(version)) == sum(1 for e in entries if e.get("keys"))


JOBSET = textwrap.dedent("""\
    apiVersion: jobset.x-k8s.io/v1alpha2
    kind: JobSet
    metadata:
      name: not-judged
    spec:
      replicatedJobs:
      - name: proc
        replicas: 1
        template:
          spec:
            template:
              spec:
                containers:
                - name: main
                  image: trainer
                  command: [bash, -c, "MAXTEXT_EXTRA_FLAGS='chat_template=template.jinja' python -m tunix.experimental.distributed.runtime.main"]
    """)


def test_check_warns_and_the_gate_fails_closed_unless_unverified_is_allowed(tmp_path):
    manifest = tmp_path / "jobset.yaml"
    manifest.write_text(JOBSET)
    check = run_flaglint("check", "--format", "json", "chat_template=template.jinja")
    assert check.returncode == 0 and [f["severity"] for f in json.loads(check.stdout)["findings"]] == ["warning"]
    gate = run_flaglint("gate", "--format", "json", str(manifest))
    assert gate.returncode == 1 and [(f["rule"], f["severity"]) for f in json.loads(gate.stdout)["findings"]] == [("FL016", "error")]
    allowed = run_flaglint("gate", "--format", "json", "--allow-unverified", str(manifest))
    assert allowed.returncode == 0 and [f["severity"] for f in json.loads(allowed.stdout)["findings"]] == ["warning"]


@pytest.mark.parametrize("release", [r for r in RELEASES if r != "0.2.5"])
def test_with_a_device_count_the_mesh_checks_another_release_has_are_said_not_judged(release):
    """FL140–FL143 follow 0.2.5's mesh code: at another release a device count does not judge them,
    and the check says so, never a silent pass of an ICI mesh that does not span the slice."""
    result = Checker(f"maxtext-{release}", devices=DeviceCount(4, 1, "--topology v5p-8")).check(
        FlagSource("ici_tensor_parallelism=3"), fix=False)
    assert not any(f.rule.startswith("FL14") for f in result.findings)
    assert [n for n in result.notes if "FL140, FL141, FL142, FL143" in n] == [
        f"FL140, FL141, FL142, FL143 (the mesh MaxText builds at start-up) are written for the mesh code of maxtext-0.2.5: "
        f"not judged at maxtext-{release}"]
    judged = Checker("maxtext-0.2.5", devices=DeviceCount(4, 1, "--topology v5p-8")).check(FlagSource("ici_tensor_parallelism=3"), fix=False)
    assert "FL141" in {f.rule for f in judged.findings} and not [n for n in judged.notes if "FL140" in n]
