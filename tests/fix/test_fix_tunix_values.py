"""Fixes of Tunix findings wherever the value was set: an argv word of a script, a line of the
override file, a line of a base YAML on disk (never the installed package's). The four classes: a
misspelt top-level key (renamed, unsafe; dropped, safe), a value of another type (written in the
base value's type), a mesh whose shape and axis names differ in length (the shape's 1s dropped or
added, unsafe), an optimizer name the release cannot find (the nearest it takes, unsafe). Each fix
leaves a launch with no error, and a second --fix changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from commandline import run_flaglint as invoke
from hypothesis import given
from hypothesis import strategies as st

from flaglint.core.edits import Applicability
from flaglint.fix.files import apply_to_bytes
from flaglint.fix.tunix_override import FileChange, file_edits
from flaglint.tunix.checks import matching_shape
from flaglint.tunix.merge import literal
from flaglint.tunix.optimizer import nearest_optimizer
from flaglint.tunix.pins import load_tunix_pin, nested_defaults

PEFT = "python -m tunix.cli.peft_main"


def _errors(*args: str, cwd: Path) -> list[tuple[str, str | None, int | None]]:
    found = json.loads(invoke(args[0], "--format", "json", *args[1:], cwd=cwd).stdout)["findings"]
    return [(f["rule"], f["location"]["file"] and Path(f["location"]["file"]).name, f["location"]["line"])
            for f in found if f["severity"] == "error"]


def _fixed_twice(args: tuple[str, ...], cwd: Path, files: list[Path]) -> None:
    """--fix alone leaves the unsafe fixes (and says so); with --unsafe-fixes they are made, and a
    second run changes nothing."""
    done = invoke(*args[:1], "--fix", "--unsafe-fixes", *args[1:], cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    after = [f.read_bytes() for f in files]
    again = invoke(*args[:1], "--fix", "--unsafe-fixes", *args[1:], cwd=cwd)
    assert again.returncode == 0 and "applied" not in again.stderr
    assert [f.read_bytes() for f in files] == after


SCRIPT = f"""#!/bin/bash
export HF_TOKEN=x
{PEFT} base_config.yaml tokenizer_config.tokenizer_path=/t \\
  batch_sise=8 \\
  offload_to_cpu=1 \\
  "model_config.mesh.shape=(4,1,1)" \\
  optimizer_config.opt_type=adamz optimizer_config.learning_rate=1e-5
"""


def test_each_class_is_fixed_in_the_words_of_a_script_and_leaves_it_clean(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text(SCRIPT)
    assert sorted(_errors("lint", str(script), cwd=tmp_path)) == [
        ("FL204", "run.sh", 4), ("FL206", "run.sh", 5), ("FL212", "run.sh", 6), ("FL218", "run.sh", 7)]
    safe = invoke("lint", "--fix", str(script), cwd=tmp_path)
    assert safe.returncode == 1 and "--unsafe-fixes" in safe.stderr
    assert script.read_text() == SCRIPT.replace("  batch_sise=8 \\\n", "  \\\n")  # the rest are guesses
    script.write_text(SCRIPT)
    _fixed_twice(("lint", str(script)), tmp_path, [script])
    # as for MaxText, --fix makes the safe fix first (the misspelt key dropped), then the guesses
    assert script.read_text() == SCRIPT.replace("  batch_sise=8 \\\n", "  \\\n").replace("offload_to_cpu=1", "offload_to_cpu=true").replace(
        '"model_config.mesh.shape=(4,1,1)"', '"model_config.mesh.shape=(4,1)"').replace("opt_type=adamz", "opt_type=adam")
    assert _errors("lint", str(script), cwd=tmp_path) == []


OVERRIDE = """# the short run
batch_sise: 4   # typo
offload_to_cpu: 1
optimizer_config:
  opt_type: adamz  # optax's name?
  learning_rate: 1e-5
model_config:
  mesh:
    shape: "(4,1,1)"
    axis_names: "('fsdp','tp')"
