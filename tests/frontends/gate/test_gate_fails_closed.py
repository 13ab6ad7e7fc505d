"""The gate fails closed: every container of every workload that can run a trainer is checked
(JobSets of each served version, Jobs, CronJobs, Pods, apps/v1 workloads, `kind: List` items, each
document), env from ConfigMaps and Secrets of the input is resolved, keys are read as Kubernetes
reads them, and what is not read is FL011, never a pass."""

from __future__ import annotations

import base64
import json

import pytest
from commandline import run_flaglint as invoke
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.frontends.gate.manifests import check_manifest

PIN = "bbd0f6f10"
_CHECKER = Checker(PIN)
BAD = "log_period=10 bogus_key=1"  # FL004 at bogus_key


def _rules(text: str, **options) -> list[tuple[str, str, int]]:
    """(rule, severity, line) of every finding of the manifest."""
    checked = check_manifest(text, checker=_CHECKER, fix=False, **options)
    return sorted((f.rule, f.severity, f.location.line) for item in checked for f in item.result.findings)


def _line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def _container(env: str = f'[{{name: MAXTEXT_EXTRA_FLAGS, value: "{BAD}"}}]', indent: int = 0, extra: str = "") -> str:
    lines = ["containers:", "- name: main", "  image: trainer", f"  env: {env}", *extra.splitlines()]
    return "".join(" " * indent + line + "\n" for line in lines)


_WORKLOADS = {
    "JobSet v1alpha2": "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: w}\nspec:\n  replicatedJobs:\n"
                       "  - name: workers\n    template:\n      spec:\n        template:\n          spec:\n" + _container(indent=12),
    "JobSet v1alpha1": "apiVersion: jobset.x-k8s.io/v1alpha1\nkind: JobSet\nmetadata: {name: w}\nspec:\n  replicatedJobs:\n"
                       "  - name: workers\n    template:\n      spec:\n        template:\n          spec:\n" + _container(indent=12),
    "Job": "apiVersion: batch/v1\nkind: Job\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n" + _container(indent=6),
    "CronJob": "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: w}\nspec:\n  schedule: '@daily'\n  jobTemplate:\n    spec:\n"
               "      template:\n        spec:\n" + _container(indent=10),
    "Pod": "apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n" + _container(indent=2),
    "Deployment": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n" + _container(indent=6),
    "StatefulSet": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n" + _container(indent=6),
}


@pytest.mark.parametrize("kind", list(_WORKLOADS))
def test_every_workload_kind_that_runs_a_container_is_checked(kind):
    text = _WORKLOADS[kind]
    assert _rules(text) == [("FL004", "error", _line_of(text, BAD))]


def test_a_kind_list_and_every_document_are_checked():
    pod = _WORKLOADS["Pod"]
    listed = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        ("- " if number == 0 else "  ") + line + "\n" for number, line in enumerate(pod.splitlines()))
    text = listed + "---\n" + _WORKLOADS["Job"]
    assert [rule for rule, _, _ in _rules(text)] == ["FL004", "FL004"]


def test_a_workload_of_an_api_flaglint_does_not_read_is_fl011():
    unknown = ("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l}\nspec:\n"
               "  leaderWorkerTemplate:\n    workerTemplate:\n      spec:\n" + _container(indent=8))
    assert _rules(unknown) == [("FL011", "error", 1)]
    assert _rules(unknown, allow_unverified=True) == [("FL011", "warning", 1)]
    future = _WORKLOADS["JobSet v1alpha2"].replace("v1alpha2", "v9")
    assert _rules(future) == [("FL011", "error", 1)]


