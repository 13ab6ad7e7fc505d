"""`lint` on a recipe family (tests/fixtures/recipes/family): per-size recipes that source a base,
which sources fragments and hands off to a launcher. Every branch is checked, and nothing the
recipe refuses itself, or that the launcher makes valid, is reported."""

import shutil
from pathlib import Path

import pytest

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script

FAMILY = Path(__file__).resolve().parent.parent.parent / "fixtures" / "recipes" / "family"
PIN = "e526ea02"  # the fork pin whose validate_moe_chunks refuses the chunk pipeline with one chunk


@pytest.fixture(scope="module")
def checker():
    return Checker(PIN)


def _errors(check, rule=None):
    return [f for f in check.result.findings if f.severity == "error" and (rule is None or f.rule == rule)]


def _family(tmp_path: Path) -> Path:
    target = tmp_path / "family"
    shutil.copytree(FAMILY, target)
    return target


@pytest.mark.parametrize("recipe", sorted(p.name for p in FAMILY.glob("recipe_*.sh")))
def test_every_recipe_of_the_family_is_clean_on_every_branch(checker, recipe):
    check = check_script(FAMILY / recipe, checker)
    assert [f for f in check.result.findings if f.severity != "info"] == []
    assert check.result.fixes == []


def test_a_combination_the_base_refuses_with_exit_1_is_not_a_finding(checker, tmp_path):
    """MOE_PIPELINE=true with NUM_MOE_TOKEN_CHUNKS=1 is refused by the base (`echo ...; exit 1`)."""
    check = check_script(FAMILY / "recipe_256.sh", checker, {"NUM_MOE_TOKEN_CHUNKS": "1", "MOE_PIPELINE": "true"})
    assert check.result.findings == [] and check.result.fixes == []
    # Without the guard the same combination reaches the trainer: FL102, where the pipeline is on.
    family = _family(tmp_path)
    base = family / "base.sh"
    text = base.read_text()
    guard = text[text.index('if [[ "${MOE_PIPELINE:-true}" == "true" && "${NUM_MOE_TOKEN_CHUNKS}" == "1" ]]'):]
    guard = guard[: guard.index("fi\n") + 3]
    base.write_text(text.replace(guard, ""))
    (finding,) = _errors(check_script(family / "recipe_256.sh", checker, {"NUM_MOE_TOKEN_CHUNKS": "1"}), "FL102")
    assert finding.witness["env"] == {"MOE_PIPELINE": "true"}
    assert check_script(family / "recipe_256.sh", checker, {"NUM_MOE_TOKEN_CHUNKS": "1", "MOE_PIPELINE": "false"}).result.findings == []


def test_attention_comes_from_the_tunix_variable(checker):
    """Ring context parallelism needs attention=flash; the fragment sets TRAINER_MAXTEXT_ATTENTION=flash."""
    assert _errors(check_script(FAMILY / "recipe_256.sh", checker)) == []
    check = check_script(FAMILY / "recipe_256.sh", checker, {"TRAINER_MAXTEXT_ATTENTION": "dot_product"})
    (finding,) = _errors(check, "MXSQFV5")
    assert finding.location.file.endswith("attention.sh")


def test_the_launchers_off_values_are_valid_and_a_bad_value_is_not(checker):
    """The launcher defaults COMPUTE_LOGPS_CHUNK_SIZE to 0 and MAX_SEQ_TOKEN_PER_TPU to empty."""
    assert _errors(check_script(FAMILY / "recipe_128.sh", checker)) == []
    check = check_script(FAMILY / "recipe_128.sh", checker, {"COMPUTE_LOGPS_CHUNK_SIZE": "-1"})
    assert [f.keys for f in _errors(check, "FL008")] == [("COMPUTE_LOGPS_CHUNK_SIZE",)]