"""


def test_each_class_is_fixed_in_the_lines_of_the_override_file_and_leaves_the_launch_clean(tmp_path):
    over = tmp_path / "over.yaml"
    over.write_text(OVERRIDE)
    args = ("check", "--env", "HF_TOKEN=x", "--", *PEFT.split(), "base_config.yaml", "override_config_file=over.yaml",
            "tokenizer_config.tokenizer_path=/t")
    assert sorted(_errors(*args, cwd=tmp_path)) == [
        ("FL204", "over.yaml", 2), ("FL206", "over.yaml", 3), ("FL212", "over.yaml", 9), ("FL218", "over.yaml", 5)]
    offered = json.loads(invoke("check", "--format", "json", *args[1:], cwd=tmp_path).stdout)["fixes"]
    assert [(f["safe"], [(e["old"], e["new"]) for e in f["edits"]]) for f in offered] == [
        (True, [("batch_sise: 4   # typo", "")]),
        (False, [("batch_sise", "batch_size"), ("1", "true"), ("adamz", "adam"), ('"(4,1,1)"', '"(4,1)"')])]
    _fixed_twice(args, tmp_path, [over])
    # as for MaxText, --fix makes the safe fix first (the misspelt key dropped), then the guesses, each
    # in the value's own characters: the comments and the quotes stay
    assert over.read_text() == OVERRIDE.replace("batch_sise: 4   # typo\n", "").replace("offload_to_cpu: 1", "offload_to_cpu: true").replace(
        "opt_type: adamz", "opt_type: adam").replace('"(4,1,1)"', '"(4,1)"')
    assert _errors(*args, cwd=tmp_path) == []


def test_a_safe_fix_of_the_override_file_drops_the_misspelt_key_and_types_the_number(tmp_path):
    over = tmp_path / "over.yaml"
    over.write_text("batch_sise: 4\nbatch_size: 1e3\n")
    args = ("check", "--env", "HF_TOKEN=x", "--", *PEFT.split(), "base_config.yaml", "override_config_file=over.yaml")
    assert invoke("check", "--fix", *args[1:], cwd=tmp_path).returncode == 0
    # batch_size is in the file already: the misspelt key is not renamed onto it, not even by the unsafe fix
    assert over.read_text() == "batch_size: 1000\n"
    assert invoke("check", "--fix", "--unsafe-fixes", *args[1:], cwd=tmp_path).returncode == 0
    assert over.read_text() == "batch_size: 1000\n"


def _base(folder: Path, version: str, **changes: str) -> Path:
    """A base YAML of the release's keys and defaults, some nested values changed."""
    data = nested_defaults(load_tunix_pin(f"tunix-{version}").bases["base_config.yaml"])
    for dotted, value in changes.items():
        *parents, name = dotted.split("__")
        node = data
        for part in parents:
            node = node[part]
        node[name] = value
    path = folder / "my_base.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize(("version", "given", "meant"), [("0.1.7", "adamz", "adam"), ("0.1.0", "sgdd", "sgd")])
def test_the_mesh_and_the_optimizer_are_fixed_at_the_base_line_that_set_them(tmp_path, version, given, meant):
    base = _base(tmp_path, version, optimizer_config__opt_type=given, model_config__mesh__shape="(2,2,1)")
    script = tmp_path / "run.sh"
    # before 0.1.6 a relative base is looked for in the package: an absolute path is the user's file
    script.write_text(f"#!/bin/bash\nexport HF_TOKEN=x\n{PEFT} {base} tokenizer_config.tokenizer_path=/t\n")
    text = base.read_text()
    pinned = ("lint", "--tunix-pin", version, str(script))
    assert {rule for rule, file, _ in _errors(*pinned, cwd=tmp_path)} == {"FL212", "FL218"}
    assert all(file == "my_base.yaml" for _, file, _ in _errors(*pinned, cwd=tmp_path))
    _fixed_twice(pinned, tmp_path, [base, script])
    assert base.read_text() == text.replace("shape: (2,2,1)", "shape: (2,2)").replace(f"opt_type: {given}", f"opt_type: {meant}")
    assert _errors(*pinned, cwd=tmp_path) == []