def test_nothing_to_read_is_not_a_pass(tmp_path):
    for stdin in ("", "\n", "# only a comment\n", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"):
        ran = invoke("gate", "--pin", PIN, "-", stdin=stdin.encode())
        assert ran.returncode == 1 and "FL011" in ran.stdout and "nothing was checked" in ran.stdout, (stdin, ran.stdout)
    assert invoke("gate", "--pin", PIN, "--allow-unverified", "-", stdin=b"").returncode == 0


_CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\ndata:\n  extra: " + f'"{BAD}"\n'


def test_value_from_a_config_map_or_secret_of_the_input_is_checked_where_it_is_written():
    env = "[{name: MAXTEXT_EXTRA_FLAGS, valueFrom: {configMapKeyRef: {name: flags, key: extra}}}]"
    text = _CONFIG_MAP + "---\n" + _WORKLOADS["Pod"].replace(_container(indent=2), _container(env, indent=2))
    (finding,) = [f for item in check_manifest(text, checker=_CHECKER) for f in item.result.findings]
    assert finding.rule == "FL004" and (finding.location.line, finding.location.column) == (5, 25)  # in the ConfigMap
    encoded = base64.b64encode(BAD.encode()).decode()
    secret = f"apiVersion: v1\nkind: Secret\nmetadata: {{name: flags}}\ndata:\n  extra: {encoded}\n"
    env = "[{name: MAXTEXT_EXTRA_FLAGS, valueFrom: {secretKeyRef: {name: flags, key: extra}}}]"
    text = _WORKLOADS["Pod"].replace(_container(indent=2), _container(env, indent=2)) + "---\n" + secret
    assert [rule for rule, _, _ in _rules(text)] == ["FL004"]
    assert [rule for rule, _, _ in _rules(text.replace(f"data:\n  extra: {encoded}", f'stringData:\n  extra: "{BAD}"'))] == ["FL004"]


def test_env_from_sets_every_key_of_its_source_and_env_wins():
    env = "[{name: OTHER, value: x}]"
    extra = "  envFrom:\n  - configMapRef: {name: flags}\n    prefix: MAXTEXT_"
    renamed = _CONFIG_MAP.replace("extra:", "EXTRA_FLAGS:")
    text = renamed + "---\n" + _WORKLOADS["Pod"].replace(_container(indent=2), _container(env, indent=2, extra=extra))
    assert [rule for rule, _, _ in _rules(text)] == ["FL004"]
    overridden = text.replace("[{name: OTHER, value: x}]", "[{name: MAXTEXT_EXTRA_FLAGS, value: log_period=10}]")
    assert _rules(overridden) == []


def test_a_value_not_in_the_input_is_fl011_naming_it():
    missing = "[{name: MAXTEXT_EXTRA_FLAGS, valueFrom: {configMapKeyRef: {name: elsewhere, key: extra}}}]"
    text = _WORKLOADS["Pod"].replace(_container(indent=2), _container(missing, indent=2))
    checked = check_manifest(text, checker=_CHECKER, fix=False)
    (finding,) = [f for item in checked for f in item.result.findings]
    assert finding.rule == "FL011" and finding.location.line == _line_of(text, "env:")
    assert "MAXTEXT_EXTRA_FLAGS is not known here: its configMapKeyRef names ConfigMap elsewhere, which is not in this input" in finding.message
    from_field = "[{name: MAXTEXT_EXTRA_FLAGS, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]"
    assert [rule for rule, _, _ in _rules(text.replace(missing, from_field))] == ["FL011"]
    assert _rules(_CONFIG_MAP + "---\n" + text.replace("key: extra", "key: other")) [0][0] == "FL011"
    env_from = _WORKLOADS["Pod"].replace(_container(indent=2), _container("[]", indent=2, extra="  envFrom:\n  - secretRef: {name: absent}"))
    assert [rule for rule, _, _ in _rules(env_from)] == ["FL011"]
    unrelated = "[{name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}, {name: MAXTEXT_EXTRA_FLAGS, value: log_period=10}]"
    assert _rules(_WORKLOADS["Pod"].replace(_container(indent=2), _container(unrelated, indent=2))) == []


def test_a_key_written_twice_has_its_last_value_as_kubernetes_reads_it():
    twice = '[{name: MAXTEXT_EXTRA_FLAGS, value: "log_period=10", value: "' + BAD + '"}]'
    assert [rule for rule, _, _ in _rules(_WORKLOADS["Pod"].replace(_container(indent=2), _container(twice, indent=2)))] == ["FL004"]
    entries = '[{name: MAXTEXT_EXTRA_FLAGS, value: "log_period=10"}, {name: MAXTEXT_EXTRA_FLAGS, value: "' + BAD + '"}]'
    assert [rule for rule, _, _ in _rules(_WORKLOADS["Pod"].replace(_container(indent=2), _container(entries, indent=2)))] == ["FL004"]
    # The first spec names a container without flags; the last one, which Kubernetes reads, has them.
    spec_twice = _WORKLOADS["Pod"].replace("spec:\n", "spec: {containers: [{name: quiet}]}\nspec:\n", 1)
    assert [rule for rule, _, _ in _rules(spec_twice)] == ["FL004"]


def test_an_env_entry_built_with_a_merge_key_is_read():
    text = ("x-flags: &flags\n  name: MAXTEXT_EXTRA_FLAGS\n  value: \"" + BAD + "\"\n"
            + _WORKLOADS["Pod"].replace(_container(indent=2), _container("[{<<: *flags}]", indent=2)))
    assert _rules(text) == [("FL004", "error", 3)]
    own_value = text.replace("[{<<: *flags}]", "[{<<: *flags, value: log_period=10}]")  # the entry's own key wins
    assert _rules(own_value) == []


def test_gate_json_names_what_was_not_checked(tmp_path):
    manifest = tmp_path / "m.yaml"
    manifest.write_text(_WORKLOADS["Pod"].replace(_container(indent=2), _container("[]", indent=2, extra="  envFrom:\n  - configMapRef: {name: absent}")))
    ran = invoke("gate", "--pin", PIN, "--format", "json", str(manifest))
    (finding,) = json.loads(ran.stdout)["findings"]
    assert ran.returncode == 1 and finding["rule"] == "FL011"
    assert finding["message"].endswith("w/main: envFrom ConfigMap absent, which is not in this input: the variables it sets are not checked")


def _as_list_item(document: str) -> str:
    return "".join(("- " if number == 0 else "  ") + line + "\n" for number, line in enumerate(document.splitlines()))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(_WORKLOADS)), st.booleans(), st.booleans()), min_size=1, max_size=4),
       st.booleans())