def test_flags_whose_launcher_cannot_be_found_are_not_verified(checker, tmp_path):
    """What the missing launcher would launch is not known: FL011 at the line that runs it (fail
    closed), and the flags of the paths through it are not judged."""
    family = _family(tmp_path)
    (family / "launcher.sh").unlink()
    recipe = family / "recipe_256.sh"
    recipe.write_text(recipe.read_text().replace("use_ring_of_experts=true", "use_ring_of_experts=true no_such_key=1"))
    (finding,) = check_script(recipe, checker, args=()).result.findings  # run as `recipe_256.sh`: it starts the launcher
    assert (finding.rule, finding.severity, finding.location.file) == ("FL011", "error", str(family / "base.sh"))
    assert f"the script '{family / 'launcher.sh'}' is not found" in finding.message
    allowed = check_script(recipe, checker, allow_unverified=True, args=()).result.findings
    assert [(f.rule, f.severity) for f in allowed] == [("FL011", "warning")]


def test_with_the_tunix_backend_the_maxtext_flags_are_not_checked(checker, tmp_path):
    family = _family(tmp_path)
    recipe = family / "recipe_256.sh"
    recipe.write_text(recipe.read_text().replace("use_ring_of_experts=true", "use_ring_of_experts=true no_such_key=1"))
    (finding,) = _errors(check_script(recipe, checker))
    assert "no_such_key" in finding.message
    assert check_script(recipe, checker, {"TRAINER_BACKEND": "tunix"}).result.findings == []
    # A recipe that picks the backend on a branch: only the maxtext branch's flags are checked.
    recipe.write_text(recipe.read_text().replace('source "${DIR}/base.sh"', '[[ "${SMALL_MODEL:-}" == 1 ]] && export TRAINER_BACKEND=tunix\nsource "${DIR}/base.sh"'))
    (finding,) = _errors(check_script(recipe, checker))
    assert "no_such_key" in finding.message and finding.witness["env"] == {}  # every launch MaxText reads
    assert check_script(recipe, checker, {"SMALL_MODEL": "1"}).result.findings == []


def test_a_read_loop_is_summarised_and_the_launch_after_it_is_checked(checker, tmp_path):
    script = tmp_path / "recipe.sh"
    script.write_text(
        "#!/bin/bash\n"
        "while read -r key value; do\n"
        '  echo "worker env ${key}=${value}"\n'
        "done <<EOF\nA 1\nB 2\nEOF\n"
        'export MAXTEXT_EXTRA_FLAGS="moe_chunk_pipeline=true num_moe_token_chunks=1"\n'
        "kubectl apply -f jobset.yaml\n"
    )
    (finding,) = _errors(check_script(script, checker))
    assert finding.rule == "FL102" and finding.location.line == 8


@pytest.mark.slow  # seconds: the loop is followed for the evaluator's 200,000 steps, twice (tests/fixtures/FL011 runs it once in the fast suite)
def test_a_loop_that_cannot_be_followed_fails_closed(checker, tmp_path):
    script = tmp_path / "recipe.sh"
    script.write_text(
        "#!/bin/bash\n"
        'until kubectl get jobset trainer; do sleep 5; done\n'
        "i=0\n"
        "while true; do i=$((i + 1)); done\n"
        'export MAXTEXT_EXTRA_FLAGS="scan_layers=true"\n'
    )
    (finding,) = check_script(script, checker).result.findings
    assert (finding.rule, finding.severity, finding.location.line) == ("FL011", "error", 4)
    assert "loop" in finding.message
    (allowed,) = check_script(script, checker, allow_unverified=True).result.findings
    assert allowed.severity == "warning"


def test_the_family_is_read_as_bash_runs_it(checker):
    """recipe_1024.sh ends in a backslash; the base launches with a backtick comment in the command,
    reads the workers' environment in a while-read loop over a heredoc, and takes the chip count
    from $(slice_chips ...), a function it defines."""
    from flaglint.render import render

    large = render(FAMILY / "recipe_1024.sh", {}).handoffs[-1].variables["MAXTEXT_EXTRA_FLAGS"].text
    small = render(FAMILY / "recipe_256.sh", {}).handoffs[-1].variables["MAXTEXT_EXTRA_FLAGS"].text
    assert "checkpoint_storage_concurrent_gb=96" in large and "checkpoint_storage_concurrent_gb" not in small
    # The launch after all of it is checked: a key MaxText does not define, from the environment.
    (finding,) = _errors(check_script(FAMILY / "recipe_1024.sh", checker, {"MAXTEXT_EXTRA_FLAGS": "bogus_key=1"}))
    assert finding.rule == "FL004" and finding.witness["env"] == {}