def test_the_installed_packages_base_is_never_edited(tmp_path):
    # at 0.1.7 `base_config.yaml` is the package's: a file of that name here is not what Tunix reads
    decoy = _base(tmp_path, "0.1.7").rename(tmp_path / "base_config.yaml")
    text = decoy.read_text()
    args = ("check", "--env", "HF_TOKEN=x", "--", *PEFT.split(), "base_config.yaml", "tokenizer_config.tokenizer_path=/t",
            "model_config.mesh.axis_names=('fsdp','tp','sp')")
    result = json.loads(invoke(*args[:1], "--format", "json", *args[1:], cwd=tmp_path).stdout)
    assert [f["rule"] for f in result["findings"] if f["severity"] == "error"] == ["FL212"]
    assert result["fixes"] == []
    invoke("check", "--fix", "--unsafe-fixes", *args[1:], cwd=tmp_path)
    assert decoy.read_text() == text


def test_the_base_of_a_tunix_checkout_is_never_edited(tmp_path):
    (tmp_path / "tunix" / "cli").mkdir(parents=True)
    base = _base(tmp_path, "0.1.7", model_config__mesh__shape="(2,2,1)").rename(tmp_path / "tunix" / "cli" / "base_config.yaml")
    text = base.read_text()
    args = ("check", "--env", "HF_TOKEN=x", "--", *PEFT.split(), "tunix/cli/base_config.yaml", "tokenizer_config.tokenizer_path=/t")
    assert _errors(*args, cwd=tmp_path) == [("FL212", "base_config.yaml", text.splitlines().index("    shape: (2,2,1)") + 1)]
    assert json.loads(invoke(args[0], "--format", "json", *args[1:], cwd=tmp_path).stdout)["fixes"] == []
    invoke("check", "--fix", "--unsafe-fixes", *args[1:], cwd=tmp_path)
    assert base.read_text() == text


def test_an_optimizer_name_is_guessed_only_where_one_name_is_nearest():
    pin = load_tunix_pin("tunix-0.1.7")
    assert nearest_optimizer(pin, "adamz") == "adam" and nearest_optimizer(pin, "AdamW") == "adamw"
    assert nearest_optimizer(pin, "qqqq") is None and nearest_optimizer(pin, 3) is None
    old = load_tunix_pin("tunix-0.1.0")
    assert nearest_optimizer(old, "radam") == "adam"  # 0.1.0 takes only the names of its map


@given(st.lists(st.integers(1, 8), min_size=1, max_size=5), st.integers(1, 5))
def test_a_matched_shape_has_the_names_length_and_takes_the_same_devices(sizes, count):
    names = repr(tuple(f"a{i}" for i in range(count)))
    shape = "(" + ", ".join(map(str, sizes)) + ",)"
    matched = matching_shape(shape, names)
    if matched is None:  # more axes larger than 1 than names: no 1s to drop
        assert sum(n > 1 for n in sizes) > count
        return
    read = literal(matched)
    assert len(read) == count and all(type(n) is int for n in read)
    assert eval("*".join(map(str, read))) == eval("*".join(map(str, sizes)))  # noqa: S307 digits and '*' only
    assert [n for n in read if n > 1] == [n for n in sizes if n > 1]


def test_a_value_a_section_merges_in_with_an_anchor_is_fixed_at_the_anchors_line(tmp_path):
    """`actor_optimizer_config: {<<: *opt}`: Tunix's finding is at the line of the anchored section,
    and so is the fix (the one line that set every copy)."""
    data = nested_defaults(load_tunix_pin("tunix-0.1.7").bases["base_config.yaml"])
    optimizer, training = data.pop("optimizer_config"), data.pop("rl_training_config")
    training.pop("actor_optimizer_config")
    training["gradient_accumulation_steps"] = None  # RLTrainingConfig derives it (the release's base sets 1)
    optimizer["opt_type"] = "adamz"

    def block(mapping: dict) -> str:
        return "".join(f"  {line}\n" for line in yaml.safe_dump(mapping, sort_keys=False).splitlines())

    text = (yaml.safe_dump(data, sort_keys=False) + "optimizer_config: &opt\n" + block(optimizer)
            + "rl_training_config:\n" + block(training) + "  actor_optimizer_config:\n    <<: *opt\n")
    base = tmp_path / "my_base.yaml"
    base.write_text(text)
    args = ("check", "--env", "HF_TOKEN=x", "--", "python", "-m", "tunix.cli.grpo_main", str(base), "tokenizer_config.tokenizer_path=/t")
    line = text.splitlines().index("  opt_type: adamz") + 1
    assert _errors(*args, cwd=tmp_path) == [("FL218", "my_base.yaml", line)]
    _fixed_twice(args, tmp_path, [base])
    assert base.read_text() == text.replace("  opt_type: adamz", "  opt_type: adam")
    assert _errors(*args, cwd=tmp_path) == []