def test_every_workload_of_any_input_is_checked_once(workloads, in_one_list):
    """Each workload, wherever it is (its own document, a List's item, a List of its own), from a
    value written in it or from a ConfigMap of the input, gives its one finding."""
    documents, listed = [], []
    for number, (kind, from_config_map, in_list) in enumerate(workloads):
        text = _WORKLOADS[kind].replace("metadata: {name: w}", f"metadata: {{name: w{number}}}")
        if from_config_map:
            env = f"[{{name: MAXTEXT_EXTRA_FLAGS, valueFrom: {{configMapKeyRef: {{name: flags{number}, key: extra}}}}}}]"
            text = text.replace(f"env: [{{name: MAXTEXT_EXTRA_FLAGS, value: \"{BAD}\"}}]", f"env: {env}")
            documents.append(_CONFIG_MAP.replace("name: flags", f"name: flags{number}"))
        (listed if in_list and in_one_list else documents).append(text)
    if listed:
        documents.append("apiVersion: v1\nkind: List\nitems:\n" + "".join(_as_list_item(text) for text in listed))
    checked = check_manifest("---\n".join(documents), checker=_CHECKER, fix=False)
    assert sorted(f.rule for item in checked for f in item.result.findings) == ["FL004"] * len(workloads)


def test_a_config_map_of_another_namespace_is_not_the_one_a_pod_reads():
    env = "[{name: MAXTEXT_EXTRA_FLAGS, valueFrom: {configMapKeyRef: {name: flags, key: extra}}}]"
    pod = _WORKLOADS["Pod"].replace(_container(indent=2), _container(env, indent=2))
    in_team = pod.replace("metadata: {name: w}", "metadata: {name: w, namespace: team}")
    elsewhere = _CONFIG_MAP.replace("metadata: {name: flags}", "metadata: {name: flags, namespace: other}")
    assert [rule for rule, _, _ in _rules(elsewhere + "---\n" + in_team)] == ["FL011"]
    assert [rule for rule, _, _ in _rules(elsewhere.replace("other", "team") + "---\n" + in_team)] == ["FL004"]
    assert [rule for rule, _, _ in _rules(_CONFIG_MAP + "---\n" + in_team)] == ["FL004"]  # applied to the namespace kubectl is given


def test_an_env_value_expands_the_entries_before_it():
    env = '[{name: BASE, value: "log_period=10"}, {name: MAXTEXT_EXTRA_FLAGS, value: "$(BASE) bogus_key=1"}]'
    text = _WORKLOADS["Pod"].replace(_container(indent=2), _container(env, indent=2))
    (finding,) = [f for item in check_manifest(text, checker=_CHECKER) for f in item.result.findings]
    assert finding.rule == "FL004" and finding.location.column == text.splitlines()[finding.location.line - 1].index("bogus_key") + 1


def test_a_fix_of_characters_the_manifest_does_not_hold_as_written_is_left_to_a_person(tmp_path):
    encoded = base64.b64encode(BAD.encode()).decode()
    env = "[{name: MAXTEXT_EXTRA_FLAGS, valueFrom: {secretKeyRef: {name: flags, key: extra}}}]"
    manifest = tmp_path / "m.yaml"
    text = (f"apiVersion: v1\nkind: Secret\nmetadata: {{name: flags}}\ndata:\n  extra: {encoded}\n---\n"
            + _WORKLOADS["Pod"].replace(_container(indent=2), _container(env, indent=2)))
    manifest.write_text(text)
    ran = invoke("gate", "--pin", PIN, "--fix", "--format", "json", str(manifest))
    (fix,) = json.loads(ran.stdout)["fixes"]
    assert fix["edits"] == [{"variable": None, "old": "bogus_key=1", "new": f"remove 'bogus_key=1' in the value at {manifest}:5:10"}]
    assert ran.returncode == 1 and manifest.read_text() == text and "applied" not in json.loads(ran.stdout)


def _pod_with_env(anchors: list[str], env: str) -> str:
    return "\n".join(anchors) + "\n" + _WORKLOADS["Pod"].replace(_container(indent=2), _container(env, indent=2))


