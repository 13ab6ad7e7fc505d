"""`flaglint schema import` of a Tunix source tree (flaglint/importer/tunix.py): a toy tree written
for these tests (tests/fixtures/tunix_tree) with the constructs of tunix.cli, and the bundled
releases' data (schemas/tunix-*.json, rules/tunix/)."""

from __future__ import annotations

import json

import pytest
from commandline import REPO, run_flaglint

from flaglint.core.findings import InputError
from flaglint.importer.tunix import (
    AFTER_DOWNLOADS,
    STAGES,
    STARTUP,
    import_tunix,
    write_tunix,
)
from flaglint.rules.expr import evaluate, parse
from flaglint.tunix.pins import bundled_tunix_pins, load_tunix_pin, pin_from_data

TOY = REPO / "tests" / "fixtures" / "tunix_tree"


@pytest.fixture(scope="module")
def toy():
    return import_tunix(TOY)


def test_the_base_yaml_is_typed_at_every_depth_with_its_lines(toy):
    keys = toy.data["bases"]["base_config.yaml"]
    assert toy.version == "9.9.9"
    assert keys["rate"] == {"type": "float", "line": 15, "default": 1e-5}  # OmegaConf reads 1e-5 as a float
    assert keys["shuffle"]["type"] == "bool" and keys["train.grad_accum"] == {"type": "null", "line": 25, "default": None}
    assert keys["steps"]["default"] == [1, 2] and keys["extras"]["type"] == "dict"
    assert keys["model.mesh.shape"]["default"] == "(2,2)"
    assert keys["student.name"]["line"] == 2  # merged from the anchor: where it is written


def test_the_merge_facts_are_read_from_hyperparameters(toy):
    merge = toy.data["merge"]
    assert merge["env_prefix"] == "T_" and merge["argv_check"] and merge["base_in_package"] == "base_config.yaml"
    assert merge["override_file"] == "override_config_file" and merge["flattened_none"] == "null"
    assert sorted(merge["replaced_sections"]) == ["optimizer", "train"]
    assert merge["parsed_types"] == ["str", "int", "bool", "dict"]
    assert merge["inherited_roles"] == ["student", "teacher"] and merge["inherit_from"] == "model"


def test_each_validator_raise_is_a_rule_with_its_stage(toy):
    rules = {r["require"]: r for r in toy.rules}
    source = rules["model.source in ('hub', 'disk', '')"]
    assert source["stage"] == STARTUP and source["source"].endswith("HyperParameters._check_source")
    # an elif chain over a defaultdict: each arm's condition, the default's choices for the last
    family = [r for r in toy.rules if "model.source in" in r["require"] and r.get("when")]
    assert {r["when"] for r in family} >= {"startswith(model.name, 'big')", "not startswith(model.name, 'big')"}
    # a variable of the environment, read where the path that reaches it says
    token = next(r for r in toy.rules if "HUB_TOKEN" in (r.get("when") or ""))
    assert token["stage"] == STARTUP
    # the builders' __post_init__, with a helper inlined and a field the body resets followed
    after = [r for r in toy.rules if r["stage"] == AFTER_DOWNLOADS]
    assert any("kind(train.micro) not in ('bool', 'int')" in r["require"] for r in after)
    assert any("None if train.grad_accum == 1 else train.grad_accum" in r["require"] for r in after)
    assert all(r["stage"] in STAGES for r in toy.rules)


def test_what_a_helper_returns_is_followed_into_the_checks_after_it(toy):
    """`self.micro, self.rounds = checks.split(...)`: each name is what the helper's returns give
    on the paths that reach them, and the helper's own raises are rules too."""
    (rounds,) = [r for r in toy.rules if r["source"] == "tunix/core/settings.py:32 TrainSettings.__post_init__"]
    refused = parse(rounds["require"])
    values = {"train.eval_every": 10, "train.grad_accum": None}
    assert not evaluate(refused, {**values, "train.micro": 1}.get)  # 10 // 1 rounds
    assert evaluate(refused, {**values, "train.micro": 2}.get)
    assert evaluate(refused, {**values, "train.micro": None}.get)  # the helper returns 1
    (split,) = [r for r in toy.rules if r["source"] == "tunix/core/checks.py:18 split"]
    assert not evaluate(parse(split["require"]), {**values, "train.micro": 11}.get)
    assert not toy.unexpressible[1:]


