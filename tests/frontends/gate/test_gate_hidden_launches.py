"""Launches a container starts in ways other than its own command: behind bash's grouped options,
in a string its script hands over (eval, a here-document into bash), in a lifecycle hook, in a
script mounted from a ConfigMap or Secret of the input. Each is checked; a script the input does
not hold, and what a container's script does not follow, are FL011 (fail closed)."""

from __future__ import annotations

import pytest

from flaglint.frontends.checker import Checker
from flaglint.frontends.gate.manifests import check_manifest

_CHECKER = Checker("bbd0f6f10")
LAUNCH = "python3 -m maxtext.train src/maxtext/configs/base.yml stepz=1"


def _errors(text: str) -> list[tuple[str, int, str]]:
    checked = check_manifest(text, checker=_CHECKER, fix=False)
    return sorted((f.rule, f.location.line, f.message) for item in checked for f in item.result.findings if f.severity == "error")


def _pod(container: str, pod: str = "", before: str = "") -> str:
    return (f"{before}apiVersion: v1\nkind: Pod\nmetadata: {{name: w}}\nspec:\n{pod}  containers:\n  - name: main\n"
            f"    image: trainer\n{container}")


@pytest.mark.parametrize("container", [
    f'    command: [bash, -euxo, pipefail, -c, "{LAUNCH}"]\n',
    f'    command: [bash, -c, "eval \'{LAUNCH}\'"]\n',
    f'    command: [bash, -c, "env A=1 {LAUNCH}"]\n',
    f'    command: [bash, -c, "command -p {LAUNCH}"]\n',
    f'    command: [bash, -c, "nice env --split-string=\'{LAUNCH}\'"]\n',
    f'    command: [bash, -c, "coproc T {{ {LAUNCH}; }}"]\n',
    f'    command: [bash, -c, "bash <<EOF\\n{LAUNCH}\\nEOF\\n"]\n',
    f'    command: [bash, -c, "trap \'{LAUNCH}\' EXIT; echo ready"]\n',
    f'    command: [sleep, infinity]\n    lifecycle:\n      postStart:\n        exec:\n          command: [bash, -c, "{LAUNCH}"]\n',
])
def test_a_launch_the_container_starts_another_way_is_checked(container):
    (found,) = _errors(_pod(container))
    assert found[:2] == ("FL004", 8 if "postStart" not in container else 12) and "stepz" in found[2]


_SCRIPTS = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: scripts}}\ndata:\n  run.sh: |\n    set -e\n    {LAUNCH}\n---\n"
_VOLUME = "  volumes: [{name: s, configMap: {name: scripts}}]\n"


@pytest.mark.parametrize("command", ["[bash, /scripts/run.sh]", "[/bin/sh, -e, /scripts/run.sh]", "[nice, /scripts/run.sh]"])
def test_a_script_mounted_from_a_configmap_of_the_input_is_followed(command):
    container = f"    command: {command}\n    volumeMounts: [{{name: s, mountPath: /scripts}}]\n"
    (found,) = _errors(_pod(container, _VOLUME, _SCRIPTS))
    assert found[:2] == ("FL004", 7) and "stepz" in found[2]  # at the ConfigMap's line that writes it


def test_a_script_mounted_by_subpath_from_a_secret_is_followed():
    secret = f"apiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\nstringData:\n  train: '{LAUNCH}'\n---\n"
    container = "    command: [bash, /opt/train.sh]\n    volumeMounts: [{name: v, mountPath: /opt/train.sh, subPath: train}]\n"
    (found,) = _errors(_pod(container, "  volumes: [{name: v, secret: {secretName: s}}]\n", secret))
    assert found[0] == "FL004"


def test_a_script_the_input_does_not_hold_is_fl011_at_its_word():
    text = _pod("    command: [bash, /app/run.sh]\n")
    (found,) = _errors(text)
    assert found[:2] == ("FL011", 8) and "runs the script /app/run.sh, which is not in the input" in found[2]


@pytest.mark.parametrize("script, reason", [
    (f"shopt -s expand_aliases\\nalias t='{LAUNCH}'\\nt", "aliases are expanded"),
    (f"echo '{LAUNCH}' | bash", "reads its commands from standard input"),
    ("bash /app/setup.sh", "'/app/setup.sh' is not found"),
])
def test_what_a_container_script_does_not_follow_is_fl011(script, reason):
    (found,) = _errors(_pod(f'    command: [bash, -c, "{script}"]\n'))
    assert found[0] == "FL011" and reason in found[2]


def test_an_alias_a_bash_c_script_never_expands_launches_nothing():
    assert _errors(_pod(f'    command: [bash, -c, "alias t=\'{LAUNCH}\'; t"]\n')) == []