def test_merges_of_merges_are_read_once_each_however_deep_or_wide():
    # Each level merges both mappings of the level below: read naively, 2**40 mappings.
    wide = ["l0: &l0 {name: MAXTEXT_EXTRA_FLAGS, value: " + f'"{BAD}"' + "}", "m0: &m0 {name: OTHER, value: x}"]
    for level in range(1, 40):
        wide += [f"l{level}: &l{level} {{<<: [*l{level - 1}, *m{level - 1}]}}", f"m{level}: &m{level} {{<<: [*m{level - 1}, *l{level - 1}]}}"]
    assert _rules(_pod_with_env(wide, "[*l39]")) == [("FL004", "error", 1)]
    # A chain longer than Python's recursion limit, and a mapping that merges itself.
    deep = ["l0: &l0 {name: MAXTEXT_EXTRA_FLAGS, value: " + f'"{BAD}"' + "}"] + [f"l{n}: &l{n} {{<<: *l{n - 1}}}" for n in range(1, 3000)]
    assert _rules(_pod_with_env(deep, "[*l2999]")) == [("FL004", "error", 1)]
    itself = ["x: &a", "  name: MAXTEXT_EXTRA_FLAGS", f'  value: "{BAD}"', "  <<: *a"]
    assert _rules(_pod_with_env(itself, "[*a]")) == [("FL004", "error", 3)]


def test_references_that_expand_past_the_limit_are_fl011_not_built():
    doubling = [{"name": "A0", "value": "x" * 8}] + [{"name": f"A{n}", "value": f"$(A{n - 1})$(A{n - 1})"} for n in range(1, 41)]
    env = json.dumps([*doubling, {"name": "MAXTEXT_EXTRA_FLAGS", "value": "log_period=10 $(A40)"}])
    text = _WORKLOADS["Pod"].replace(_container(indent=2), _container(env, indent=2))
    (finding,) = [f for item in check_manifest(text, checker=_CHECKER, fix=False) for f in item.result.findings]
    assert finding.rule == "FL011" and "MAXTEXT_EXTRA_FLAGS is not known here: it refers to $(A40), whose value is not known here" in finding.message
    direct = text.replace('"log_period=10 $(A40)"', '"log_period=10 $(A16)$(A16)"')
    (finding,) = [f for item in check_manifest(direct, checker=_CHECKER, fix=False) for f in item.result.findings]
    assert "MAXTEXT_EXTRA_FLAGS is not known here: its $(NAME) references expand past 1,000,000 characters" in finding.message
    args = text.replace("image: trainer", 'image: trainer\n    args: ["python3", "-m", "maxtext.trainers.pre_train.train", "$(A16)$(A16)"]')
    assert [rule for rule, _, _ in _rules(args)] == ["FL011", "FL011"]
    assert _rules(text.replace("$(A40)", "$(A10)")) != []  # 8 KiB of x: a value MaxText refuses, checked


def test_a_container_running_an_entry_point_flaglint_cannot_verify_blocks_the_launch():
    """grpo_trainer cuts its argv into two configs: its container is FL011 (a warning with
    --allow-unverified). train_rl's is judged with RLConfig's keys and checks."""
    command = '["python3", "-m", "maxtext.experimental.rl.grpo_trainer", "grpo.yml", "run_name=x"]'
    text = _WORKLOADS["Pod"].replace(_container(indent=2), _container("[]", indent=2, extra=f"  command: {command}"))
    line = _line_of(text, "command:")
    assert _rules(text) == [("FL011", "error", line)]
    assert _rules(text, allow_unverified=True) == [("FL011", "warning", line)]
    rl = text.replace("maxtext.experimental.rl.grpo_trainer", "maxtext.trainers.post_train.rl.train_rl").replace("grpo.yml", "rl.yml")
    assert _rules(rl) == []
    assert _rules(rl.replace('"run_name=x"', '"run_name=x", "num_trainer_slices=2"')) == [("FL153", "error", line)]


def test_a_maxtext_argument_that_refers_to_a_variable_not_known_here_blocks_the_launch():
    """`steps=$(STEPS)` with STEPS from a fieldRef: the kubelet puts in a value flaglint cannot tell,
    so the command line is FL011, not a type error on the text `$(STEPS)`; given a value, it is checked."""
    command = '["python3", "-m", "maxtext.trainers.pre_train.train", "run_name=x", "steps=$(STEPS)"]'
    env = "[{name: STEPS, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]"
    text = _WORKLOADS["Pod"].replace(_container(indent=2), _container(env, indent=2, extra=f"  command: {command}"))
    assert _rules(text) == [("FL011", "error", _line_of(text, "command:"))]
    assert _rules(text.replace("valueFrom: {fieldRef: {fieldPath: metadata.name}}", 'value: "-3"')) == [
        ("FL005", "error", _line_of(text, "command:"))]
