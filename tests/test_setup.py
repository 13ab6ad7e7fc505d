"""The README's first commands, its pre-commit snippet and examples/ci/gate.yml agree with what
this repository is: the extras they install exist in pyproject.toml, a plain install pulls no jax,
the example check does what its comment says, and the workflow installs from the repository and
gates its manifest at the pin that manifest needs."""

import re
import shlex
import subprocess

import yaml
from commandline import REPO, run_flaglint

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
README = (REPO / "README.md").read_text(encoding="utf-8")
WORKFLOW = yaml.safe_load((REPO / "examples" / "ci" / "gate.yml").read_text(encoding="utf-8"))


def _first_block(language: str) -> list[str]:
    """The commands of the README's first block in `language`, comments and blank lines left out."""
    block = re.search(rf"```{language}\n(.*?)```", README, re.S).group(1)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _requirement_name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9_.-]+", requirement).group().lower().replace("_", "-")


def test_a_plain_install_pulls_no_jax_and_the_tests_install_it():
    names = {_requirement_name(r) for r in PYPROJECT["project"]["dependencies"]}
    assert not names & {"jax", "jaxlib", "scipy", "numpy"}, names
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert "jax" in {_requirement_name(r) for r in extras["trainer"]}
    assert {"pytest", "hypothesis"} <= {_requirement_name(r) for r in extras["test"]}


def test_the_readme_clones_then_installs_the_tool_then_the_test_extras():
    commands = _first_block("sh")
    clone = next(i for i, c in enumerate(commands) if c.startswith("git clone"))
    assert "cd flaglint" in commands[clone]
    installs = [shlex.split(c) for c in commands if "pip install" in c]
    assert installs[0][-1] == "."  # the tool alone: its own dependencies, no extra
    extras = PYPROJECT["project"]["optional-dependencies"]
    for install in installs:
        named = re.fullmatch(r"\.(?:\[(.*)\])?", install[-1]).group(1)
        assert all(extra in extras for extra in (named or "").split(",") if extra), install
    assert installs[-1][-1] == ".[test,trainer,server]" and commands[-1] == "python -m pytest -q"
    # CI installs what the README's test command needs, and the layout checks' tools
    assert "'.[test,trainer,lint,server]'" in (REPO / ".ci" / "run").read_text()


def test_the_readme_check_does_what_its_comment_says():
    (check,) = [shlex.split(c) for c in _first_block("sh") if c.startswith("flaglint check")]
    ran = run_flaglint(*check[1:])
    assert ran.returncode == 1 and " error FL101 " in ran.stdout, ran.stdout + ran.stderr
    assert "FL001" not in ran.stdout  # the path is read as a file, not as a flag string


def test_the_pre_commit_snippet_names_hooks_this_repository_has_and_a_revision_that_can_exist():
    snippet = yaml.safe_load(re.search(r"```yaml\n(# \.pre-commit-config\.yaml.*?)```", README, re.S).group(1))
    (repo,) = snippet["repos"]
    hooks = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert {hook["id"] for hook in repo["hooks"]} <= hooks
    tags = subprocess.run(["git", "tag"], cwd=REPO, capture_output=True, text=True).stdout.split()
    assert re.fullmatch(r"[0-9a-f]{40}", str(repo["rev"])) or repo["rev"] in tags, repo["rev"]


def _runs(job: dict) -> list[str]:
    return [step["run"] for step in job["steps"] if "run" in step]


def test_the_workflow_installs_flaglint_from_its_repository():
    (job,) = WORKFLOW["jobs"].values()
    (install,) = [run for run in _runs(job) if "pip install" in run]
    words = shlex.split(install)
    assert words[:2] == ["pip", "install"] and re.fullmatch(r"flaglint @ git\+\$\{FLAGLINT_REPO\}@\$\{FLAGLINT_REV\}", words[2])
    assert WORKFLOW["env"]["FLAGLINT_REPO"].startswith("https://") and WORKFLOW["env"]["FLAGLINT_REV"]


def test_the_workflow_gates_its_manifest_at_the_pin_it_needs():
    (job,) = WORKFLOW["jobs"].values()
    runs = _runs(job)
    manifest = re.search(r"cat (\S+) > rendered\.yaml", next(r for r in runs if "rendered.yaml" in r and "cat " in r)).group(1)
    gates = [shlex.split(run.split("||")[0].split(">")[0]) for run in runs if run.startswith("flaglint gate")]
    assert len(gates) == 2
    for gate in gates:
        assert "--pin" in gate
        args = [WORKFLOW["env"]["MAXTEXT_PIN"] if word == "$MAXTEXT_PIN" else manifest if word == "rendered.yaml" else word
                for word in gate[1:]]
        ran = run_flaglint(*args)
        assert ran.returncode == 0 and "FL004" not in ran.stdout, ran.stdout + ran.stderr
    without_pin = run_flaglint("gate", manifest)
    assert "FL004" in without_pin.stdout  # the pin is what keeps the fork's keys from being undefined


def test_the_readme_makes_a_virtual_environment_before_it_installs():
    commands = _first_block("sh")
    venv = next(i for i, c in enumerate(commands) if re.match(r"python3? -m venv \S+ && \. \S+/bin/activate$", c))
    assert venv < min(i for i, c in enumerate(commands) if "pip install" in c)