def test_a_raise_the_rule_language_cannot_state_is_kept_with_its_reason_and_reach(toy):
    (hook,) = toy.unexpressible
    assert hook["reason"] == "the call self._load()" and hook["stage"] == STARTUP
    reached = parse(hook["when"])
    assert evaluate(reached, {"hook": "x.y", "argv0": "bin/train_main"}.get)  # a hook set, on train_main
    # `python -m` makes argv[0] the module's file: the raise before it stops the run first
    assert not evaluate(reached, {"hook": "x.y", "argv0": "tunix/cli/train_main.py"}.get)


def test_the_entry_points_builders_and_flags_are_read(toy):
    entry = toy.data["entries"]["train_main"]
    builders = {b["section"]: b for b in entry["builders"]}
    assert builders["train"]["class"] == "TrainSettings" and builders["train"]["via"] == "training"
    assert builders["train"]["added"] == [{"key": "optimizer_fn", "when_set": "optimizer"}]
    assert builders["train"]["fields"]["eval_every"]["required"]  # from the base class
    assert builders["train"]["dropped_containing"] == ["optimizer"] and "logging" in builders["train"]["options"]
    assert list(builders["tokenizer"]["fields"]) == ["kind", "path"]
    assert entry["flags"] == {"address": True, "quiet": False}


def test_the_written_pin_loads_as_the_import_says(toy, tmp_path):
    write_tunix(toy, tmp_path / "schema.json", tmp_path / "rules")
    pin = pin_from_data("tunix-9.9.9", json.loads((tmp_path / "schema.json").read_text()), tmp_path / "rules", "test")
    assert [r.id for r in pin.rules] == [r["id"] for r in toy.rules]
    assert pin.unexpressible[0].when is not None and pin.flags["train_main"]["quiet"] is False


@pytest.mark.parametrize(("make", "message"), [
    (lambda root: None, "not a Tunix source tree with tunix/cli/config.py"),
    (lambda root: (root / "tunix" / "cli" / "base_config.yaml").write_text("- a\n- b\n"), "a base config must be a mapping"),
    (lambda root: (root / "tunix" / "cli" / "config.py").write_text("x = 1\n"), "defines no class HyperParameters"),
])
def test_a_tree_flaglint_cannot_read_is_one_line(tmp_path, make, message):
    if "not a Tunix" not in message:
        (tmp_path / "tunix" / "cli").mkdir(parents=True)
        for name in ("config.py", "base_config.yaml"):
            (tmp_path / "tunix" / "cli" / name).write_text((TOY / "tunix" / "cli" / name).read_text())
    make(tmp_path)
    with pytest.raises(InputError, match=message):
        import_tunix(tmp_path)
    done = run_flaglint("schema", "import", str(tmp_path), "-o", str(tmp_path / "out.json"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_schema_import_writes_a_tunix_tree_as_a_pin(tmp_path):
    done = run_flaglint("schema", "import", str(TOY), "-o", str(tmp_path / "tunix.json"), "--rules", str(tmp_path / "rules"))
    assert done.returncode == 0, done.stderr
    assert "tunix 9.9.9: base_config.yaml: 10 top-level keys" in done.stdout
    assert json.loads((tmp_path / "tunix.json").read_text())["version"] == "9.9.9"
    assert (tmp_path / "rules" / "rules.yml").is_file()


def test_the_bundled_releases_hold_what_each_tag_has():
    assert bundled_tunix_pins() == tuple(f"tunix-0.1.{n}" for n in range(8))
    top = {pin: sum("." not in k for k in load_tunix_pin(pin).bases["base_config.yaml"]) for pin in bundled_tunix_pins()}
    assert [top[f"tunix-0.1.{n}"] for n in range(8)] == [20, 20, 23, 23, 23, 23, 25, 28]
    latest = load_tunix_pin("tunix-0.1.7")
    assert sum("." not in k for k in latest.bases["base_agentic_config.yaml"]) == 38
    assert [bool(load_tunix_pin(p).merge["override_file"]) for p in bundled_tunix_pins()] == [False] * 6 + [True] * 2
    sources = next(r for r in latest.rules if r.require_text.startswith("model_config.model_source in"))
    assert "'maxtext'" in sources.require_text and sources.stage == STARTUP
    for pin in map(load_tunix_pin, bundled_tunix_pins()):
        assert len({r.id for r in pin.rules} | {u.id for u in pin.unexpressible}) == len(pin.rules) + len(pin.unexpressible)
        assert {"grpo_main", "peft_main"} <= set(pin.entries) and all(r.stage in STAGES for r in pin.rules)