def test_lint_diff_shows_the_edits_of_the_override_file_and_the_base_and_writes_nothing(tmp_path):
    over = tmp_path / "over.yaml"
    over.write_text("batch_sise: 4\n")
    base = _base(tmp_path, "0.1.7", optimizer_config__opt_type="adamz")
    script = tmp_path / "run.sh"
    script.write_text(f"#!/bin/bash\nexport HF_TOKEN=x\n{PEFT} {base} override_config_file=over.yaml tokenizer_config.tokenizer_path=/t\n")
    before = [f.read_bytes() for f in (over, base, script)]
    safe = invoke("lint", "--diff", str(script), cwd=tmp_path)
    assert safe.returncode == 1 and f"--- a/{over}\n" in safe.stdout and "\n-batch_sise: 4\n" in safe.stdout
    over.write_text("")
    guessed = invoke("lint", "--diff", "--unsafe-fixes", str(script), cwd=tmp_path)
    assert f"--- a/{base}\n" in guessed.stdout and "\n-  opt_type: adamz\n+  opt_type: adam\n" in guessed.stdout
    over.write_bytes(before[0])
    assert [f.read_bytes() for f in (over, base, script)] == before


_NAMES = st.sampled_from(["shape", "axis_names", "opt_type", "mesh", "model_config", "rate", "a_b"])
_SCALARS = st.one_of(st.integers(-5, 99), st.sampled_from(["adam", "(4,1)", "('fsdp','tp')", "x y", "", "1e-5"]), st.booleans())


@given(st.recursive(st.dictionaries(_NAMES, _SCALARS, min_size=1, max_size=3),
                    lambda inner: st.dictionaries(_NAMES, inner, min_size=1, max_size=3), max_leaves=8),
       st.randoms(use_true_random=False), _SCALARS, st.sampled_from(["'", '"', None]), st.booleans())
def test_a_nested_value_is_edited_in_its_own_characters_and_nothing_else_changes(tmp_path_factory, data, rng, value, quote, crlf):
    leaves = []

    def walk(node: dict, prefix: str) -> None:
        for key, inner in node.items():
            (walk(inner, f"{prefix}{key}.") if isinstance(inner, dict) else leaves.append(f"{prefix}{key}"))

    walk(data, "")
    key = rng.choice(leaves)
    text = yaml.safe_dump(data, sort_keys=False, default_style=quote if quote == '"' else None).replace(": ", ":  ", 1)
    text = "# written by hand\n" + "".join(f"{line}  # note\n" if ":" in line and not line.endswith(":") else f"{line}\n"
                                           for line in text.splitlines())
    if crlf:
        text = text.replace("\n", "\r\n")
    path = tmp_path_factory.mktemp("yaml") / "over.yaml"
    path.write_bytes(text.encode("utf-8"))
    edits, _ = file_edits([FileChange(str(path), key, value)], Applicability.SAFE)
    if not edits:  # left to a person: then nothing is written
        return
    new = apply_to_bytes(text.encode("utf-8"), edits).decode("utf-8")
    expected = yaml.safe_load(text)
    *parents, name = key.split(".")
    node = expected
    for part in parents:
        node = node[part]
    node[name] = value
    assert yaml.safe_load(new) == expected
    changed = [(a, b) for a, b in zip(text.splitlines(), new.splitlines()) if a != b]
    assert len(new.splitlines()) == len(text.splitlines()) and len(changed) <= 1
    assert all(b.endswith("# note") == a.endswith("# note") for a, b in changed)
